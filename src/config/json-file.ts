/** A configuration file of JSON, read once at start: its value, or one problem line naming the file. */
import { readFileSync } from 'node:fs';

export function readJsonFile(file: string): { readonly value: unknown } | { readonly problems: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problems: [`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problems: [`${file} is not valid JSON`] };
  }
}
