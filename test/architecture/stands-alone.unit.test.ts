/**
 * The repository stands alone: a fresh clone, with nothing beside it, passes its tests, starts, and
 * its documentation links only to its own files. A path that climbs out of the clone works on the
 * machine where it was written (some folder happens to sit beside the checkout) and nowhere else,
 * so every file the repository holds is read here for one.
 *
 * The files are git's list: tracked ones, and new ones not ignored (so a file is checked before its
 * first commit, not after). What counts as a path: a `../` path (an import, a link, a string)
 * resolved from the file's own folder; `join`/`resolve` of `__dirname` (or of a `ROOT`, which in
 * this repository always names its root) with `'..'` segments; and the names of the folders of
 * reference material the project started next to, however they are reached.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..', '..');

const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file && statSync(path.join(ROOT, file), { throwIfNoEntry: false })?.isFile());
const held = new Set(files);
const folders = new Set(files.flatMap((file) => {
  const parents: string[] = [];
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) parents.push(dir);
  return parents;
}));

/** Text files only: binaries (screenshots, fonts) hold a NUL byte early on. */
const texts = files.flatMap((file) => {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return text.slice(0, 8_000).includes('\0') ? [] : [{ file, text }];
});

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
const outside = (target: string) => {
  const relative = path.relative(ROOT, target);
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
};

/** A `../` path at the start of a token (a URL's own `/a/../b` is not a file path). */
const DOT_DOT_PATH = /(?<![\w./-])((?:\.\.\/)+[\w.@/-]*)/g;
/** `join(__dirname, '..', 'fixtures')`, `path.resolve(ROOT, 'docs')`: the base and its string segments. */
const JOINED_PATH = /\b(?:join|resolve)\(\s*(__dirname|import\.meta\.dirname|ROOT)((?:\s*,\s*(?:'[^']*'|"[^"]*"))*)/g;
/** The reference material's folders (the contract, the upstream's files, its spec, the design notes). */
const SIBLING_FOLDERS = /\.\.\/shared\b|\bshared\/(?:contract|upstream|spec|design)\b/g;

describe('the repository stands alone', () => {
  it('names no relative path that leaves the repository root', () => {
    const found: string[] = [];
    for (const { file, text } of texts) {
      for (const match of text.matchAll(DOT_DOT_PATH)) {
        if (outside(path.resolve(ROOT, path.dirname(file), match[1]!))) found.push(`${file}:${lineOf(text, match.index)}: ${match[1]}`);
      }
      for (const match of text.matchAll(JOINED_PATH)) {
        const segments = [...match[2]!.matchAll(/'([^']*)'|"([^"]*)"/g)].map((segment) => segment[1] ?? segment[2] ?? '');
        const base = match[1] === 'ROOT' ? ROOT : path.join(ROOT, path.dirname(file));
        if (outside(path.resolve(base, ...segments))) found.push(`${file}:${lineOf(text, match.index)}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('names none of the folders of reference material it was started beside', () => {
    const found = texts.flatMap(({ file, text }) =>
      [...text.matchAll(SIBLING_FOLDERS)].map((match) => `${file}:${lineOf(text, match.index)}: ${match[0]}`));
    expect(found).toEqual([]);
  });

  it('links, in its Markdown, only to files it holds', () => {
    const broken: string[] = [];
    for (const { file, text } of texts.filter((entry) => entry.file.endsWith('.md'))) {
      // Code is not a link: blank out fenced blocks and code spans, keeping the line count.
      const prose = text
        .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
        .replace(/`[^`\n]*`/g, (span) => span.replace(/[^\n]/g, ' '));
      const links = [
        ...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g),
        ...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?([^\s>]+)>?/gm),
        ...prose.matchAll(/\b(?:href|src)="([^"]+)"/g),
      ];
      for (const match of links) {
        const link = match[1]!;
        if (/^[a-z][a-z\d+.-]*:/i.test(link) || link.startsWith('#') || link.startsWith('//')) continue;
        const target = decodeURI(link.replace(/[#?].*$/, ''));
        const resolved = path.posix.normalize(target.startsWith('/') ? target.slice(1) : path.posix.join(path.posix.dirname(file), target)).replace(/\/$/, '');
        if (!held.has(resolved) && !folders.has(resolved) && resolved !== '.') broken.push(`${file}:${lineOf(prose, match.index)}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
