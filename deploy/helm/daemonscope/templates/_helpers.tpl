{{/* The release's full name: the release name, or RELEASE-daemonscope when it does not say daemonscope. */}}
{{- define "daemonscope.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "daemonscope.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "daemonscope.labels" -}}
{{ include "daemonscope.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "daemonscope.serviceAccountName" -}}
{{- default (include "daemonscope.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The port the Service targets: oauth2-proxy's when auth is on, else daemonscope's. */}}
{{- define "daemonscope.servedPort" -}}
{{- if .Values.auth.enabled -}}{{ .Values.auth.oauth2Proxy.port }}{{- else -}}{{ .Values.containerPort }}{{- end -}}
{{- end -}}

{{/* The restricted Pod Security Standard, for every container. */}}
{{- define "daemonscope.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}
