/**
 * The Kubernetes package (deploy/kubernetes, a Kustomize base), rendered offline with
 * `kubectl kustomize` as a platform team would, and checked for the contract's facts: the objects
 * it holds, probes, the drain's grace period, the restricted security profile, secrets by
 * reference only, the NetworkPolicy's ports, the PDB, the HPA, the spread across nodes, an
 * environment the gateway's own production guard accepts; the example overlay, and overlays made
 * of the patches docs/kubernetes.md shows, render and validate too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { loadConfig } from '../../src/config';
import { parseDuration } from '../../src/config/duration';

const ROOT = path.resolve(__dirname, '../..');
const require = createRequire(__filename);

/**
 * Validates an object against the Kubernetes API's OpenAPI schema offline (kubernetes-models: one
 * class per kind, under its API group and version), throwing what is wrong. Unknown fields pass:
 * the schemas allow them, as the API server's non-strict decoding does.
 */
function validateAgainstApi(object: K8sObject): void {
  const modulePath = `kubernetes-models/${object.apiVersion}`;
  const models = require(modulePath) as Record<string, new (data: K8sObject) => { validate(): void }>;
  const Model = models[object.kind];
  if (!Model) throw new Error(`${modulePath} has no ${object.kind}`);
  new Model(object).validate();
}

interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

function render(folder: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', path.resolve(ROOT, folder)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${folder} failed: ${result.stderr || String(result.error)}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as K8sObject);
}

/** An overlay of the base in a temporary folder (its kustomization's fields, files beside it), rendered. */
function renderOverlayOfBase(kustomization: Record<string, unknown>, files: Record<string, string> = {}): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-overlay-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const resources = [path.relative(dir, path.join(ROOT, 'deploy/kubernetes'))];
    writeFileSync(path.join(dir, 'kustomization.yaml'), stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources, ...kustomization }));
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The YAML block of docs/kubernetes.md that holds `marker`. */
function docsSnippet(marker: string): string {
  const blocks = [...readFileSync(path.join(ROOT, 'docs/kubernetes.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const found = blocks.filter((block) => block.includes(marker));
  expect(found, marker).toHaveLength(1);
  return found[0] ?? '';
}

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are read as the YAML gives them */
type Any = any;

const base = render('deploy/kubernetes');
const one = (objects: readonly K8sObject[], kind: string): Any => {
  const found = objects.filter((object) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};
const deployment = one(base, 'Deployment');
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const envOf = (name: string): Any => container.env.find((entry: Any) => entry.name === name);
const podLabels: Record<string, string> = deployment.spec.template.metadata.labels;
/** Whether a label selector picks the Deployment's pods. */
const selectsPods = (selector: Any) => Object.keys(selector.matchLabels).length > 0 && Object.entries(selector.matchLabels).every(([key, value]) => podLabels[key] === value);
/** Each port of a NetworkPolicy's rules, as `port/protocol`. */
const portsOf = (rules: Any[]): string[] => rules.flatMap((rule) => rule.ports.map((entry: Any) => `${entry.port}/${entry.protocol}`)).sort();

describe('the Kubernetes package', () => {
  it('renders offline into a Deployment, Service, PodDisruptionBudget, HorizontalPodAutoscaler, NetworkPolicy, ServiceAccount and ConfigMap', () => {
    expect(base.map((object) => `${object.apiVersion} ${object.kind}`).sort()).toEqual([
      'apps/v1 Deployment',
      'autoscaling/v2 HorizontalPodAutoscaler',
      'networking.k8s.io/v1 NetworkPolicy',
      'policy/v1 PodDisruptionBudget',
      'v1 ConfigMap',
      'v1 Service',
      'v1 ServiceAccount',
    ]);
    expect(one(base, 'HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 2, scaleTargetRef: { kind: 'Deployment', name: deployment.metadata.name } });
    expect(one(base, 'NetworkPolicy').spec.policyTypes).toEqual(['Ingress', 'Egress']);
  });

  it('holds only objects that the Kubernetes API schemas accept', () => {
    for (const object of base) expect(() => validateAgainstApi(object), `${object.kind} ${object.metadata.name}`).not.toThrow();
    // The check can fail: a replica count that is not a number is refused.
    expect(() => validateAgainstApi({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } })).toThrow(/replicas/);
  });

  it('runs at least two replicas with readiness on /readiness, liveness and startup on /healthcheck', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(container.readinessProbe.httpGet.path).toBe('/readiness');
    expect(container.livenessProbe.httpGet.path).toBe('/healthcheck');
    expect(container.startupProbe.httpGet.path).toBe('/healthcheck');
  });

  it('gives the drain its time: terminationGracePeriodSeconds covers SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT + 5 s', () => {
    const delay = parseDuration(envOf('SHUTDOWN_DELAY').value as string) ?? Number.NaN;
    const timeout = parseDuration(envOf('SHUTDOWN_TIMEOUT').value as string) ?? Number.NaN;
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(delay + timeout + 5_000);
  });

  it('runs under the restricted profile: non-root, read-only root filesystem, no escalation, no capability, RuntimeDefault seccomp, no service-account token', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(one(base, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    // The one writable path is declared.
    expect(container.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    // ... and it is an emptyDir: the path test/e2e/production-start.test.ts leaves writable.
    expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: expect.objectContaining({ sizeLimit: expect.any(String) }) }]);
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
  });

  it('takes CREDENTIAL_KEY, OPS_TOKEN, the Redis URLs and the OTLP headers only from Secret references, and no Secret is in the package', () => {
    for (const name of ['CREDENTIAL_KEY', 'OPS_TOKEN', 'REDIS_URL', 'CACHE_REDIS_URL', 'OTEL_EXPORTER_OTLP_HEADERS']) {
      expect(envOf(name), name).toEqual({ name, valueFrom: { secretKeyRef: expect.objectContaining({ name: 'statement-gateway' }) } });
    }
    // What a deployment may leave out of the Secret.
    for (const name of ['CACHE_REDIS_URL', 'OTEL_EXPORTER_OTLP_HEADERS']) expect(envOf(name).valueFrom.secretKeyRef.optional, name).toBe(true);
    expect(base.some((object) => object.kind === 'Secret')).toBe(false);
    const literal = JSON.stringify(base);
    expect(literal).not.toMatch(/PASSWORD|password=|rediss?:\/\/[^"]*@/i);
  });

  it('gives the gateway an environment its production guard accepts, once the secrets are there', () => {
    const config = one(base, 'ConfigMap').data as Record<string, string>;
    const literals = Object.fromEntries(container.env.filter((entry: Any) => 'value' in entry).map((entry: Any) => [entry.name, entry.value]));
    const secrets = { CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64'), OPS_TOKEN: 'x'.repeat(32), REDIS_URL: 'rediss://gateway:secret@redis.example.com:6380' };
    const loaded = loadConfig({ ...config, ...literals, ...secrets });
    expect(loaded.production).toBe(true);
    expect(loaded.port).toBe(container.ports[0].containerPort);
  });

  it('lets traffic in on the gateway\'s port only, and out to DNS (UDP and TCP), Redis (6379, TLS 6380, Sentinel 26379), the upstream (443) and OTLP (4318)', () => {
    const policy = one(base, 'NetworkPolicy');
    expect(selectsPods(policy.spec.podSelector)).toBe(true);
    expect(portsOf(policy.spec.ingress)).toEqual([`${container.ports[0].containerPort}/TCP`]);
    expect(portsOf(policy.spec.egress)).toEqual(['26379/TCP', '4318/TCP', '443/TCP', '53/TCP', '53/UDP', '6379/TCP', '6380/TCP']);
  });

  it('spreads the pods across nodes and zones', () => {
    const spread = pod.topologySpreadConstraints as Any[];
    expect(spread.map((constraint) => constraint.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const constraint of spread) {
      expect(constraint.maxSkew).toBe(1);
      expect(selectsPods(constraint.labelSelector), constraint.topologyKey).toBe(true);
    }
  });

  it('has a PodDisruptionBudget on the Deployment\'s pods that lets one go at a time and keeps the rest', () => {
    const budget = one(base, 'PodDisruptionBudget').spec;
    expect(budget.selector).toEqual(deployment.spec.selector);
    expect(selectsPods(budget.selector)).toBe(true);
    expect(budget).toMatchObject({ maxUnavailable: 1 });
    expect(budget.minAvailable).toBeUndefined();
    expect(deployment.spec.replicas).toBeGreaterThan(budget.maxUnavailable);
  });

  it('scales on CPU utilisation (autoscaling/v2), from two replicas', () => {
    const hpa = one(base, 'HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
    expect(hpa.spec.metrics[0].resource.target.averageUtilization).toBeGreaterThan(0);
    expect(hpa.spec.metrics[0].resource.target.averageUtilization).toBeLessThanOrEqual(100);
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('adds a ServiceMonitor reading OPS_TOKEN from the Secret through its component, in an overlay', () => {
    const overlay = render('deploy/kubernetes-overlays/example');
    const monitor = one(overlay, 'ServiceMonitor');
    expect(monitor.spec.endpoints[0]).toMatchObject({ path: '/metrics', authorization: { credentials: { name: 'statement-gateway', key: 'ops-token' } } });
    expect(new Set(overlay.map((object) => object.metadata.namespace))).toEqual(new Set(['statement-gateway']));
    expect(one(overlay, 'Deployment').spec.template.spec.containers[0].image).toBe('registry.example.com/statement-gateway:0.1.0');
    expect(one(overlay, 'Service').metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
    expect(one(overlay, 'Service').spec.ports.map((port: Any) => port.name)).toContain(monitor.spec.endpoints[0].port);
  });

  it('renders the example overlay into objects the Kubernetes API schemas accept, as the base', () => {
    const overlay = render('deploy/kubernetes-overlays/example');
    // The ServiceMonitor is the Prometheus Operator's: kubernetes-models has no schema for it (checked above).
    const core = overlay.filter((object) => object.apiVersion !== 'monitoring.coreos.com/v1');
    expect(core.map((object) => object.kind).sort()).toEqual(base.map((object) => object.kind).sort());
    for (const object of core) expect(() => validateAgainstApi(object), `${object.kind} ${object.metadata.name}`).not.toThrow();
  });
});

describe('overlays made of the patches docs/kubernetes.md shows', () => {
  it('mounts SERVICE_ACCOUNTS_FILE from a Secret, read-only, with each password from that Secret, beside the emptyDir', () => {
    const overlay = renderOverlayOfBase({ patches: [{ path: 'service-accounts.yaml' }] }, { 'service-accounts.yaml': docsSnippet('SERVICE_ACCOUNTS_FILE') });
    for (const object of overlay) expect(() => validateAgainstApi(object), `${object.kind} ${object.metadata.name}`).not.toThrow();
    const patched = one(overlay, 'Deployment').spec.template.spec;
    const gateway = patched.containers[0];
    const file = gateway.env.find((entry: Any) => entry.name === 'SERVICE_ACCOUNTS_FILE').value as string;
    const mount = gateway.volumeMounts.find((entry: Any) => entry.name === 'service-accounts');
    expect(mount.readOnly).toBe(true);
    expect(path.dirname(file)).toBe(mount.mountPath);
    const volume = patched.volumes.find((entry: Any) => entry.name === 'service-accounts');
    expect(volume.secret.items).toEqual([{ key: path.basename(file), path: path.basename(file) }]);
    // The base's env and writable path are still there.
    expect(gateway.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(gateway.env.find((entry: Any) => entry.name === 'CREDENTIAL_KEY')).toBeDefined();
    const passwords = gateway.env.filter((entry: Any) => entry.name.endsWith('_PASSWORD'));
    expect(passwords.length).toBeGreaterThan(0);
    for (const entry of passwords) expect(entry.valueFrom.secretKeyRef.name).toBe(volume.secret.secretName);
  });

  it('adds an egress port (an http:// upstream on 8080) to the NetworkPolicy and keeps the others', () => {
    const overlay = renderOverlayOfBase(parseYaml(docsSnippet('kind: NetworkPolicy')) as Record<string, unknown>);
    const policy = one(overlay, 'NetworkPolicy');
    expect(() => validateAgainstApi(policy)).not.toThrow();
    expect(portsOf(policy.spec.egress)).toEqual([...portsOf(one(base, 'NetworkPolicy').spec.egress), '8080/TCP'].sort());
  });
});
