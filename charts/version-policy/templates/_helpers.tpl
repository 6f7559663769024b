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
{{- dig "server" "probePort" 8080 .Values.config | int }}
{{- end }}

{{/*
The chart's matchConditions (CEL; Kubernetes >= 1.28), then the operator's. All must be true for a
request to reach the webhook. A field read without has() is an evaluation error, and an error
under failurePolicy Fail rejects the write: every optional field below is guarded.
Argument: dict "root" $ "shoots" bool (whether this webhook sees Shoots).
*/}}
{{- define "version-policy.matchConditions" -}}
{{- $w := .root.Values.webhook }}
{{- $conditions := list }}
{{- with $w.exemptUsernames }}
{{- $conditions = append $conditions (dict "name" "exempt-gardener-users" "expression" (printf "!has(request.userInfo.username) || !(request.userInfo.username in %s)" (toJson .))) }}
{{- end }}
{{- with $w.exemptGroups }}
{{- $conditions = append $conditions (dict "name" "exempt-gardener-groups" "expression" (printf "!has(request.userInfo.groups) || !request.userInfo.groups.exists(g, g in %s)" (toJson .))) }}
{{- end }}
{{- if and .shoots $w.skipUnjudgedShootUpdates }}
{{- $conditions = append $conditions (dict "name" "shoot-update-changes-judged-fields" "expression" (include "version-policy.shootJudgedFieldsChanged" .root)) }}
{{- end }}
{{- $conditions = concat $conditions ($w.matchConditions | default list) }}
{{- if gt (len $conditions) 64 }}
{{- fail (printf "webhook.matchConditions: %d conditions with the chart's own; the API allows 64 per webhook" (len $conditions)) }}
{{- end }}
{{- $names := list }}
{{- range $conditions }}
{{- if has .name $names }}
{{- fail (printf "webhook.matchConditions: the name %q is used twice (the chart's own: exempt-gardener-users, exempt-gardener-groups, shoot-update-changes-judged-fields)" .name) }}
{{- end }}
{{- $names = append $names .name }}
{{- end }}
{{- toJson $conditions }}
{{- end }}

{{/*
True unless the request is a Shoot UPDATE that leaves every field the Shoot rules judge as it was:
the control-plane version, the profile reference (cloudProfileName and cloudProfile), and per
worker, in order, its name, Kubernetes version and machine image name and version (so adding,
removing or renaming a worker counts). Metadata, status and everything else in spec do not.
Cost: linear in the number of workers, one pass over each object.
*/}}
{{- define "version-policy.shootJudgedFieldsChanged" -}}
{{- $shoot := "(has(SHOOT.spec.kubernetes) && has(SHOOT.spec.kubernetes.version) ? SHOOT.spec.kubernetes.version : '') + '|' + (has(SHOOT.spec.cloudProfileName) ? SHOOT.spec.cloudProfileName : '') + '|' + (has(SHOOT.spec.cloudProfile) && has(SHOOT.spec.cloudProfile.kind) ? SHOOT.spec.cloudProfile.kind : '') + '/' + (has(SHOOT.spec.cloudProfile) && has(SHOOT.spec.cloudProfile.name) ? SHOOT.spec.cloudProfile.name : '')" }}
{{- $workers := "(has(SHOOT.spec.provider) && has(SHOOT.spec.provider.workers) ? SHOOT.spec.provider.workers : []).map(w, (has(w.name) ? w.name : '') + '|' + (has(w.kubernetes) && has(w.kubernetes.version) ? w.kubernetes.version : '') + '|' + (has(w.machine) && has(w.machine.image) && has(w.machine.image.name) ? w.machine.image.name : '') + '|' + (has(w.machine) && has(w.machine.image) && has(w.machine.image.version) ? w.machine.image.version : ''))" }}
{{- printf "request.resource.resource != 'shoots' || request.operation != 'UPDATE' || !has(object.spec) || !has(oldObject.spec) || %s != %s || %s != %s" (replace "SHOOT." "object." $shoot) (replace "SHOOT." "oldObject." $shoot) (replace "SHOOT." "object." $workers) (replace "SHOOT." "oldObject." $workers) }}
{{- end }}

{{/* Egress to DNS and the API server, shared by the webhook's and the uninstall hook's NetworkPolicy. */}}
{{- define "version-policy.egressRules" -}}
{{- $api := .Values.networkPolicy.egress.apiServer }}
{{- if and $api.serviceIPs (not $api.endpointIPs) }}
{{- fail "networkPolicy.egress.apiServer: serviceIPs without endpointIPs. Most CNIs enforce policy after DNAT, where the kubernetes Service's IP is already replaced by an endpoint's: set endpointIPs to the addresses of `kubectl get endpointslices -n default -l kubernetes.io/service-name=kubernetes` (docs/operations/network-policy.md)" }}
{{- end }}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- if or $api.serviceIPs $api.endpointIPs }}
{{- with $api.serviceIPs }}
# The kubernetes Service's IP, for CNIs that enforce policy before DNAT.
- to:
    {{- range . }}
    - ipBlock:
        cidr: {{ include "version-policy.cidr" . }}
    {{- end }}
  ports:
    {{- range $api.servicePorts }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}
# The API server's own addresses, for CNIs that enforce policy after DNAT.
- to:
    {{- range $api.endpointIPs }}
    - ipBlock:
        cidr: {{ include "version-policy.cidr" . }}
    {{- end }}
  ports:
    {{- range $api.endpointPorts }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- else }}
# No addresses given: any destination on the API server's ports.
- ports:
    {{- range (concat $api.servicePorts $api.endpointPorts | uniq) }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- end }}

{{/* An address as a CIDR: a bare IP becomes a /32 (IPv4) or /128 (IPv6). */}}
{{- define "version-policy.cidr" -}}
{{- if contains "/" . }}{{ . }}{{ else if contains ":" . }}{{ . }}/128{{ else }}{{ . }}/32{{ end }}
{{- end }}

{{/* The uninstall hook's labels: not the selector labels, so neither the Service nor the PDB selects its pod. */}}
{{- define "version-policy.uninstallHookLabels" -}}
app.kubernetes.io/name: {{ printf "%s-uninstall" (include "version-policy.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: uninstall-hook
{{- end }}
