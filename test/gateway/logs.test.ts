/**
 * A full login-and-query flow writes JSON logs with named events and none of the secrets: the
 * password, the upstream tokens and client ids, the cookie.
 */
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../helpers/emulator';
import { Browser, useGatewayBehindRecordingProxy } from '../helpers/gateway';
import { ADD_NEC, VALID_NEC } from '../helpers/statements';

const setup = useGatewayBehindRecordingProxy({ LOG_LEVEL: 'trace' });
const { sandbox, gateway } = setup;

describe('logs', () => {
  it('a full login-and-query flow writes none of the password, tokens, client ids or cookie', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const cookieValue = browser.cookie?.split('=')[1] ?? '';
    expect(cookieValue).toHaveLength(43);
    for (let i = 0; i < 3; i++) expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
    expect((await browser.graphql(ADD_NEC, { s: [VALID_NEC] })).codes).toEqual([]);
    await browser.graphql('{ nope }');
    expect((await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, 'wrong-password-here')).codes).toEqual(['INVALID_CREDENTIALS']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect((await browser.graphql('mutation { logout }')).codes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const secrets = new Set<string>([DEMO_ACCOUNT.password, 'wrong-password-here', cookieValue]);
    for (const exchange of setup.proxy.exchanges) {
      for (const name of ['access-token', 'client', 'authorization']) {
        const value = exchange.responseHeaders[name]?.trim() ?? (exchange.requestHeaders[name] as string | undefined)?.trim();
        if (value) secrets.add(value);
      }
    }
    expect(secrets.size).toBeGreaterThan(5);

    const output = gateway.current.output();
    for (const secret of secrets) expect(output).not.toContain(secret);

    const events = output.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { event?: string }).event);
    expect(events).toEqual(expect.arrayContaining(['gateway.started', 'session.login', 'session.login-refused', 'upstream.failed', 'session.logout', 'request.completed']));
  });
});
