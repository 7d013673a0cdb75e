/**
 * `sessions`, `endSession` and `logoutEverywhere` through a gateway (additional-resolvers/
 * user-sessions.ts): a browser session only, the id of nothing is `false`, ending this request's
 * own session clears its cookie, and the mutations stay alone in their operation. Ending across
 * replicas and upstream sign-outs: test/e2e/session-revocation.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { control } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const account = testServiceAccount('no-sessions');
const { sandbox, gateway } = useGatewayOnEmulators(serviceAccountsEnv([account]));
const PASSWORD = 'a-long-enough-password-123';
const FIELDS = ['{ sessions { id } }', 'mutation { endSession(id: "anything") }', 'mutation { logoutEverywhere }'];

beforeAll(async () => {
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
});

async function signedIn(email: string): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(email, PASSWORD)).codes).toEqual([]);
  return browser;
}

async function newUser(): Promise<string> {
  const email = `fields-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

describe('the session list fields', () => {
  it('need a browser session: UNAUTHENTICATED without one, and for a service account', async () => {
    for (const query of FIELDS) {
      const anonymous = await new Browser(gateway.current.url).graphql(query);
      expect([anonymous.status, anonymous.codes], query).toEqual([401, ['UNAUTHENTICATED']]);
      const service = await callWithKey(gateway.current.url, account.key, query);
      expect([service.status, service.codes], query).toEqual([401, ['UNAUTHENTICATED']]);
    }
  });

  it('answer false for an id that names none of the user\'s sessions, and 0 for logoutEverywhere(keepCurrent) alone', async () => {
    const browser = await signedIn(await newUser());
    for (const id of ['', 'not-an-id', 'A'.repeat(43)]) expect((await browser.graphql('mutation($id: ID!) { endSession(id: $id) }', { id })).body.data).toEqual({ endSession: false });
    expect((await browser.graphql('mutation { logoutEverywhere(keepCurrent: true) }')).body.data).toEqual({ logoutEverywhere: 0 });
    expect((await browser.graphql('{ sessions { current } }')).body.data).toEqual({ sessions: [{ current: true }] });
  });

  it('clear the cookie when they end this request\'s own session', async () => {
    const email = await newUser();
    const browser = await signedIn(email);
    const [{ id }] = ((await browser.graphql<{ sessions: { id: string }[] }>('{ sessions { id } }')).body.data?.sessions ?? []) as [{ id: string }];
    const ended = await browser.graphql('mutation($id: ID!) { endSession(id: $id) }', { id });
    expect(ended.body.data).toEqual({ endSession: true });
    expect(browser.lastSetCookie).toEqual([expect.stringMatching(/sgw_session=;.*Max-Age=0/i)]);
    expect(browser.cookie).toBeUndefined();
    const again = await signedIn(email);
    const everywhere = await again.graphql('mutation { logoutEverywhere }');
    expect(everywhere.body.data).toEqual({ logoutEverywhere: 1 });
    expect(again.cookie).toBeUndefined();
  });

  it('refuse endSession or logoutEverywhere beside another root field (BAD_REQUEST), ending nothing', async () => {
    const browser = await signedIn(await newUser());
    const answer = await browser.graphql('mutation { logoutEverywhere sessionCount: logoutEverywhere(keepCurrent: true) }');
    expect([answer.status, answer.codes]).toEqual([400, ['BAD_REQUEST']]);
    expect((await browser.graphql('{ sessions { current } }')).codes).toEqual([]);
  });
});
