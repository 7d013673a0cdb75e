/**
 * The forwarder's shared calls (src/fast-path/forward.ts), on the emulator over HTTP: identical
 * queries of one identity share a call, and a call aborted because its requests went away is never
 * joined by a later request, which gets a call of its own.
 */
import { Writable } from 'node:stream';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { RequestIdentity } from '../../src/identity/strategy';
import { createForwarder } from '../../src/fast-path/forward';
import { DocumentPlans, type ForwardPlan } from '../../src/fast-path/plans';
import { DocumentFacts } from '../../src/request/executed';
import { createLogEvents } from '../../src/observability/log-events';
import { createLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import { createUpstreamFetch } from '../../src/upstream/fetch';
import { UpstreamOutcomes } from '../../src/upstream/outcome';
import { upstreamTarget } from '../../src/upstream/target';
import { countOperation, takeUpstreamRequests } from '../support/cache';
import { control, signIn, useEmulator, type Credential } from '../support/emulator';
import { upstreamSchema } from '../support/upstream-schema';

const sandbox = useEmulator('sandbox');
function greetingPlan(): ForwardPlan {
  const documents = new DocumentFacts();
  const plans = new DocumentPlans(documents);
  plans.learnUpstream(upstreamSchema());
  const executed = documents.executedOperation(parse('{ secretGreeting { response } }'), undefined);
  const plan = executed && plans.planOf(executed);
  if (!plan) throw new Error('no plan');
  return plan;
}

/** An identity that only presents the emulator credential it was given. */
function identityOf(credential: Credential, url: string): RequestIdentity {
  const upstream = upstreamTarget('sandbox', url);
  return {
    uid: credential.uid, upstream, key: 'test-identity', cacheTrusted: false, rateLimitKey: undefined,
    description: { actor: 'session', environment: 'sandbox', uid: credential.uid },
    credential: () => ({ accessToken: credential['access-token'], client: credential.client, uid: credential.uid }),
    answered: () => Promise.resolve(),
    refused: () => Promise.reject(new Error('refused')),
  };
}

describe('the forwarder', () => {
  const setup = async () => {
    const log = createLogEvents(createLogger({ level: 'error', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) }));
    const metrics = createMetrics({ processMetrics: false });
    const forwarder = createForwarder({ upstreamFetch: createUpstreamFetch({ timeoutMs: 5_000, log, metrics }), log, metrics, outcomes: new UpstreamOutcomes() });
    const identity = identityOf(await signIn(sandbox.url), sandbox.url);
    const call = (signal?: AbortSignal) => ({
      request: new Request('http://gateway.test/graphql', { method: 'POST', ...(signal ? { signal } : {}) }),
      identity, upstream: identity.upstream, variables: undefined, coerced: {}, operationName: undefined,
    });
    return { forwarder, call, plan: greetingPlan() };
  };

  it('shares one call between identical queries of one identity', async () => {
    const { forwarder, call, plan } = await setup();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 200 });
    await takeUpstreamRequests(sandbox.url);
    const [first, second] = (await Promise.all([forwarder.forward(plan, call()), forwarder.forward(plan, call())])).map((answer) => answer.result);
    expect(first?.errors).toBeUndefined();
    expect(second?.data).toEqual(first?.data);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'secretGreeting')).toBe(1);
  });

  it('never lets a request join a call aborted because its requests went away', async () => {
    const { forwarder, call, plan } = await setup();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 200 });
    const leaving = new AbortController();
    const abandoned = forwarder.forward(plan, call(leaving.signal));
    await new Promise((resolve) => setTimeout(resolve, 50));
    leaving.abort();
    // In the same tick, before the aborted call has settled.
    const later = forwarder.forward(plan, call());
    expect((await abandoned).result.errors?.[0]?.message).toBeDefined();
    const answer = (await later).result;
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ secretGreeting: { response: expect.any(String) } });
  });
});
