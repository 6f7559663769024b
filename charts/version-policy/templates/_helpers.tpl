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

{{/* The Secret the self-managed mode keeps its CA and serving certificate in. */}}
{{- define "version-policy.selfManagedSecretName" -}}
{{- printf "%s-certs" (include "version-policy.fullname" .) }}
{{- end }}

{{/*
certs.mode selfSigned (and its certs.selfSigned block) are gone: Helm generated that CA at render
time, so every `helm template` (Argo CD, Flux) made a new one, and it was never rotated. An old
values file gets this message instead of a certificate.
*/}}
{{- define "version-policy.checkCertMode" -}}
{{- if or (eq .Values.certs.mode "selfSigned") (hasKey .Values.certs "selfSigned") }}
{{- fail "certs.mode=selfSigned and certs.selfSigned were removed: Helm generated that CA at render time (a new one on every helm template, Argo CD or Flux render) and never rotated it. Use certs.mode=selfManaged (the default), where the server makes, stores and rotates its own CA and keeps the webhooks' caBundle current, and delete certs.selfSigned from your values. To upgrade without a TLS outage, follow 'Upgrading from selfSigned' in docs/operations/certificates.md." }}
{{- end }}
{{- end }}

{{/*
The caBundle the self-managed server last published in a webhook entry, read from the cluster.
Carried into the manifest so that Helm's three-way merge never deletes a caBundle that an earlier
release rendered (selfSigned, provided): a field the old manifest set and the new one lacks is
removed, and kube-apiserver would then trust no certificate until the server published again.
Nothing is generated: without a cluster (helm template, Argo CD) this is empty, and the rendered
output is the same on every render. Takes (dict "root" $ "kind" <Kind> "webhook" <entry name>).
*/}}
{{- define "version-policy.liveCABundle" -}}
{{- $live := lookup "admissionregistration.k8s.io/v1" .kind "" (include "version-policy.fullname" .root) | default dict }}
{{- include "version-policy.caBundleOf" (dict "object" $live "webhook" .webhook) }}
{{- end }}

{{/* The caBundle of the entry named .webhook in the webhook configuration .object; empty if none. */}}
{{- define "version-policy.caBundleOf" -}}
{{- range (dig "webhooks" list .object) }}
{{- if eq (dig "name" "" .) $.webhook }}{{ dig "clientConfig" "caBundle" "" . }}{{ end }}
{{- end }}
{{- end }}

{{/*
The webhook clientConfig.caBundle line for the modes that set it; cert-manager injects its own.
Takes (dict "root" $ "kind" <Kind> "webhook" <entry name>), or the root context.
*/}}
{{- define "version-policy.caBundle" -}}
{{- $root := . }}
{{- if hasKey . "root" }}{{ $root = .root }}{{ end }}
{{- if eq $root.Values.certs.mode "selfManaged" }}
{{- with (and (hasKey . "kind") (include "version-policy.liveCABundle" .)) }}
caBundle: {{ . }}
{{- end }}
{{- else if eq $root.Values.certs.mode "provided" }}
{{- $bundle := $root.Values.certs.provided.caBundle }}
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
{{- if eq .Values.certs.mode "selfManaged" }}
{{- $fullname := include "version-policy.fullname" . }}
{{- $names := dict "enabled" true "namespace" .Release.Namespace "secretName" (include "version-policy.selfManagedSecretName" .) "serviceName" $fullname "validatingWebhookConfiguration" $fullname "mutatingWebhookConfiguration" $fullname }}
{{- $_ := set $server "tls" (dict "selfManaged" (merge $names (deepCopy (default dict .Values.certs.selfManaged)))) }}
{{- else }}
{{- $_ := set $server "tls" (dict "certFile" "/etc/version-policy/tls/tls.crt" "keyFile" "/etc/version-policy/tls/tls.key") }}
{{- end }}
{{- $_ := set $cfg "server" $server }}
{{- toYaml $cfg }}
{{- end }}

{{- define "version-policy.probePort" -}}
{{- dig "server" "probePort" 0 .Values.config | int }}
{{- end }}
