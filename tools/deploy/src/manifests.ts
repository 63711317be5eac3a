import { HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

/** One rendered Kubernetes object, as plain JSON. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

interface Validatable {
  validate(): void;
}

/**
 * The kinds the chart renders, each with its model from `kubernetes-models` (generated from
 * the Kubernetes OpenAPI schemas; `validate()` checks types, formats, enums and required
 * fields). A kind not listed here fails validation: a new kind in the chart needs its schema.
 */
const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
};

export function parseManifests(rendered: string): Manifest[] {
  return parseAllDocuments(rendered)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors[0]?.message}`);
      return document.toJS() as Manifest | null;
    })
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** Schema errors of one manifest, or an empty list. */
export function schemaErrors(manifest: Manifest): string[] {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  const where = `${manifest.kind}/${manifest.metadata?.name}`;
  if (!Model) return [`${where}: no schema for ${manifest.apiVersion} ${manifest.kind}`];
  try {
    new Model(manifest as never).validate();
    return [];
  } catch (error) {
    return [`${where}: ${(error as Error).message}`];
  }
}

export function ofKind<T = Manifest>(manifests: Manifest[], kind: string): Array<Manifest & T> {
  return manifests.filter((manifest) => manifest.kind === kind) as Array<Manifest & T>;
}

/** True when every label of the selector is on the pod. */
export function selects(selector: Record<string, string> | undefined, podLabels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => podLabels?.[key] === value);
}
