/**
 * Circles in a directed graph, for the import-graph check. The strongly connected components
 * (Tarjan) say which files are tangled; the elementary cycles inside each say which imports to
 * cut, printed `a -> b -> a`. A component's cycles can be exponentially many, so their listing
 * stops at a limit; the components themselves are always complete.
 */

export interface Edge {
  readonly from: string;
  readonly to: string;
}

function adjacency(nodes: readonly string[], edges: readonly Edge[]): Map<string, string[]> {
  const next = new Map<string, Set<string>>(nodes.map((n) => [n, new Set<string>()]));
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)?.add(to);
  }
  return new Map([...next].map(([node, targets]) => [node, [...targets].sort()]));
}

/**
 * Tarjan's algorithm, iterative so that a long import chain cannot overflow the stack. Returns
 * every component that holds a circle (more than one node, or a node importing itself), each
 * sorted, in a stable order.
 */
export function tangledComponents(nodes: readonly string[], edges: readonly Edge[]): string[][] {
  const next = adjacency(nodes, edges);
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, counter);
    lowLink.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = next.get(frame.node) ?? [];
      if (frame.child < targets.length) {
        const target = targets[frame.child++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          lowLink.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, child: 0 });
        } else if (onStack.has(target)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && (next.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  }
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The elementary cycles of the graph, each listed once, starting from its smallest node and
 * closed (`[a, b, a]`), at most `limit` of them. Each search is confined to one tangled
 * component and to nodes after its start, which is what makes every cycle appear exactly once.
 */
export function elementaryCycles(nodes: readonly string[], edges: readonly Edge[], limit = 100): string[][] {
  const next = adjacency(nodes, edges);
  const cycles: string[][] = [];
  for (const component of tangledComponents(nodes, edges)) {
    const members = new Set(component);
    for (const [position, start] of component.entries()) {
      const allowed = new Set(component.slice(position));
      const path = [start];
      const onPath = new Set(path);
      const search = (node: string): void => {
        for (const target of next.get(node) ?? []) {
          if (cycles.length >= limit) return;
          if (!members.has(target) || !allowed.has(target)) continue;
          if (target === start) cycles.push([...path, start]);
          else if (!onPath.has(target)) {
            path.push(target);
            onPath.add(target);
            search(target);
            onPath.delete(target);
            path.pop();
          }
        }
      };
      search(start);
    }
  }
  return cycles;
}

export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(' -> ');
}
