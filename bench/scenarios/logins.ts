/**
 * Scenario 5: login throughput. `login` mutations on our gateway (each one creates a session), its
 * login rate limits lifted by the environment; the baseline is the emulator's own sign-in.
 */
import { loadOnGateway } from '../gateway-counters';
import { JSON_HEADERS } from '../http';
import { PASSWORD, QUERIES, USERS } from '../settings';
import { setLatency } from '../targets';
import { graphqlBody, type Scenario } from './context';

const SCENARIO = '5 login (sessions/s)';

export const logins: Scenario = {
  number: 5,
  async run({ targets, loader, rows, settings }) {
    const signIn = JSON.stringify({ email: USERS.login, password: PASSWORD });
    const login = graphqlBody(QUERIES.login, { e: USERS.login, p: PASSWORD, env: 'SANDBOX' });
    for (const latencyMs of settings.latenciesMs) {
      await setLatency(targets, latencyMs);
      rows.add(SCENARIO, latencyMs, 'emulator', 'emulator sign-in', await loader.load(targets.sandbox.pid, { url: `${targets.sandbox.url}/v2/auth/sign_in`, headers: JSON_HEADERS, body: signIn }));
      const sessions = await loadOnGateway(loader, targets.gateway, { headers: { ...JSON_HEADERS, 'x-csrf': '1' }, body: login }, ['sessions']);
      rows.add(SCENARIO, latencyMs, 'gateway', 'our gateway login', sessions.measured, sessions.note);
      rows.relate(SCENARIO, latencyMs, 'gateway', 'emulator');
    }
  },
};
