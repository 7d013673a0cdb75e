/**
 * BrowserSessionIdentity on the upstream's answers, in process: a resolver plays the credential
 * broker and hands the request's identity real `Response`s (with the headers devise sends), behind
 * useSessionCookies, useIdentity with the browser-session strategy over a memory session store,
 * and error mapping, as in the gateway. A rotated token is kept for the session; a 401 ends the
 * session only while its credential is current, and clears the cookie.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import type { IdentityContext } from '../../src/identity/use-identity';
import { useIdentity } from '../../src/identity/use-identity';
import { useSessionCookies } from '../../src/session/cookie-jar';
import { BrowserSessionIdentity, browserSessionStrategy } from '../../src/session/session-identity';
import { browserSessions, specUpstreams } from '../support/identities';
import { yogaWith } from '../support/yoga';

type Step = (identity: BrowserSessionIdentity) => Promise<unknown>;

/** An upstream answer carrying a credential, as devise sends it (a blank token inside its batch window). */
const answer = (status: number, credential?: Partial<UpstreamCredential>) => {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (credential?.accessToken !== undefined) headers.set('access-token', credential.accessToken);
  if (credential?.client) headers.set('client', credential.client);
  if (credential?.uid) headers.set('uid', credential.uid);
  if (credential?.expiry) headers.set('expiry', String(credential.expiry));
  return new Response(status === 401 ? '{"errors":["Invalid login credentials"]}' : '{"data":{}}', { status, headers });
};
const answered = (status: number, credential?: Partial<UpstreamCredential>): Step => (identity) => identity.answered(answer(status, credential));
const refused: Step = (identity) => identity.refused(answer(401));

async function pipeline() {
  const sessions = browserSessions();
  const { log, metrics } = sessions;
  let steps: Step[] = [];
  const schema = createSchema({
    typeDefs: 'type Query { upstream: String! }',
    resolvers: {
      Query: {
        // What the credential broker does with each upstream answer of the request, then the token its next call would send.
        upstream: async (_root: unknown, _args: unknown, { identity }: IdentityContext) => {
          if (!(identity instanceof BrowserSessionIdentity)) throw new Error('no browser session');
          for (const step of steps) await step(identity);
          return identity.credential().accessToken;
        },
      },
    },
  });
  const state = sessions.state;
  const server = yogaWith([
    useSessionCookies(state),
    useExecutedOperation(state),
    useIdentity({ ...state, strategies: [browserSessionStrategy(sessions.dependencies)], production: true, defaultUpstream: () => specUpstreams.sandbox }),
    useErrorMapping({ ...state, log, metrics }),
  ], { schema });
  const signedIn = await sessions.signIn('ada@example.com', 'production', { accessToken: 'first-token', client: 'ada-client', expiry: 2_000_000_000 });
  const call = async (...given: Step[]) => {
    steps = given;
    return server.graphql('{ upstream }', { headers: { cookie: signedIn.cookie } });
  };
  const stored = async () => {
    const resolved = await sessions.sessions.resolve(signedIn.id);
    return resolved.status === 'active' ? resolved.session.credential : resolved.status;
  };
  return { ...sessions, events: (name: string) => sessions.events(name), call, stored, session: signedIn.session };
}

const ROTATED = { accessToken: 'rotated-token', client: 'ada-client', uid: 'ada@example.com', expiry: 2_000_000_100 };

describe('BrowserSessionIdentity', () => {
  it('keeps a rotated token: later calls of the request and the session\'s next requests send it', async () => {
    const { call, stored, events } = await pipeline();
    expect((await call(answered(200, ROTATED))).body.data).toEqual({ upstream: 'rotated-token' });
    expect(await stored()).toEqual(ROTATED);
    expect((await call()).body.data).toEqual({ upstream: 'rotated-token' });
    expect(events('credential.rotated')).toEqual([expect.objectContaining({ environment: 'production', kept: true })]);
  });

  it('keeps the token it has for a blank (batch-window) token, the same token, or an answer without credential headers', async () => {
    const { call, stored, events } = await pipeline();
    const same = { accessToken: 'first-token', client: 'ada-client', uid: 'ada@example.com' };
    const answer = await call(answered(200, { ...ROTATED, accessToken: ' ' }), answered(200, same), answered(200));
    expect(answer.body.data).toEqual({ upstream: 'first-token' });
    expect(await stored()).toMatchObject({ accessToken: 'first-token' });
    expect(events('credential.rotated')).toEqual([]);
  });

  it('keeps the newer token when a racing answer stored one first (compare-and-set)', async () => {
    const { call, stored, events, sessions, session } = await pipeline();
    const racing = { ...ROTATED, accessToken: 'racing-token' };
    const answer = await call(async () => sessions.rotate(session, racing), answered(200, ROTATED));
    expect(answer.body.data).toEqual({ upstream: 'first-token' });
    expect(await stored()).toEqual(racing);
    expect(events('credential.rotated')).toEqual([expect.objectContaining({ kept: false })]);
  });

  it('on a 401 ends the session, clears the cookie and refuses with UNAUTHENTICATED', async () => {
    const { call, stored, events, metrics } = await pipeline();
    const answer = await call(refused);
    expect([answer.status, answer.codes]).toEqual([401, ['UNAUTHENTICATED']]);
    expect(answer.headers.getSetCookie()).toEqual([expect.stringMatching(/^sgw_session=; Max-Age=0;/)]);
    expect(await stored()).toBe('missing');
    expect(events('session.rejected')).toEqual([expect.objectContaining({ reason: 'upstream-refused' })]);
    expect(await metrics.registry.getSingleMetricAsString('statement_gateway_sessions_total')).toContain('event="rejected"} 1');
  });

  it('on a 401 for a token a racing answer replaced, refuses this request only: the session and its cookie stay', async () => {
    const { call, stored, events, sessions, session } = await pipeline();
    const answer = await call(async () => sessions.rotate(session, ROTATED), refused);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(await stored()).toEqual(ROTATED);
    expect(events('session.rejected')).toEqual([]);
  });

  it('on a 401 after this request\'s own rotation, ends the session (the rotated token is the current one)', async () => {
    const { call, stored } = await pipeline();
    const answer = await call(answered(200, ROTATED), refused);
    expect(answer.headers.getSetCookie()).toHaveLength(1);
    expect(await stored()).toBe('missing');
  });
});
