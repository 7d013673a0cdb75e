/**
 * Background work's upstream calls beside the circuit (src/upstream/background-calls.ts): inside
 * `run`, every call the work makes, however many awaits and callers away, takes the uncounted
 * client; outside, requests' calls take the counted one, also while background work runs.
 */
import { describe, expect, it } from 'vitest';
import { createBackgroundCalls, uncountedResilience } from '../../src/upstream/background-calls';
import type { UpstreamFetch } from '../../src/upstream/fetch';

const recording = (name: string, calls: string[]): UpstreamFetch => (url) => {
  calls.push(`${name} ${url}`);
  return Promise.resolve(new Response('{}'));
};

describe('background calls', () => {
  it('send what background work causes through the uncounted client, and requests\' calls through the counted one meanwhile', async () => {
    const calls: string[] = [];
    const background = createBackgroundCalls(recording('uncounted', calls));
    const fetch = background.route(recording('counted', calls));
    const call = { environment: 'sandbox', operation: 'x' } as const;
    // Say, a sign-in several promises deep inside the check.
    const signIn = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return fetch('/sign-in', {}, call);
    };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const work = background.run(async () => {
      await signIn();
      await gate;
      await fetch('/introspect', {}, call);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await fetch('/request', {}, call);
    release();
    await work;
    expect(calls).toEqual(['uncounted /sign-in', 'counted /request', 'uncounted /introspect']);
  });

  it('count nothing: every call admitted, no retry, whatever happened before', () => {
    const resilience = uncountedResilience();
    for (let i = 0; i < 100; i++) resilience.admit('production').failed();
    expect(() => resilience.admit('production')).not.toThrow();
    expect(resilience.retryDelay('production', 1, undefined, 10_000)).toBeUndefined();
  });
});
