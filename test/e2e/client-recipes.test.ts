/**
 * The Apollo Client and urql recipes of docs/frontends.md (examples/recipes), bundled for the
 * browser and driven in Debian's Chromium against the real gateway and emulators, from a page on
 * another port of the same site: the login and reads by document hash under
 * TRUSTED_DOCUMENTS_ONLY, with the cookie and X-CSRF; one cache entry per otxId; the contract's
 * codes out of 401, 403, 429 and 503 answers; and, against a gateway with no manifest,
 * PERSISTED_QUERY_NOT_SUPPORTED followed by texts only.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Apollo from '../../examples/recipes/src/apollo';
import type * as Problems from '../../examples/recipes/src/gateway-problem';
import type * as Documents from '../../examples/recipes/src/operations';
import type * as Urql from '../../examples/recipes/src/urql';
import { control, seed, useEmulator } from '../support/emulator';
import { TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';
import { generatedFiles, typecheckExample } from '../support/spa-example';
import { serveStatic, type StaticServer } from '../support/static-server';

/** What examples/recipes/src/page.ts puts on `window.recipes`. */
interface Recipes {
  createApolloClient: typeof Apollo.createApolloClient;
  apolloProblem: typeof Apollo.gatewayProblem;
  createUrqlClient: typeof Urql.createUrqlClient;
  urqlProblem: typeof Urql.gatewayProblem;
  documents: typeof Documents;
  whatToDo: typeof Problems.whatToDo;
}
type Library = 'apollo' | 'urql';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RECIPES = path.resolve(__dirname, '..', '..', 'examples', 'recipes');
const MANIFEST = path.join(RECIPES, 'src/gql/persisted-documents.json');
const PASSWORD = 'a-long-enough-password-123';
const scratch = mkdtempSync(path.join(tmpdir(), 'recipes-'));

let page0: StaticServer | undefined;
beforeAll(async () => {
  page0 = await serveStatic();
});
const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const settings: { withoutManifest?: boolean; port?: string } = {};
const gateway = useGateway(() => ({
  PORT: settings.port ?? '0',
  UPSTREAM_SANDBOX_URL: sandbox.url,
  UPSTREAM_PRODUCTION_URL: production.url,
  REDIS_URL: TEST_REDIS_URL,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
  ALLOWED_ORIGINS: page0?.origin,
  RATE_LIMIT_LOGIN: '2/2s',
  ...(settings.withoutManifest ? {} : { TRUSTED_DOCUMENTS_FILE: MANIFEST, TRUSTED_DOCUMENTS_ONLY: 'true' }),
}));
let browser: Chromium | undefined;
beforeAll(async () => {
  const dist = path.join(scratch, 'dist');
  await Promise.all([
    gateway.start(),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] }).then((launched) => (browser = launched)),
    // The recipes as a page would bundle them, with the libraries' development checks on: Apollo
    // and Graphcache then warn about an entity they cannot key, and the tests see no warning.
    build({
      configFile: false,
      root: RECIPES,
      logLevel: 'silent',
      cacheDir: path.join(scratch, 'vite'),
      define: { 'process.env.NODE_ENV': '"development"' },
      build: { outDir: dist, emptyOutDir: true, lib: { entry: path.join(RECIPES, 'src/page.ts'), formats: ['iife'], name: 'recipesPage', fileName: () => 'page.js' } },
    }),
  ]);
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>recipes</title><script src="/page.js"></script>');
  page0!.root = dist;
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), page0?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

interface Sent {
  readonly body: { query?: string; extensions?: { persistedQuery?: { sha256Hash: string } }; operationName?: string };
  readonly csrf: string | undefined;
}

/** The recipes' page in a fresh browser profile; what it sends to /graphql and what it warns about. */
async function open(): Promise<{ context: BrowserContext; page: Page; sent: Sent[]; warnings: string[] }> {
  const context = await browser!.newContext();
  context.setDefaultTimeout(8_000);
  const page = await context.newPage();
  const sent: Sent[] = [];
  const warnings: string[] = [];
  page.on('console', (message) => void (['warning', 'error'].includes(message.type()) && warnings.push(message.text())));
  page.on('pageerror', (error) => warnings.push(error.message));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname !== '/graphql' || !['GET', 'POST'].includes(request.method())) return;
    // urql sends queries without a hash by GET (its default, within the URL length limit).
    const params = Object.fromEntries(url.searchParams);
    const body = request.method() === 'POST' ? JSON.parse(request.postData() ?? '{}') : { ...params, extensions: params.extensions ? JSON.parse(params.extensions) : undefined };
    sent.push({ body: body as Sent['body'], csrf: request.headers()['x-csrf'] });
  });
  await page.goto(`${page0!.origin}/`);
  await page.waitForFunction(() => 'recipes' in window);
  return { context, page, sent, warnings };
}

async function account(prefix: string): Promise<string> {
  const email = `${prefix}-${Date.now()}@example.com`;
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

/**
 * In the page: a client of `library`, then `steps` run in order against it, each one operation,
 * the outcome as `{ data }` or `{ problem }` (the contract's problem the recipe read).
 */
type Step = { op: 'login'; email: string; password: string; csrf?: string } | { op: 'logout' } | { op: 'statements' } | { op: 'w2'; uploaderIds: string[] } | { op: 'cacheKeys' };
type Outcome = { data?: unknown; problem?: Problems.GatewayProblem; todo?: string; reported?: Problems.GatewayProblem[]; keys?: string[] };

async function run(page: Page, library: Library, gatewayUrl: string, steps: Step[]): Promise<Outcome[]> {
  return page.evaluate(
    async ({ library, gatewayUrl, steps }) => {
      const { recipes } = window as unknown as { recipes: Recipes };
      const { LoginMutation, LogoutMutation, StatementsQuery, W2Query } = recipes.documents;
      const outcomes: Outcome[] = [];
      if (library === 'apollo') {
        const reported: Problems.GatewayProblem[] = [];
        const client = recipes.createApolloClient({ gatewayUrl, onProblem: (problem) => reported.push(problem) });
        for (const step of steps) {
          reported.length = 0;
          try {
            let data: unknown;
            if (step.op === 'cacheKeys') {
              outcomes.push({ keys: Object.keys(client.cache.extract() as Record<string, unknown>) });
              continue;
            }
            if (step.op === 'login') {
              const context = step.csrf === undefined ? {} : { headers: { 'x-csrf': step.csrf } };
              data = (await client.mutate({ mutation: LoginMutation, variables: { email: step.email, password: step.password }, context })).data;
            } else if (step.op === 'logout') data = (await client.mutate({ mutation: LogoutMutation })).data;
            else if (step.op === 'statements') data = (await client.query({ query: StatementsQuery, variables: { first: 50 }, fetchPolicy: 'network-only' })).data;
            else data = (await client.query({ query: W2Query, variables: { uploaderIds: step.uploaderIds }, fetchPolicy: 'network-only' })).data;
            outcomes.push({ data });
          } catch (error) {
            const problem = recipes.apolloProblem(error);
            outcomes.push({ problem, todo: recipes.whatToDo(problem), reported: [...reported] });
          }
        }
        return outcomes;
      }
      const client = recipes.createUrqlClient({ gatewayUrl });
      for (const step of steps) {
        // Graphcache keeps its store to itself: its development warnings (none) say every entity has a key.
        if (step.op === 'cacheKeys') {
          outcomes.push({});
          continue;
        }
        const result =
          step.op === 'login'
            ? await client.mutation(LoginMutation, { email: step.email, password: step.password }, step.csrf === undefined ? {} : { fetchOptions: { credentials: 'include', headers: { 'x-csrf': step.csrf } } }).toPromise()
            : step.op === 'logout'
              ? await client.mutation(LogoutMutation, {}).toPromise()
              : step.op === 'statements'
                ? await client.query(StatementsQuery, { first: 50 }, { requestPolicy: 'network-only' }).toPromise()
                : await client.query(W2Query, { uploaderIds: step.uploaderIds }, { requestPolicy: 'network-only' }).toPromise();
        if (result.error) {
          const problem = recipes.urqlProblem(result.error);
          outcomes.push({ problem, todo: recipes.whatToDo(problem) });
        } else outcomes.push({ data: result.data });
      }
      return outcomes;
    },
    { library, gatewayUrl, steps },
  );
}

describe('the client recipes (examples/recipes)', () => {
  it('have their generated code up to date, with a manifest keyed by each document\'s SHA-256, and typecheck', async () => {
    const files = await generatedFiles(RECIPES);
    expect(files.map((file) => path.relative(RECIPES, file.filename)).sort()).toEqual(['src/gql/gql.ts', 'src/gql/graphql.ts', 'src/gql/index.ts', 'src/gql/persisted-documents.json']);
    for (const file of files) expect(readFileSync(file.filename, 'utf8'), `${file.filename}: run npx graphql-codegen --config examples/recipes/codegen.ts`).toBe(file.content);
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
    for (const [id, document] of Object.entries(manifest)) expect(id).toBe(createHash('sha256').update(document).digest('hex'));
    expect(typecheckExample(RECIPES)).toEqual([]);
    // A TypeScript program over the recipes: seconds alone, over 20 s on a loaded CI machine.
  }, 60_000);

  describe.each<Library>(['apollo', 'urql'])('%s', (library) => {
    it('logs in and reads by document hash only, with the cookie and X-CSRF, one cache entry per otxId', async () => {
      const email = await account(`${library}-reads`);
      const statements = await seed(sandbox.url, email, 'Fw2', 2, `${library}-`);
      const { context, page, sent, warnings } = await open();
      try {
        const [login, list, w2, cache] = await run(page, library, gateway.current.url, [
          { op: 'login', email, password: PASSWORD },
          { op: 'statements' },
          { op: 'w2', uploaderIds: statements.map((statement) => statement.uploaderId) },
          { op: 'cacheKeys' },
        ]);
        expect(login).toMatchObject({ data: { login: { uid: email, environment: 'SANDBOX' } } });
        const nodes = (list?.data as { getStatements: { statements: { nodes: { otxId: string }[] } } }).getStatements.statements.nodes;
        expect(nodes.map((node) => node.otxId).sort()).toEqual(statements.map((statement) => statement.otxId).sort());
        expect(w2?.problem).toBeUndefined();
        if (library === 'apollo') {
          expect(cache?.keys).toEqual(expect.arrayContaining(statements.flatMap((statement) => [`Statement:{"otxId":"${statement.otxId}"}`, `Fw2Statement:{"otxId":"${statement.otxId}"}`])));
        }
        // Every request named a manifest document by its hash and carried X-CSRF; no text left the page.
        expect(sent).toHaveLength(3);
        const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
        for (const request of sent) {
          expect(request.csrf).toBe('1');
          expect(request.body.query).toBeUndefined();
          expect(Object.keys(manifest)).toContain(request.body.extensions?.persistedQuery?.sha256Hash);
        }
        expect((await context.cookies(gateway.current.url)).map((cookie) => cookie.httpOnly)).toEqual([true]);
        expect(warnings).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('reads the contract\'s code out of 401, 403 and 429 answers', async () => {
      const email = await account(`${library}-errors`);
      const { context, page } = await open();
      try {
        const outcomes = await run(page, library, gateway.current.url, [
          { op: 'statements' },
          { op: 'login', email, password: PASSWORD, csrf: '' },
          { op: 'login', email, password: 'wrong-password-1' },
          { op: 'login', email, password: 'wrong-password-2' },
          { op: 'login', email, password: PASSWORD },
        ]);
        expect(outcomes.map((outcome) => [outcome.problem?.code, outcome.todo])).toEqual([
          ['UNAUTHENTICATED', 'login'],
          ['CSRF_CHECK_FAILED', 'setup'],
          ['INVALID_CREDENTIALS', 'report'],
          ['INVALID_CREDENTIALS', 'report'],
          ['RATE_LIMITED', 'wait'],
        ]);
        expect(outcomes[4]!.problem!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        if (library === 'apollo') {
          // The error link saw each answer's status.
          expect(outcomes.map((outcome) => outcome.reported?.[0]?.status)).toEqual([401, 403, 401, 401, 429]);
        } else {
          expect(outcomes.map((outcome) => outcome.problem?.status)).toEqual([401, 403, 401, 401, 429]);
        }
      } finally {
        await context.close();
      }
    });
  });

  it('reads UPSTREAM_UNAVAILABLE (503) and its wait, with either library', async () => {
    const email = await account('upstream-down');
    const { context, page } = await open();
    try {
      const [apolloLogin] = await run(page, 'apollo', gateway.current.url, [{ op: 'login', email, password: PASSWORD }]);
      expect(apolloLogin?.problem).toBeUndefined();
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
      const outcomes = [...(await run(page, 'apollo', gateway.current.url, [{ op: 'statements' }])), ...(await run(page, 'urql', gateway.current.url, [{ op: 'statements' }]))];
      expect(outcomes.map((outcome) => [outcome.problem?.code, outcome.todo])).toEqual([
        ['UPSTREAM_UNAVAILABLE', 'wait'],
        ['UPSTREAM_UNAVAILABLE', 'wait'],
      ]);
      for (const outcome of outcomes) expect(outcome.problem?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(outcomes[0]!.reported?.[0]?.status).toBe(503);
      expect(outcomes[1]!.problem?.status).toBe(503);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
      await context.close();
    }
  });

  describe('against a gateway with no manifest', () => {
    beforeAll(async () => {
      settings.withoutManifest = true;
      settings.port = new URL(gateway.current.url).port;
      await gateway.start();
    }, 30_000);

    it.each<Library>(['apollo', 'urql'])('%s: the first hash gets PERSISTED_QUERY_NOT_SUPPORTED, then the text, and texts only from then on', async (library) => {
      const email = await account(`${library}-apq`);
      const { context, page, sent, warnings } = await open();
      try {
        const outcomes = await run(page, library, gateway.current.url, [{ op: 'login', email, password: PASSWORD }, { op: 'statements' }, { op: 'statements' }]);
        expect(outcomes.map((outcome) => outcome.problem)).toEqual([undefined, undefined, undefined]);
        const kinds = sent.map(({ body }) => (body.query === undefined ? 'hash' : body.extensions?.persistedQuery ? 'hash and text' : 'text'));
        expect(kinds).toEqual(['hash', 'text', 'text', 'text']);
        expect(warnings).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
