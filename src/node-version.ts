/**
 * The gateway needs Node 24 or later (the supported LTS line; undici 8 and several of Mesh's and
 * Yoga's packages already fail on 20 with an obscure TypeError from deep inside them). src/main.ts
 * imports this first, so an operator on an older Node reads why instead.
 */
export const MINIMUM_NODE_MAJOR = 24;

/** The refusal for a Node version string (`process.versions.node`), or undefined when it will do. */
export function unsupportedNode(version: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= MINIMUM_NODE_MAJOR) return undefined;
  return `The gateway needs Node ${MINIMUM_NODE_MAJOR} or later; this is Node ${version}. In a development checkout, npm's scripts run the project's own (npm start, npm test).\n`;
}

const refusal = unsupportedNode(process.versions.node);
if (refusal) {
  process.stderr.write(refusal);
  process.exit(1);
}
