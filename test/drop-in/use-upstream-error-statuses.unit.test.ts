/**
 * useUpstreamErrorStatuses, in process, after the error mapping as in the front's pipeline: the
 * documents the upstream's GraphQL server refuses are answered with 200, as it answers them, with
 * the mapping's codes and messages; other errors keep their status.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useUpstreamErrorStatuses } from '../../src/drop-in/use-upstream-error-statuses';
import { gatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { createMetrics } from '../../src/observability/metrics';
import { capturedLog } from '../support/captured-log';
import { yogaWith } from '../support/yoga';
import { requestState } from '../support/request-state';

const schema = createSchema({
  typeDefs: 'type Query { n: Int, limited: Int }',
  resolvers: { Query: { n: () => 1, limited: () => Promise.reject(gatewayError('RATE_LIMITED')) } },
});

function front() {
  const { log } = capturedLog();
  return yogaWith([useErrorMapping({ ...requestState(), log, metrics: createMetrics({ processMetrics: false }) }), useUpstreamErrorStatuses()], { schema, maskedErrors: false });
}

describe('useUpstreamErrorStatuses', () => {
  it('answers parse and validation errors on the drop-in front with 200, as the upstream does', async () => {
    const answer = await front().graphql('{ nope }');
    expect(answer.status).toBe(200);
    expect(answer.codes).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const parse = await front().graphql('{ n');
    expect(parse.status).toBe(200);
    expect(parse.codes).toEqual(['GRAPHQL_PARSE_FAILED']);
  });

  it('leaves every other error\'s status as the mapping set it', async () => {
    const answer = await front().graphql('{ limited }');
    expect(answer.status).toBe(429);
    expect(answer.codes).toEqual(['RATE_LIMITED']);
  });
});
