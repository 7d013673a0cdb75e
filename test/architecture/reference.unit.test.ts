/**
 * docs/reference.md is the user's list of what the gateway reads and answers, written by hand: these
 * checks keep it from drifting from the code. Every variable the configuration reads is in its
 * table; none the code reads is still marked "(planned)" there; every error code has its status.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config';
import { ERROR_STATUS } from '../../src/errors/codes';

const REFERENCE = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'reference.md'), 'utf8');
const section = (title: string) => REFERENCE.split(/^## /m).find((part) => part.startsWith(`${title}\n`)) ?? '';
const rows = (title: string) => section(title).split('\n').filter((line) => line.startsWith('| `'));
/** The backticked names in a row's first cell. */
const namesOf = (row: string) => [...(row.split(' | ')[0] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe('docs/reference.md', () => {
  it('lists every environment variable the configuration reads', () => {
    const listed = rows('Environment variables').flatMap(namesOf);
    expect(CONFIG_VARIABLES.filter((variable) => !listed.includes(variable))).toEqual([]);
  });

  it('marks no variable the configuration reads as planned', () => {
    const planned = rows('Environment variables').filter((row) => row.includes('**(planned)**')).flatMap(namesOf);
    expect(planned.filter((variable) => CONFIG_VARIABLES.includes(variable))).toEqual([]);
  });

  it('gives every error code of src/errors/codes.ts with its HTTP status', () => {
    const statusOf = new Map(rows('Errors').flatMap((row) => namesOf(row).map((code) => [code, Number(row.split(' | ')[1])] as const)));
    expect(Object.fromEntries(Object.keys(ERROR_STATUS).map((code) => [code, statusOf.get(code)]))).toEqual(ERROR_STATUS);
  });
});
