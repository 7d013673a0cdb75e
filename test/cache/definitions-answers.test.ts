/**
 * Definitions hits answered from the bytes of an earlier identical answer: the same answers as
 * execution gives, per document, variables and operation name; every refusal (no session, the
 * session rate limit) still comes first; counted as definitions hits; only while the payload is fresh.
 */
import { describe, expect, it } from 'vitest';
import { signedInUser } from '../support/cache';
import { Browser, useGatewayOnEmulators } from '../support/gateway';
import { scrape } from '../support/metrics';

const { sandbox, gateway } = useGatewayOnEmulators({ RATE_LIMIT_SESSION: '30/1m', CACHE_DEFINITIONS_FRESH: '3s' });

const QUERY = 'query Defs($boxes: Boolean!) { statementDefinitions { definitions { identifier name fields @include(if: $boxes) { identifier } } } }';
const hits = async () => (await scrape(gateway.current.url)).sum('statement_gateway_cache_lookups_total', { cache: 'definitions', result: 'hit' });

async function raw(browser: Browser, body: unknown, accept?: string): Promise<{ status: number; type: string | null; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-csrf': '1', cookie: browser.cookie ?? '' };
  if (accept) headers.accept = accept;
  const response = await fetch(`${gateway.current.url}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('definitions answered from bytes', () => {
  it('gives the answers execution gives, per document, variables and operation name, counted as hits', async () => {
    const { browser } = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const first = await raw(browser, { query: QUERY, variables: { boxes: true } });
    const before = await hits();
    const again = await raw(browser, { query: QUERY, variables: { boxes: true } });
    expect(again).toEqual(first);
    expect(again.type).toMatch(/^application\/json/);
    expect(await hits()).toBe(before + 1);
    const parsed = JSON.parse(first.text) as { data: { statementDefinitions: { definitions: { fields?: unknown[] }[] } } };
    expect(parsed.data.statementDefinitions.definitions.length).toBeGreaterThan(10);
    expect(parsed.data.statementDefinitions.definitions.every((definition) => Array.isArray(definition.fields))).toBe(true);

    // Other variables: another answer, not the held one.
    const without = JSON.parse((await raw(browser, { query: QUERY, variables: { boxes: false } })).text) as typeof parsed;
    expect(without.data.statementDefinitions.definitions.every((definition) => definition.fields === undefined)).toBe(true);
    expect(JSON.parse((await raw(browser, { query: QUERY, variables: { boxes: false } })).text)).toEqual(without);

    // Aliases, and a document with two operations choosing by name.
    const twoOps = 'query A { a: statementDefinitions { definitions { identifier } } } query B { b: statementDefinitions { errors } c: statementDefinitions { definitions { name } } }';
    for (let round = 0; round < 2; round++) {
      const a = JSON.parse((await raw(browser, { query: twoOps, operationName: 'A' })).text) as { data: Record<string, unknown> };
      const b = JSON.parse((await raw(browser, { query: twoOps, operationName: 'B' })).text) as { data: Record<string, unknown> };
      expect(Object.keys(a.data)).toEqual(['a']);
      expect(Object.keys(b.data)).toEqual(['b', 'c']);
    }
    // Content negotiation stays Yoga's: the same media type (or refusal) on a miss and on a hit.
    const other = { query: QUERY.replace('Defs', 'Negotiated'), variables: { boxes: false } };
    for (const accept of ['application/graphql-response+json', 'text/event-stream', 'image/png']) {
      const miss = await raw(browser, other, accept);
      const hit = await raw(browser, other, accept);
      expect({ status: hit.status, type: hit.type }, accept).toEqual({ status: miss.status, type: miss.type });
      if (accept === 'image/png') expect(hit.status).toBe(406);
      else expect(hit.type).toContain(accept);
      expect(hit.text, accept).toBe(miss.text);
    }
    // An empty operation name names no operation, whether or not an answer is held.
    for (let round = 0; round < 2; round++) {
      const empty = await raw(browser, { query: QUERY, variables: { boxes: true }, operationName: '' });
      expect(empty.text).not.toContain('"definitions"');
    }

    // Mixed with another root field: executed, and right.
    const mixed = await browser.graphql('{ secretGreeting { response } statementDefinitions { definitions { identifier } } }');
    expect(mixed.codes).toEqual([]);
    expect(mixed.body.data?.secretGreeting.response).toBeTruthy();
  });

  it('never answers before the refusals: no session, and the session rate limit', async () => {
    const { browser } = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const body = { query: QUERY, variables: { boxes: false } };
    expect((await raw(browser, body)).status).toBe(200);
    expect((await raw(browser, body)).status).toBe(200);
    const stranger = new Browser(gateway.current.url);
    const anonymous = await raw(stranger, body);
    expect(anonymous.text).toContain('UNAUTHENTICATED');
    expect(anonymous.text).not.toContain('identifier');
    // 30 root fields a minute: the two above and 28 more, then RATE_LIMITED.
    for (let index = 0; index < 28; index++) expect((await raw(browser, body)).status).toBe(200);
    const limited = await raw(browser, body);
    expect(limited.status).toBe(429);
    expect(limited.text).toContain('RATE_LIMITED');
  });

  it('is used only while the definitions are fresh: past that, the cache decides again (stale, refresh)', async () => {
    const { browser } = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const body = { query: QUERY, variables: { boxes: false } };
    await raw(browser, body);
    await new Promise((resolve) => setTimeout(resolve, 3_300));
    const stale = async () => (await scrape(gateway.current.url)).sum('statement_gateway_cache_lookups_total', { cache: 'definitions', result: 'stale' });
    const before = await stale();
    expect((await raw(browser, body)).status).toBe(200);
    expect(await stale()).toBe(before + 1);
  });
});
