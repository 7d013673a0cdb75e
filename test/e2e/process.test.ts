/**
 * The gateway as a process: embedded defaults, configuration errors, the public schema, GraphiQL,
 * and a clean stop on SIGTERM.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, runToExit, startGatewayProcess, TEST_REDIS_URL, type TestGateway } from '../support/gateway';

const ROOT = path.resolve(__dirname, '..', '..');

describe('on embedded defaults (no upstream URL, no Redis URL)', () => {
  let gateway: TestGateway | undefined;
  beforeAll(async () => {
    gateway = await startGatewayProcess({});
  }, 90_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it('starts the built-in emulator and says so, naming the demo account and the in-memory store', () => {
    const output = gateway?.output() ?? '';
    expect(output).toContain('built-in Statement Filing Service emulator');
    expect(output).toContain(`${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password}`);
    expect(output).toContain('No REDIS_URL set');
  });

  it('serves a login with the demo account and a statementDefinitions query', async () => {
    const browser = new Browser(gateway?.url ?? '');
    const login = await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(login.codes).toEqual([]);
    // Plain http on loopback: no Secure flag and no __Host- prefix by default.
    expect(login.headers.getSetCookie()[0]).toMatch(/^sgw_session=/);
    expect(login.headers.getSetCookie()[0]).not.toMatch(/secure/i);
    const definitions = await browser.graphql('{ statementDefinitions { definitions { identifier } } }');
    expect(definitions.body.data?.statementDefinitions.definitions).toHaveLength(12);
  });

  it('exposes the upstream operations and login, logout and session, and nothing of the hidden sign-in', async () => {
    const answer = await new Browser(gateway?.url ?? '').graphql<{ __schema: { queryType: { fields: { name: string }[] }; mutationType: { fields: { name: string }[] }; types: { name: string }[]; directives: { name: string }[] } }>(
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name } directives { name } } }', undefined, { csrf: false });
    const schema = answer.body.data?.__schema;
    const queries = schema?.queryType.fields.map((field) => field.name) ?? [];
    const mutations = schema?.mutationType.fields.map((field) => field.name) ?? [];
    expect(queries).toEqual(expect.arrayContaining(['secretGreeting', 'statementDefinitions', 'getStatements', 'getFw2Statements', 'session']));
    expect(mutations).toEqual(expect.arrayContaining(['confirmRegistration', 'addF1099necStatements', 'updateFw2Statements', 'deleteStatements', 'finalizeStatements', 'submitStatements', 'login', 'logout']));
    expect(queries).not.toContain('dummy');
    expect(mutations).not.toContain('signIn');
    const types = schema?.types.map((type) => type.name) ?? [];
    for (const hidden of ['SignInSuccess', 'SignInFailure', 'SignedInUser', 'ResponseMetadata', 'SignInInput_Input', 'signIn_response', 'HTTPMethod', 'ObjMap']) expect(types).not.toContain(hidden);
    const directives = schema?.directives.map((directive) => directive.name) ?? [];
    expect(directives).toEqual(expect.arrayContaining(['include', 'skip', 'deprecated']));
    for (const name of directives) expect(['include', 'skip', 'deprecated', 'specifiedBy', 'oneOf']).toContain(name);
  });

  it('answers introspection with exactly the committed schema/gateway.graphql', async () => {
    const answer = await new Browser(gateway?.url ?? '').graphql<IntrospectionQuery>(getIntrospectionQuery(), undefined, { csrf: false });
    const committed = readFileSync(path.join(ROOT, 'schema', 'gateway.graphql'), 'utf8').replace(/^#.*\n\n/, '');
    expect(answer.body.data).toBeDefined();
    expect(`${printSchema(buildClientSchema(answer.body.data as IntrospectionQuery))}\n`).toBe(committed);
  });

  it('serves GraphiQL to browsers in development, sending X-CSRF', async () => {
    const response = await fetch(`${gateway?.url ?? ''}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('GraphiQL');
    expect(html).toContain('X-CSRF');
    // Served by the gateway itself (test/ops/graphiql.test.ts renders it offline).
    const foreign = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map(([url]) => url).filter((url) => new URL(url).origin !== new URL(gateway?.url ?? '').origin);
    expect(foreign).toEqual([]);
  });

  it('stops cleanly on SIGTERM within a few seconds', async () => {
    const started = Date.now();
    const code = await gateway?.stop();
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('bad configuration', () => {
  it('refuses to start with REDIS_URL but no CREDENTIAL_KEY, naming it', async () => {
    const { code, output } = await runToExit({ REDIS_URL: TEST_REDIS_URL });
    expect(code).toBe(1);
    expect(output).toMatch(/CREDENTIAL_KEY: is required with REDIS_URL/);
  });

  it('refuses a bad duration, naming the variable', async () => {
    const { code, output } = await runToExit({ SESSION_IDLE_TIMEOUT: 'soon' });
    expect(code).toBe(1);
    expect(output).toContain('SESSION_IDLE_TIMEOUT');
    expect(output).not.toMatch(/at .*\.ts:\d+/);
  });
});
