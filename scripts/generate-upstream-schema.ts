/**
 * Writes sources/statement-filing-service/schema.graphql from the catalogue.
 * `--check` exits 1 when the committed file differs from what the catalogue renders.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderUpstreamSdl } from './upstream-sdl';

const target = join(__dirname, '..', 'sources', 'statement-filing-service', 'schema.graphql');
const sdl = renderUpstreamSdl();

if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== sdl) {
    console.error(`${target} is out of date: run npm run generate:schema`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, sdl);
  console.log(`wrote ${target} (${sdl.length} bytes)`);
}
