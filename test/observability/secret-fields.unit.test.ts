/**
 * The redaction of secret-looking fields in Mesh's and Yoga's log text (src/observability/secret-fields.ts,
 * through scrub in mesh-logger.ts): the values it hides, the text it leaves, that it hides exactly
 * what the regular expression it replaced hid, and that a long run of backslashes costs linear
 * time (that expression took seconds on 100 kB of them).
 */
import { describe, expect, it } from 'vitest';
import { scrub } from '../../src/observability/mesh-logger';
import { redactSecretFields } from '../../src/observability/secret-fields';

/** The regular expression the scanner replaced: the oracle for short texts (it is quadratic on long ones). */
const REPLACED = /(\\*"?(?:password|access-token|accessToken|client|authorization|token|cookie|set-cookie|uid)\\*"?\s*[:=]\s*)(\\*"(?:[^"\\]|\\.)*?\\*"|[^\s,}]+)/gi;
const replaced = (text: string) => text.replace(REPLACED, '$1"[redacted]"');

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The pieces random texts are made of: names, separators, escapes, ends of values and lines. */
const PIECES = ['password', 'PassWord', 'access-token', 'accessToken', 'client', 'authorization', 'token', 'cookie', 'set-cookie', 'Uid', 'tok',
  '\\', '\\\\', '"', ':', '=', ' ', '\t', '\n', '\r', '\u2028', '\u00a0', ',', '}', '{', 'a', 'x y', 'ſ', 'İ'];

function randomText(next: () => number, pieces: number): string {
  return Array.from({ length: pieces }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
}

describe('redactSecretFields', () => {
  it('hides the values of secret fields in JSON, escaped JSON and name=value text, in any case', () => {
    expect(redactSecretFields('{"email":"a@example.com","password":"hunter2"}')).toBe('{"email":"a@example.com","password":"[redacted]"}');
    expect(redactSecretFields('body: {\\"accessToken\\": \\"abc\\", \\"n\\": 1}')).toBe('body: {\\"accessToken\\": "[redacted]", \\"n\\": 1}');
    expect(redactSecretFields('Cookie=sgw_session=abc; other')).toBe('Cookie="[redacted]" other');
    expect(redactSecretFields('uid: ada@example.com, client=xyz}')).toBe('uid: "[redacted]", client="[redacted]"}');
    expect(redactSecretFields('Authorization: Bearer abc')).toBe('Authorization: "[redacted]" abc');
  });

  it('leaves text without a secret field, or a name without a value, as it is', () => {
    for (const text of ['no secrets here', 'password', 'password: ', 'token:,', 'the client said hello', '\\'.repeat(50)]) expect(redactSecretFields(text)).toBe(text);
  });

  it('hides exactly what the regular expression it replaced hid, on 20,000 random texts of names, escapes and separators', () => {
    const next = random(38);
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(next, 1 + Math.floor(next() * 16));
      expect(redactSecretFields(text), JSON.stringify(text)).toBe(replaced(text));
    }
  });

  it('takes linear time on a 100 kB run of backslashes, before, after and inside a secret value (regression)', () => {
    const run = '\\'.repeat(100_000);
    for (const text of [run, `password${run}`, `password:"${run}`, `password:${run}"`, `"token\\":\\"${run}\\"`]) {
      const started = performance.now();
      const redacted = scrub(text);
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(100);
      expect(redacted.length).toBeLessThanOrEqual(501);
    }
  });
});
