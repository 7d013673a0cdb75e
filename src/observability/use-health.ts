/**
 * `/healthcheck`: 200 while the process runs. `/readiness`: 200 when the session store and both
 * upstreams answer within a short timeout, else 503 naming what failed (never a URL or a secret).
 */
import type { Plugin } from 'graphql-yoga';
import { ENVIRONMENTS } from '../environment';
import { jsonResponse } from '../http/json-response';
import type { Environment } from '../environment';
import type { SessionStore } from '../session/store';
import type { UpstreamTarget } from '../upstream/target';

export interface HealthOptions {
  readonly sessionStore: Pick<SessionStore, 'kind' | 'ping'>;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly clock: () => number;
  /** How long each dependency may take to answer. */
  readonly timeoutMs?: number;
  /**
   * How long one readiness verdict is reused. /readiness needs no login: without this, every hit
   * would cost a store round trip and two upstream calls (an amplifier for anyone who can reach it).
   */
  readonly cacheMs?: number;
}

type Verdict = { readonly status: number; readonly body: unknown };

type Check = { readonly name: string; readonly run: () => Promise<void> };

async function withTimeout(run: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([run(), new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

export function useHealth({ sessionStore, upstreams, clock, timeoutMs = 2_000, cacheMs = 1_000 }: HealthOptions): Plugin {
  const checks: Check[] = [
    { name: `sessionStore:${sessionStore.kind}`, run: () => sessionStore.ping() },
    ...ENVIRONMENTS.map((environment) => ({
      name: `upstream:${environment}`,
      run: async () => {
        // Any answer below 500 shows the upstream is up (its GraphQL endpoint refuses GET).
        const response = await fetch(upstreams[environment].graphqlUrl, { signal: AbortSignal.timeout(timeoutMs) });
        await response.body?.cancel();
        if (response.status >= 500) throw new Error(`status ${response.status}`);
      },
    })),
  ];

  const assess = async (): Promise<Verdict> => {
    const results = await Promise.all(
      checks.map(async (check) => {
        try {
          await withTimeout(check.run, timeoutMs);
          return { name: check.name, ok: true };
        } catch {
          return { name: check.name, ok: false };
        }
      }),
    );
    const failed = results.filter((result) => !result.ok).map((result) => result.name);
    const dependencies = Object.fromEntries(results.map((result) => [result.name, result.ok ? 'ok' : 'failed']));
    return { status: failed.length ? 503 : 200, body: { status: failed.length ? 'unavailable' : 'ready', failed, dependencies } };
  };
  let latest: { at: number; verdict: Promise<Verdict> } | undefined;
  const verdict = (): Promise<Verdict> => {
    const now = clock();
    if (!latest || now - latest.at >= cacheMs) latest = { at: now, verdict: assess() };
    return latest.verdict;
  };

  return {
    onRequest(payload) {
      const { url } = payload;
      if (url.pathname === '/healthcheck') {
        payload.endResponse(jsonResponse(200, { status: 'ok' }));
        return;
      }
      if (url.pathname !== '/readiness') return;
      return verdict().then(({ status, body }) => payload.endResponse(jsonResponse(status, body)));
    },
  };
}
