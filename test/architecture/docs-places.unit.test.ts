/**
 * The manual places each plugin in the folder it lives in: wherever the README or a page of docs/
 * names a plugin factory (`useX`) followed by a source path in parentheses (`src/folder/` or a
 * file), that path holds the factory's definition. A plugin moved to another folder fails here
 * until the pages follow it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUnder, listSourceFiles, ROOT } from '../../scripts/source-graph';

const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const TEXTS = new Map(PAGES.map((page) => [page, readFileSync(path.join(ROOT, page), 'utf8')] as const));
/** Where each plugin factory of src/ is defined. */
const DEFINED = new Map(
  listSourceFiles(ROOT, ['src'], /\.ts$/).flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^export function (use[A-Z]\w*)\(/gm)].map((match) => [match[1]!, file] as const)),
);

/** `useA`, `useB` (`src/x/`): each name of a run of backticked factories, with the path after them. */
function placements(text: string): { readonly name: string; readonly place: string }[] {
  const found: { name: string; place: string }[] = [];
  for (const match of text.matchAll(/((?:`use[A-Z]\w*`(?:,\s*|\s+and\s+)?)+)\s*\(`(src\/[\w./-]+?)`/g)) {
    for (const name of match[1]!.matchAll(/`(use[A-Z]\w*)`/g)) found.push({ name: name[1]!, place: match[2]! });
  }
  return found;
}

describe('the README and docs/', () => {
  it('place plugins (the check reads docs/architecture.md\'s table)', () => {
    expect(placements(TEXTS.get('docs/architecture.md') ?? '').length).toBeGreaterThan(15);
    expect(DEFINED.size).toBeGreaterThan(25);
  });

  it('place each plugin in the folder (or file) that defines it', () => {
    const wrong = [...TEXTS].flatMap(([page, text]) =>
      placements(text)
        .filter(({ name, place }) => {
          const file = DEFINED.get(name);
          return !file || !(file === place || isUnder(file, place.replace(/\/$/, '')));
        })
        .map(({ name, place }) => `${page}: ${name} (${place}): defined in ${DEFINED.get(name) ?? 'no file of src/'}`));
    expect(wrong).toEqual([]);
  });
});
