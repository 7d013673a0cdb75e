/**
 * One sign-in and one sign-out upstream, outside the drop-in front's pass-through (which must
 * return the upstream's own bytes and stays a proxy): the REST paths are described once, in the
 * Mesh source of .meshrc.ts; one module calls those hidden operations (src/gateway/mesh-auth.ts);
 * and only the module that loads Mesh (src/gateway/mesh.ts) makes it. `login`, `logout` and the service accounts
 * reach it through the runtime's UpstreamAuth, never with a fetch of their own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUnder, listSourceFiles, ROOT } from '../../scripts/source-graph';

const GATEWAY_CODE = ['.meshrc.ts', 'src', 'additional-resolvers'];
const DROP_IN = 'src/drop-in';
const MESH_AUTH = 'src/gateway/mesh-auth.ts';

const files = listSourceFiles(ROOT, GATEWAY_CODE).filter((file) => !isUnder(file, DROP_IN));
const textOf = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const naming = (pattern: RegExp) => files.filter((file) => pattern.test(textOf(file))).sort();

describe('sign-in and sign-out upstream', () => {
  it('name the REST sign-in path in one module outside the drop-in front: the Mesh source in .meshrc.ts', () => {
    expect(naming(/\/v2\/auth\/sign_in\b/)).toEqual(['.meshrc.ts']);
  });

  it('name the REST sign-out path in that same module alone', () => {
    expect(naming(/\/v2\/auth\/sign_out\b/)).toEqual(['.meshrc.ts']);
  });

  it("call Mesh's hidden SignIn operations from one module", () => {
    // Through the in-context SDK, or on the source's own schema (found by its name, which only
    // .meshrc.ts, where the source is declared, names besides).
    expect(naming(/getInContextSDK|\bSignIn\.Mutation\b|\.SignIn\b/)).toEqual([]);
    expect(naming(/['"]SignIn['"]/)).toEqual(['.meshrc.ts', MESH_AUTH]);
  });

  it('are built where Mesh is loaded alone (the runtime holds the connected handle)', () => {
    expect(naming(/from '[^']*\/mesh-auth'/)).toEqual(['src/gateway/mesh.ts']);
  });
});
