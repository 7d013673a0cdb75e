const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `500ms`, `90s`, `30m`, `8h`, `1d` (or a bare number of seconds) into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  const value = Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1_000);
  return Number.isSafeInteger(value) ? value : undefined;
}
