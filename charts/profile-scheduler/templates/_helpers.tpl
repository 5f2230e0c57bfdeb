{{/*
Name of the chart, overridable with nameOverride.
*/}}
{{- define "profile-scheduler.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the objects: the release name when it already contains the chart
name, else <release>-<chart>; fullnameOverride wins.
*/}}
{{- define "profile-scheduler.fullname" -}}
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

{{- define "profile-scheduler.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object.
*/}}
{{- define "profile-scheduler.labels" -}}
helm.sh/chart: {{ include "profile-scheduler.chart" . }}
{{ include "profile-scheduler.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: profile-scheduler
{{- end }}

{{/*
Labels that select the operator pods; they never change across upgrades.
*/}}
{{- define "profile-scheduler.selectorLabels" -}}
app.kubernetes.io/name: {{ include "profile-scheduler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
control-plane: controller-manager
{{- end }}

{{/*
ServiceAccount the operator runs as.
*/}}
{{- define "profile-scheduler.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "profile-scheduler.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Name of the webhook Service; the operator is told it with --webhook-service-name.
*/}}
{{- define "profile-scheduler.webhookServiceName" -}}
{{- printf "%s-webhook" (include "profile-scheduler.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Name of the Service in front of the leader's bind arbiter only.
*/}}
{{- define "profile-scheduler.arbiterServiceName" -}}
{{- printf "%s-bind-arbiter" (include "profile-scheduler.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Name of the ValidatingWebhookConfiguration. It is fixed: the operator patches
the caBundle of the object with this name.
*/}}
{{- define "profile-scheduler.webhookConfigurationName" -}}
profile-scheduler-validating-webhook
{{- end }}

{{/*
Name of the MutatingAdmissionPolicy and binding that carry the ProfileRoutes:
<fullname>-routes (profile-scheduler-routes for a release called
profile-scheduler), so that two releases each have their own. The chart
creates both, the ClusterRole names them, and the operator is told it with
--routes-policy-name.
*/}}
{{- define "profile-scheduler.routesPolicyName" -}}
{{- printf "%s-routes" (include "profile-scheduler.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
How the webhook gets its serving certificate: certManager, selfSigned (the
operator generates it) or secret (a Secret the user provides).
*/}}
{{- define "profile-scheduler.webhookCertMode" -}}
{{- if .Values.webhook.certManager.enabled }}certManager
{{- else if .Values.webhook.selfSigned }}selfSigned
{{- else }}secret
{{- end }}
{{- end }}

{{/*
Secret the webhook serving certificate is mounted from (not selfSigned).
*/}}
{{- define "profile-scheduler.webhookCertSecret" -}}
{{- if .Values.webhook.certManager.enabled }}
{{- printf "%s-webhook-tls" (include "profile-scheduler.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- required "webhook.certSecret is required when webhook.selfSigned is false" .Values.webhook.certSecret }}
{{- end }}
{{- end }}

{{/*
The only namespace whose Secrets the operator reads (extender TLS material).
*/}}
{{- define "profile-scheduler.extenderSecretsNamespace" -}}
{{- .Values.extenderSecrets.namespace | default .Release.Namespace }}
{{- end }}
