/**
 * The identity strategies' dependencies for in-process specs, built fresh per call from real
 * parts: browser sessions over a session store (memory unless one is given) with a new credential
 * key, the captured log, a fresh metrics registry, and upstream targets that are never called.
 */
import { randomBytes } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { loadConfig } from '../../src/config';
import { createServiceAccounts, type ServiceAccounts } from '../../src/credentials';
import { createCredentialCipher } from '../../src/credentials/cipher';
import type { ServiceAccount } from '../../src/credentials/service-accounts';
import type { UpstreamCredential } from '../../src/upstream/credential';
import type { UpstreamAuth } from '../../src/credentials/upstream-auth';
import type { DropInStates } from '../../src/drop-in/state';
import { createDerivedKeys } from '../../src/derived-keys';
import type { Environment } from '../../src/environment';
import type { LogEvents } from '../../src/observability/log-events';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics';
import { createStoreHealth } from '../../src/observability/store-health';
import { sessionCookieName } from '../../src/session/cookie';
import type { BrowserSessionDependencies } from '../../src/session/session-identity';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { Sessions } from '../../src/session/sessions';
import type { IndexedSessionStore } from '../../src/session/session-index';
import { createUpstreamFetch } from '../../src/upstream/fetch';
import { upstreamTarget, type UpstreamTarget } from '../../src/upstream/target';

/** Keys derived from a random CREDENTIAL_KEY, for specs that build the front's parts themselves. */
export const specKeys = createDerivedKeys(randomBytes(32));
import { capturedLog } from './captured-log';
import { specUpstreamAuth } from './mesh-auth';
import { requestState } from './request-state';

export const specUpstreams = { sandbox: upstreamTarget('sandbox', 'http://sandbox.test'), production: upstreamTarget('production', 'http://production.test') };

export interface SessionOptions {
  readonly store?: IndexedSessionStore;
  readonly clock?: () => number;
}

export function browserSessions({ store = createMemorySessionStore(), clock = Date.now }: SessionOptions = {}) {
  // One gateway's per-request state: the strategy and the plugins of a spec share its slots.
  const state = requestState();
  const captured = capturedLog('debug');
  const metrics = createMetrics({ processMetrics: false });
  const sessions = new Sessions({ store, cipher: createCredentialCipher(randomBytes(32)), idleMs: 60_000, absoluteMs: 3_600_000, clock, keys: createDerivedKeys(randomBytes(32)) });
  const dependencies: BrowserSessionDependencies = {
    sessions, health: createStoreHealth('sessions', captured.log), log: captured.log, metrics, cookieSecure: false, upstreams: specUpstreams,
    setCookies: state.setCookies, sessionCookies: state.sessionCookies,
  };
  /** A session in the store, and the Cookie header naming it. */
  const signIn = async (uid: string, environment: Environment = 'sandbox', credential: Partial<UpstreamCredential> = {}) => {
    const created = await sessions.create(environment, { accessToken: `token-of-${uid}`, client: `client-of-${uid}`, uid, ...credential });
    return { ...created, cookie: `${sessionCookieName(false)}=${created.id}` };
  };
  return { ...captured, metrics, sessions, dependencies, signIn, state };
}

/**
 * The drop-in front's state as useDropInFront leaves it for a request marked `x-spec-drop-in`:
 * with `verified`, a credential the upstream accepted recently; without, none (the strategy refuses).
 */
export function frontState(dropIn: DropInStates, verified?: UpstreamCredential): Plugin {
  return {
    onRequest({ request }) {
      if (!request.headers.has('x-spec-drop-in')) return;
      const state = dropIn.begin(request);
      if (verified) state.verified = verified;
    },
  };
}

/**
 * Service accounts as the runtime builds them (memory account store, memory locks), signing in
 * through Mesh's sign-in source over HTTP at `upstreams` (never called while no account's key is
 * presented).
 */
export function serviceAccountsFor(
  accounts: readonly ServiceAccount[],
  { log, metrics, upstreams = specUpstreams, auth }: { log: LogEvents; metrics: GatewayMetrics; upstreams?: Readonly<Record<Environment, UpstreamTarget>>; auth?: UpstreamAuth },
): ServiceAccounts {
  return createServiceAccounts({
    config: { ...loadConfig({}), serviceAccounts: accounts },
    locks: createMemoryCacheStore(),
    cipher: createCredentialCipher(randomBytes(32)),
    upstreams,
    auth: auth ?? specUpstreamAuth(createUpstreamFetch({ timeoutMs: 2_000, log, metrics })),
    storeHealth: createStoreHealth('sessions', log),
    log,
    metrics,
    clock: Date.now,
  });
}
