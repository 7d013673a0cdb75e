/**
 * State belongs to a gateway instance, never to a module: two gateways in one process must not
 * share per-request or per-document state. The scan reads the top-level statements of every file
 * under src/ (function and class bodies are per call or per instance, so they are not looked
 * into) and finds:
 * - a `new WeakMap`, `new WeakSet` or `new AsyncLocalStorage`: keyed by (or carrying) requests,
 *   documents or answers, they are per-request or per-document state by nature;
 * - a `new Map` or `new Set` that a function writes into (`set`, `add`, `delete`, `clear`): a
 *   table filled while requests are served. Constant tables (`new Set([...])`, or a map filled
 *   once while the module loads) are fine.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { listSourceFiles, ROOT } from '../../scripts/source-graph';

const ALWAYS_STATE = new Set(['WeakMap', 'WeakSet', 'AsyncLocalStorage']);
const COLLECTIONS = new Set(['Map', 'Set']);
const WRITES = new Set(['set', 'add', 'delete', 'clear']);

/** `file:line new X` for each module-level piece of state in one file's text. */
export function moduleState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const collections = new Map<string, number>();
  const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  // Top level: everything but function and class bodies.
  const topLevel = (node: ts.Node, declared?: string): void => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      if (ALWAYS_STATE.has(name)) found.push(`${where(node)} new ${name}`);
      else if (COLLECTIONS.has(name) && declared) collections.set(declared, source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    const name = ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) ? node.name.text : declared;
    ts.forEachChild(node, (child) => topLevel(child, name));
  };
  for (const statement of source.statements) topLevel(statement);
  // Writes into a module-level Map or Set from inside a function: filled while serving.
  const written = new Set<string>();
  const inFunctions = (node: ts.Node, inside: boolean): void => {
    const within = inside || ts.isFunctionLike(node) || ts.isClassLike(node);
    if (
      within &&
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      collections.has(node.expression.expression.text) &&
      WRITES.has(node.expression.name.text)
    ) {
      written.add(node.expression.expression.text);
    }
    ts.forEachChild(node, (child) => inFunctions(child, within));
  };
  inFunctions(source, false);
  for (const name of written) found.push(`${file}:${collections.get(name)} ${name} (a module-level collection written by a function)`);
  return found;
}

describe('module-level state', () => {
  it('finds none under src/: per-request and per-document state is created per gateway', () => {
    const found = listSourceFiles(ROOT, ['src'], /\.ts$/).flatMap((file) => moduleState(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds a module-level WeakMap, one inside an object, and a Map a function fills, but not a constant table or a per-call Map', () => {
    const text = [
      'const byRequest = new WeakMap<Request, string>();',
      'export const state = { seen: new WeakSet<object>() };',
      'const cache = new Map<string, number>();',
      'export function remember(key: string) { cache.set(key, 1); }',
      "const NAMES = new Set(['a', 'b']);",
      'const ROUTES = new Map<string, number>();',
      "ROUTES.set('/a', 1);",
      'export function perCall() { const local = new Map<string, number>(); local.set("x", 1); return NAMES.has("a") ? local : ROUTES; }',
      'export class Holder { readonly values = new WeakMap<object, number>(); }',
    ].join('\n');
    expect(moduleState('fixture.ts', text)).toEqual([
      'fixture.ts:1 new WeakMap',
      'fixture.ts:2 new WeakSet',
      'fixture.ts:3 cache (a module-level collection written by a function)',
    ]);
  });
});
