/**
 * useFastPath's answer, in process, with a forwarder that answers as the upstream would (its bytes
 * spaced unlike JSON.stringify, so they show when they are written as they came): the bytes are
 * the body with the Content-Type Yoga's JSON processor gives; a result another plugin replaced and
 * a streaming Accept are serialised by Yoga as usual.
 */
import type { ExecutionResult } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { Forwarder } from '../../src/fast-path/forward';
import { DocumentPlans } from '../../src/fast-path/plans';
import { useFastPath } from '../../src/fast-path/use-fast-path';
import { useExecutedOperation } from '../../src/request/executed';
import { requestState } from '../support/request-state';

const BYTES = '{ "data" : { "secretGreeting" : { "response" : "hi" } } }';
const RESULT: ExecutionResult = { data: { secretGreeting: { response: 'hi' } } };

function server(answer: { bytes?: string } = { bytes: BYTES }, after: Plugin[] = []) {
  const schema = createSchema({ typeDefs: 'type Query { secretGreeting: Greeting } type Greeting { response: String }' });
  const state = requestState();
  const plans = new DocumentPlans(state.documents);
  plans.learnUpstream(schema);
  const forwarder: Forwarder = {
    forward: () => Promise.resolve({ result: { ...RESULT }, ...(answer.bytes === undefined ? {} : { bytes: answer.bytes }) }),
  };
  const yoga = createYoga({ schema, logging: false, plugins: [useExecutedOperation(state), useFastPath({ plans, forwarder, operations: state.operations }), ...after] });
  return async (accept?: string) => {
    const response = await yoga.fetch('http://gateway.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, body: JSON.stringify({ query: '{ secretGreeting { response } }' }) });
    return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  };
}

const ACCEPTS = [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', 'text/event-stream, application/json', 'application/*', 'text/html, */*;q=0.8'];

describe('useFastPath: the answer', () => {
  it('writes the upstream\'s bytes as they came, with the status and Content-Type Yoga would give', async () => {
    const fast = server();
    const serialised = server({});
    for (const accept of ACCEPTS) {
      const [viaBytes, viaYoga] = [await fast(accept), await serialised(accept)];
      expect(viaBytes, String(accept)).toEqual({ ...viaYoga, text: BYTES });
      expect(JSON.parse(viaBytes.text)).toEqual(JSON.parse(viaYoga.text));
    }
  });

  it('lets Yoga serialise a result a later plugin replaced', async () => {
    const extending: Plugin = { onExecute: () => ({ onExecuteDone: ({ result, setResult }) => setResult({ ...(result as ExecutionResult), extensions: { seen: true } }) }) };
    const answer = await server({ bytes: BYTES }, [extending])();
    expect(answer.text).toBe(JSON.stringify({ ...RESULT, extensions: { seen: true } }));
  });

  it('lets Yoga write a streaming answer (SSE) in its own format', async () => {
    const answer = await server()('text/event-stream');
    expect(answer.contentType).toContain('text/event-stream');
    expect(answer.text).toContain(JSON.stringify(RESULT));
  });
});
