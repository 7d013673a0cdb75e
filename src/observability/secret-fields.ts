/**
 * Redacts the values of secret-looking fields in free text (Mesh's and Yoga's log messages, which
 * may quote a request's JSON, escaped once or more): `password`, `access-token`, `accessToken`,
 * `client`, `authorization`, `token`, `cookie`, `set-cookie`, `uid`, in any ASCII case, as a JSON
 * key (quoted, its quotes escaped with any number of backslashes) or a bare `name=value`.
 *
 * A scanner rather than one regular expression: the pattern this replaces let a backtracking
 * engine try every split of a run of backslashes at every start position, so a log message of
 * 100 kB of backslashes took seconds (quadratic); here each character is looked at a bounded
 * number of times. It redacts exactly what that pattern did (test/observability/secret-fields.unit.test.ts
 * compares the two):
 *
 * - the separator after the name: backslashes, an optional `"`, spaces, `:` or `=`, spaces;
 * - the value: a quoted string (backslashes, `"`, then up to the next `"`, which an escaping
 *   backslash does not hide; a string with an odd run of backslashes just before a line break or
 *   the end has no end), else a run of characters up to a space, `,` or `}`;
 * - the value becomes `"[redacted]"`; a name whose separator or value is missing is left as it is.
 */

/** The names, as one case-insensitive alternation (none is a prefix of another at one position). */
const NAMES = 'password|access-token|accesstoken|client|authorization|token|cookie|set-cookie|uid';
/** JavaScript's `\s`, which the separator and bare values are measured with. */
const SPACE = /\s/;
/** The line terminators a `.` in a regular expression does not match: they end an escape. */
const LINE_ENDS = new Set(['\n', '\r', '\u2028', '\u2029']);
const REDACTED = '"[redacted]"';

const isSpace = (text: string, at: number): boolean => at < text.length && SPACE.test(text.charAt(at));

/** The end of a run of backslashes starting at `at` (`at` itself when there is none). */
function afterBackslashes(text: string, at: number): number {
  let end = at;
  while (text.charAt(end) === '\\') end++;
  return end;
}

/** Where the value after a name ending at `at` starts, or -1 without a separator. */
function valueStart(text: string, at: number): number {
  let next = afterBackslashes(text, at);
  if (text.charAt(next) === '"') next++;
  while (isSpace(text, next)) next++;
  if (text.charAt(next) !== ':' && text.charAt(next) !== '=') return -1;
  next++;
  while (isSpace(text, next)) next++;
  return next;
}

/** The end of a quoted value starting at `at` (after its closing quote), or -1. */
function quotedEnd(text: string, at: number): number {
  let next = afterBackslashes(text, at);
  if (text.charAt(next) !== '"') return -1;
  next++;
  while (next < text.length) {
    const character = text.charAt(next);
    if (character === '"') return next + 1;
    if (character !== '\\') {
      next++;
      continue;
    }
    const run = afterBackslashes(text, next);
    if (text.charAt(run) === '"') return run + 1;
    const odd = (run - next) % 2 === 1;
    // Backslashes escape in pairs; an odd one escapes the character after the run, if there is one.
    if (odd && (run >= text.length || LINE_ENDS.has(text.charAt(run)))) return -1;
    next = odd ? run + 1 : run;
  }
  return -1;
}

/** The end of the value starting at `at`, or -1 when there is none. */
function valueEnd(text: string, at: number): number {
  const quoted = quotedEnd(text, at);
  if (quoted !== -1) return quoted;
  let end = at;
  while (end < text.length && text.charAt(end) !== ',' && text.charAt(end) !== '}' && !isSpace(text, end)) end++;
  return end > at ? end : -1;
}

/** `text` with the value of every secret-looking field replaced by `"[redacted]"`. */
export function redactSecretFields(text: string): string {
  // Per call: a global expression carries its position (lastIndex).
  const names = new RegExp(NAMES, 'gi');
  let out = '';
  let copied = 0;
  for (let found = names.exec(text); found; found = names.exec(text)) {
    const start = valueStart(text, found.index + found[0].length);
    const end = start === -1 ? -1 : valueEnd(text, start);
    if (end === -1) {
      // As a regular expression goes on: from the next character (a shorter name may start there).
      names.lastIndex = found.index + 1;
      continue;
    }
    out += `${text.slice(copied, start)}${REDACTED}`;
    copied = names.lastIndex = end;
  }
  return out + text.slice(copied);
}
