/**
 * The upstream probe (src/upstream/probe.ts) against the emulator: `GET /v2/graphql`, any answer
 * below 500 within its timeout is up; concurrent askers share one probe per environment and reuse
 * its result briefly, so a burst of timed-out calls costs one GET; close() ends a probe in flight.
 */
import { describe, expect, it } from 'vitest';
import { createUpstreamProbe } from '../../src/upstream/probe';
import { upstreamTarget } from '../../src/upstream/target';
import { control, useEmulator } from '../support/emulator';
import { timed } from '../support/timing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');

const probeOf = (options: { timeoutMs?: number; reuseMs?: number; now?: () => number } = {}) =>
  createUpstreamProbe({ upstreams: { sandbox: upstreamTarget('sandbox', sandbox.url), production: upstreamTarget('production', production.url) }, ...options });
const settings = (url: string, values: Record<string, unknown>) => control(url, 'PATCH', '/__emulator/settings', values);
async function probes(url: string): Promise<number> {
  const requests = await control<{ path: string }[]>(url, 'GET', '/__emulator/requests');
  await control(url, 'DELETE', '/__emulator/requests');
  return requests.body.filter((request) => request.path === '/v2/graphql').length;
}

describe('the upstream probe', () => {
  it('finds an upstream up when its GraphQL endpoint answers a GET below 500 (the emulator: 404, as Rails)', async () => {
    expect(await probeOf().up('sandbox')).toBe(true);
  });

  it('finds an upstream down when it answers 5xx, or not at all within the timeout', async () => {
    await settings(sandbox.url, { failStatus: 503 });
    await settings(production.url, { hangMs: 5_000 });
    const probe = probeOf({ timeoutMs: 300 });
    expect(await probe.up('sandbox')).toBe(false);
    const { value, ms } = await timed(() => probe.up('production'));
    expect(value).toBe(false);
    expect(ms).toBeLessThan(1_000);
  });

  it('finds an upstream nobody listens at down', async () => {
    const probe = createUpstreamProbe({ upstreams: { sandbox: upstreamTarget('sandbox', 'http://127.0.0.1:1'), production: upstreamTarget('production', production.url) } });
    expect(await probe.up('sandbox')).toBe(false);
  });

  it('shares one probe in flight between a burst of askers, per environment', async () => {
    await settings(sandbox.url, { latencyMs: 100 });
    await probes(sandbox.url);
    const probe = probeOf();
    const answers = await Promise.all([...Array.from({ length: 20 }, () => probe.up('sandbox')), probe.up('production')]);
    expect(answers.every(Boolean)).toBe(true);
    expect(await probes(sandbox.url)).toBe(1);
    expect(await probes(production.url)).toBe(1);
  });

  it('reuses a result for reuseMs after the probe ended, then asks anew', async () => {
    let now = 0;
    const probe = probeOf({ reuseMs: 500, now: () => now });
    await probes(sandbox.url);
    expect(await probe.up('sandbox')).toBe(true);
    await settings(sandbox.url, { failStatus: 503 });
    now += 499;
    expect(await probe.up('sandbox')).toBe(true);
    now += 1;
    expect(await probe.up('sandbox')).toBe(false);
    expect(await probes(sandbox.url)).toBe(2);
  });

  it('ends a probe in flight as down on close, and answers later ones at once', async () => {
    await settings(sandbox.url, { hangMs: 5_000 });
    const probe = probeOf();
    const pending = probe.up('sandbox');
    await new Promise((resolve) => setTimeout(resolve, 50));
    probe.close();
    const { value, ms } = await timed(() => pending);
    expect([value, ms < 500]).toEqual([false, true]);
    expect(await probe.up('production')).toBe(false);
  });
});
