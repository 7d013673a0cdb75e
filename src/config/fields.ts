/**
 * The value types of the gateway's environment variables (zod): each reads the text of one
 * variable and says what is wrong with it in words that name no secret.
 */
import { z } from 'zod';
import { parseDuration } from './duration';

export const url = (protocols: readonly string[], example: string) =>
  z
    .string()
    .trim()
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `expected a ${protocols.join(' or ')} URL such as ${example}`);

/** Upstream URLs are logged at start: they must not carry a user or password. */
export const upstreamUrl = (example: string) =>
  url(['http:', 'https:'], example).refine((value) => {
    const parsed = new URL(value);
    return !parsed.username && !parsed.password;
  }, 'must not contain a user name or password');

/** A duration from 0 to `maxMs`, in milliseconds. */
function durationUpTo(fallback: string, maxMs: number, message: string) {
  return z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms > maxMs) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return ms;
    });
}

/** The session cache's life: 0 turns it off; at most a second (logout must reach every replica within one). */
export const sessionCacheTtl = durationUpTo('1s', 1_000, 'expected a duration from 0 to 1s, such as 500ms (0 turns the cache off)');

export const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 30m or 8h' });
        return z.NEVER;
      }
      return ms;
    });

/** A drain phase after SIGTERM: 0 (skip it) up to 10 minutes. */
export const shutdownDuration = (fallback: string) => durationUpTo(fallback, 600_000, 'expected a duration from 0 to 10m, such as 5s or 500ms');

/**
 * UPSTREAM_SCHEMA_CHECK_INTERVAL: 0 turns the check off; otherwise at least a second (each check is
 * an introspection of the upstream: a typo such as `1ms` must not turn it into a load test) and at
 * most a week.
 */
export const checkInterval = (fallback: string) =>
  durationUpTo(fallback, 7 * 86_400_000, 'expected 0 (off) or a duration from 1s to 7d, such as 30m or 1h').refine(
    (ms) => ms === 0 || ms >= 1_000,
    'expected 0 (off) or a duration from 1s to 7d, such as 30m or 1h',
  );

/** The whole number `text` spells, from `min` to `max`; an issue otherwise. */
function wholeNumber(text: string, min: number, max: number, ctx: z.RefinementCtx): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    ctx.addIssue({ code: 'custom', message: `expected an integer from ${min} to ${max}` });
    return z.NEVER;
  }
  return value;
}

export const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((text, ctx) => wholeNumber(text, min, max, ctx));

/** An integer from `min` to `max`, or undefined when the variable is unset (a feature left off). */
export const optionalInteger = (min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? undefined : wholeNumber(text, min, max, ctx)));

/** A size in bytes: a whole number, or one with `KiB` or `MiB` (`4MiB`), from `min` to `max` bytes. */
export const byteSize = (fallback: string, min: number, max: number) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const match = /^(\d+)\s*(KiB|MiB)?$/.exec(text.trim());
      const value = match ? Number(match[1]) * (match[2] === 'MiB' ? 1024 * 1024 : match[2] === 'KiB' ? 1024 : 1) : NaN;
      if (!(value >= min && value <= max)) {
        ctx.addIssue({ code: 'custom', message: `expected a size from ${min} to ${max} bytes, such as 4MiB, 512KiB or 1048576` });
        return z.NEVER;
      }
      return value;
    });

/** A rate such as `5/15m`: at most 5 in any 15 minutes. */
export const rate = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const match = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(text);
      const max = Number(match?.[1]);
      const windowMs = match?.[2] ? parseDuration(match[2]) : undefined;
      if (!match || !Number.isSafeInteger(max) || max < 1 || windowMs === undefined || windowMs < 1_000) {
        ctx.addIssue({ code: 'custom', message: 'expected a count and a window of at least 1s, such as 5/15m or 600/1m' });
        return z.NEVER;
      }
      return { max, windowMs };
    });

export const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((text) => ['true', '1', 'yes'].includes(text))
  .optional();

export const origins = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const list = (text ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    for (const entry of list) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(entry);
      } catch {
        parsed = undefined;
      }
      if (!parsed || parsed.origin !== entry.replace(/\/$/, '')) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin such as https://app.example.com` });
        return z.NEVER;
      }
    }
    return list.map((entry) => new URL(entry).origin);
  });

/** 32 bytes in base64, exactly (Buffer.from skips characters outside the alphabet). */
function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || key.toString('base64') !== trimmed || key.every((byte) => byte === 0)) return undefined;
  return key;
}

export const credentialKey = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text === '') return undefined;
    const key = parseKey(text);
    if (!key) {
      ctx.addIssue({ code: 'custom', message: 'expected 32 bytes in base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return key;
  });

export const previousKeys = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text === '') return [];
    const keys = text.split(',').map((entry) => parseKey(entry));
    const bad = keys.findIndex((key) => !key);
    if (bad >= 0) {
      ctx.addIssue({ code: 'custom', message: `entry ${bad + 1}: expected comma-separated keys of 32 bytes in base64` });
      return z.NEVER;
    }
    return keys.filter((key): key is Buffer => key !== undefined);
  });
