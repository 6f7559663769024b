{{/*
Alert rules on version_policy_certificate_expiry_timestamp_seconds, for every certificate mode
(the "ca" series exists in the selfManaged mode only). A list of rules: include it in a
PrometheusRule group, e.g.

  groups:
    - name: version-policy-certificates
      rules:
        {{- include "version-policy.alerts.certificates" . | nindent 8 }}

Thresholds: certs.alerts. With the default durations (selfManaged and certManager renew 30 days
before expiry, selfManaged starts a CA rotation 90 days before), a warning means renewal has
failed for over two weeks.
*/}}
{{- define "version-policy.alerts.certificates" -}}
{{- $a := .Values.certs.alerts }}
{{- $metric := printf "version_policy_certificate_expiry_timestamp_seconds{namespace=%q" .Release.Namespace }}
- alert: VersionPolicyCertificateExpiresSoon
  expr: min by (namespace, pod) ({{ $metric }}, certificate="serving"}) - time() < {{ $a.servingWarningDays }} * 86400
  for: 1h
  labels:
    severity: warning
  annotations:
    summary: The version-policy webhook's serving certificate expires in under {{ $a.servingWarningDays }} days.
    description: '{{ "{{ $labels.pod }}" }} serves a certificate that expires in {{ "{{ $value | humanizeDuration }}" }} (certs.mode {{ .Values.certs.mode }}); renewal should have happened long ago. See docs/operations/certificates.md.'
- alert: VersionPolicyCertificateExpiresVerySoon
  expr: min by (namespace, pod) ({{ $metric }}, certificate="serving"}) - time() < {{ $a.servingCriticalDays }} * 86400
  for: 10m
  labels:
    severity: critical
  annotations:
    summary: The version-policy webhook's serving certificate expires in under {{ $a.servingCriticalDays }} days; with failurePolicy Fail, writes to CloudProfiles and Shoots then fail.
    description: '{{ "{{ $labels.pod }}" }} serves a certificate that expires in {{ "{{ $value | humanizeDuration }}" }} (certs.mode {{ .Values.certs.mode }}). See docs/operations/certificates.md.'
- alert: VersionPolicyCACertificateExpiresSoon
  expr: min by (namespace, pod) ({{ $metric }}, certificate="ca"}) - time() < {{ $a.caWarningDays }} * 86400
  for: 1h
  labels:
    severity: warning
  annotations:
    summary: The version-policy webhook's self-managed CA expires in under {{ $a.caWarningDays }} days; its rotation has not completed.
    description: '{{ "{{ $labels.pod }}" }} still signs with a CA that expires in {{ "{{ $value | humanizeDuration }}" }}. Its logs say why the rotation stalls. See docs/operations/certificates.md.'
{{- end }}
