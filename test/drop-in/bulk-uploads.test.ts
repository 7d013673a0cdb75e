/**
 * Bulk uploads through the drop-in front: an add of 1,000 statements of the largest form (the
 * upstream's most per call), every field at its longest, written inline or passed in variables,
 * is accepted and forwarded once, as the upstream accepts it; what the upstream would refuse as
 * well (a fragment bomb, 2 MB of selections or of junk) is still refused before the upstream.
 */
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { describe, expect, it } from 'vitest';
import { FRONT_LIMITS } from '../../src/drop-in/front-limits';
import { bulkStatements, inlineAdd, largestForm, STATEMENTS_PER_CALL, variablesAdd } from '../../bench/bulk-statements';
import { takeUpstreamRequests } from '../support/cache';
import { control, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';

const PASSWORD = 'a-long-enough-password-123';

interface AddAnswer {
  readonly data?: Record<string, { errors: string[]; statements: { statement: { uploaderId: string } | null }[] }>;
  readonly errors?: { message: string; extensions?: { code?: string } }[];
}

function tokensOf(query: string): number {
  let count = 0;
  const onAccept = [(_context: unknown, { n }: { n: number }) => void (count = n)];
  new MaxTokensParserWLexer(query, { n: Number.MAX_SAFE_INTEGER, noLocation: true, onAccept }).parseDocument();
  return count;
}

describe('bulk uploads through the drop-in front', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();
  const form = largestForm();

  async function verifiedCredential(): Promise<Credential> {
    const email = `front-bulk-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(signedIn.status).toBe(200);
    return { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
  }

  const front = (credential: Credential, body: unknown) =>
    fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify(body) });

  it("sizes the front's limits on the largest request the upstream documents, with room to spare", () => {
    const query = inlineAdd(form, bulkStatements(form, 'size-'));
    const body = JSON.stringify({ query });
    expect(form.input.length).toBeGreaterThanOrEqual(60);
    expect(Buffer.byteLength(body)).toBeLessThan(FRONT_LIMITS.maxBodyBytes / 4);
    expect(Buffer.byteLength(query)).toBeLessThan(FRONT_LIMITS.maxQueryBytes / 2);
    expect(tokensOf(query)).toBeLessThan(FRONT_LIMITS.tokens * 0.8);
  });

  it('accepts an add of 1,000 statements of the largest form written inline and forwards it once (regression: QUERY_TOO_COMPLEX from about 170)', { timeout: 60_000 }, async () => {
    const credential = await verifiedCredential();
    await takeUpstreamRequests(sandbox.url);
    const answer = await front(credential, { query: inlineAdd(form, bulkStatements(form, 'inline-')) });
    const body = (await answer.json()) as AddAnswer;
    expect(answer.status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data?.[form.operations.add]?.errors).toEqual([]);
    expect(body.data?.[form.operations.add]?.statements.filter((entry) => entry.statement).length).toBe(STATEMENTS_PER_CALL);
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([[form.operations.add]]);
  });

  it('accepts the same add with its statements in variables and forwards it once', { timeout: 60_000 }, async () => {
    const credential = await verifiedCredential();
    await takeUpstreamRequests(sandbox.url);
    const answer = await front(credential, variablesAdd(form, bulkStatements(form, 'variables-')));
    const body = (await answer.json()) as AddAnswer;
    expect(answer.status).toBe(200);
    expect(body.data?.[form.operations.add]?.statements.filter((entry) => entry.statement).length).toBe(STATEMENTS_PER_CALL);
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([[form.operations.add]]);
  });

  it('still refuses, before the upstream, what the upstream refuses too: a fragment bomb, 2 MB of selections, 2 MB of junk', async () => {
    const credential = await verifiedCredential();
    const levels = 30;
    const bomb = `{ ...F0 } ${Array.from({ length: levels }, (_, level) => `fragment F${level} on Query { ...F${level + 1} ...F${level + 1} }`).join(' ')} fragment F${levels} on Query { __typename }`;
    // Within the token limit, but graphql-js's validation would compare its fields pairwise for minutes.
    const selections = `{ secretGreeting { ${'response '.repeat(230_000)}} }`;
    const tokens = `{ ${'a '.repeat(1_000_000)}}`;
    await takeUpstreamRequests(sandbox.url);
    for (const query of [bomb, selections, tokens]) {
      const answer = await front(credential, { query });
      expect(answer.status, query.slice(0, 40)).toBe(400);
      expect(((await answer.json()) as AddAnswer).errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    }
    // Junk that does not parse: the upstream's syntax error, never sent there.
    const junk = await front(credential, { query: `{ ${'#$%&'.repeat(1)} ${'x'.repeat(2_000_000)} }` });
    expect(junk.status).toBe(200);
    expect(JSON.stringify(await junk.json())).toContain('Syntax Error');
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });
});
