{{/*
Alert rules on the policy reports' writer (version_policy_reports_*, docs/reports.md), rendered only
when config.reports.enabled: no replica holds the Lease, leadership lost again and again, audits or
writes failing, and reports not written for three intervals. The argument is a dict holding the
series selector as "sel" and the reports' config as "reports".
*/}}
{{- define "version-policy.alerts.reports" -}}
{{- $sel := .sel }}
{{- $stale := mul 3 (default 600 .reports.intervalSeconds) }}
- alert: VersionPolicyReportsNoWriter
  expr: max(version_policy_reports_leader{ {{- $sel }}}) < 1
  for: 5m
  labels:
    severity: warning
  annotations:
    summary: No replica holds the reports Lease; the policy reports are not being written.
    description: The holder lost the Lease and no replica took it over (API server unreachable, or the Lease RBAC missing). See docs/reports.md ("One writer").
- alert: VersionPolicyReportsLeadershipLost
  expr: sum(increase(version_policy_reports_leadership_changes_total{ {{- $sel }},to="standby"}[1h])) > 3
  for: 5m
  labels:
    severity: info
  annotations:
    summary: The reports Lease was lost {{ "{{ $value }}" }} times in the last hour.
    description: A holder that cannot renew within two thirds of reports.lease.durationSeconds stops writing; frequent losses mean slow or failing Lease updates. See docs/reports.md ("One writer").
- alert: VersionPolicyReportsFailing
  expr: sum by (stage) (increase(version_policy_reports_failures_total{ {{- $sel }}}[30m])) > 0
  for: 30m
  labels:
    severity: warning
  annotations:
    summary: 'Policy report {{ "{{ $labels.stage }}" }}s keep failing.'
    description: The holder's log says why (component reports). See docs/reports.md.
- alert: VersionPolicyReportsStale
  expr: time() - max(version_policy_reports_last_success_timestamp_seconds{ {{- $sel }}} > 0) > {{ $stale }}
  for: 10m
  labels:
    severity: warning
  annotations:
    summary: The policy reports have not been written for {{ "{{ $value | humanizeDuration }}" }}.
    description: Three intervals (reports.intervalSeconds) without a successful write. See docs/reports.md.
{{- end }}
