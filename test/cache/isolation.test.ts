/**
 * A randomized isolation test: two users, with statements of their own (and clashing
 * uploaderIds), read through the gateway in random order and at random concurrency, with and
 * without `pdf`, by their own ids and by the other's. No answer may ever hold the other user's
 * statement or PDF, and every answer must be exactly what the upstream gives that user.
 * Among the reads, each browser lists its user's sessions and tries to end the other user's by
 * their ids: no session id of one user is ever listed to the other, and none ends anything.
 * ISOLATION_TRIALS sets the number of reads (300 by default; 10,000 passes too).
 */
import { describe, expect, it } from 'vitest';
import { signedInUser, type TestUser } from '../support/cache';
import { graphql, seed as seedStatements, signIn } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';

const TRIALS = Number(process.env.ISOLATION_TRIALS ?? 300);
// Thousands of reads a minute on three sessions: far past RATE_LIMIT_SESSION's default, not its subject.
const { sandbox, gateway } = useGatewayOnEmulators({ RATE_LIMIT_SESSION: '1000000/1m' });

interface Owned {
  readonly otxId: string;
  readonly uploaderId: string;
  readonly form: 'F1099nec' | 'Fw2';
  readonly pdf: string;
}

/** A seeded random generator (mulberry32), so a failure can be replayed with ISOLATION_SEED. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const NODE_FIELDS = (pdf: boolean, alias: boolean) => `otxId uploaderId ${pdf ? (alias ? 'file: pdf' : 'pdf') : ''}`;

interface Read {
  readonly query: string;
  readonly variables: Record<string, unknown>;
  readonly field: string;
  readonly pdf: boolean;
  readonly pdfKey: string;
  /** The statements the upstream gives `owner` for this read. */
  expected(owner: readonly Owned[]): Owned[];
}

function pick<T>(next: () => number, list: readonly T[], count: number): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (out.length < count && copy.length) out.push(...copy.splice(Math.floor(next() * copy.length), 1));
  return out;
}

function randomRead(next: () => number, everything: readonly Owned[]): Read {
  const pdf = next() < 0.5;
  const alias = pdf && next() < 0.3;
  const pdfKey = alias ? 'file' : 'pdf';
  const viaFragment = next() < 0.2;
  const selection = viaFragment ? '...S' : NODE_FIELDS(pdf, alias);
  const fragment = (type: string) => (viaFragment ? ` fragment S on ${type} { ${NODE_FIELDS(pdf, alias)} }` : '');
  const kind = Math.floor(next() * 5);
  if (kind === 0) {
    return { query: `query { getStatements { statements { nodes { ${selection} } } } }${fragment('Statement')}`, variables: {}, field: 'getStatements', pdf, pdfKey, expected: (own) => [...own] };
  }
  if (kind === 1 || kind === 2) {
    const form = kind === 1 ? 'F1099nec' : 'Fw2';
    const field = `get${form}Statements`;
    return { query: `query { ${field} { statements { nodes { ${selection} } } } }${fragment(`${form}Statement`)}`, variables: {}, field, pdf, pdfKey, expected: (own) => own.filter((s) => s.form === form) };
  }
  const chosen = pick(next, everything, 1 + Math.floor(next() * 4));
  if (kind === 3) {
    const ids = chosen.map((s) => s.otxId);
    return {
      query: `query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { ${selection} } } } }${fragment('Statement')}`,
      variables: { ids }, field: 'getStatements', pdf, pdfKey,
      expected: (own) => own.filter((s) => ids.includes(s.otxId)),
    };
  }
  const ids = [...new Set(chosen.map((s) => s.uploaderId))];
  return {
    query: `query($ids: [String!]) { getStatements(uploaderIds: $ids) { statements { nodes { ${selection} } } } }${fragment('Statement')}`,
    variables: { ids }, field: 'getStatements', pdf, pdfKey,
    expected: (own) => own.filter((s) => ids.includes(s.uploaderId)),
  };
}

async function ownedStatements(user: TestUser): Promise<Owned[]> {
  const credential = await signIn(sandbox.url, user.email, 'a-long-enough-password-123');
  const answer = await graphql(sandbox.url, credential, '{ getStatements { statements { nodes { otxId uploaderId formType pdf } } } }');
  return (answer.body.data?.getStatements.statements.nodes as { otxId: string; uploaderId: string; formType: string; pdf: string }[]).map((node) => ({
    otxId: node.otxId,
    uploaderId: node.uploaderId,
    form: /w-?2/i.test(node.formType) ? 'Fw2' : 'F1099nec',
    pdf: node.pdf,
  }));
}

const SESSIONS = '{ sessions { id current } }';
const END_SESSION = 'mutation($id: ID!) { endSession(id: $id) }';

/** The ids a browser's `sessions` lists. */
async function listedIds(browser: Browser): Promise<string[]> {
  const answer = await browser.graphql<{ sessions: { id: string }[] }>(SESSIONS);
  expect(answer.codes).toEqual([]);
  return (answer.body.data?.sessions ?? []).map((session) => session.id).sort();
}

describe('isolation between identities through every cache', () => {
  it(`never answers one user's statement, PDF or session id to the other, nor ends a session by another user's id, over ${TRIALS} random reads`, async () => {
    const seed = Number(process.env.ISOLATION_SEED ?? Date.now() % 1_000_000);
    const next = random(seed);
    // Both users' uploaderIds clash on purpose (x-1, x-2 ...): they are unique per account only.
    const users = await Promise.all([0, 1].map(() => signedInUser(gateway.current.url, sandbox.url, { count: 0 })));
    for (const user of users) {
      await seedStatements(sandbox.url, user.email, 'F1099nec', 4, 'x-');
      await seedStatements(sandbox.url, user.email, 'Fw2', 2, 'w-');
    }
    const owned = await Promise.all(users.map(ownedStatements));
    const everything = owned.flat();
    expect(new Set(everything.map((s) => s.otxId)).size).toBe(12);
    // A second browser of the first user: same identity, its own session.
    const [first, second] = users;
    if (!first || !second) throw new Error('users not created');
    const secondBrowser = new Browser(gateway.current.url);
    expect((await secondBrowser.login(first.email, 'a-long-enough-password-123')).codes).toEqual([]);
    const sessions: [{ browser: Browser; owner: number }, ...{ browser: Browser; owner: number }[]] = [
      { browser: first.browser, owner: 0 },
      { browser: second.browser, owner: 1 },
      { browser: secondBrowser, owner: 0 },
    ];

    // Each user's session ids, as their own browsers see them: two for the first user, one for the other.
    const sessionIds = [await listedIds(first.browser), await listedIds(second.browser)] as const;
    expect(await listedIds(secondBrowser)).toEqual(sessionIds[0]);
    expect(sessionIds.map((ids) => ids.length)).toEqual([2, 1]);
    expect(sessionIds[0].filter((id) => sessionIds[1].includes(id))).toEqual([]);
    const sessionProbe = async (owner: number, browser: Browser, end: boolean, context: string) => {
      const theirs = sessionIds[1 - owner] ?? [];
      if (!end) return expect(await listedIds(browser), context).toEqual(sessionIds[owner]);
      const id = theirs[Math.floor(next() * theirs.length)] ?? '';
      const answer = await browser.graphql(END_SESSION, { id });
      expect(answer.codes, context).toEqual([]);
      expect(answer.body.data, context).toEqual({ endSession: false });
    };

    let done = 0;
    let withPdf = 0;
    let probes = 0;
    while (done < TRIALS) {
      const batch = Math.min(TRIALS - done, 1 + Math.floor(next() * 8));
      const trials = Array.from({ length: batch }, () => ({ session: sessions[Math.floor(next() * sessions.length)] ?? sessions[0], read: randomRead(next, everything), probe: next() }));
      // About one trial in eight also lists its user's sessions, or tries to end one of the other user's.
      const probed = trials.filter((trial) => trial.probe < 0.125);
      probes += probed.length;
      const [answers] = await Promise.all([
        Promise.all(trials.map(({ session, read }) => session.browser.graphql(read.query, read.variables))),
        Promise.all(probed.map(({ session, probe }) => sessionProbe(session.owner, session.browser, probe < 0.0625, `seed ${seed}, session probe of user ${session.owner}`))),
      ]);
      answers.forEach((answer, i) => {
        const trial = trials[i];
        if (!trial) throw new Error('no trial');
        const { session, read } = trial;
        const context = `seed ${seed}, trial ${done + i}, user ${session.owner}: ${read.query} ${JSON.stringify(read.variables)}`;
        expect(answer.codes, context).toEqual([]);
        const nodes = (answer.body.data?.[read.field]?.statements?.nodes ?? []) as Record<string, string>[];
        const mine = owned[session.owner] ?? [];
        const theirs = new Set((owned[1 - session.owner] ?? []).map((s) => s.otxId));
        for (const node of nodes) expect(theirs.has(node.otxId ?? ''), context).toBe(false);
        const expected = read.expected(mine);
        expect(nodes.map((node) => node.otxId).sort(), context).toEqual(expected.map((s) => s.otxId).sort());
        if (read.pdf) {
          withPdf++;
          for (const node of nodes) expect(node[read.pdfKey], context).toBe(mine.find((s) => s.otxId === node.otxId)?.pdf);
        }
      });
      done += batch;
    }
    // Nothing was ended: every session still lists the same ids.
    for (const { browser, owner } of sessions) expect(await listedIds(browser)).toEqual(sessionIds[owner]);
    console.log(`isolation: ${done} reads (${withPdf} with pdf), ${probes} session probes, seed ${seed}`);
  }, 600_000);
});
