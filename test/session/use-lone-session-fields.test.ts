/**
 * `login` and `logout` must each be the only root field of their operation (the contract's
 * "GraphQL schema"): beside another root field the document is BAD_REQUEST and nothing of it runs.
 * `mutation { logout deleteStatements(...) }` used to sign the session out, then send the delete
 * upstream with the signed-out credential, and answer a masked 500. A gateway in this process on
 * the test Redis, the emulator over HTTP: its request log shows that nothing reached it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';

const { sandbox, gateway } = useGatewayOnEmulators();

const LOGIN = `login(email: "${DEMO_ACCOUNT.email}", password: "${DEMO_ACCOUNT.password}") { uid }`;
const DELETE = 'deleteStatements(otxIds: ["otx-does-not-matter"]) { errors }';

async function signedIn(): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return browser;
}

/** What the emulator received since the last clear (every request is logged there, sign-out included). */
async function upstreamRequests(): Promise<unknown[]> {
  return (await control<unknown[]>(sandbox.url, 'GET', '/__emulator/requests')).body;
}

beforeEach(async () => {
  await control(sandbox.url, 'DELETE', '/__emulator/requests');
});

describe('a session field beside another root field', () => {
  it('refuses logout beside deleteStatements with BAD_REQUEST (400): no sign-out, no delete upstream, the session goes on (regression)', async () => {
    const browser = await signedIn();
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const answer = await browser.graphql(`mutation { logout ${DELETE} }`);
    expect([answer.status, answer.codes, answer.body.data ?? null]).toEqual([400, ['BAD_REQUEST'], null]);
    expect(answer.body.errors?.[0]?.message).toMatch(/logout.*only root field/);
    expect(await upstreamRequests()).toEqual([]);
    expect(browser.lastSetCookie).toEqual([]);
    const session = await browser.graphql('{ session(touch: false) { uid } }');
    expect(session.body.data?.session?.uid).toBe(DEMO_ACCOUNT.email);
  });

  it('refuses login beside another field, through fragments and aliases too: no sign-in upstream, no cookie', async () => {
    for (const document of [
      `mutation { ${LOGIN} confirmRegistration(confirmationToken: "guess", password: "a-long-enough-password-123") { errors } }`,
      `mutation { ...Both } fragment Both on Mutation { ${LOGIN} ${DELETE} }`,
      `mutation { a: ${LOGIN} b: ${LOGIN} }`,
      `mutation { __typename ${LOGIN} ${DELETE} }`,
    ]) {
      const browser = new Browser(gateway.current.url);
      const answer = await browser.graphql(document);
      expect([answer.status, answer.codes], document).toEqual([400, ['BAD_REQUEST']]);
      expect(browser.lastSetCookie, document).toEqual([]);
    }
    expect(await upstreamRequests()).toEqual([]);
  });

  it('refuses logout twice in one operation (an alias is another root field), and still runs logout alone', async () => {
    const browser = await signedIn();
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    expect((await browser.graphql('mutation { logout again: logout }')).codes).toEqual(['BAD_REQUEST']);
    expect(await upstreamRequests()).toEqual([]);
    const alone = await browser.graphql('mutation { logout }');
    expect([alone.status, alone.codes, alone.body.data?.logout]).toEqual([200, [], true]);
  });
});
