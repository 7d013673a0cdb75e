/**
 * Introspection through the drop-in front shows the upstream's schema, not the gateway's: a client
 * that builds its schema from introspection (Python's gql, code generators) sees the same schema
 * through the front as from the upstream, with or without a credential, and whether or not the
 * gateway's own introspection is on (GRAPHQL_INTROSPECTION=false here).
 */
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { directiveLocations, UPSTREAM_DIRECTIVES } from '../fixtures/upstream/directives';
import { control, graphql, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';

const PASSWORD = 'a-long-enough-password-123';
const INTROSPECTION = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, inputValueDeprecation: true });

interface Answer {
  readonly status: number;
  readonly body: { data?: IntrospectionQuery; errors?: unknown[] };
}

async function introspect(url: string, credential: Credential | null): Promise<Answer> {
  const answer = await fetch(`${url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(credential ?? {}) }, body: JSON.stringify({ query: INTROSPECTION }) });
  return { status: answer.status, body: (await answer.json()) as Answer['body'] };
}

/** Type names, and the Query and Mutation field names, of an introspection answer. */
function outline(body: Answer['body']) {
  const types = body.data?.__schema.types ?? [];
  const fields = (name: string | undefined) => {
    const type = types.find((entry) => entry.name === name);
    return type && 'fields' in type ? type.fields.map((field) => field.name).sort() : [];
  };
  return {
    types: types.map((type) => type.name).sort(),
    query: fields(body.data?.__schema.queryType.name),
    mutation: fields(body.data?.__schema.mutationType?.name),
  };
}

describe('introspection through the drop-in front', () => {
  const { sandbox, gateway } = useGatewayOnEmulators({ GRAPHQL_INTROSPECTION: 'false' });

  async function verifiedCredential(): Promise<Credential> {
    const email = `front-introspection-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    // Signed in through the front: the credential is verified, so the gateway answers itself.
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(signedIn.status).toBe(200);
    return { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
  }

  it("lists the upstream's types and root fields, and none of the gateway's, for a verified credential", async () => {
    const credential = await verifiedCredential();
    const upstream = await introspect(sandbox.url, credential);
    const front = await introspect(gateway.current.url, credential);

    expect(front.status).toBe(upstream.status);
    expect(front.body.errors).toBeUndefined();
    const seen = outline(front.body);
    expect(seen).toEqual(outline(upstream.body));
    for (const name of ['Session', 'Environment']) expect(seen.types).not.toContain(name);
    for (const name of ['session', 'login', 'logout']) expect([...seen.query, ...seen.mutation]).not.toContain(name);
  });

  it("answers the standard introspection query with the upstream's JSON, with and without a credential", async () => {
    const credential = await verifiedCredential();
    const upstream = await introspect(sandbox.url, credential);
    expect(await introspect(gateway.current.url, credential)).toEqual(upstream);
    expect(await introspect(gateway.current.url, null)).toEqual(await introspect(sandbox.url, null));
  });

  it('answers a query of a gateway-only type as the upstream does, and keeps the gateway\'s own introspection off', async () => {
    const credential = await verifiedCredential();
    const query = '{ __type(name: "Session") { name } }';
    const upstream = await graphql(sandbox.url, credential, query);
    const answer = await fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query }) });
    expect(answer.status).toBe(upstream.status);
    expect(await answer.json()).toEqual(upstream.body);

    const own = await fetch(`${gateway.current.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }) });
    expect(own.status).toBe(400);
  });

  it("lists graphql-ruby's directives, never one on DIRECTIVE_DEFINITION, with and without a credential (regression: graphql-js 16.15's @deprecated)", async () => {
    const credential = await verifiedCredential();
    for (const answer of [await introspect(gateway.current.url, credential), await introspect(gateway.current.url, null)]) {
      expect(directiveLocations(answer.body.data?.__schema.directives ?? [])).toEqual(UPSTREAM_DIRECTIVES);
    }
  });
});
