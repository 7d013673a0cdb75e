/**
 * Secrets as files: `CREDENTIAL_KEY_FILE`, `OPS_TOKEN_FILE`, `REDIS_URL_FILE` and
 * `CACHE_REDIS_URL_FILE` name a file (a mounted Kubernetes or Docker secret) whose content is the
 * variable's value, so that the secret is not in the process's environment, where `kubectl
 * describe`, crash reports and child processes would see it. One trailing newline (`\n` or
 * `\r\n`, as `echo` or an editor leaves it) is not part of the value.
 *
 * Read here, where the rest of the configuration is read, so that a problem with a file is
 * reported with every other bad variable at once. A message names the variable, the file and what
 * went wrong, never the content.
 */
import { readFileSync } from 'node:fs';
import type { ConfigProblem } from './production-guard';

/** The variables that may come from a file, each named by `<variable>_FILE`. */
export const SECRET_FILE_VARIABLES = ['CREDENTIAL_KEY', 'OPS_TOKEN', 'REDIS_URL', 'CACHE_REDIS_URL'] as const;
export type SecretFileVariable = (typeof SECRET_FILE_VARIABLES)[number];

/** `CREDENTIAL_KEY_FILE`, ...: the variables the gateway reads besides its schema's. */
export const FILE_VARIABLES: readonly string[] = SECRET_FILE_VARIABLES.map((variable) => `${variable}_FILE`);

export interface SecretFiles {
  /** The values read from files, by the variable they stand for. */
  readonly values: Readonly<Partial<Record<SecretFileVariable, string>>>;
  /** The variables whose file was set but could not be used: their other problems would only repeat it. */
  readonly failed: ReadonlySet<string>;
  readonly problems: readonly ConfigProblem[];
}

/** Reads a file's text; throws an error with a `code` (ENOENT, EACCES, EISDIR, ...) when it cannot. */
export type ReadText = (file: string) => string;

const readText: ReadText = (file) => readFileSync(file, 'utf8');
const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

export function readSecretFiles(env: NodeJS.ProcessEnv, read: ReadText = readText): SecretFiles {
  const values: Partial<Record<SecretFileVariable, string>> = {};
  const failed = new Set<string>();
  const problems: ConfigProblem[] = [];
  for (const variable of SECRET_FILE_VARIABLES) {
    const fileVariable = `${variable}_FILE`;
    const file = env[fileVariable];
    if (!isSet(file)) continue;
    const refuse = (message: string) => {
      failed.add(variable);
      problems.push({ variable: fileVariable, message });
    };
    // Two sources for one value: whichever won, someone would be surprised by which.
    if (isSet(env[variable])) {
      refuse(`is set, and so is ${variable}: set one of ${variable} and ${fileVariable}, not both`);
      continue;
    }
    let text: string;
    try {
      text = read(file.trim());
    } catch (error) {
      refuse(`cannot read ${file.trim()} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      continue;
    }
    const value = text.replace(/\r?\n$/, '');
    // An empty secret (a Secret key created without data) would read as "unset" and change the
    // gateway's behaviour silently (a key generated per process, no ops token).
    if (value.trim() === '') refuse(`${file.trim()} is empty`);
    else values[variable] = value;
  }
  return { values, failed, problems };
}
