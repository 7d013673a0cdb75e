/**
 * The emulator's introspection lists graphql-ruby's directives, not graphql-js 16.15's: `@deprecated`
 * on FIELD_DEFINITION, ARGUMENT_DEFINITION, INPUT_FIELD_DEFINITION and ENUM_VALUE only, no directive
 * on DIRECTIVE_DEFINITION. The Python tutorial client builds its schema from introspection with
 * graphql-core 3.2.8 (gql), whose DirectiveLocation enum has no DIRECTIVE_DEFINITION: where that
 * library is installed, it reads the emulator's answer here.
 */
import { execFileSync } from 'node:child_process';
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { directiveLocations, UPSTREAM_DIRECTIVES } from '../fixtures/upstream/directives';
import { useEmulator } from '../support/emulator';

const sandbox = useEmulator('sandbox');

/** The Python tutorial's query: gql asks graphql-core for its standard introspection query. */
const INTROSPECTION = getIntrospectionQuery({ descriptions: true });

async function introspect(url: string): Promise<IntrospectionQuery> {
  const answer = await fetch(`${url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: INTROSPECTION }) });
  expect(answer.status).toBe(200);
  const { data } = (await answer.json()) as { data: IntrospectionQuery };
  return data;
}

/** graphql-core 3.2.8 under `python3`, if this machine has it. */
function graphqlCore328(): boolean {
  try {
    return execFileSync('python3', ['-c', 'import graphql; print(graphql.__version__)'], { encoding: 'utf8' }).trim() === '3.2.8';
  } catch {
    return false;
  }
}

describe("the emulator's introspection directives", () => {
  it("are graphql-ruby's: @deprecated without DIRECTIVE_DEFINITION, and no directive on a directive definition", async () => {
    const { directives } = (await introspect(sandbox.url)).__schema;
    expect(directiveLocations(directives)).toEqual(UPSTREAM_DIRECTIVES);
    expect(directives.flatMap((directive) => directive.locations)).not.toContain('DIRECTIVE_DEFINITION');
  });

  it.runIf(graphqlCore328())('builds a client schema with graphql-core 3.2.8, as the Python tutorial client does', async () => {
    const data = await introspect(sandbox.url);
    const script = 'import json, sys\nfrom graphql import build_client_schema\nschema = build_client_schema(json.load(sys.stdin))\nprint(len(schema.directives), schema.query_type.name)';
    const printed = execFileSync('python3', ['-c', script], { input: JSON.stringify(data), encoding: 'utf8' }).trim();
    expect(printed).toBe(`${Object.keys(UPSTREAM_DIRECTIVES).length} Query`);
  });
});
