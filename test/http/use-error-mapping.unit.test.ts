/**
 * useErrorMapping, in process: every error a client sees carries one of the contract's codes and
 * its status, with a message written by the gateway; anything unexpected is masked, its cause
 * logged and counted. In-process specs are `<plugin>.unit.test.ts` beside the area's other
 * tests (test/support/yoga.ts).
 */
import { GraphQLScalarType } from 'graphql';
import { createSchema, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGES, gatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { createMetrics } from '../../src/observability/metrics';
import { capturedLog } from '../support/captured-log';
import { parseMetrics } from '../support/metrics';
import { yogaWith } from '../support/yoga';
import { requestState } from '../support/request-state';

const SECRET_URL = 'redis://:hunter2@10.0.0.1:6379';

const schema = createSchema({
  typeDefs: 'scalar Odd type Query { boom: String, limited: String, n(x: Int!): Int, odd(o: Odd): Int } type Mutation { m: Int }',
  resolvers: {
    // A scalar that refuses with a plain Error, as custom scalars do: graphql-js's coercion error then has no GraphQLError cause.
    Odd: new GraphQLScalarType({
      name: 'Odd',
      parseValue: (value) => {
        if (Number(value) % 2 === 1) return value;
        throw new TypeError('not odd');
      },
    }),
    Query: {
      boom: () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET_URL}`)),
      limited: () => Promise.reject(gatewayError('RATE_LIMITED', undefined, { headers: { 'retry-after': '42' } })),
      n: (_root: unknown, { x }: { x: number }) => x,
    },
  },
});

function mapped(extra: Plugin[] = [], state = requestState()) {
  const captured = capturedLog();
  const metrics = createMetrics({ processMetrics: false });
  // The gateway turns Yoga's masking off: this plugin is the mask.
  const server = yogaWith([...extra, useErrorMapping({ ...state, log: captured.log, metrics })], { schema, maskedErrors: false });
  return { server, captured, errorsByCode: async () => parseMetrics(await metrics.registry.metrics()) };
}

describe('useErrorMapping', () => {
  it('masks an unexpected error as INTERNAL_SERVER_ERROR (500), logging its cause and counting its code', async () => {
    const { server, captured, errorsByCode } = mapped();
    const answer = await server.graphql('{ boom }');
    expect(answer.status).toBe(500);
    expect(answer.body.errors).toEqual([{ message: 'Unexpected error.', path: ['boom'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
    expect(JSON.stringify(answer.body)).not.toContain('hunter2');
    expect(captured.events('request.unexpected-error')).toMatchObject([{ error: { message: `connect ECONNREFUSED ${SECRET_URL}` } }]);
    expect((await errorsByCode()).sum('statement_gateway_graphql_errors_total', { code: 'INTERNAL_SERVER_ERROR' })).toBe(1);
  });

  it('passes the gateway\'s own errors on with their status, Retry-After, and the wait in extensions', async () => {
    const answer = await mapped().server.graphql('{ limited }');
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('42');
    expect(answer.body.errors).toEqual([{ message: 'Too many requests. Try again later.', path: ['limited'], extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 } }]);
  });

  it('answers parse, validation and variable errors with their codes and 400', async () => {
    const { server } = mapped();
    const cases = [
      ['{', 'GRAPHQL_PARSE_FAILED'],
      ['{ nope }', 'GRAPHQL_VALIDATION_FAILED'],
      ['query($v: Int!) { n(x: $v) }', 'GRAPHQL_VALIDATION_FAILED'],
      ['query($v: Odd) { odd(o: $v) }', 'GRAPHQL_VALIDATION_FAILED'],
    ] as const;
    for (const [query, code] of cases) {
      const answer = await server.graphql(query, { variables: { v: 'abc' } });
      expect(answer.status, query).toBe(400);
      expect(answer.codes, query).toEqual([code]);
    }
  });

  it('answers Yoga\'s request errors as BAD_REQUEST with Yoga\'s status (405 for a mutation over GET)', async () => {
    const { server } = mapped();
    const overGet = await server.fetch('/graphql?query=mutation%7Bm%7D');
    expect(overGet.status).toBe(405);
    expect(await overGet.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
    const badJson = await server.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('answers the trusted-document refusals, thrown before parsing, with their codes and 400, and counts them', async () => {
    for (const code of ['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_ONLY'] as const) {
      const refuse: Plugin = {
        onParams() {
          throw gatewayError(code);
        },
      };
      const { server, errorsByCode } = mapped([refuse]);
      const answer = await server.graphql('{ n(x: 1) }');
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([{ message: DEFAULT_MESSAGES[code], extensions: { code } }]);
      expect((await errorsByCode()).sum('statement_gateway_graphql_errors_total', { code })).toBe(1);
    }
  });
});
