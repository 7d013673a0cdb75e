/**
 * The upstream's two environments. A browser session, a service account and a drop-in credential
 * each act in one of them; the GraphQL schema names them SANDBOX and PRODUCTION.
 */
export type Environment = 'sandbox' | 'production';

export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

export function environmentFromEnum(value: unknown): Environment {
  return value === 'PRODUCTION' ? 'production' : 'sandbox';
}

export function environmentToEnum(environment: Environment): 'SANDBOX' | 'PRODUCTION' {
  return environment === 'production' ? 'PRODUCTION' : 'SANDBOX';
}

/**
 * The environment `X-Upstream-Environment` names: production only when it says so, the sandbox
 * otherwise (a request that names none must never reach production by accident).
 */
export function environmentNamed(header: string | null): Environment {
  return header?.trim().toLowerCase() === 'production' ? 'production' : 'sandbox';
}
