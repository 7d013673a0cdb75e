/**
 * The Kubernetes package (deploy/kubernetes, a Kustomize base, and every overlay of
 * deploy/kubernetes-overlays), rendered offline with `kubectl kustomize` as a platform team would,
 * each object validated against its schema, and each item of the contract's Kubernetes list checked
 * on what renders: the objects, the replica count left to the HPA and its own scale-down policy,
 * memory request = limit ≥ the soak's RSS, minReadySeconds, the drain and its derived grace
 * period, the generated ConfigMap, secrets as files, probes and metrics on OPS_PORT, the restricted
 * profile, the PDB, the zone spread (hard in every overlay), the Prometheus Operator's objects.
 * Who can reach what: kubernetes-network.test.ts. The alert rules: test/deploy/.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config';
import { parseDuration } from '../../src/config/duration';
import { BASE, docsSnippet, one, OVERLAYS, render, renderOverlayOfBase, ROOT, validate, validateAgainstApi, type Any, type K8sObject } from './kubernetes-objects';

const SECRET_VARIABLES = ['CREDENTIAL_KEY', 'OPS_TOKEN', 'REDIS_URL', 'CACHE_REDIS_URL', 'CREDENTIAL_KEY_PREVIOUS'];

/** Bytes of a Kubernetes memory quantity (`768Mi`, `1Gi`, `512M`, a number). */
function bytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity: ${quantity}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9 }[match[2] ?? ''] ?? 1;
  return Number(match[1]) * unit;
}

/** The highest RSS the soak measured (bench/README.md's goal table: `(start → end MiB`). */
function soakRssBytes(): number {
  const row = readFileSync(path.join(ROOT, 'bench/README.md'), 'utf8').split('\n').find((line) => line.includes('npm run soak') && line.includes('RSS'));
  const figures = [...(row ?? '').matchAll(/\(([\d.]+) → ([\d.]+) MiB/g)].flatMap((match) => [Number(match[1]), Number(match[2])]);
  if (!figures.length) throw new Error('bench/README.md has no soak RSS figure');
  return Math.max(...figures) * 2 ** 20;
}

/** A rendering's gateway pieces, looked up once. */
function gatewayOf(objects: readonly K8sObject[]) {
  const deployment = one(objects, 'Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers.find((entry: Any) => entry.name === 'gateway');
  const env = (name: string): Any => container.env.find((entry: Any) => entry.name === name);
  const containerPort = (port: string | number): number => (typeof port === 'number' ? port : container.ports.find((entry: Any) => entry.name === port)?.containerPort);
  const podLabels: Record<string, string> = deployment.spec.template.metadata.labels;
  /** Whether a label selector picks the Deployment's pods (and names at least the component). */
  const selectsPods = (selector: Any) => Boolean(selector?.matchLabels?.['app.kubernetes.io/component']) && Object.entries(selector.matchLabels).every(([key, value]) => podLabels[key] === value);
  const services = objects.filter((object) => object.kind === 'Service') as Any[];
  /** The container ports a Service forwards to. */
  const servicePorts = (service: Any): number[] => service.spec.ports.map((entry: Any) => containerPort(entry.targetPort));
  return { deployment, pod, container, env, containerPort, selectsPods, services, servicePorts, port: Number(env('PORT').value), opsPort: Number(env('OPS_PORT').value) };
}

const renderings = [BASE, ...OVERLAYS].map((folder) => ({ folder, objects: render(folder), overlay: folder !== BASE }));
const base = renderings[0]!.objects;

describe.each(renderings)('$folder', ({ folder, objects, overlay }) => {
  const gateway = gatewayOf(objects);
  const { deployment, pod, container, env } = gateway;
  const hpa = one(objects, 'HorizontalPodAutoscaler');

  it('holds a Deployment, a Service for traffic and one for metrics, a PodDisruptionBudget, an autoscaling/v2 HorizontalPodAutoscaler, a NetworkPolicy, a ServiceAccount without token and a ConfigMap, and no Secret', () => {
    const core = objects.filter((object) => !object.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(core.map((object) => `${object.apiVersion} ${object.kind}`).sort()).toEqual([
      'apps/v1 Deployment',
      'autoscaling/v2 HorizontalPodAutoscaler',
      'networking.k8s.io/v1 NetworkPolicy',
      'policy/v1 PodDisruptionBudget',
      'v1 ConfigMap',
      'v1 Service',
      'v1 Service',
      'v1 ServiceAccount',
    ]);
    expect(one(objects, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
    if (overlay) expect(new Set(objects.map((object) => object.metadata.namespace)).size, 'one namespace for everything').toBe(1);
  });

  it('holds only objects their schemas accept (the API\'s, or the Prometheus Operator kinds\' shape)', () => {
    for (const object of objects) expect(() => validate(object), `${object.kind} ${object.metadata.name}`).not.toThrow();
  });

  it('leaves the replica count to the HPA: no replicas field, at least two replicas, its own scale-down and scale-up policies', () => {
    expect(deployment.spec).not.toHaveProperty('replicas');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    // Not only the default window: a policy of its own, at most one pod at a time.
    expect(hpa.spec.behavior.scaleDown.policies.length).toBeGreaterThan(0);
    expect(hpa.spec.behavior.scaleDown.stabilizationWindowSeconds).toBeGreaterThanOrEqual(60);
    expect(hpa.spec.behavior.scaleDown.policies).toContainEqual(expect.objectContaining({ type: 'Pods', value: 1 }));
    expect(hpa.spec.behavior.scaleUp.policies.length).toBeGreaterThan(0);
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
  });

  it('reserves the memory it may use: request equal to the limit and at least the soak\'s RSS; CPU request and limit', () => {
    const { requests, limits } = container.resources;
    expect(requests.memory).toBe(limits.memory);
    expect(bytes(requests.memory)).toBeGreaterThanOrEqual(soakRssBytes());
    expect(requests.cpu).toEqual(expect.any(String));
    expect(limits.cpu).toEqual(expect.any(String));
  });

  it('counts a new pod available only after minReadySeconds, and surges one before draining one', () => {
    expect(deployment.spec.minReadySeconds).toBeGreaterThanOrEqual(5);
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
  });

  it('drains for SHUTDOWN_DELAY (at least 10 s) and SHUTDOWN_TIMEOUT, with terminationGracePeriodSeconds their sum + 5 s, as its comment shows', () => {
    const delay = (parseDuration(env('SHUTDOWN_DELAY').value as string) ?? Number.NaN) / 1000;
    const timeout = (parseDuration(env('SHUTDOWN_TIMEOUT').value as string) ?? Number.NaN) / 1000;
    expect(delay).toBeGreaterThanOrEqual(10);
    expect(pod.terminationGracePeriodSeconds).toBe(delay + timeout + 5);
    const source = readFileSync(path.join(ROOT, BASE, 'deployment.yaml'), 'utf8');
    expect(source).toContain(`# ${pod.terminationGracePeriodSeconds} = SHUTDOWN_DELAY (${delay} s) + SHUTDOWN_TIMEOUT (${timeout} s) + 5 s`);
  });

  it('reads its configuration from a generated ConfigMap (a hash of its content in its name) holding the upstream URLs and the OTLP endpoint', () => {
    const config = one(objects, 'ConfigMap');
    expect(config.metadata.name).toMatch(/^statement-gateway-config-[a-z0-9]{10}$/);
    expect(container.envFrom).toEqual([{ configMapRef: { name: config.metadata.name } }]);
    expect(Object.keys(config.data)).toEqual(expect.arrayContaining(['UPSTREAM_SANDBOX_URL', 'UPSTREAM_PRODUCTION_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT']));
    for (const name of SECRET_VARIABLES) expect(config.data, name).not.toHaveProperty(name);
  });

  it('takes its secrets as files from a read-only Secret volume, never as environment variables', () => {
    for (const entry of container.env as Any[]) expect(entry.valueFrom?.secretKeyRef, entry.name).toBeUndefined();
    expect(container.envFrom.every((source: Any) => !source.secretRef)).toBe(true);
    for (const name of SECRET_VARIABLES) expect(env(name), name).toBeUndefined();
    const files = (container.env as Any[]).filter((entry) => entry.name.endsWith('_FILE') && entry.name !== 'SERVICE_ACCOUNTS_FILE');
    expect(files.map((entry) => entry.name)).toEqual(expect.arrayContaining(['CREDENTIAL_KEY_FILE', 'OPS_TOKEN_FILE', 'REDIS_URL_FILE']));
    for (const file of files) {
      const mount = container.volumeMounts.find((entry: Any) => path.dirname(file.value) === entry.mountPath);
      expect(mount, file.name).toMatchObject({ readOnly: true });
      const volume = pod.volumes.find((entry: Any) => entry.name === mount.name);
      const sources = volume.secret ? [{ secret: { name: volume.secret.secretName, optional: volume.secret.optional } }] : volume.projected.sources;
      expect(sources.length, file.name).toBeGreaterThan(0);
      // Only Secrets in it, none optional: a missing one stops the pod with an event naming it.
      for (const source of sources) expect(source.secret, file.name).toMatchObject({ name: expect.stringMatching(/^statement-gateway/) });
      for (const source of sources) expect(source.secret.optional, file.name).not.toBe(true);
      // Readable by the gateway's group (fsGroup), by nobody else, and written by nobody.
      expect((volume.projected?.defaultMode ?? volume.secret?.defaultMode) & 0o027).toBe(0);
    }
    expect(objects.some((object) => object.kind === 'Secret')).toBe(false);
    expect(JSON.stringify(objects)).not.toMatch(/PASSWORD|password=|rediss?:\/\/[^"]*@/i);
  });

  it('serves probes, /metrics and /ops/ on OPS_PORT: the traffic Service exposes PORT only, the metrics Service OPS_PORT only', () => {
    expect(gateway.opsPort).not.toBe(gateway.port);
    expect(container.ports.map((entry: Any) => entry.containerPort).sort()).toEqual([gateway.port, gateway.opsPort].sort());
    expect(container.readinessProbe.httpGet.path).toBe('/readiness');
    expect(container.livenessProbe.httpGet.path).toBe('/healthcheck');
    expect(container.startupProbe.httpGet.path).toBe('/healthcheck');
    for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) expect(gateway.containerPort(container[probe].httpGet.port), probe).toBe(gateway.opsPort);
    const traffic = one(objects, 'Service', 'statement-gateway');
    const metrics = one(objects, 'Service', 'statement-gateway-metrics');
    expect(gateway.servicePorts(traffic)).toEqual([gateway.port]);
    expect(gateway.servicePorts(metrics)).toEqual([gateway.opsPort]);
    for (const service of gateway.services) expect(gateway.selectsPods({ matchLabels: service.spec.selector }), service.metadata.name).toBe(true);
    // Every Service is one of the two: nothing else exposes a port.
    expect(gateway.services).toHaveLength(2);
  });

  it('runs under the restricted profile: non-root, read-only root filesystem, no escalation, no capability, RuntimeDefault seccomp, NODE_ENV=production', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(env('NODE_ENV').value).toBe('production');
    // The one writable path, an emptyDir: what test/e2e/production-start.test.ts leaves writable.
    const writable = container.volumeMounts.filter((mount: Any) => !mount.readOnly);
    expect(writable).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(pod.volumes.find((volume: Any) => volume.name === 'tmp')).toEqual({ name: 'tmp', emptyDir: expect.objectContaining({ sizeLimit: expect.any(String) }) });
  });

  it('has a PodDisruptionBudget on the Deployment\'s pods that lets one go at a time and always lets unhealthy pods be evicted', () => {
    const budget = one(objects, 'PodDisruptionBudget').spec;
    expect(budget.selector).toEqual(deployment.spec.selector);
    expect(gateway.selectsPods(budget.selector)).toBe(true);
    expect(budget).toMatchObject({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
    expect(hpa.spec.minReplicas).toBeGreaterThan(budget.maxUnavailable);
  });

  it(overlay ? 'spreads the pods across zones with a hard constraint, and across nodes' : 'spreads the pods across zones and nodes, softly (an overlay makes the zone hard)', () => {
    const spread = pod.topologySpreadConstraints as Any[];
    expect(spread.map((constraint) => constraint.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const constraint of spread) {
      expect(constraint.maxSkew).toBe(1);
      expect(gateway.selectsPods(constraint.labelSelector), constraint.topologyKey).toBe(true);
    }
    const zone = spread.find((constraint) => constraint.topologyKey === 'topology.kubernetes.io/zone');
    expect(zone.whenUnsatisfiable).toBe(overlay ? 'DoNotSchedule' : 'ScheduleAnyway');
  });

  it('gives the gateway an environment its production guard accepts, with the Secret\'s files where the *_FILE variables say', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sgw-secrets-'));
    try {
      const values: Record<string, string> = {
        CREDENTIAL_KEY_FILE: `${Buffer.alloc(32, 7).toString('base64')}\n`,
        OPS_TOKEN_FILE: `${'x'.repeat(32)}\n`,
        REDIS_URL_FILE: 'rediss://gateway:secret@redis.example.com:6380\n',
        CACHE_REDIS_URL_FILE: 'rediss://gateway:secret@redis-cache.example.com:6380\n',
      };
      const variables: Record<string, string> = { ...one(objects, 'ConfigMap').data };
      for (const entry of container.env as Any[]) {
        if (!(entry.name in values)) variables[entry.name] = entry.value;
        else {
          const file = path.join(dir, path.basename(entry.value as string));
          writeFileSync(file, values[entry.name]!);
          variables[entry.name] = file;
        }
      }
      const loaded = loadConfig(variables);
      expect(loaded.production).toBe(true);
      expect(loaded.port).toBe(gateway.port);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(objects.some((object) => object.kind === 'ServiceMonitor'))('scrapes /metrics through the metrics Service only, with the ops token\'s own Secret, as job statement-gateway, labelled for kube-prometheus-stack', () => {
    const monitor = one(objects, 'ServiceMonitor');
    expect(monitor.metadata.labels.release).toEqual(expect.any(String));
    const selected = gateway.services.filter((service) => Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => service.metadata.labels?.[key] === value));
    expect(selected.map((service) => service.metadata.name)).toEqual(['statement-gateway-metrics']);
    const endpoint = monitor.spec.endpoints[0];
    expect(monitor.spec.endpoints).toHaveLength(1);
    expect(endpoint).toMatchObject({ path: '/metrics', authorization: { type: 'Bearer', credentials: { name: 'statement-gateway-ops-token', key: 'ops-token' } } });
    const port = selected[0].spec.ports.find((entry: Any) => entry.name === endpoint.port);
    expect(gateway.containerPort(port.targetPort)).toBe(gateway.opsPort);
    // The alert rules and the dashboard select job="statement-gateway": the job comes from this label.
    expect(selected[0].metadata.labels[monitor.spec.jobLabel]).toBe('statement-gateway');
    // The Secret Prometheus reads is the one of the gateway's OPS_TOKEN_FILE, and holds nothing else it reads.
    const file = env('OPS_TOKEN_FILE').value as string;
    const mount = container.volumeMounts.find((entry: Any) => entry.mountPath === path.dirname(file));
    const volume = pod.volumes.find((entry: Any) => entry.name === mount.name);
    expect(volume.secret).toMatchObject({ secretName: 'statement-gateway-ops-token', items: [{ key: 'ops-token', path: path.basename(file) }] });
    for (const name of ['CREDENTIAL_KEY_FILE', 'REDIS_URL_FILE']) expect(path.dirname(env(name).value as string), name).not.toBe(mount.mountPath);
  });

  it.runIf(objects.some((object) => object.kind === 'PrometheusRule'))('holds the alert rules of deploy/prometheus/alerts.yml in a PrometheusRule labelled for kube-prometheus-stack', () => {
    const rule = one(objects, 'PrometheusRule');
    expect(rule.metadata.labels.release).toEqual(expect.any(String));
    const source = parseYaml(readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: unknown[] };
    expect(rule.spec.groups).toEqual(source.groups);
  });

  it.runIf(folder === 'deploy/kubernetes-overlays/example')('shows an overlay with its namespace, image, configuration, a cache Redis, the hard spread and both Prometheus Operator objects', () => {
    expect(objects.map((object) => object.kind)).toEqual(expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']));
    expect(container.image).toBe('registry.example.com/statement-gateway:0.1.0');
    expect(one(objects, 'ConfigMap').data).toMatchObject({ HTTPS_PROXY: expect.stringMatching(/^http:\/\//), NO_PROXY: expect.any(String) });
    expect(env('CACHE_REDIS_URL_FILE').value).toBe(`${path.dirname(env('REDIS_URL_FILE').value as string)}/cache-redis-url`);
  });
});

describe('the ConfigMap\'s generated name', () => {
  it('changes with its content, so a configuration change in an overlay rolls the pods', () => {
    const changed = renderOverlayOfBase({ configMapGenerator: [{ name: 'statement-gateway-config', behavior: 'merge', literals: ['LOG_LEVEL=debug'] }] });
    const before = one(base, 'ConfigMap').metadata.name as string;
    const after = one(changed, 'ConfigMap').metadata.name as string;
    expect(after).not.toBe(before);
    expect(gatewayOf(changed).container.envFrom).toEqual([{ configMapRef: { name: after } }]);
  });
});

describe('the schema check can fail', () => {
  it('refuses a Deployment whose replica count is not a number, and a PrometheusRule with a field the CRD does not have', () => {
    const deployment = one(base, 'Deployment');
    expect(() => validateAgainstApi({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } })).toThrow(/replicas/);
    const rule = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'x' }, spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up', fro: '5m' }] }] } };
    expect(() => validate(rule)).toThrow(/fro/);
  });
});

describe('overlays made of the patches docs/kubernetes.md shows', () => {
  it('mounts SERVICE_ACCOUNTS_FILE from a Secret, read-only, beside the emptyDir and the secrets folder', () => {
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
    // The base's env and mounts are still there.
    expect(gateway.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(gateway.volumeMounts).toContainEqual(expect.objectContaining({ name: 'secrets', readOnly: true }));
    expect(gateway.env.find((entry: Any) => entry.name === 'CREDENTIAL_KEY_FILE')).toBeDefined();
    // The contract reads each account's password from the variable its passwordEnv names: the one
    // place a secret is an environment variable, from that Secret.
    const passwords = gateway.env.filter((entry: Any) => entry.name.endsWith('_PASSWORD'));
    expect(passwords.length).toBeGreaterThan(0);
    for (const entry of passwords) expect(entry.valueFrom.secretKeyRef.name).toBe(volume.secret.secretName);
  });

  it('labels the ServiceMonitor and the PrometheusRule for another kube-prometheus-stack release', () => {
    const overlay = renderOverlayOfBase({ components: ['deploy/kubernetes/components/service-monitor', 'deploy/kubernetes/components/prometheus-rule'], ...(parseYaml(docsSnippet('release: monitoring')) as Record<string, unknown>) });
    expect(one(overlay, 'ServiceMonitor').metadata.labels.release).toBe('monitoring');
    expect(one(overlay, 'PrometheusRule').metadata.labels.release).toBe('monitoring');
  });
});
