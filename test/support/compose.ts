/**
 * deploy/'s compose files as the tests read them without a Docker engine: compose's own variable
 * interpolation, and the here-documents a service's `sh -c` command feeds its server.
 */

/** compose's interpolation: `${X:?message}` takes what an operator must set, `${X:-default}` its default. */
export function interpolate(value: string, operator: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) => operator[name] ?? (kind === '-' ? (rest ?? '') : ''));
}

/** The file a compose secret is mounted at, as a service's command reads it (`$$` is compose's `$`). */
const READ_SECRET = /"\$\$\(cat \/run\/secrets\/redis_password\)"/g;

/**
 * The text a service's `sh -c` script feeds its server through the here-document `<<MARK`
 * (`<<'MARK'` or `<<MARK`), with the Redis password secret read as `password`; undefined if none.
 */
export function hereDocument(script: string, mark: string, password = ''): string | undefined {
  const text = new RegExp(`<<'?${mark}'?\\n([\\s\\S]*?)\\n${mark}(\\n|$)`).exec(script)?.[1];
  return text?.replace(READ_SECRET, `"${password}"`);
}
