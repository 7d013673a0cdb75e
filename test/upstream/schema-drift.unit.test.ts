/**
 * The comparison behind the upstream schema check (src/upstream/schema-drift.ts and
 * trusted-document-drift.ts), in process, on small schemas: each kind of change the check must
 * class, its path, and which trusted documents the live schema would refuse.
 */
import { createHash } from 'node:crypto';
import {
  BreakingChangeType, buildSchema, DangerousChangeType, DirectiveLocation, findBreakingChanges, findDangerousChanges, GraphQLDirective, GraphQLSchema, parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { compareSchemas, countBySeverity, pathOf } from '../../src/upstream/schema-drift';
import { refusedDocuments, upstreamPart } from '../../src/upstream/trusted-document-drift';
import { upstreamSchema } from '../support/upstream-schema';

const SERVED = /* GraphQL */ `
  enum Status { DRAFT FINAL }
  input Filter { status: Status, limit: Int }
  interface Node { id: ID! }
  type Statement implements Node { id: ID! recipientTin: String status: Status amount: Float }
  type Query {
    statements(filter: Filter, first: Int): [Statement!]!
    greeting: String
  }
  type Mutation { finalize(ids: [ID!]!): Int }
`;
const served = buildSchema(SERVED);
/** The served schema with `edit` applied to its SDL. */
const live = (edit: (sdl: string) => string) => buildSchema(edit(SERVED));

describe('compareSchemas', () => {
  it('finds nothing between a schema and itself, or a copy built again', () => {
    expect(compareSchemas(served, served)).toEqual([]);
    expect(compareSchemas(served, live((sdl) => sdl))).toEqual([]);
  });

  it('classes a removed field as breaking, at Type.field', () => {
    expect(compareSchemas(served, live((sdl) => sdl.replace('recipientTin: String ', '')))).toEqual([
      { severity: 'breaking', path: 'Statement.recipientTin', description: 'Statement.recipientTin was removed.' },
    ]);
  });

  it('classes an argument made required as breaking, at Type.field(arg)', () => {
    const changes = compareSchemas(served, live((sdl) => sdl.replace('first: Int)', 'first: Int!)')));
    expect(changes).toEqual([{ severity: 'breaking', path: 'Query.statements(first)', description: expect.stringContaining('arg first has changed type from Int to Int!') }]);
  });

  it('classes a removed enum value as breaking, at Enum.VALUE', () => {
    expect(compareSchemas(served, live((sdl) => sdl.replace('DRAFT FINAL', 'FINAL')))).toEqual([
      { severity: 'breaking', path: 'Status.DRAFT', description: 'DRAFT was removed from enum type Status.' },
    ]);
  });

  it('classes an added type and an added field as safe', () => {
    const changes = compareSchemas(served, live((sdl) => `${sdl.replace('greeting: String', 'greeting: String\n    receipts: [Receipt]')} type Receipt { id: ID! }`));
    expect(changes).toEqual([
      { severity: 'safe', path: 'Query.receipts', description: 'Query.receipts was added.' },
      { severity: 'safe', path: 'Receipt', description: 'Receipt was added.' },
    ]);
    expect(countBySeverity(changes)).toEqual({ breaking: 0, dangerous: 0, safe: 2 });
  });

  it('classes an added enum value and an added optional argument as dangerous (findDangerousChanges)', () => {
    const changes = compareSchemas(served, live((sdl) => sdl.replace('DRAFT FINAL', 'DRAFT FINAL VOID').replace('finalize(ids: [ID!]!)', 'finalize(ids: [ID!]!, note: String)')));
    expect(changes).toEqual([
      { severity: 'dangerous', path: 'Mutation.finalize(note)', description: 'An optional arg note on Mutation.finalize was added.' },
      { severity: 'dangerous', path: 'Status.VOID', description: 'VOID was added to enum type Status.' },
    ]);
  });

  it('lists breaking changes first, then dangerous, then safe, each by path', () => {
    const changes = compareSchemas(served, live((sdl) => sdl.replace('greeting: String', 'hello: String').replace('DRAFT FINAL', 'DRAFT FINAL VOID').replace('amount: Float', 'amount: String')));
    expect(changes.map((change) => [change.severity, change.path])).toEqual([
      ['breaking', 'Query.greeting'],
      ['breaking', 'Statement.amount'],
      ['dangerous', 'Status.VOID'],
      ['safe', 'Query.hello'],
    ]);
  });

  it("ignores the GraphQL library's own directives (graphql-ruby lists @deprecated's locations otherwise) and a standard scalar no longer used", () => {
    const ruby = new GraphQLSchema({
      ...served.toConfig(),
      directives: served.getDirectives().filter((directive) => directive.name !== 'oneOf').map((directive) => (directive.name === 'deprecated' ? new GraphQLDirective({ ...directive.toConfig(), locations: [DirectiveLocation.FIELD_DEFINITION] }) : directive)),
    });
    expect(compareSchemas(served, ruby)).toEqual([]);
    expect(compareSchemas(served, live((sdl) => sdl.replace('amount: Float', '')))).toEqual([
      { severity: 'breaking', path: 'Statement.amount', description: 'Statement.amount was removed.' },
    ]);
  });

  it('reports a change to a directive of the upstream\'s own', () => {
    const withDirective = buildSchema(`directive @cost(weight: Int) on FIELD_DEFINITION ${SERVED}`);
    expect(compareSchemas(withDirective, served)).toEqual([{ severity: 'breaking', path: '@cost', description: 'cost was removed.' }]);
  });

  it("reads a path from every description shape graphql-js writes (a graphql-js that words them otherwise fails here)", () => {
    const before = buildSchema(`directive @cost(weight: Int) repeatable on FIELD_DEFINITION | OBJECT
      union U = A | B  type A { a: Int } type B { b: Int } type C { c: Int }
      interface I { x: Int } type Impl implements I { x: Int }
      input In { a: Int } type Query { f(a: Int = 1): U k: Int g: Impl gone: Int }`);
    const after = buildSchema(`directive @cost(level: Int!) on FIELD_DEFINITION
      union U = A | C  type A { a: Int } type B { b: String } type C { c: Int }
      interface I { x: Int } interface J { y: Int } type Impl implements J { x: Int y: Int }
      input In { a: Int b: Int! c: Int } type Query { f(a: Int = 2, req: Int!, opt: Int): U k: String g: Impl gone2: Int }`);
    const paths = Object.fromEntries([...findBreakingChanges(before, after), ...findDangerousChanges(before, after)].map((change) => [`${change.type} ${change.description}`, pathOf(change)]));
    expect(paths).toEqual({
      [`${BreakingChangeType.DIRECTIVE_ARG_REMOVED} weight was removed from cost.`]: '@cost',
      [`${BreakingChangeType.REQUIRED_DIRECTIVE_ARG_ADDED} A required arg level on directive cost was added.`]: '@cost',
      [`${BreakingChangeType.DIRECTIVE_REPEATABLE_REMOVED} Repeatable flag was removed from cost.`]: '@cost',
      [`${BreakingChangeType.DIRECTIVE_LOCATION_REMOVED} OBJECT was removed from cost.`]: '@cost',
      [`${BreakingChangeType.TYPE_REMOVED_FROM_UNION} B was removed from union type U.`]: 'U',
      [`${DangerousChangeType.TYPE_ADDED_TO_UNION} C was added to union type U.`]: 'U',
      [`${BreakingChangeType.FIELD_CHANGED_KIND} B.b changed type from Int to String.`]: 'B.b',
      [`${BreakingChangeType.IMPLEMENTED_INTERFACE_REMOVED} Impl no longer implements interface I.`]: 'Impl',
      [`${DangerousChangeType.IMPLEMENTED_INTERFACE_ADDED} J added to interfaces implemented by Impl.`]: 'Impl',
      [`${BreakingChangeType.REQUIRED_INPUT_FIELD_ADDED} A required field b on input type In was added.`]: 'In.b',
      [`${DangerousChangeType.OPTIONAL_INPUT_FIELD_ADDED} An optional field c on input type In was added.`]: 'In.c',
      [`${BreakingChangeType.REQUIRED_ARG_ADDED} A required arg req on Query.f was added.`]: 'Query.f(req)',
      [`${DangerousChangeType.OPTIONAL_ARG_ADDED} An optional arg opt on Query.f was added.`]: 'Query.f(opt)',
      [`${DangerousChangeType.ARG_DEFAULT_VALUE_CHANGE} Query.f arg a has changed defaultValue from 1 to 2.`]: 'Query.f(a)',
      [`${BreakingChangeType.FIELD_CHANGED_KIND} Query.k changed type from Int to String.`]: 'Query.k',
      [`${BreakingChangeType.FIELD_REMOVED} Query.gone was removed.`]: 'Query.gone',
    });
    expect(pathOf({ type: BreakingChangeType.TYPE_CHANGED_KIND, description: 'In changed from an Input type to an Object type.' })).toBe('In');
    expect(pathOf({ type: BreakingChangeType.ARG_REMOVED, description: 'Query.f arg a was removed.' })).toBe('Query.f(a)');
    expect(pathOf({ type: BreakingChangeType.TYPE_REMOVED, description: 'Standard scalar Float was removed because it is not referenced anymore.' })).toBe('Float');
  });
});

const trusted = (text: string) => ({ id: createHash('sha256').update(text).digest('hex'), document: parse(text) });

describe('refusedDocuments', () => {
  const removed = live((sdl) => sdl.replace('recipientTin: String ', ''));

  it('names a trusted document that selects a removed field, by id and operation name, with the upstream\'s validation message', () => {
    const ok = trusted('query Amounts { statements { id amount } }');
    const broken = trusted('query Recipients($first: Int) { statements(first: $first) { ...Who } } fragment Who on Statement { id recipientTin }');
    expect(refusedDocuments([ok, broken], served, removed)).toEqual([
      { id: broken.id, name: 'Recipients', message: 'Cannot query field "recipientTin" on type "Statement".' },
    ]);
    expect(refusedDocuments([ok, broken], served, served)).toEqual([]);
  });

  it("leaves out the gateway's own root fields, and the variables and fragments only they used", () => {
    // `login`, `session`: fields the gateway resolves itself; the upstream never sees them.
    const mixed = trusted('mutation Login($email: String!, $password: String!, $ids: [ID!]!) { login(email: $email, password: $password) { ...S } finalize(ids: $ids) } fragment S on Session { uid }');
    const gatewayOnly = trusted('query Me { session { uid } }');
    const part = upstreamPart(mixed.document, served);
    expect(part?.definitions).toHaveLength(1);
    expect(refusedDocuments([mixed, gatewayOnly], served, served)).toEqual([]);
    expect(upstreamPart(gatewayOnly.document, served)).toBeUndefined();
    // The upstream part is judged: finalize's argument made a list of strings.
    expect(refusedDocuments([mixed], served, live((sdl) => sdl.replace('finalize(ids: [ID!]!)', 'finalize(ids: [String!]!)')))).toEqual([
      { id: mixed.id, name: 'Login', message: expect.stringContaining('Variable "$ids" of type "[ID!]!" used in position expecting type "[String!]!"') },
    ]);
  });

  it('accepts a document of the SPA (a session field beside an upstream one) on the real upstream schema', () => {
    const spa = trusted('query Statements($first: Int) { session { uid } getStatements(first: $first) { statements { nodes { otxId } } } }');
    expect(refusedDocuments([spa], upstreamSchema(), upstreamSchema())).toEqual([]);
  });
});
