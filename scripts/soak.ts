/**
 * `npm run soak`: a bounded mixed load on one gateway, to watch errors and memory over time (not
 * part of CI). It starts the emulator (both environments) and a gateway process on loopback, with
 * Redis when SOAK_REDIS_URL is set (else the in-memory stores), then runs SOAK_CLIENTS browser
 * clients (default 20) for SOAK_MINUTES (default 10). Each client signs in and loops over a mix
 * of statement reads, reads with PDFs, definitions, and add/update/delete mutations. Every 30 s it
 * prints the requests, the errors by code and the gateway's RSS; at the end, the RSS growth
 * between the 2nd and the last minute. Everything it touches is on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { procStatus } from '../bench/sampling';
import { startEmulator } from '../emulator';
import { launchGateway } from '../test/support/launcher';

const minutes = Number(process.env.SOAK_MINUTES ?? '10');
const clients = Number(process.env.SOAK_CLIENTS ?? '20');
const PASSWORD = 'a-long-enough-password-123';

const counts = { requests: 0, errors: new Map<string, number>() };
const count = (code: string) => counts.errors.set(code, (counts.errors.get(code) ?? 0) + 1);

interface Memory {
  /** V8 heap in use. */
  readonly heap: number;
  /** V8 heap reserved (in use plus free pages V8 keeps). */
  readonly heapTotal: number;
  /** Memory outside the V8 heap that V8 knows of: Buffers, ArrayBuffers. */
  readonly external: number;
}

/**
 * The gateway's memory as V8 sees it (its own /metrics), in MiB, to tell a leak (the heap in use
 * grows) from RSS slack (the allocator keeps freed pages).
 */
async function memoryMiB(gatewayUrl: string): Promise<Memory> {
  try {
    const text = await (await fetch(`${gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const read = (name: string) => {
      const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
      return match?.[1] ? Number(match[1]) / 1024 / 1024 : Number.NaN;
    };
    return { heap: read('nodejs_heap_size_used_bytes'), heapTotal: read('nodejs_heap_size_total_bytes'), external: read('nodejs_external_memory_bytes') };
  } catch {
    return { heap: Number.NaN, heapTotal: Number.NaN, external: Number.NaN };
  }
}

async function call(url: string, cookie: { value?: string }, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  counts.requests++;
  try {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf': '1', ...(cookie.value ? { cookie: cookie.value } : {}) },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(30_000),
    });
    const set = response.headers.getSetCookie()[0];
    if (set) cookie.value = set.split(';')[0];
    const body = (await response.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] };
    for (const error of body.errors ?? []) count(error.extensions?.code ?? 'unknown');
    return body.data;
  } catch (error) {
    count(error instanceof Error && error.name === 'TimeoutError' ? 'client-timeout' : 'network');
    return undefined;
  }
}

async function client(index: number, gatewayUrl: string, emulatorUrl: string, until: number): Promise<void> {
  const email = `soak-${index}-${randomBytes(4).toString('hex')}@example.com`;
  await fetch(`${emulatorUrl}/__emulator/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  await fetch(`${emulatorUrl}/__emulator/statements`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, form: 'F1099nec', count: 20 }) });
  const cookie: { value?: string } = {};
  await call(gatewayUrl, cookie, 'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { uid } }', { e: email, p: PASSWORD });
  for (let round = 0; Date.now() < until; round++) {
    switch (round % 8) {
      case 0:
      case 1:
      case 2:
        await call(gatewayUrl, cookie, '{ getStatements(first: 20) { statements { nodes { otxId uploaderId } } } }');
        break;
      case 3:
        await call(gatewayUrl, cookie, '{ getStatements(first: 5) { statements { nodes { otxId pdf } } } }');
        break;
      case 4:
        await call(gatewayUrl, cookie, '{ statementDefinitions { definitions { identifier name } } }');
        break;
      case 5:
        await call(gatewayUrl, cookie, 'mutation($s: [F1099necInput!]!) { addF1099necStatements(statements: $s) { errors } }', {
          s: [{ uploaderId: `soak-${round}`, nonemployeeComp: '10.00', recipientFirstName: 'A', recipientLastName: 'B', recipientTin: '200213492', recipientTinType: '2',
            recipientAddress1: '1 Main St', recipientCity: 'New York', recipientState: 'NY', recipientZipCode: '10162', senderName: 'S', senderTin: '111123456',
            senderAddress1: '2 Main St', senderCity: 'New York', senderState: 'NY', senderZipCode: '10019' }],
        });
        break;
      case 6:
        await call(gatewayUrl, cookie, 'mutation($s: [F1099necUpdateInput!]!) { updateF1099necStatements(statements: $s) { errors } }', { s: [{ uploaderId: `soak-${round - 1}`, statement: { nonemployeeComp: '11.00' } }] });
        break;
      default:
        await call(gatewayUrl, cookie, 'mutation($u: [String!]) { deleteStatements(uploaderIds: $u) { errors deleteCount } }', { u: [`soak-${round - 2}`] });
    }
  }
}

async function main(): Promise<void> {
  const sandbox = await startEmulator({ environment: 'sandbox' });
  const production = await startEmulator({ environment: 'production' });
  const redisUrl = process.env.SOAK_REDIS_URL;
  // The gateway's own pid (see launcher.ts), so that the RSS read from /proc is the gateway's.
  // Its output is passed on: warnings and errors.
  const gateway = await launchGateway({
    env: {
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY: '0',
      // Allocator and V8 settings to compare, passed on when set.
      MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX,
      NODE_OPTIONS: process.env.NODE_OPTIONS,
      // HOT_PATH=false soaks the same gateway without its hot path.
      HOT_PATH: process.env.HOT_PATH,
      UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url,
      RATE_LIMIT_LOGIN: '100000/1m', RATE_LIMIT_LOGIN_ADDRESS: '100000/1m', RATE_LIMIT_LOGIN_ACCOUNT: '100000/1m', RATE_LIMIT_SESSION: '1000000/1m', RATE_LIMIT_ANONYMOUS: '1000000/1m',
      ...(redisUrl ? { REDIS_URL: redisUrl, CREDENTIAL_KEY: randomBytes(32).toString('base64') } : {}),
    },
    keepOutput: false,
    onOutput: (chunk, stream) => (stream === 'stdout' ? process.stdout : process.stderr).write(chunk),
  });
  const { url: gatewayUrl, pid } = gateway;
  const started = Date.now();
  const until = started + minutes * 60_000;
  console.log(`soak: ${clients} clients for ${minutes} min against ${gatewayUrl} (${redisUrl ? 'Redis' : 'in-memory stores'})`);
  console.log('elapsed  requests  req/s  rss MiB  heap MiB  heap total  external  errors by code');
  const samples: ({ at: number; rss: number } & Memory)[] = [];
  let last = 0;
  const report = setInterval(() => {
    const elapsed = (Date.now() - started) / 1000;
    const rss = procStatus(pid).rssMiB;
    void memoryMiB(gatewayUrl).then((memory) => {
      samples.push({ at: elapsed, rss, ...memory });
      const errors = [...counts.errors.entries()].map(([code, n]) => `${code}=${n}`).join(' ') || 'none';
      console.log(`${elapsed.toFixed(0).padStart(6)}s  ${String(counts.requests).padStart(8)}  ${((counts.requests - last) / 30).toFixed(0).padStart(5)}  ${rss.toFixed(1).padStart(7)}  ${memory.heap.toFixed(1).padStart(8)}  ${memory.heapTotal.toFixed(1).padStart(10)}  ${memory.external.toFixed(1).padStart(8)}  ${errors}`);
      last = counts.requests;
    });
  }, 30_000);
  await Promise.all(Array.from({ length: clients }, (_, index) => client(index, gatewayUrl, sandbox.url, until)));
  clearInterval(report);
  const atTwo = samples.find((sample) => sample.at >= 120);
  const final = samples.at(-1);
  if (atTwo && final && final !== atTwo) {
    console.log(`rss at ${atTwo.at.toFixed(0)}s: ${atTwo.rss.toFixed(1)} MiB; at ${final.at.toFixed(0)}s: ${final.rss.toFixed(1)} MiB (${(((final.rss - atTwo.rss) / atTwo.rss) * 100).toFixed(1)}%)`);
    // Heap in use swings with the GC cycle: compare the lowest of the first and last three samples.
    const floor = (list: typeof samples) => Math.min(...list.map((sample) => sample.heap));
    const early = floor(samples.filter((sample) => sample.at >= 120).slice(0, 3));
    const late = floor(samples.slice(-3));
    console.log(`heap in use (lowest of 3 samples) from ${early.toFixed(1)} to ${late.toFixed(1)} MiB (${(((late - early) / early) * 100).toFixed(1)}%)`);
    console.log(`heap total from ${atTwo.heapTotal.toFixed(1)} to ${final.heapTotal.toFixed(1)} MiB; external from ${atTwo.external.toFixed(1)} to ${final.external.toFixed(1)} MiB`);
  }
  console.log(`total: ${counts.requests} requests; errors: ${[...counts.errors.entries()].map(([code, n]) => `${code}=${n}`).join(' ') || 'none'}`);
  await gateway.stop({ forceAfterMs: 10_000 });
  await sandbox.close();
  await production.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
