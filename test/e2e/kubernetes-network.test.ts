/**
 * The NetworkPolicy of deploy/kubernetes, read back as "who can reach what" (scripts/network-reach.ts:
 * one row per peer and port) for the base and every overlay: the gateway's PORT only from the
 * ingress controller, OPS_PORT only from the monitoring namespace; out only to DNS, Redis, the
 * OTLP collector and the upstream or its egress proxy, each peer named by the overlay (the base's
 * placeholders admit nobody). And the patches docs/kubernetes.md shows for other peers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { reachOf, type NetworkPolicy } from '../../scripts/network-reach';
import { BASE, docsSnippet, one, OVERLAYS, render, renderOverlayOfBase, ROOT, validateAgainstApi, type Any, type K8sObject } from './kubernetes-objects';

const DNS = 'pods k8s-app=kube-dns in namespace kube-system';

const policyOf = (objects: readonly K8sObject[]): NetworkPolicy => one(objects, 'NetworkPolicy') as NetworkPolicy;
const rows = (reaches: readonly { peer: string; port: string }[]) => reaches.map(({ peer, port }) => `${peer} → ${port}`);

/** The gateway's PORT and OPS_PORT, from the Deployment that the policy's pod selector picks. */
function portsOf(objects: readonly K8sObject[]): { port: number; opsPort: number; selected: boolean } {
  const deployment = one(objects, 'Deployment');
  const container = deployment.spec.template.spec.containers[0];
  const value = (name: string) => Number(container.env.find((entry: Any) => entry.name === name).value);
  const labels: Record<string, string> = deployment.spec.template.metadata.labels;
  const selector = policyOf(objects).spec.podSelector.matchLabels ?? {};
  return { port: value('PORT'), opsPort: value('OPS_PORT'), selected: Object.entries(selector).every(([key, entry]) => labels[key] === entry) };
}

describe('who can reach what, in the base', () => {
  const objects = render(BASE);
  const reach = reachOf(policyOf(objects));

  it('admits, to PORT and OPS_PORT, only namespaces an overlay must name (placeholders that exist nowhere)', () => {
    const { port, opsPort, selected } = portsOf(objects);
    expect(selected).toBe(true);
    expect(rows(reach.in)).toEqual([
      `every pod in namespace placeholder-ingress-controller → ${port}/TCP`,
      `every pod in namespace placeholder-monitoring → ${opsPort}/TCP`,
    ]);
  });

  it('lets out DNS to kube-dns alone (no label of the gateway\'s own leaked into its selector), and placeholders for Redis, the collector and the upstream', () => {
    expect(rows(reach.out)).toEqual([
      `${DNS} → 53/UDP`,
      `${DNS} → 53/TCP`,
      'every pod in namespace placeholder-redis → 6379/TCP',
      'every pod in namespace placeholder-redis → 6380/TCP',
      'every pod in namespace placeholder-redis → 26379/TCP',
      'every pod in namespace placeholder-otlp-collector → 4318/TCP',
      'every pod in namespace placeholder-upstream-or-egress-proxy → 443/TCP',
    ]);
  });
});

describe('who can reach what, in the example overlay', () => {
  const objects = render('deploy/kubernetes-overlays/example');
  const reach = reachOf(policyOf(objects));

  it('admits the ingress-nginx controller to PORT and the monitoring namespace\'s Prometheus to OPS_PORT, nothing else', () => {
    const { port, opsPort } = portsOf(objects);
    expect(rows(reach.in)).toEqual([
      `pods app.kubernetes.io/component=controller, app.kubernetes.io/name=ingress-nginx in namespace ingress-nginx → ${port}/TCP`,
      `pods app.kubernetes.io/name=prometheus in namespace monitoring → ${opsPort}/TCP`,
    ]);
  });

  it('lets out DNS, its two Redis, the OpenTelemetry collector and the egress proxy, nothing else', () => {
    const redis = 'pods app.kubernetes.io/instance in (statement-gateway-sessions, statement-gateway-cache) in namespace redis';
    expect(rows(reach.out)).toEqual([
      `${DNS} → 53/UDP`,
      `${DNS} → 53/TCP`,
      `${redis} → 6379/TCP`,
      `${redis} → 26379/TCP`,
      'pods app.kubernetes.io/name=opentelemetry-collector in namespace observability → 4318/TCP',
      'pods app.kubernetes.io/name=egress-proxy in namespace egress-proxy → 3128/TCP',
    ]);
    // The configuration sends the upstream calls to that proxy, on that port.
    expect(one(objects, 'ConfigMap').data.HTTPS_PROXY).toBe('http://egress-proxy.egress-proxy.svc.cluster.local:3128');
  });
});

describe.each(OVERLAYS)('who can reach what, in %s', (folder) => {
  const objects = render(folder);
  const policy = policyOf(objects);
  const reach = reachOf(policy);
  const { port, opsPort, selected } = portsOf(objects);

  it('isolates the gateway\'s pods both ways, with a peer and a port on every rule', () => {
    expect(selected).toBe(true);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    for (const { peer, port: on } of [...reach.in, ...reach.out]) {
      expect(peer).not.toMatch(/^(anyone|anywhere)$|every namespace|namespaces $/);
      expect(on).not.toMatch(/every port/);
    }
  });

  it('names every peer itself: no placeholder of the base is left', () => {
    for (const { peer } of [...reach.in, ...reach.out]) expect(peer).not.toMatch(/placeholder/);
  });

  it('admits PORT from one peer (the ingress controller: with TRUST_PROXY=1 only it writes the X-Forwarded-For entry the gateway trusts) and OPS_PORT from another, and no other port', () => {
    const toPort = reach.in.filter((row) => row.port === `${port}/TCP`).map((row) => row.peer);
    const toOps = reach.in.filter((row) => row.port === `${opsPort}/TCP`).map((row) => row.peer);
    expect(new Set(toPort).size).toBe(1);
    expect(new Set(toOps).size).toBe(1);
    expect(toOps).not.toEqual(toPort);
    expect(reach.in).toHaveLength(toPort.length + toOps.length);
    expect(one(objects, 'ConfigMap').data.TRUST_PROXY).toBe('1');
  });

  it('lets out DNS, Redis, the collector and the upstream or its proxy: four rules', () => {
    expect(policy.spec.egress).toHaveLength(4);
    expect(reach.out.filter((row) => row.port.startsWith('53/')).map((row) => row.port).sort()).toEqual(['53/TCP', '53/UDP']);
  });
});

describe('NetworkPolicy patches docs/kubernetes.md shows', () => {
  const base = reachOf(policyOf(render(BASE)));

  it('adds a rule for an http:// upstream on 8080 by address, and keeps the others', () => {
    const objects = renderOverlayOfBase(parseYaml(docsSnippet('port: 8080')) as Record<string, unknown>);
    const policy = policyOf(objects);
    expect(() => validateAgainstApi(policy)).not.toThrow();
    expect(rows(reachOf(policy).out)).toEqual([...rows(base.out), 'addresses 203.0.113.0/24 → 8080/TCP']);
  });

  it('puts a managed Redis outside the cluster, by address, in the Redis rule\'s place', () => {
    const objects = renderOverlayOfBase({ patches: [{ path: 'redis-by-address.yaml', target: { kind: 'NetworkPolicy', name: 'statement-gateway' } }] }, { 'redis-by-address.yaml': docsSnippet('placeholder-redis') });
    const policy = policyOf(objects);
    expect(() => validateAgainstApi(policy)).not.toThrow();
    const out = rows(reachOf(policy).out);
    expect(out.filter((row) => row.includes('placeholder-redis'))).toEqual([]);
    expect(out).toContain('addresses 10.20.30.0/24 → 6380/TCP');
  });

  it('fails the build when a patch tests for a placeholder the rule does not hold', () => {
    const wrong = docsSnippet('placeholder-redis').replace('/spec/egress/1/', '/spec/egress/2/');
    expect(() => renderOverlayOfBase({ patches: [{ path: 'wrong.yaml', target: { kind: 'NetworkPolicy', name: 'statement-gateway' } }] }, { 'wrong.yaml': wrong })).toThrow(/test/);
  });
});

describe('docs/kubernetes.md', () => {
  it('shows the example overlay\'s table as scripts/network-reach.ts reads it', () => {
    const reach = reachOf(policyOf(render('deploy/kubernetes-overlays/example')));
    const text = readFileSync(path.join(ROOT, 'docs/kubernetes.md'), 'utf8');
    for (const { peer, port } of [...reach.in, ...reach.out]) expect(text).toContain(`| ${peer} | ${port} |`);
  });
});
