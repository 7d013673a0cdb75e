/**
 * What the tests of deploy/kubernetes share: rendering the base, each overlay and overlays made in
 * a temporary folder (`kubectl kustomize`, no cluster), finding objects in a rendering, the YAML
 * blocks of docs/kubernetes.md, and validation against the Kubernetes API's schemas
 * (kubernetes-models) or, for the Prometheus Operator's kinds, against their shape.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { renderKustomization, type K8sObject } from '../../scripts/kustomize-render';

export type { K8sObject } from '../../scripts/kustomize-render';

export const ROOT = path.resolve(__dirname, '../..');
export const BASE = 'deploy/kubernetes';
const require = createRequire(__filename);

export const render = (folder: string): K8sObject[] => renderKustomization(path.resolve(ROOT, folder));

/** Every overlay the repository ships: each folder of deploy/kubernetes-overlays/. */
export const OVERLAYS: readonly string[] = readdirSync(path.join(ROOT, 'deploy/kubernetes-overlays'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => `deploy/kubernetes-overlays/${entry.name}`);

/** An overlay of the base in a temporary folder (its kustomization's fields, files beside it), rendered. */
export function renderOverlayOfBase(kustomization: Record<string, unknown>, files: Record<string, string> = {}): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-overlay-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const relative = (folder: string) => path.relative(dir, path.join(ROOT, folder));
    const components = ((kustomization.components ?? []) as string[]).map(relative);
    const document = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [relative(BASE)], ...kustomization, ...(components.length ? { components } : {}) };
    writeFileSync(path.join(dir, 'kustomization.yaml'), stringify(document));
    return renderKustomization(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The one YAML block of docs/kubernetes.md that holds `marker`. */
export function docsSnippet(marker: string): string {
  const blocks = [...readFileSync(path.join(ROOT, 'docs/kubernetes.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const found = blocks.filter((block) => block.includes(marker));
  if (found.length !== 1) throw new Error(`docs/kubernetes.md has ${found.length} YAML blocks holding ${marker}, not one`);
  return found[0] ?? '';
}

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are read as the YAML gives them */
export type Any = any;

/** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
export function one(objects: readonly K8sObject[], kind: string, name?: string): Any {
  const found = objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  if (found.length !== 1) throw new Error(`${found.length} ${kind}${name ? ` ${name}` : ''} objects, not one`);
  return found[0];
}

/**
 * Validates an object against the Kubernetes API's OpenAPI schema offline (kubernetes-models: one
 * class per kind, under its API group and version), throwing what is wrong. Unknown fields pass, as
 * the API server's non-strict decoding lets them: the tests assert each field they rely on by name.
 */
export function validateAgainstApi(object: K8sObject): void {
  const modulePath = `kubernetes-models/${object.apiVersion}`;
  const models = require(modulePath) as Record<string, new (data: K8sObject) => { validate(): void }>;
  const Model = models[object.kind];
  if (!Model) throw new Error(`${modulePath} has no ${object.kind}`);
  new Model(object).validate();
}

const DURATION = /^(\d+(ms|[smhdwy]))+$/;
const isStringMap = (value: unknown) => typeof value === 'object' && value !== null && Object.values(value).every((entry) => typeof entry === 'string');

function onlyKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length) throw new Error(`${where}: unknown field ${unknown.join(', ')}`);
}

/**
 * The Prometheus Operator's kinds, checked against the parts of their CRDs (monitoring.coreos.com/v1)
 * this package uses: the fields it may hold, their types, durations Prometheus parses.
 */
export function validateOperatorObject(object: K8sObject): void {
  const spec: Any = (object as Any).spec;
  if (object.apiVersion !== 'monitoring.coreos.com/v1') throw new Error(`${object.kind}: apiVersion ${object.apiVersion}`);
  if (!isStringMap(object.metadata.labels ?? {})) throw new Error(`${object.kind}: labels must be strings`);
  if (object.kind === 'ServiceMonitor') {
    onlyKeys('ServiceMonitor spec', spec, ['selector', 'endpoints', 'jobLabel', 'namespaceSelector', 'targetLabels', 'podTargetLabels', 'sampleLimit']);
    if (!isStringMap(spec.selector?.matchLabels) || !Object.keys(spec.selector.matchLabels).length) throw new Error('ServiceMonitor: selector.matchLabels');
    if (!Array.isArray(spec.endpoints) || !spec.endpoints.length) throw new Error('ServiceMonitor: endpoints');
    for (const endpoint of spec.endpoints as Any[]) {
      onlyKeys('ServiceMonitor endpoint', endpoint, ['port', 'targetPort', 'path', 'scheme', 'interval', 'scrapeTimeout', 'authorization', 'tlsConfig', 'relabelings', 'metricRelabelings', 'honorLabels']);
      if (typeof endpoint.port !== 'string' || typeof endpoint.path !== 'string' || !['http', 'https', undefined].includes(endpoint.scheme)) throw new Error('ServiceMonitor: endpoint port, path or scheme');
      if (endpoint.interval !== undefined && !DURATION.test(endpoint.interval)) throw new Error(`ServiceMonitor: interval ${endpoint.interval}`);
      const auth = endpoint.authorization;
      if (auth && (auth.type !== 'Bearer' || typeof auth.credentials?.name !== 'string' || typeof auth.credentials?.key !== 'string')) throw new Error('ServiceMonitor: authorization');
    }
    return;
  }
  if (object.kind === 'PrometheusRule') {
    onlyKeys('PrometheusRule spec', spec, ['groups']);
    if (!Array.isArray(spec.groups) || !spec.groups.length) throw new Error('PrometheusRule: groups');
    for (const group of spec.groups as Any[]) {
      onlyKeys(`group ${group.name}`, group, ['name', 'interval', 'rules']);
      if (typeof group.name !== 'string' || !Array.isArray(group.rules)) throw new Error('PrometheusRule: group name or rules');
      for (const rule of group.rules as Any[]) {
        onlyKeys(`rule ${rule.alert}`, rule, ['alert', 'expr', 'for', 'labels', 'annotations']);
        if (typeof rule.alert !== 'string' || typeof rule.expr !== 'string') throw new Error(`PrometheusRule: rule ${rule.alert} needs alert and expr`);
        if (rule.for !== undefined && !DURATION.test(rule.for)) throw new Error(`PrometheusRule: ${rule.alert} for ${rule.for}`);
        if (!isStringMap(rule.labels ?? {}) || !isStringMap(rule.annotations ?? {})) throw new Error(`PrometheusRule: ${rule.alert} labels and annotations must be strings`);
      }
    }
    return;
  }
  throw new Error(`no shape known for ${object.kind}`);
}

/** Validates any object this package renders: the API's schema, or the operator kinds' shape. */
export function validate(object: K8sObject): void {
  if (object.apiVersion.startsWith('monitoring.coreos.com/')) validateOperatorObject(object);
  else validateAgainstApi(object);
}
