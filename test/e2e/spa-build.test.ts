/**
 * The example frontend's `npm run build` runs codegen and `tsc --noEmit` before `vite build`, so a
 * typo in one of its GraphQL documents fails the build instead of shipping a page that sends a
 * broken query. Run on a copy inside examples/ (its codegen reads ../../schema, and npm finds the
 * root's tools in the parent folders' node_modules/.bin), removed afterwards.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SPA_ROOT } from '../support/spa-example';

const run = promisify(execFile);
const copies: string[] = [];

/** A copy of the example next to it, without what a build writes. */
function copyOfExample(): string {
  const copy = mkdtempSync(path.join(path.dirname(SPA_ROOT), '.spa-build-'));
  copies.push(copy);
  cpSync(SPA_ROOT, copy, { recursive: true, filter: (source) => !/[/\\](dist|node_modules)$/.test(source) });
  return copy;
}

async function npmRun(cwd: string, script: string): Promise<{ code: number; output: string }> {
  try {
    // As a developer's shell runs it: under NODE_ENV=test (vitest's) codegen prints no details.
    const { NODE_ENV: _test, ...env } = process.env;
    const { stdout, stderr } = await run('npm', ['run', script], { cwd, env, timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

afterEach(() => {
  for (const copy of copies.splice(0)) rmSync(copy, { recursive: true, force: true });
});

describe("the example frontend's build", () => {
  it('passes codegen and the TypeScript check as committed', async () => {
    const result = await npmRun(copyOfExample(), 'check');
    expect(result, result.output).toMatchObject({ code: 0 });
  }, 60_000);

  it('fails, before bundling, on a typo in a query', async () => {
    const copy = copyOfExample();
    const operations = path.join(copy, 'src/operations.ts');
    writeFileSync(operations, readFileSync(operations, 'utf8').replace('nodes { otxId uploaderId', 'nodes { otxId uploaderID'));
    const result = await npmRun(copy, 'build');
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('Cannot query field "uploaderID" on type "Statement"');
    expect(() => readFileSync(path.join(copy, 'dist/index.html'))).toThrow();
  }, 60_000);
});
