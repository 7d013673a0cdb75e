import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema, getNamedType, isInputObjectType, isListType, isNonNullType, isObjectType, type GraphQLField, type GraphQLObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { renderUpstreamSdl } from '../../scripts/upstream-sdl';

const ROOT = join(__dirname, '..', '..');
const SDL = readFileSync(join(ROOT, 'sources', 'statement-filing-service', 'schema.graphql'), 'utf8');
const schema = buildSchema(SDL);
const FORMS_JSON = readFileSync(join(ROOT, 'sources', 'statement-filing-service', 'forms.json'));
const published = JSON.parse(FORMS_JSON.toString('utf8')) as {
  forms: Record<string, { add: string; update: string; get: string; input: { name: string; type: string }[]; output: { name: string; type: string }[] }>;
};

const rootField = (type: GraphQLObjectType | null | undefined, name: string): GraphQLField<unknown, unknown> => {
  const field = type?.getFields()[name];
  if (!field) throw new Error(`no root field ${name}`);
  return field;
};
const typeName = (t: { toString(): string }) => t.toString().replace(/!/g, '');

describe('sources/statement-filing-service/schema.graphql', () => {
  it('is exactly what the catalogue renders (run npm run generate:schema after changing it)', () => {
    expect(SDL).toBe(renderUpstreamSdl());
  });

  it('is built from a catalogue whose forms.json is the upstream\'s field lists, unedited (their checksum is in test/fixtures/upstream/README.md)', () => {
    const readme = readFileSync(join(ROOT, 'test', 'fixtures', 'upstream', 'README.md'), 'utf8');
    const recorded = /forms\.json`\]\([^)]*\) \|[^\n]*?sha256 `([0-9a-f]{64})`/.exec(readme)?.[1];
    expect(createHash('sha256').update(FORMS_JSON).digest('hex')).toBe(recorded);
  });

  it('has the operations the spec names', () => {
    expect(Object.keys(schema.getQueryType()!.getFields())).toEqual(expect.arrayContaining(['secretGreeting', 'statementDefinitions', 'getStatements']));
    expect(Object.keys(schema.getMutationType()!.getFields())).toEqual(expect.arrayContaining(['confirmRegistration', 'deleteStatements', 'finalizeStatements', 'submitStatements']));
  });

  it('has add, update and get for each of the 12 forms with the published input and output fields', () => {
    expect(Object.keys(published.forms)).toHaveLength(12);
    for (const [key, form] of Object.entries(published.forms)) {
      const input = getNamedType(rootField(schema.getMutationType(), form.add).args[0]!.type);
      expect(isInputObjectType(input) && Object.entries(input.getFields()).map(([n, f]) => [n, typeName(f.type)]), key)
        .toEqual(form.input.map((f) => [f.name, f.type]));
      const update = getNamedType(rootField(schema.getMutationType(), form.update).args[0]!.type);
      expect(isInputObjectType(update) && Object.keys(update.getFields()), key).toEqual(['otxId', 'uploaderId', 'statement']);
      const get = rootField(schema.getQueryType(), form.get);
      expect(get.args.map((a) => `${a.name}: ${a.type.toString()}`), key).toEqual(['otxIds: [String!]', 'uploaderIds: [String!]']);
      const node = schema.getType(`${key}Statement`);
      expect(isObjectType(node) && Object.entries(node.getFields()).map(([n, f]) => [n, typeName(f.type)]), key)
        .toEqual([...form.output.map((f) => [f.name, f.type]), ['pdf', 'String']]);
    }
  });

  it('has errors: [String!]! on every payload', () => {
    const payloads = [schema.getQueryType()!, schema.getMutationType()!].flatMap((t) => Object.values(t.getFields()).map((f) => getNamedType(f.type)));
    expect(payloads).toHaveLength(43);
    for (const payload of payloads) {
      expect(isObjectType(payload) && payload.getFields().errors?.type.toString(), payload.name).toBe('[String!]!');
    }
  });

  it('has Relay-style connections with pageInfo, edges and nodes', () => {
    const pageInfo = schema.getType('PageInfo');
    expect(isObjectType(pageInfo) && Object.keys(pageInfo.getFields())).toEqual(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']);
    for (const [name, type] of Object.entries(schema.getTypeMap()).filter(([n]) => n.endsWith('Connection'))) {
      const fields = isObjectType(type) ? type.getFields() : {};
      expect(Object.keys(fields), name).toEqual(['pageInfo', 'edges', 'nodes']);
      expect(isNonNullType(fields.pageInfo!.type) && isListType(fields.nodes!.type), name).toBe(true);
    }
  });
});
