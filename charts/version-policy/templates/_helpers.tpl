{{/* Names and labels. */}}
{{- define "version-policy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "version-policy.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "version-policy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "version-policy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "version-policy.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "version-policy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: admission-webhook
{{- end }}

{{- define "version-policy.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* The Service's in-cluster DNS names: what the serving certificate must cover. */}}
{{- define "version-policy.serviceDNSNames" -}}
{{- $svc := include "version-policy.fullname" . }}
{{- list $svc (printf "%s.%s" $svc .Release.Namespace) (printf "%s.%s.svc" $svc .Release.Namespace) (printf "%s.%s.svc.cluster.local" $svc .Release.Namespace) | toJson }}
{{- end }}

{{/* The Secret with tls.crt and tls.key that the pod mounts. */}}
{{- define "version-policy.tlsSecretName" -}}
{{- if eq .Values.certs.mode "provided" }}
{{- .Values.certs.provided.secretName }}
{{- else }}
{{- printf "%s-tls" (include "version-policy.fullname" .) }}
{{- end }}
{{- end }}

{{/*
selfSigned mode: one CA and serving pair per render, shared by the Secret and both webhook
configurations. genCA is random on every call, so the first caller stores the result on
.Values; an existing Secret (lookup) wins, so an upgrade keeps the certificate the
kube-apiserver already trusts. Returns JSON: {"caCert","tlsCert","tlsKey"}.
*/}}
{{- define "version-policy.selfSignedPair" -}}
{{- if not (hasKey .Values "__selfSignedPair") }}
{{- $name := include "version-policy.tlsSecretName" . }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name }}
{{- $data := dict }}
{{- if $existing }}{{ $data = $existing.data | default dict }}{{ end }}
{{- $pair := dict }}
{{- if and (index $data "ca.crt") (index $data "tls.crt") (index $data "tls.key") }}
{{- $pair = dict "caCert" (index $data "ca.crt" | b64dec) "tlsCert" (index $data "tls.crt" | b64dec) "tlsKey" (index $data "tls.key" | b64dec) }}
{{- else }}
{{- $days := int .Values.certs.selfSigned.validityDays }}
{{- $ca := genCA (printf "%s CA" (include "version-policy.fullname" .)) $days }}
{{- $dnsNames := include "version-policy.serviceDNSNames" . | fromJsonArray }}
{{- $cert := genSignedCert (index $dnsNames 2) nil $dnsNames $days $ca }}
{{- $pair = dict "caCert" $ca.Cert "tlsCert" $cert.Cert "tlsKey" $cert.Key }}
{{- end }}
{{- $_ := set .Values "__selfSignedPair" $pair }}
{{- end }}
{{- index .Values "__selfSignedPair" | toJson }}
{{- end }}

{{/* The webhook clientConfig.caBundle line for the modes that set it; cert-manager injects its own. */}}
{{- define "version-policy.caBundle" -}}
{{- if eq .Values.certs.mode "selfSigned" }}
caBundle: {{ (include "version-policy.selfSignedPair" . | fromJson).caCert | b64enc }}
{{- else if eq .Values.certs.mode "provided" }}
{{- $bundle := .Values.certs.provided.caBundle }}
caBundle: {{ ternary ($bundle | b64enc) $bundle (contains "-----BEGIN" $bundle) }}
{{- end }}
{{- end }}

{{- define "version-policy.webhookAnnotations" -}}
{{- if eq .Values.certs.mode "certManager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s-serving" .Release.Namespace (include "version-policy.fullname" .) }}
{{- end }}
{{- end }}

{{/* The config file the pod reads: values.config plus the keys the chart owns. */}}
{{- define "version-policy.config" -}}
{{- $cfg := deepCopy .Values.config }}
{{- $server := deepCopy (default dict $cfg.server) }}
{{- $_ := set $server "host" "0.0.0.0" }}
{{- $_ := set $server "port" 9443 }}
{{- $_ := set $server "tls" (dict "certFile" "/etc/version-policy/tls/tls.crt" "keyFile" "/etc/version-policy/tls/tls.key") }}
{{- $_ := set $cfg "server" $server }}
{{- toYaml $cfg }}
{{- end }}

{{- define "version-policy.probePort" -}}
{{- dig "server" "probePort" 0 .Values.config | int }}
{{- end }}
