/**
 * Which documents the hot path may answer (src/fast-path/hot-documents.ts): one-operation queries
 * the fast path forwards, each only once the Yoga pipeline has run it in that form (a trusted
 * document by id; exactly that query text, kept within a bound, never under TRUSTED_DOCUMENTS_ONLY).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { HotDocuments, MAX_HOT_BODY, MAX_TEXTS } from '../../src/fast-path/hot-documents';
import { DocumentPlans } from '../../src/fast-path/plans';
import { DocumentFacts } from '../../src/request/executed';
import { upstreamSchema } from '../support/upstream-schema';

const TEXTS = {
  greeting: 'query Greeting { secretGreeting { response } }',
  mutation: 'mutation($ids: [String!]) { deleteStatements(otxIds: $ids) { errors } }',
  read: '{ getStatements(first: 1) { errors } }',
  mixed: '{ secretGreeting { response } getFw2Statements { errors } }',
  pdf: '{ getStatements(first: 1) { statements { nodes { pdf } } } }',
  definitions: '{ statementDefinitions { definitions { name } } }',
  gateway: '{ session { uid } }',
  two: 'query A { secretGreeting { response } } query B { secretGreeting { response } }',
  // A session field beside an upstream one is refused in the pipeline (useLoneSessionFields): never hot.
  session: 'mutation { logout deleteStatements(otxIds: ["x"]) { errors } }',
};

function setUp(texts: boolean) {
  const documents = new DocumentFacts();
  const plans = new DocumentPlans(documents);
  plans.learnUpstream(upstreamSchema());
  const trusted = new Map(Object.entries(TEXTS).map(([id, text]) => [id, { document: parse(text) }]));
  const hot = new HotDocuments(trusted, plans, documents, { texts });
  /** What useFastPath tells it when the pipeline executes `document` (sent as `text`, if given). */
  const run = (document: ReturnType<typeof parse>, text?: string, operationName?: string) => {
    const executed = documents.executedOperation(document, operationName);
    const plan = executed && plans.planOf(executed);
    if (executed && plan) hot.executed(executed, plan, text);
  };
  return { hot, trusted, run };
}

describe('hot documents', () => {
  it('makes a trusted document hot once the pipeline has run it by id, and only those the fast path forwards', () => {
    const { hot, trusted, run } = setUp(true);
    for (const id of Object.keys(TEXTS)) expect(hot.get(id)).toBeUndefined();
    run(parse(TEXTS.greeting));
    expect(hot.get('greeting')).toBeUndefined();
    // Yoga's placeholder for a document sent by id is no client's text: it never becomes hot.
    for (const [id, { document }] of trusted) run(document, `__PERSISTED_OPERATION_${id}__`);
    expect(hot.texts).toBe(0);
    expect(Object.keys(TEXTS).filter((id) => hot.get(id))).toEqual(['greeting', 'read', 'mixed']);
    expect(hot.get('greeting')).toMatchObject({ operationName: 'Greeting', plan: { kind: 'query' } });
    expect(hot.texts).toBe(0);
  });

  it('makes exactly the text the pipeline ran hot, of a hot kind only, unless texts may not be', () => {
    const { hot, run } = setUp(true);
    expect(hot.byText(TEXTS.greeting)).toBeUndefined();
    run(parse(TEXTS.greeting), TEXTS.greeting);
    expect(hot.byText(TEXTS.greeting)?.operationName).toBe('Greeting');
    expect(hot.byText(`${TEXTS.greeting} `)).toBeUndefined();
    expect(hot.get('greeting')).toBeUndefined();
    for (const name of ['mutation', 'two', 'session'] as const) {
      run(parse(TEXTS[name]), TEXTS[name], name === 'two' ? 'A' : undefined);
      expect(hot.byText(TEXTS[name])).toBeUndefined();
    }

    const only = setUp(false);
    only.run(parse(TEXTS.greeting), TEXTS.greeting);
    expect(only.hot.byText(TEXTS.greeting)).toBeUndefined();
  });

  it('keeps no text longer than the hot path reads', () => {
    const { hot, run } = setUp(true);
    const long = `query Long { secretGreeting { response } } ${'#'.repeat(MAX_HOT_BODY)}`;
    run(parse(long), long);
    expect(hot.byText(long)).toBeUndefined();
  });

  it('keeps at most MAX_TEXTS texts, forgetting the oldest first', () => {
    const { hot, run } = setUp(true);
    const texts = Array.from({ length: MAX_TEXTS + 10 }, (_, i) => `query Q${i} { secretGreeting { response } }`);
    for (const text of texts) run(parse(text), text);
    expect(hot.texts).toBe(MAX_TEXTS);
    expect(hot.byText(texts[0]!)).toBeUndefined();
    expect(hot.byText(texts.at(-1)!)).toBeDefined();
  });
});
