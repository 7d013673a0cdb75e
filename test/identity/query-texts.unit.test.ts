/**
 * queryTextRefusal over the gateway's three strategies in their order: under
 * TRUSTED_DOCUMENTS_ONLY, who may still send a query text, decided from the headers alone (it
 * answers synchronously: no store is asked, no sign-in made). Browser sessions, valid or not, and
 * anonymous callers are refused with PERSISTED_QUERY_ONLY; the drop-in front and an API key that
 * names an account are admitted; an unknown key is UNAUTHENTICATED; the first strategy the
 * request presents decides, as in useIdentity.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serviceAccountStrategy } from '../../src/credentials/service-account-identity';
import type { ServiceAccount } from '../../src/credentials/service-accounts';
import { dropInStrategy } from '../../src/drop-in/front-identity';
import { createVerifiedCredentials } from '../../src/drop-in/verified-credentials';
import { queryTextRefusal } from '../../src/identity/query-texts';
import { createMemoryRateLimitStore } from '../../src/protection/rate-limiter';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { browserSessions, serviceAccountsFor, specKeys, specUpstreams } from '../support/identities';

const KEY = 'sgw_query-texts-spec-key-0123456789';
const ACCOUNT: ServiceAccount = {
  name: 'query-texts', apiKeySha256: createHash('sha256').update(KEY).digest(), email: 'svc@example.com', password: 'unused-password', environment: 'sandbox', requestsPerMinute: 10,
};

function policy() {
  const sessions = browserSessions();
  const { log, metrics } = sessions;
  const refusal = queryTextRefusal([
    dropInStrategy({ upstreams: specUpstreams, verified: createVerifiedCredentials(undefined, { keys: specKeys }), keys: specKeys, clock: Date.now, dropIn: sessions.state.dropIn }),
    browserSessionStrategy(sessions.dependencies),
    serviceAccountStrategy({ serviceAccounts: serviceAccountsFor([ACCOUNT], { log, metrics }), rateLimits: createMemoryRateLimitStore(), upstreams: specUpstreams, log, metrics }),
  ]);
  /** The code of the refusal a request with these headers gets, or 'admitted'. */
  const verdict = (headers: Record<string, string>, options: { front?: boolean } = {}) => {
    const request = new Request('http://gateway.test/graphql', { method: 'POST', headers });
    if (options.front) sessions.state.dropIn.begin(request);
    const refused = refusal(request);
    return refused ? `${String(refused.extensions.code)}: ${refused.message}` : 'admitted';
  };
  return { verdict, sessions };
}

const ONLY = 'PERSISTED_QUERY_ONLY: Only trusted documents are accepted here: send a documentId instead of a query text.';

describe('queryTextRefusal (TRUSTED_DOCUMENTS_ONLY)', () => {
  it('refuses anonymous callers, another Authorization scheme among them', () => {
    const { verdict } = policy();
    expect(verdict({})).toBe(ONLY);
    expect(verdict({ authorization: 'Basic b3BzOnRva2Vu' })).toBe(ONLY);
  });

  it('refuses a browser session whether its cookie names a live session or not, and with a valid API key beside it', async () => {
    const { verdict, sessions } = policy();
    const { cookie } = await sessions.signIn('browser@example.com');
    expect(verdict({ cookie })).toBe(ONLY);
    expect(verdict({ cookie: 'sgw_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).toBe(ONLY);
    expect(verdict({ cookie, authorization: `Bearer ${KEY}` })).toBe(ONLY);
  });

  it('admits an API key that names an account, and refuses an unknown one with UNAUTHENTICATED', () => {
    const { verdict } = policy();
    expect(verdict({ authorization: `Bearer ${KEY}` })).toBe('admitted');
    expect(verdict({ authorization: 'Bearer sgw_no-such-key-0123456789' })).toBe('UNAUTHENTICATED: Unknown API key.');
    expect(verdict({ authorization: 'Bearer' })).toBe('UNAUTHENTICATED: Unknown API key.');
  });

  it('admits the drop-in front\'s requests, which it decides first', async () => {
    const { verdict, sessions } = policy();
    const { cookie } = await sessions.signIn('front@example.com');
    expect(verdict({}, { front: true })).toBe('admitted');
    expect(verdict({ cookie }, { front: true })).toBe('admitted');
  });
});
