{{/*
The services of the system, one row each: values key, resource name, whether it owns a
database (and so gets a migration Job), whether it is the public HTTP edge, whether it reads
REDIS_URL. Every per-service template ranges over this table.
*/}}
{{- define "gw.serviceTable" -}}
apiGateway: { name: api-gateway, database: false, edge: true, redis: true }
management: { name: management, database: true, edge: false, redis: false }
inference: { name: inference, database: true, edge: false, redis: true }
batch: { name: batch, database: true, edge: false, redis: false }
internSigning: { name: intern-signing, database: true, edge: false, redis: true }
{{- end -}}

{{- define "gw.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Resource name of one service: <fullname>-<service>. Argument: dict root, name. */}}
{{- define "gw.name" -}}
{{- printf "%s-%s" (include "gw.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gw.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/part-of: inference-gateway
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/* Selector labels of one service. Argument: dict root, name. */}}
{{- define "gw.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{- define "gw.labels" -}}
{{ include "gw.commonLabels" .root }}
{{ include "gw.selectorLabels" . }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* <registry>/<repository>:<tag>. Argument: dict root, image. */}}
{{- define "gw.image" -}}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .image.repository $tag -}}
{{- end -}}

{{- define "gw.natsUrl" -}}
{{- if .Values.global.bundled.nats -}}
{{- printf "nats://%s-nats:4222" .Release.Name -}}
{{- else -}}
{{- .Values.externalNats.url -}}
{{- end -}}
{{- end -}}

{{/* Secret holding one service's sensitive variables. Argument: dict root, key, name. */}}
{{- define "gw.secretName" -}}
{{- $values := index .root.Values .key -}}
{{- $values.existingSecret | default (include "gw.name" .) -}}
{{- end -}}

{{/*
Environment entries that make DATABASE_URL point at the bundled PostgreSQL: the password
comes from the PostgreSQL chart's Secret and is spliced in by Kubernetes' $(VAR) expansion.
Argument: dict root, database, urlVar.
*/}}
{{- define "gw.bundledDatabaseEnv" -}}
{{- $bundled := .root.Values.global.bundled -}}
- name: GW_POSTGRES_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $bundled.postgresqlPasswordSecret | default (printf "%s-postgresql" .root.Release.Name) }}
      key: {{ $bundled.postgresqlPasswordKey }}
- name: {{ .urlVar }}
  value: {{ printf "postgresql://postgres:$(GW_POSTGRES_PASSWORD)@%s-postgresql:5432/%s" .root.Release.Name .database | quote }}
{{- end -}}

{{- define "gw.redisSecretName" -}}
{{- .Values.redis.existingSecret | default (printf "%s-redis" (include "gw.fullname" .)) -}}
{{- end -}}

{{- define "gw.redisEnabled" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret }}true{{ end -}}
{{- end -}}

{{- define "gw.catalogJson" -}}
{{- .Values.catalog.json | default (.Files.Get "files/models.json") -}}
{{- end -}}

{{/*
Management's OIDC client (ADR 0037): issuer, client id and redirect URL as plain variables,
the client secret from a Secret (clientSecretRef, else OIDC_CLIENT_SECRET of management's
own Secret through envFrom). Argument: root.
*/}}
{{- define "gw.oidcEnv" -}}
{{- $oidc := .Values.management.oidc -}}
{{- $redirect := $oidc.redirectUrl -}}
{{- if and (not $redirect) .Values.ingress.enabled -}}
{{- $redirect = printf "https://%s/v1/identity/oidc/callback" .Values.ingress.host -}}
{{- end -}}
- name: OIDC_ISSUER_URL
  value: {{ $oidc.issuerUrl | quote }}
- name: OIDC_CLIENT_ID
  value: {{ required "management.oidc.clientId is required with management.oidc.issuerUrl" $oidc.clientId | quote }}
- name: OIDC_REDIRECT_URL
  value: {{ required "management.oidc.redirectUrl is required with management.oidc.issuerUrl (or enable the Ingress)" $redirect | quote }}
- name: OIDC_LOGIN_TTL_SECONDS
  value: {{ $oidc.loginTtlSeconds | toString | quote }}
{{- if $oidc.clientSecretRef.name }}
- name: OIDC_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ $oidc.clientSecretRef.name }}
      key: {{ $oidc.clientSecretRef.key }}
{{- end }}
{{- end -}}
