// GraphiQL's bootstrap, in place of the inline script of Yoga's CDN page: a file of the gateway's
// own, so the page's CSP needs no 'unsafe-inline', no hash and no nonce for scripts.
// Loaded (deferred) before GraphiQL's bundle, so Monaco finds its environment when it starts;
// renders once every deferred script has run.
(() => {
  'use strict';
  // A data block (type="application/json"): never executed, so script-src does not apply to it.
  const config = JSON.parse(document.getElementById('graphiql-config').textContent);
  // Monaco's workers from the gateway itself, by URL (same origin: worker-src 'self'), where
  // Yoga's page fetched them from unpkg and ran them as blob: URLs.
  const workers = Object.fromEntries(Object.entries(config.workers).map(([label, url]) => [label, new URL(url, document.baseURI).href]));
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_moduleId, label) => workers[label] ?? workers.editorWorkerService,
  };
  // The starter document, unless the URL brings a query (`?query=`, as GraphiQL links do): Yoga's
  // GraphiQL would prefer its `query` option to the URL's, so the choice is made here.
  if (!new URL(location.href).searchParams.get('query')) config.graphiql.query = config.defaultQuery;
  document.addEventListener('DOMContentLoaded', () => {
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), config.graphiql);
  });
})();
