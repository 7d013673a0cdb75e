/**
 * Set-Cookie values a request's handling decided on (a login's session cookie, a cleared cookie
 * for an ended or unknown session), added to its response by useSessionCookies. Every GraphQL
 * answer depends on the caller's session: none may be stored by a shared cache.
 */
import type { Plugin } from 'graphql-yoga';
import { RequestSlot } from '../request/slot';

/** Each request's Set-Cookie values, in the order they were decided. */
export class SetCookies extends RequestSlot<string[]> {
  queue(request: Request, value: string): void {
    const jar = this.get(request);
    if (jar) jar.push(value);
    else this.set(request, [value]);
  }
}

export function useSessionCookies({ setCookies: jars }: { readonly setCookies: SetCookies }): Plugin {
  return {
    onRequest({ request }) {
      // A request the hot path handed over (src/hot-path/hot-path.ts) may have one already.
      jars.ensure(request, () => []);
    },
    onResponse({ request, response }) {
      const jar = jars.get(request);
      // Requests another plugin answered before this one's onRequest (health, metrics, /ops).
      if (!jar) return;
      for (const value of jar) response.headers.append('set-cookie', value);
      response.headers.set('cache-control', 'no-store');
    },
  };
}
