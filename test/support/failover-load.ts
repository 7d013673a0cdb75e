/**
 * A Redis master killed under the gateway while ten clients read their sessions in a loop: what
 * each read got and how long it took, when the sessions came back, and whether sessions made just
 * before the kill survived (replication is asynchronous). The assertions are the contract's: no
 * read hangs, the only errors are the store's and the upstream's codes, sessions come back within
 * 30 s, new logins work and /readiness says the session store is up again, on the same gateways.
 */
import { expect } from 'vitest';
import type { TestGateway } from './gateway';
import { SESSION, type ProxiedBrowser } from './scale-out';

/** Any read slower than this counts as hung (the contract: commands time out well under a second). */
const SLOW_MS = 2_000;
/** A read not answered by then is given up on, so the load goes on. */
const GIVE_UP_MS = 5_000;
const RECOVERY_LIMIT_MS = 30_000;
const ALLOWED_CODE = /^(SESSION_STORE_UNAVAILABLE|UPSTREAM_[A-Z_]+)$/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type LoggedIn = ProxiedBrowser & { readonly email: string };

export interface Read {
  readonly client: number;
  readonly startedAt: number;
  readonly endedAt: number;
  /** 'ok', an error code, 'LOST' (answered without the session), 'HUNG' or 'THREW'. */
  readonly outcome: string;
}

export interface FailoverReport {
  readonly reads: readonly Read[];
  readonly killedAt: number;
  /** Kill to the end of the first successful read after the last failed one; undefined: not within 30 s. */
  readonly recoveredMs: number | undefined;
  readonly firstFailureMs: number | undefined;
  /** Made a second before the kill. */
  readonly witness: LoggedIn;
  /** Made just before the kill (the asynchronous replication window). */
  readonly late: LoggedIn;
}

async function read(client: LoggedIn, index: number): Promise<Read> {
  const startedAt = performance.now();
  const outcome = await Promise.race([
    client.graphql<{ session: { uid: string } | null }>(SESSION).then(
      (answer) => answer.codes[0] ?? (answer.body.data?.session?.uid === client.email ? 'ok' : 'LOST'),
      () => 'THREW',
    ),
    sleep(GIVE_UP_MS).then(() => 'HUNG'),
  ]);
  return { client: index, startedAt, endedAt: performance.now(), outcome };
}

function recovery(reads: readonly Read[], killedAt: number): { recoveredMs: number | undefined; firstFailureMs: number | undefined } {
  const after = reads.filter((entry) => entry.startedAt >= killedAt).sort((x, y) => x.endedAt - y.endedAt);
  const failures = after.filter((entry) => entry.outcome !== 'ok');
  const lastFailure = failures.at(-1);
  const firstFailureMs = failures[0] && failures[0].endedAt - killedAt;
  if (!lastFailure) return { recoveredMs: 0, firstFailureMs };
  const back = after.find((entry) => entry.outcome === 'ok' && entry.startedAt >= lastFailure.startedAt && entry.endedAt > lastFailure.endedAt);
  return { recoveredMs: back && back.endedAt - killedAt, firstFailureMs };
}

/**
 * Runs the load on `clients`, makes the witnesses, kills (`kill`), and goes on until every client
 * has read its session three times in a row, a second after the last failure (or 30 s pass).
 */
export async function killUnderLoad(options: { clients: readonly LoggedIn[]; witness: () => Promise<LoggedIn>; kill: () => Promise<void> }): Promise<FailoverReport> {
  const reads: Read[] = [];
  let running = true;
  const loops = options.clients.map(async (client, index) => {
    while (running) {
      reads.push(await read(client, index));
      await sleep(50);
    }
  });
  try {
    await sleep(500);
    const witness = await options.witness();
    await sleep(1_000);
    const late = await options.witness();
    const killedAt = performance.now();
    await options.kill();
    const settled = () => {
      const now = performance.now();
      const after = reads.filter((entry) => entry.startedAt >= killedAt);
      const lastFailure = after.filter((entry) => entry.outcome !== 'ok').at(-1);
      // SIGKILL resets the connections at once: a run without any failure is waited out.
      if (!lastFailure && now - killedAt < 10_000) return false;
      if (lastFailure && now - lastFailure.endedAt < 1_000) return false;
      return options.clients.every((_, index) => {
        const own = after.filter((entry) => entry.client === index).slice(-3);
        return own.length === 3 && own.every((entry) => entry.outcome === 'ok');
      });
    };
    while (!settled() && performance.now() - killedAt < RECOVERY_LIMIT_MS) await sleep(100);
    running = false;
    await Promise.all(loops);
    return { reads, killedAt, witness, late, ...recovery(reads, killedAt) };
  } finally {
    running = false;
  }
}

/** Polls `attempt` (every 200 ms, at most `timeoutMs`) until it holds. */
async function eventually(attempt: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await attempt().catch(() => false)) return true;
    await sleep(200);
  }
  return false;
}

/** Prints what happened, then checks the contract's failover rules. */
export async function expectRecovered(name: string, report: FailoverReport, gateways: readonly TestGateway[], login: (gateway: TestGateway) => Promise<LoggedIn>): Promise<void> {
  const after = report.reads.filter((entry) => entry.startedAt >= report.killedAt);
  const failed = after.filter((entry) => entry.outcome !== 'ok');
  const durations = after.map((entry) => entry.endedAt - entry.startedAt).sort((x, y) => x - y);
  const slowest = Math.max(...report.reads.map((entry) => entry.endedAt - entry.startedAt));
  const percentile = (share: number) => (durations[Math.min(durations.length - 1, Math.floor(durations.length * share))] ?? 0).toFixed(0);
  const outcomes = [...new Set(failed.map((entry) => entry.outcome))].join(', ') || 'none';
  const kept = async (browser: ProxiedBrowser, email: string) => (await browser.graphql<{ session: { uid: string } | null }>(SESSION)).body.data?.session?.uid === email;
  const witnessKept = await kept(report.witness, report.witness.email);
  const lateKept = await kept(report.late, report.late.email);
  console.log(
    `${name} failover under a 10-client load: first failed read ${report.firstFailureMs?.toFixed(0) ?? '-'} ms after the SIGKILL, sessions back after ${report.recoveredMs?.toFixed(0) ?? 'more than 30000'} ms; ` +
    `${failed.length} of ${after.length} reads after the kill failed (${outcomes}), reads after the kill took ${percentile(0.5)} ms (median), ${percentile(0.95)} ms (95th), slowest of all ${slowest.toFixed(0)} ms; ` +
    `session made 1 s before the kill ${witnessKept ? 'kept' : 'LOST'}, made just before it ${lateKept ? 'kept' : 'LOST'}`,
  );

  expect(report.reads.filter((entry) => entry.endedAt - entry.startedAt >= SLOW_MS)).toEqual([]);
  expect(failed.filter((entry) => !ALLOWED_CODE.test(entry.outcome))).toEqual([]);
  expect(report.recoveredMs).toBeLessThan(RECOVERY_LIMIT_MS);
  expect(witnessKept).toBe(true);
  for (const gateway of gateways) {
    expect(await kept(report.witness.on(gateway), report.witness.email)).toBe(true);
    // Once sessions are back, a login (its limits' keys on any master) works at the first try.
    await login(gateway);
    // Readiness verdicts live a second.
    const ready = async () => ((await (await fetch(`${gateway.url}/readiness`)).json()) as { dependencies: { sessionStore: string } }).dependencies.sessionStore === 'up';
    expect(await eventually(ready, 5_000)).toBe(true);
  }
}
