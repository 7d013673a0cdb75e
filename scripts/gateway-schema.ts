/**
 * Writes schema/gateway.graphql: the public schema as clients see it (Mesh's composed schema from
 * the `mesh build` artifacts, without the handlers' internal directives), so that frontends can
 * generate typed clients from a committed file. `--check` exits 1 when the committed file differs.
 * The process test compares the file with what a running gateway answers to introspection.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildSchema, printSchema } from 'graphql';
import { publicSchema } from '../src/gateway/public-schema';

const ROOT = join(__dirname, '..');
const target = join(ROOT, 'schema', 'gateway.graphql');
const HEADER = '# The gateway\'s public schema, printed from the composed Mesh schema by `npm run generate:schema`. Do not edit.\n\n';

let composed: string;
try {
  composed = readFileSync(join(ROOT, '.mesh', 'schema.graphql'), 'utf8');
} catch {
  console.error('.mesh/schema.graphql is missing: run npm run build:mesh first');
  process.exit(1);
}
const sdl = `${HEADER}${printSchema(publicSchema(buildSchema(composed)))}\n`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // Missing: reported as out of date below.
  }
  if (current !== sdl) {
    console.error(`${target} is out of date: run npm run build:mesh && npm run generate:schema`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, sdl);
  console.log(`wrote ${target} (${sdl.length} bytes)`);
}
