{{/*
Names, labels and shared fragments. Object names the operator writes (policy ConfigMap,
key-ring and API-key Secrets, tenant-settings ConfigMap) are derived here once and passed to the
operator through its environment (common/src/k8s/operator-settings.ts), so chart and operator
agree on them.
*/}}

{{- define "veil.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "veil.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "veil.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "veil.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: veil
{{- end -}}

{{/* Selector labels of one component: include "veil.selectorLabels" (list . "server") */}}
{{- define "veil.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "veil.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "veil.image" -}}
{{- $image := index . 0 -}}
{{- $root := index . 1 -}}
{{- printf "%s:%s" $image.repository (default $root.Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/* Objects written by the operator, mounted by the server. */}}
{{- define "veil.policyConfigMap" -}}{{ include "veil.fullname" . }}-policies{{- end -}}
{{- define "veil.keyRingSecret" -}}{{ include "veil.fullname" . }}-keyrings{{- end -}}
{{- define "veil.apiKeysSecret" -}}{{ include "veil.fullname" . }}-api-keys{{- end -}}
{{- define "veil.tenantsConfigMap" -}}{{ include "veil.fullname" . }}-tenants{{- end -}}
{{- define "veil.nerName" -}}{{ include "veil.fullname" . }}-ner{{- end -}}
{{- define "veil.leaseName" -}}{{ include "veil.fullname" . }}-operator{{- end -}}

{{/* Secrets the chart generates unless an existing one is named. */}}
{{- define "veil.sessionSecret" -}}{{ default (printf "%s-session" (include "veil.fullname" .)) .Values.session.existingSecret }}{{- end -}}
{{- define "veil.auditSecret" -}}{{ default (printf "%s-audit" (include "veil.fullname" .)) .Values.audit.existingSecret }}{{- end -}}
{{- define "veil.operatorKeySecret" -}}{{ include "veil.fullname" . }}-operator-api-key{{- end -}}
{{- define "veil.nerKeySecret" -}}{{ include "veil.fullname" . }}-ner-api-key{{- end -}}
{{- define "veil.redisSecret" -}}{{ include "veil.fullname" . }}-redis{{- end -}}

{{/* Where Tenants' API-key Secrets live: the only namespace whose Secrets the operator may read. */}}
{{- define "veil.tenantKeysNamespace" -}}{{ default (printf "%s-tenant-keys" .Release.Namespace) .Values.tenantApiKeys.namespace }}{{- end -}}

{{/* True ("true") when the server stores shared state in Redis. */}}
{{- define "veil.redisEnabled" -}}
{{- if or .Values.redis.enabled .Values.redis.external.existingSecret -}}true{{- end -}}
{{- end -}}

{{/*
A random secret kept across upgrades: the value already stored in the named Secret (lookup,
empty under `helm template`), else fresh random bytes. include "veil.keptSecret" (list . name key bytes)
*/}}
{{/* Like veil.keptSecret, but an alphanumeric token (safe inside a redis:// URL). */}}
{{- define "veil.keptToken" -}}
{{- $root := index . 0 -}}
{{- $existing := lookup "v1" "Secret" $root.Release.Namespace (index . 1) -}}
{{- if and $existing $existing.data (hasKey $existing.data (index . 2)) -}}
{{- index $existing.data (index . 2) -}}
{{- else -}}
{{- randAlphaNum (index . 3) | b64enc -}}
{{- end -}}
{{- end -}}

{{- define "veil.keptSecret" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $key := index . 2 -}}
{{- $existing := lookup "v1" "Secret" $root.Release.Namespace $name -}}
{{- if and $existing $existing.data (hasKey $existing.data $key) -}}
{{- index $existing.data $key -}}
{{- else -}}
{{- randBytes (index . 3) | b64enc -}}
{{- end -}}
{{- end -}}

{{/* Pod and container security settings shared by every workload of the chart. */}}
{{- define "veil.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "veil.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: [ALL]
{{- end -}}

{{/* Checks across values that the JSON schema cannot express. */}}
{{- define "veil.validate" -}}
{{- if and .Values.redis.enabled .Values.redis.external.existingSecret -}}
{{- fail "redis.enabled and redis.external.existingSecret are exclusive: run the in-release Redis or name an external one" -}}
{{- end -}}
{{- if and .Values.audit.persistence.enabled (not .Values.audit.persistence.existingClaim) (ne .Values.audit.persistence.accessMode "ReadWriteMany") (gt (int .Values.server.replicas) 1) -}}
{{- fail "audit.persistence.accessMode must be ReadWriteMany when server.replicas > 1 (every replica writes its own audit file on the shared claim)" -}}
{{- end -}}
{{- if and .Values.redis.enabled (not .Values.redis.persistence.enabled) (not .Values.redis.allowNonDurable) -}}
{{- fail "redis.persistence.enabled=false loses revocations when the Redis pod restarts, and the server refuses such a Redis: enable persistence, or set redis.allowNonDurable=true to accept the loss" -}}
{{- end -}}
{{- if and .Values.ner.enabled (not .Values.operator.enabled) -}}
{{- fail "ner.enabled needs operator.enabled: the operator runs the NER sidecar" -}}
{{- end -}}
{{- end -}}
