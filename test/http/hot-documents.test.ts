/**
 * The hot path's promise about the documents it answers: a document is hot only once the Yoga
 * pipeline has run it past every check (src/fast-path/use-hot-documents.ts, placed after the
 * checks in src/gateway/execute-steps.ts). A text refused by validation's query limits, the CSRF
 * check, the identity or the session limit is not hot afterwards: its next clean run is the
 * pipeline's, and only the one after that is the hot path's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, useGateway } from '../support/gateway';
import { scrape } from '../support/metrics';

const SESSION_LIMIT = 4;

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const gateway = useGateway(() => ({
  UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, UPSTREAM_TIMEOUT_MS: '600',
  RATE_LIMIT_SESSION: `${SESSION_LIMIT}/1h`, HOT_PATH: 'true',
}));

beforeAll(async () => {
  await gateway.start();
});

/** A browser with a session of its own (each has its own session limit). */
async function signedIn(): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return browser;
}

async function hotAnswers(): Promise<number> {
  return (await scrape(gateway.current.url)).sum('statement_gateway_hot_path_answers_total');
}

/** A query text no other test sends. */
const text = (alias: string) => `{ ${alias}: secretGreeting { response } }`;

/** `query`'s next two clean runs: the first is the pipeline's (hot path answers +0), the second the hot path's (+1). */
async function expectHotOnlyAfterTheNextRun(query: string) {
  const browser = await signedIn();
  const before = await hotAnswers();
  expect((await browser.graphql(query)).codes).toEqual([]);
  expect(await hotAnswers()).toBe(before);
  expect((await browser.graphql(query)).codes).toEqual([]);
  expect(await hotAnswers()).toBe(before + 1);
}

describe('a document is hot only once the pipeline has run it past every check', () => {
  it('is not hot after a run the query limits refused (validation: never executed)', async () => {
    const browser = await signedIn();
    const aliases = Array.from({ length: 31 }, (_, index) => `a${index}: secretGreeting { response }`).join(' ');
    const before = await hotAnswers();
    for (let run = 0; run < 2; run++) expect((await browser.graphql(`{ ${aliases} }`)).codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(await hotAnswers()).toBe(before);
  });

  it('is not hot after a run the CSRF check refused', async () => {
    const query = text('refusedByCsrf');
    const browser = await signedIn();
    expect((await browser.graphql(query, undefined, { csrf: false })).codes).toEqual(['CSRF_CHECK_FAILED']);
    await expectHotOnlyAfterTheNextRun(query);
  });

  it('is not hot after a run the identity refused', async () => {
    const query = text('refusedByIdentity');
    const stranger = Object.assign(new Browser(gateway.current.url), { cookie: 'sgw_session=not-a-session' });
    expect((await stranger.graphql(query)).codes).not.toEqual([]);
    await expectHotOnlyAfterTheNextRun(query);
  });

  it('is not hot after a run the session limit refused', async () => {
    const query = text('refusedByLimit');
    const browser = await signedIn();
    for (let spent = 0; spent < SESSION_LIMIT; spent++) expect((await browser.graphql('{ __typename }')).codes).toEqual([]);
    expect((await browser.graphql(query)).codes).toEqual(['RATE_LIMITED']);
    await expectHotOnlyAfterTheNextRun(query);
  });
});
