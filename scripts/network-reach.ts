/**
 * Reads a NetworkPolicy back as what a security review asks of it: who can reach the pods it
 * selects, on which port, and whom they can reach. A rule admits each of its peers on each of its
 * ports, so a rule becomes one row per (peer, port):
 *
 *   npx tsx scripts/network-reach.ts [FOLDER]   # a Kustomize base or overlay; default the base
 *
 * prints both tables of every NetworkPolicy the folder renders to. A rule without peers admits
 * everyone ("anyone"), one without ports every port: both show as such, never hidden.
 * test/e2e/kubernetes-network.test.ts asserts the tables of the base and of each overlay.
 */
import path from 'node:path';
import { renderKustomization, type K8sObject } from './kustomize-render';

interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: readonly { key: string; operator: string; values?: string[] }[];
}

interface Peer {
  readonly namespaceSelector?: LabelSelector;
  readonly podSelector?: LabelSelector;
  readonly ipBlock?: { cidr: string; except?: string[] };
}

interface PolicyPort {
  readonly port?: number | string;
  readonly endPort?: number;
  readonly protocol?: string;
}

interface Rule {
  readonly from?: readonly Peer[];
  readonly to?: readonly Peer[];
  readonly ports?: readonly PolicyPort[];
}

export interface NetworkPolicy extends K8sObject {
  readonly spec: { readonly podSelector: LabelSelector; readonly policyTypes?: readonly string[]; readonly ingress?: readonly Rule[]; readonly egress?: readonly Rule[] };
}

/** One peer admitted on one port. */
export interface Reach {
  readonly peer: string;
  readonly port: string;
}

const NAMESPACE_NAME = 'kubernetes.io/metadata.name';

/** `a=b, c in (d, e)`; `{}` selects everything. */
export function describeSelector(selector: LabelSelector): string {
  const terms = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(selector.matchExpressions ?? []).map(({ key, operator, values = [] }) => {
      if (operator === 'Exists') return key;
      if (operator === 'DoesNotExist') return `!${key}`;
      return `${key} ${operator.toLowerCase()} (${values.join(', ')})`;
    }),
  ];
  return terms.join(', ');
}

function describeNamespaces(selector: LabelSelector): string {
  const labels = Object.keys(selector.matchLabels ?? {});
  const name = selector.matchLabels?.[NAMESPACE_NAME];
  if (name !== undefined && labels.length === 1 && !selector.matchExpressions?.length) return `namespace ${name}`;
  const described = describeSelector(selector);
  return described ? `namespaces ${described}` : 'every namespace';
}

/** A peer in words: which pods of which namespaces, or which addresses. */
export function describePeer(peer: Peer): string {
  if (peer.ipBlock) return `addresses ${peer.ipBlock.cidr}${peer.ipBlock.except?.length ? ` except ${peer.ipBlock.except.join(', ')}` : ''}`;
  const namespaces = peer.namespaceSelector ? describeNamespaces(peer.namespaceSelector) : "the policy's own namespace";
  const pods = peer.podSelector ? describeSelector(peer.podSelector) : '';
  return pods ? `pods ${pods} in ${namespaces}` : `every pod in ${namespaces}`;
}

function describePort(port: PolicyPort): string {
  const number = port.port === undefined ? 'every port' : `${port.port}${port.endPort ? `-${port.endPort}` : ''}`;
  return `${number}/${port.protocol ?? 'TCP'}`;
}

function rows(rules: readonly Rule[] | undefined, peersOf: (rule: Rule) => readonly Peer[] | undefined, nobody: string): Reach[] {
  return (rules ?? []).flatMap((rule) => {
    const peers = peersOf(rule);
    const described = peers?.length ? peers.map(describePeer) : [nobody];
    const ports = rule.ports?.length ? rule.ports.map(describePort) : ['every port'];
    return described.flatMap((peer) => ports.map((port) => ({ peer, port })));
  });
}

/**
 * Who can reach the selected pods (`in`) and whom they can reach (`out`). A direction the policy
 * does not isolate (not in policyTypes) is open to all: `anyone` on `every port`.
 */
export function reachOf(policy: NetworkPolicy): { readonly in: Reach[]; readonly out: Reach[] } {
  const types = policy.spec.policyTypes ?? (policy.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);
  const open = (peer: string) => [{ peer, port: 'every port' }];
  return {
    in: types.includes('Ingress') ? rows(policy.spec.ingress, (rule) => rule.from, 'anyone') : open('anyone'),
    out: types.includes('Egress') ? rows(policy.spec.egress, (rule) => rule.to, 'anywhere') : open('anywhere'),
  };
}

function table(header: string, reaches: readonly Reach[]): string[] {
  return [`| ${header} | port |`, '|---|---|', ...reaches.map(({ peer, port }) => `| ${peer} | ${port} |`)];
}

function main(argv: readonly string[]): number {
  const folder = argv[0] ?? path.join(__dirname, '..', 'deploy', 'kubernetes');
  const policies = renderKustomization(folder).filter((object): object is NetworkPolicy => object.kind === 'NetworkPolicy');
  for (const policy of policies) {
    const reach = reachOf(policy);
    const lines = [
      `NetworkPolicy ${policy.metadata.namespace ? `${policy.metadata.namespace}/` : ''}${policy.metadata.name}: pods ${describeSelector(policy.spec.podSelector)}`,
      '',
      ...table('who can reach them', reach.in),
      '',
      ...table('whom they can reach', reach.out),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return policies.length ? 0 : 1;
}

if (path.resolve(process.argv[1] ?? '') === __filename) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}
