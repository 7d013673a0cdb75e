/**
 * useLoneSessionFields, in process behind the executed operation, over a schema that already has
 * the session fields the contract names (`endSession`, `logoutEverywhere` beside `login` and
 * `logout`): each alone runs; beside any other root field the operation is BAD_REQUEST and none of
 * its fields runs.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { createMetrics } from '../../src/observability/metrics';
import { useExecutedOperation } from '../../src/request/executed';
import { useLoneSessionFields } from '../../src/session/use-lone-session-fields';
import { capturedLog } from '../support/captured-log';
import { requestState } from '../support/request-state';
import { yogaWith } from '../support/yoga';

function pipeline() {
  const state = requestState();
  const { log } = capturedLog();
  const ran: string[] = [];
  const field = (name: string) => () => (ran.push(name), true);
  const names = ['login', 'logout', 'endSession', 'logoutEverywhere', 'deleteStatements'];
  const schema = createSchema({
    typeDefs: `type Query { session: Boolean } type Mutation { ${names.map((name) => `${name}: Boolean`).join(' ')} }`,
    resolvers: { Query: { session: field('session') }, Mutation: Object.fromEntries(names.map((name) => [name, field(name)])) },
  });
  const server = yogaWith([useExecutedOperation(state), useLoneSessionFields(state), useErrorMapping({ ...state, log, metrics: createMetrics({ processMetrics: false }) })], { schema });
  return { server, ran };
}

describe('useLoneSessionFields', () => {
  it('runs each session field alone in its operation', async () => {
    const { server, ran } = pipeline();
    for (const name of ['login', 'logout', 'endSession', 'logoutEverywhere']) expect((await server.graphql(`mutation { ${name} }`)).codes).toEqual([]);
    expect(ran).toEqual(['login', 'logout', 'endSession', 'logoutEverywhere']);
  });

  it('refuses each beside another root field with BAD_REQUEST (400), running none of the operation', async () => {
    const { server, ran } = pipeline();
    for (const name of ['login', 'logout', 'endSession', 'logoutEverywhere']) {
      for (const document of [`mutation { ${name} deleteStatements }`, `mutation { deleteStatements ${name} }`, `mutation { ${name} again: ${name} }`, `mutation { ${name} __typename deleteStatements }`]) {
        const answer = await server.graphql(document);
        expect([answer.status, answer.codes], document).toEqual([400, ['BAD_REQUEST']]);
        expect(answer.body.errors?.[0]?.message).toContain(`\`${name}\``);
      }
    }
    expect(ran).toEqual([]);
  });

  it('leaves operations without a session field alone, however many root fields they have', async () => {
    const { server, ran } = pipeline();
    expect((await server.graphql('mutation { a: deleteStatements b: deleteStatements }')).codes).toEqual([]);
    expect((await server.graphql('{ session __typename }')).codes).toEqual([]);
    // `__typename` acts on nothing, and typed clients add it to the root of every operation.
    expect((await server.graphql('mutation { __typename logout }')).codes).toEqual([]);
    expect(ran).toEqual(['deleteStatements', 'deleteStatements', 'session', 'logout']);
  });
});
