/**
 * `NODE_ENV=production` refuses what is only safe on a developer's machine: the built-in emulator
 * (its demo password is published), cookies without `Secure`, sessions in one process's memory,
 * /ops and /metrics reachable from other hosts without a token, one upstream standing in for both
 * environments, and credentials, sessions and statements crossing the network in clear (plain
 * `http://` upstreams, Redis without TLS) unless ALLOW_INSECURE_TRANSPORT says the network is private.
 */
import { z } from 'zod';
import { usesTls, type RedisTarget } from './redis-url';

/**
 * Only these: any other value (`prod`, `Production`) would not be `production`, and would turn every
 * guard below off without a word.
 */
export const nodeEnv = z.enum(['development', 'test', 'production'], { message: 'expected development, test or production (or unset: development); any other value would turn the production guard off silently' }).default('development');

export interface GuardedEnvironment {
  readonly NODE_ENV: string;
  readonly UPSTREAM_SANDBOX_URL?: string | undefined;
  readonly UPSTREAM_PRODUCTION_URL?: string | undefined;
  readonly COOKIE_SECURE?: boolean | undefined;
  readonly REDIS_URL?: RedisTarget | undefined;
  readonly CACHE_REDIS_URL?: RedisTarget | undefined;
  readonly ALLOW_INSECURE_TRANSPORT?: boolean | undefined;
  readonly HOST: string;
  readonly OPS_TOKEN?: string | undefined;
}

export interface ConfigProblem {
  readonly variable: string;
  readonly message: string;
}

/** Hosts that only this machine can reach. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The same base URL, however its trailing slashes or host case are written. */
const sameUrl = (a: string, b: string) => new URL(a).href.replace(/\/+$/, '') === new URL(b).href.replace(/\/+$/, '');

/**
 * The variables whose transport is plain: an `http://` upstream, a Redis URL without TLS. In
 * production each is refused, or, with ALLOW_INSECURE_TRANSPORT=true, logged once at start.
 */
export function plainTransport(env: GuardedEnvironment): ConfigProblem[] {
  if (env.NODE_ENV !== 'production') return [];
  const plain: ConfigProblem[] = [];
  for (const variable of ['UPSTREAM_SANDBOX_URL', 'UPSTREAM_PRODUCTION_URL'] as const) {
    const value = env[variable];
    if (value && new URL(value).protocol !== 'https:') plain.push({ variable, message: 'is not https:// (upstream credentials and statements would cross the network in clear)' });
  }
  for (const variable of ['REDIS_URL', 'CACHE_REDIS_URL'] as const) {
    const target = env[variable];
    if (target && !usesTls(target)) plain.push({ variable, message: 'has no TLS (rediss://, or ?tls=true on redis+sentinel:// and redis+cluster://): the Redis password, sessions and sealed entries would cross the network in clear' });
  }
  return plain;
}

export function productionProblems(env: GuardedEnvironment): ConfigProblem[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: ConfigProblem[] = [];
  if (!env.UPSTREAM_SANDBOX_URL && !env.UPSTREAM_PRODUCTION_URL) {
    problems.push({ variable: 'UPSTREAM_SANDBOX_URL', message: 'is required with NODE_ENV=production, with UPSTREAM_PRODUCTION_URL (the built-in emulator is for development)' });
  }
  // Test filings would reach the tax authority, or production data a sandbox client.
  if (env.UPSTREAM_SANDBOX_URL && env.UPSTREAM_PRODUCTION_URL && sameUrl(env.UPSTREAM_SANDBOX_URL, env.UPSTREAM_PRODUCTION_URL)) {
    problems.push({ variable: 'UPSTREAM_PRODUCTION_URL', message: 'must not be the same as UPSTREAM_SANDBOX_URL with NODE_ENV=production (sandbox requests would reach production)' });
  }
  if (!env.ALLOW_INSECURE_TRANSPORT) {
    for (const plain of plainTransport(env)) problems.push({ variable: plain.variable, message: `${plain.message}; with NODE_ENV=production set ALLOW_INSECURE_TRANSPORT=true only on a private network` });
  }
  if (env.COOKIE_SECURE === false) problems.push({ variable: 'COOKIE_SECURE', message: 'must not be false with NODE_ENV=production (session cookies would travel without TLS)' });
  if (!env.REDIS_URL) problems.push({ variable: 'REDIS_URL', message: 'is required with NODE_ENV=production (sessions in process memory are lost at every restart and not shared by replicas)' });
  if (!isLoopback(env.HOST) && !env.OPS_TOKEN) {
    problems.push({ variable: 'OPS_TOKEN', message: `is required with NODE_ENV=production when HOST (${env.HOST}) is not loopback: /ops/ and /metrics would otherwise be refused to every other host, or served to anyone behind a proxy` });
  }
  return problems;
}
