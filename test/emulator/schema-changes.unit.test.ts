/**
 * `PATCH /__emulator/settings {schemaChanges}`: the emulator's GraphQL schema changed as the real
 * upstream's might be, for the gateway's upstream schema check (docs/operations.md, "Upstream
 * schema drift"). Introspection shows the change, validation refuses what was removed, an added
 * field answers null, and `null` (or a reset) restores the committed schema.
 */
import { buildASTSchema, parse, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { applySchemaChanges } from '../../emulator/graphql/schema-changes';
import { control, graphql, seed, signIn, useEmulator, DEMO_ACCOUNT } from '../support/emulator';

const ctx = useEmulator('sandbox');

const TYPE_FIELDS = 'query($name: String!) { __type(name: $name) { fields { name type { name kind } } inputFields { name } enumValues { name } } }';

async function fieldsOf(name: string): Promise<{ fields: string[]; inputFields: string[]; enumValues: string[] }> {
  const answer = await graphql<{ __type: { fields: { name: string }[] | null; inputFields: { name: string }[] | null; enumValues: { name: string }[] | null } }>(ctx.url, null, TYPE_FIELDS, { name });
  const type = answer.body.data?.__type;
  return { fields: (type?.fields ?? []).map((f) => f.name), inputFields: (type?.inputFields ?? []).map((f) => f.name), enumValues: (type?.enumValues ?? []).map((v) => v.name) };
}

const change = (schemaChanges: unknown) => control<{ schemaChanges?: unknown; errors?: string[] }>(ctx.url, 'PATCH', '/__emulator/settings', { schemaChanges });

describe('emulator schemaChanges', () => {
  it('shows a removed field gone and an added one present in introspection, and answers the settings with them', async () => {
    const set = await change({ remove: ['Fw2Statement.recipientTin'], add: ['SecretGreetingPayload.mood: String', 'Query.upstreamNews: [String]'] });
    expect(set.status).toBe(200);
    expect(set.body.schemaChanges).toEqual({ remove: ['Fw2Statement.recipientTin'], add: ['SecretGreetingPayload.mood: String', 'Query.upstreamNews: [String]'] });
    expect((await fieldsOf('Fw2Statement')).fields).not.toContain('recipientTin');
    expect((await fieldsOf('Fw2Statement')).fields).toContain('senderTin');
    expect((await fieldsOf('SecretGreetingPayload')).fields).toEqual(['response', 'errors', 'mood']);
    expect((await fieldsOf('Query')).fields).toContain('upstreamNews');
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toMatchObject({ schemaChanges: set.body.schemaChanges });
  });

  it('refuses a query selecting a removed field by validation (200, errors, no data), and runs nothing of a mutation that does', async () => {
    const credential = await signIn(ctx.url);
    const [statement] = await seed(ctx.url, DEMO_ACCOUNT.email, 'Fw2', 1);
    await change({ remove: ['Fw2Statement.recipientTin', 'Fw2Statement.uploaderId'] });
    const read = await graphql(ctx.url, credential, '{ getFw2Statements { statements { nodes { otxId recipientTin } } } }');
    expect(read.status).toBe(200);
    expect(read.body.data).toBeUndefined();
    expect(read.body.errors).toHaveLength(1);
    expect(read.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Cannot query field "recipientTin" on type "Fw2Statement"\./), locations: [{ line: 1, column: 49 }] });
    // The rest of the type still answers.
    const kept = await graphql(ctx.url, credential, '{ getFw2Statements { statements { nodes { otxId } } } }');
    expect(kept.body.data?.getFw2Statements.statements.nodes).toEqual([{ otxId: statement!.otxId }]);
    const del = await graphql(ctx.url, credential, 'mutation($o: [String!]) { deleteStatements(otxIds: $o) { deleteCount } x: getFw2Statements { statements { nodes { uploaderId } } } }', { o: [statement!.otxId] });
    expect(del.body.errors?.length).toBeGreaterThan(0);
    expect((await graphql(ctx.url, credential, '{ getFw2Statements { statements { nodes { otxId } } } }')).body.data?.getFw2Statements.statements.nodes).toHaveLength(1);
  });

  it('answers null for an added field, at the root and inside an object', async () => {
    const credential = await signIn(ctx.url);
    await change({ add: ['SecretGreetingPayload.mood: String', 'Query.upstreamNews: [String]', 'SecretGreetingPayload.response2: SecretGreetingPayload'] });
    const answer = await graphql(ctx.url, credential, '{ secretGreeting { response mood response2 { response } } upstreamNews }');
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.secretGreeting).toEqual({ response: expect.any(String), mood: null, response2: null });
    expect(answer.body.data?.upstreamNews).toBeNull();
  });

  it('removes an input field', async () => {
    const { inputFields } = await fieldsOf('CreditCardInput');
    expect((await change({ remove: [`CreditCardInput.${inputFields[0]}`] })).status).toBe(200);
    expect((await fieldsOf('CreditCardInput')).inputFields).toEqual(inputFields.slice(1));
  });

  it('restores the committed schema with null, and with a reset', async () => {
    const before = await fieldsOf('Fw2Statement');
    await change({ remove: ['Fw2Statement.recipientTin'] });
    expect((await change(null)).body.schemaChanges).toBeNull();
    expect(await fieldsOf('Fw2Statement')).toEqual(before);
    await change({ remove: ['Fw2Statement.recipientTin'] });
    await control(ctx.url, 'POST', '/__emulator/reset');
    expect(await fieldsOf('Fw2Statement')).toEqual(before);
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toMatchObject({ schemaChanges: null });
  });

  it('refuses changes it cannot make with 400, naming the entry, and keeps the schema it had', async () => {
    const refused = [
      [{ remove: ['Fw2Statement.noSuchField'] }, 'Fw2Statement has no field noSuchField'],
      [{ remove: ['NoSuchType.field'] }, 'no object, interface, input or enum type NoSuchType'],
      [{ remove: ['not a path'] }, 'is not "Type.field"'],
      [{ add: ['SecretGreetingPayload.mood: String!'] }, 'must be nullable'],
      [{ add: ['SecretGreetingPayload.mood: NoSuchType'] }, 'no type NoSuchType'],
      [{ add: ['SecretGreetingPayload.response: String'] }, 'already has a field response'],
      [{ add: ['SecretGreetingPayload.mood'] }, 'is not "Type.field: TypeRef"'],
      [{ remove: ['Fw2Statement.x'], other: [] }, 'schemaChanges'],
    ] as const;
    for (const [changes, message] of refused) {
      const answer = await change(changes);
      expect(answer.status, JSON.stringify(changes)).toBe(400);
      expect(answer.body.errors?.join(' '), JSON.stringify(changes)).toContain(message);
    }
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toMatchObject({ schemaChanges: null });
    expect((await fieldsOf('SecretGreetingPayload')).fields).toEqual(['response', 'errors']);
  });
});

describe('applySchemaChanges', () => {
  // The upstream's SDL has no enum of its own today: an enum value is removed on a small SDL.
  it('removes an enum value, and adds a field to an interface and to an input type', () => {
    const sdl = parse('enum Color { RED GREEN } interface Named { name: String } input Filter { color: Color } type Query { color: Color named: Named f(filter: Filter): String }');
    const { document, added } = applySchemaChanges(sdl, { remove: ['Color.GREEN'], add: ['Named.nickname: String', 'Filter.limit: Int'] });
    const printed = printSchema(buildASTSchema(document));
    expect(printed).toContain('enum Color {\n  RED\n}');
    expect(printed).toContain('interface Named {\n  name: String\n  nickname: String\n}');
    expect(printed).toContain('input Filter {\n  color: Color\n  limit: Int\n}');
    // Output fields get a null resolver; input fields have none.
    expect([...added]).toEqual([['Named', ['nickname']]]);
  });
});
