/**
 * `/metrics`: the contract's metrics with exactly its names, types and labels, the standard GraphQL
 * and process metrics beside them, values that follow what really happened (a cached answer
 * records no upstream duration), and label values from bounded sets only.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { signedInUser } from '../support/cache';
import { signInRaw } from '../support/emulator';
import { Browser, useGatewayBehindRecordingProxy } from '../support/gateway';
import { scrape, type Scrape } from '../support/metrics';

const setup = useGatewayBehindRecordingProxy({ UPSTREAM_TIMEOUT_MS: '800' });
const { sandbox, gateway } = setup;

const UPSTREAM = 'statement_gateway_upstream_request_duration_seconds';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';

/** The upstream's root fields, plus the REST calls and the drop-in pass-through. */
function upstreamOperations(): Set<string> {
  const sdl = readFileSync(path.resolve(__dirname, '../../sources/statement-filing-service/schema.graphql'), 'utf8');
  const schema = buildSchema(sdl);
  const fields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) => Object.keys(type?.getFields() ?? {}));
  // `__schema`: the upstream schema check's introspection (src/ops/upstream-schema-check.ts).
  return new Set([...fields, 'signIn', 'signOut', 'graphql', '__schema']);
}

describe('/metrics', () => {
  it('exposes the contract metrics with their types and label names, and the standard ones beside them', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await user.browser.graphql('{ getStatements { statements { nodes { otxId } } } }');
    const metrics = await scrape(gateway.current.url);

    expect(metrics.types.get('statement_gateway_cache_lookups_total')).toBe('counter');
    expect(metrics.types.get(UPSTREAM)).toBe('histogram');
    expect(metrics.types.get('statement_gateway_rate_limited_total')).toBe('counter');
    expect(metrics.types.get('statement_gateway_sessions_total')).toBe('counter');

    const labelNames = (name: string) => new Set(metrics.series.filter((entry) => entry.name === name).map((entry) => Object.keys(entry.labels).sort().join(',')));
    expect(labelNames('statement_gateway_cache_lookups_total')).toEqual(new Set(['cache,result']));
    expect(labelNames(`${UPSTREAM}_bucket`)).toEqual(new Set(['environment,le,operation,outcome']));
    expect(labelNames(`${UPSTREAM}_count`)).toEqual(new Set(['environment,operation,outcome']));
    expect(labelNames('statement_gateway_sessions_total')).toEqual(new Set(['event']));
    // Every cache/result and session event is there from the start, so rates never lack a series.
    for (const cache of ['definitions', 'statements', 'pdf']) {
      for (const result of ['hit', 'miss', 'stale']) {
        expect(metrics.series.some((entry) => entry.name === 'statement_gateway_cache_lookups_total' && entry.labels.cache === cache && entry.labels.result === result)).toBe(true);
      }
    }
    expect(metrics.series.filter((entry) => entry.name === 'statement_gateway_sessions_total').map((entry) => entry.labels.event).sort()).toEqual(['evicted', 'expired', 'login', 'logout', 'rejected', 'revoked']);

    // The standard GraphQL metrics (envelop/yoga) and the process's.
    for (const name of ['graphql_envelop_request', 'graphql_envelop_phase_parse_count', 'graphql_envelop_phase_validate_count', 'graphql_envelop_phase_execute_count', 'graphql_envelop_request_duration_count', 'graphql_yoga_http_duration_count', 'process_resident_memory_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_eventloop_lag_max_seconds']) {
      expect(metrics.sum(name), name).toBeGreaterThan(0);
    }
    // The contract's event-loop lag gauge (prom-client's default): measured after each scrape, so
    // the first scrape may still say 0.
    expect(metrics.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    const lag = metrics.series.filter((entry) => entry.name === 'nodejs_eventloop_lag_seconds');
    expect(lag).toHaveLength(1);
    expect(lag[0]?.value).toBeGreaterThanOrEqual(0);
  });

  it('records an upstream call per operation, and none for an answer from the cache', async () => {
    const { browser } = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    await browser.graphql(DEFINITIONS); // fills the definitions cache if it is empty
    const before = await scrape(gateway.current.url);
    const again = await browser.graphql(DEFINITIONS);
    expect(again.codes).toEqual([]);
    const after = await scrape(gateway.current.url);
    expect(after.sum('statement_gateway_cache_lookups_total', { cache: 'definitions', result: 'hit' })).toBe(before.sum('statement_gateway_cache_lookups_total', { cache: 'definitions', result: 'hit' }) + 1);
    expect(after.sum(`${UPSTREAM}_count`)).toBe(before.sum(`${UPSTREAM}_count`));

    // A statement read goes upstream: one ok observation for getStatements, with its duration.
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const beforeRead = await scrape(gateway.current.url);
    await user.browser.graphql('{ getStatements { statements { nodes { otxId } } } }');
    const afterRead = await scrape(gateway.current.url);
    const labels = { environment: 'sandbox', operation: 'getStatements', outcome: 'ok' };
    expect(afterRead.sum(`${UPSTREAM}_count`, labels)).toBe(beforeRead.sum(`${UPSTREAM}_count`, labels) + 1);
    expect(afterRead.sum(`${UPSTREAM}_sum`, labels)).toBeGreaterThan(beforeRead.sum(`${UPSTREAM}_sum`, labels));
    expect(afterRead.sum(`${UPSTREAM}_bucket`, { ...labels, le: '+Inf' })).toBe(afterRead.sum(`${UPSTREAM}_count`, labels));
  });

  it('records upstream failures as error and timeout', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const read = '{ getStatements { statements { nodes { otxId } } } }';
    const labels = (outcome: string) => ({ environment: 'sandbox', operation: 'getStatements', outcome });
    const before = await scrape(gateway.current.url);
    try {
      setup.proxy.fault = { status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' };
      expect((await user.browser.graphql(read)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
      setup.proxy.fault = 'hang';
      expect((await user.browser.graphql(read)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    } finally {
      setup.proxy.fault = undefined;
    }
    const after = await scrape(gateway.current.url);
    // A query is retried once after a 502: each attempt is measured.
    expect(after.sum(`${UPSTREAM}_count`, labels('error'))).toBe(before.sum(`${UPSTREAM}_count`, labels('error')) + 2);
    expect(after.sum(`${UPSTREAM}_count`, labels('timeout'))).toBe(before.sum(`${UPSTREAM}_count`, labels('timeout')) + 1);
    // The timeout's duration is the configured 800 ms, give or take.
    const timeoutSeconds = after.sum(`${UPSTREAM}_sum`, labels('timeout')) - before.sum(`${UPSTREAM}_sum`, labels('timeout'));
    expect(timeoutSeconds).toBeGreaterThan(0.7);
    expect(timeoutSeconds).toBeLessThan(2);
    expect(after.sum('statement_gateway_graphql_errors_total', { code: 'UPSTREAM_UNAVAILABLE' })).toBe(before.sum('statement_gateway_graphql_errors_total', { code: 'UPSTREAM_UNAVAILABLE' }) + 2);
  });

  it('counts session events: login, logout, expired and rejected', async () => {
    const sessions = (metrics: Scrape, event: string) => metrics.sum('statement_gateway_sessions_total', { event });
    const before = await scrape(gateway.current.url);
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const name = user.browser.cookie?.split('=')[0] ?? '';
    expect((await user.browser.graphql('mutation { logout }')).codes).toEqual([]);

    // A well-formed id the store does not hold (a session past its end), then a malformed one.
    const stranger = new Browser(gateway.current.url);
    stranger.cookie = `${name}=${'A'.repeat(43)}`;
    expect((await stranger.graphql('{ getStatements { statements { nodes { otxId } } } }')).codes).toEqual(['UNAUTHENTICATED']);
    stranger.cookie = `${name}=not-a-session`;
    expect((await stranger.graphql('{ getStatements { statements { nodes { otxId } } } }')).codes).toEqual(['UNAUTHENTICATED']);

    // A session whose upstream credential the upstream stops accepting: ten sign-ins elsewhere
    // push the gateway's client out (devise's max_number_of_devices).
    const pushed = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    for (let index = 0; index < 10; index++) expect((await signInRaw(sandbox.url, pushed.email, 'a-long-enough-password-123')).status).toBe(200);
    expect((await pushed.browser.graphql('{ getStatements { statements { nodes { otxId } } } }')).codes).toEqual(['UNAUTHENTICATED']);

    const after = await scrape(gateway.current.url);
    expect(sessions(after, 'login') - sessions(before, 'login')).toBe(2);
    expect(sessions(after, 'logout') - sessions(before, 'logout')).toBe(1);
    expect(sessions(after, 'expired') - sessions(before, 'expired')).toBe(1);
    expect(sessions(after, 'rejected') - sessions(before, 'rejected')).toBe(2);
  });

  it('takes label values from bounded sets only: no uid, id, URL, path or client-chosen name', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const secretName = `Op${Date.now()}`;
    await user.browser.graphql(`query ${secretName} { a1: getStatements { statements { nodes { otxId uploaderId } } } }`);
    await user.browser.graphql(`query ${secretName}2 { nope }`);
    await fetch(`${gateway.current.url}/random-${secretName}?x=${secretName}`);
    await fetch(`${gateway.current.url}/graphql?query=${encodeURIComponent(`query ${secretName}3 { secretGreeting { response } }`)}`, { headers: { 'x-csrf': '1' } });
    const metrics = await scrape(gateway.current.url);

    expect(metrics.text).not.toContain(secretName);
    expect(metrics.text).not.toContain(user.email);
    for (const statement of user.statements) {
      expect(metrics.text).not.toContain(statement.otxId);
      expect(metrics.text).not.toContain(statement.uploaderId);
    }
    expect(metrics.text).not.toContain('127.0.0.1');

    const operations = upstreamOperations();
    const allowed: Record<string, Set<string>> = {
      environment: new Set(['sandbox', 'production']),
      // Upstream calls and retries; the drop-in front's re-verifications.
      outcome: new Set(['ok', 'error', 'timeout', 'accepted', 'refused', 'failed']),
      cache: new Set(['definitions', 'statements', 'pdf']),
      result: new Set(['hit', 'miss', 'stale', 'stored', 'replayed', 'in_use', 'reused']),
      event: new Set(['login', 'logout', 'expired', 'rejected', 'revoked', 'evicted']),
      operationType: new Set(['query', 'mutation', 'subscription']),
      phase: new Set(['parse', 'validate', 'context', 'execute', 'subscribe']),
      method: new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD']),
      severity: new Set(['breaking', 'dangerous', 'safe']),
      reason: new Set(['cold', 'expired', 'bypass', 'invalidated', 'purged', 'store_down']),
      scope: new Set(['definitions', 'identity', 'statement', 'all']),
    };
    for (const entry of metrics.series) {
      for (const [label, value] of Object.entries(entry.labels)) {
        if (label === 'le' || label === 'quantile') continue;
        if (label === 'operation') {
          expect(operations.has(value), `${entry.name} operation=${value}`).toBe(true);
        } else if (label === 'code') {
          expect(value, `${entry.name} code`).toMatch(/^[A-Z_]+$/);
        } else if (label === 'statusCode') {
          expect(value).toMatch(/^[1-5]\d\d$/);
        } else if (allowed[label]) {
          expect(allowed[label].has(value), `${entry.name} ${label}=${value}`).toBe(true);
        }
      }
    }
  });
});
