{{/*
Alert rules on the fleet forecast's gauges (version_policy_forecast_*, docs/operations/metrics.md):
forced updates within 7 and 30 days, predicted maintenance failures, and a forecast that has
stopped being remade. Every replica computes the same forecast, so the rules take the max.
The argument is a dict holding the series selector as "sel".
*/}}
{{- define "version-policy.alerts.forecast" -}}
{{- $sel := .sel }}
{{- $what := `{{ if $labels.image }}image {{ $labels.image }}{{ else }}Kubernetes{{ end }} {{ $labels.version }}` }}
- alert: VersionPolicyForcedUpdateWithin7Days
  expr: max by (profile, image, version) (version_policy_forecast_forced_update_shoots{ {{- $sel }},within="7d"}) > 0
  for: 15m
  labels:
    severity: warning
  annotations:
    summary: '{{ "{{ $value }}" }} Shoots on {{ "{{ $labels.profile }}" }} are forcibly updated off {{ $what }} within 7 days.'
    description: Their maintenance updates them whether they opted out or not. version-policy forecast --cluster lists each Shoot, its window and its target; /profiles draws them. See docs/forecast.md.
- alert: VersionPolicyForcedUpdatesWithin30Days
  expr: max by (profile, image, version) (version_policy_forecast_forced_update_shoots{ {{- $sel }},within="30d"}) > 0
  for: 1h
  labels:
    severity: info
  annotations:
    summary: '{{ "{{ $value }}" }} Shoots on {{ "{{ $labels.profile }}" }} are forcibly updated off {{ $what }} within 30 days.'
    description: Time to tell their owners, or to extend the expiry (a NamespacedCloudProfile can). See docs/forecast.md.
- alert: VersionPolicyMaintenanceWillFail
  expr: max by (profile, image, version) (version_policy_forecast_failure_shoots{ {{- $sel }}}) > 0
  for: 15m
  labels:
    severity: warning
  annotations:
    summary: '{{ "{{ $value }}" }} Shoots on {{ "{{ $labels.profile }}" }} are predicted to fail maintenance on {{ $what }}.'
    description: No target for a forced update (no consecutive minor, end of life under major, no version for the pool's architecture, CRI or kubelet), or a run the API server would reject. version-policy forecast --cluster names the kind; see docs/forecast.md ("Failures").
- alert: VersionPolicyForecastStale
  expr: max by (pod) (version_policy_forecast_age_seconds{ {{- $sel }}}) > 1800
  for: 10m
  labels:
    severity: warning
  annotations:
    summary: '{{ "{{ $labels.pod }}" }} has not remade its fleet forecast for {{ "{{ $value | humanizeDuration }}" }}.'
    description: The forecast is remade every 5 minutes once the cluster state has synced; the forecast alerts above read old counts meanwhile. See docs/operations/troubleshooting.md ("cluster state not ready").
{{- end }}
