/**
 * Which trusted documents the hot path may answer (src/fast-path/hot-documents.ts): one-operation
 * queries the fast path forwards, each only once the Yoga pipeline has run
 * it (by id: its document; by text: that exact text, never under TRUSTED_DOCUMENTS_ONLY).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { HotDocuments } from '../../src/fast-path/hot-documents';
import { DocumentPlans } from '../../src/fast-path/plans';
import { DocumentFacts } from '../../src/request/executed';
import { upstreamSchema } from '../support/upstream-schema';

const TEXTS = {
  greeting: 'query Greeting { secretGreeting { response } }',
  mutation: 'mutation($ids: [String!]) { deleteStatements(otxIds: $ids) { errors } }',
  read: '{ getStatements(first: 1) { errors } }',
  formRead: '{ secretGreeting { response } getFw2Statements { errors } }',
  pdf: '{ getStatements(first: 1) { statements { nodes { pdf } } } }',
  definitions: '{ statementDefinitions { definitions { name } } }',
  gateway: '{ session { uid } }',
  two: 'query A { secretGreeting { response } } query B { secretGreeting { response } }',
};

function hotDocuments(texts: boolean) {
  const documents = new DocumentFacts();
  const plans = new DocumentPlans(documents);
  plans.learnUpstream(upstreamSchema());
  const trusted = new Map(Object.entries(TEXTS).map(([id, text]) => [id, { document: parse(text), text }]));
  return { hot: new HotDocuments(trusted, plans, documents, { texts }), trusted };
}

describe('hot documents', () => {
  it('takes only one-operation queries the fast path forwards', () => {
    expect(hotDocuments(true).hot.size).toBe(3);
  });

  it('makes a document hot once the pipeline has run it, by id', () => {
    const { hot, trusted } = hotDocuments(true);
    expect(hot.get('greeting')).toBeUndefined();
    hot.confirm(parse(TEXTS.greeting));
    expect(hot.get('greeting')).toBeUndefined();
    hot.confirm(trusted.get('greeting')!.document);
    expect(hot.get('greeting')).toMatchObject({ operationName: 'Greeting', plan: { kind: 'query' } });
    expect(hot.byText(TEXTS.greeting)).toBeUndefined();
  });

  it('makes its exact text hot once the pipeline has run that text, unless texts may not be', () => {
    const { hot } = hotDocuments(true);
    hot.confirmText(`${TEXTS.greeting} `);
    expect(hot.byText(`${TEXTS.greeting} `)).toBeUndefined();
    expect(hot.byText(TEXTS.greeting)).toBeUndefined();
    hot.confirmText(TEXTS.greeting);
    expect(hot.byText(TEXTS.greeting)?.operationName).toBe('Greeting');
    expect(hot.get('greeting')).toBeUndefined();

    const only = hotDocuments(false).hot;
    only.confirmText(TEXTS.greeting);
    expect(only.byText(TEXTS.greeting)).toBeUndefined();
  });
});
