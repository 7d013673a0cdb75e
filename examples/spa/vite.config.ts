/**
 * `npx vite` serves the page and forwards /graphql to the gateway (GATEWAY_URL, default the
 * `npm start` one). `changeOrigin: false` keeps the page's Host on the forwarded request, so the
 * browser's Origin equals the gateway's own origin as the gateway sees it: the CSRF origin check
 * passes with no ALLOWED_ORIGINS, and the session cookie belongs to the page's origin.
 * `changeOrigin: true`, and Vite's string shorthand `'/graphql': url` which implies it, rewrite
 * Host to the gateway's: the gateway then refuses with CSRF_CHECK_FAILED, naming the page's origin,
 * unless that origin is in ALLOWED_ORIGINS.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  server: {
    proxy: {
      '/graphql': { target: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000', changeOrigin: false },
      // The PDF links (GET /statements/{otxId}/pdf), with the page's cookie.
      '/statements': { target: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000', changeOrigin: false },
    },
  },
});
