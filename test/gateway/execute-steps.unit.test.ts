/**
 * One list, two callers: every onExecute plugin of the gateway's pipeline is an execute step
 * (src/gateway/execute-step.ts), either shared with the hot path, which walks it at the same place
 * in the same order, or of the pipeline alone with the reason written beside it. A check added to
 * the pipeline any other way fails here. And a document becomes hot in its own step, after every
 * check (src/fast-path/use-hot-documents.ts; test/http/hot-documents.test.ts shows it over HTTP).
 */
import { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { HotDocuments } from '../../src/fast-path/hot-documents';
import { definitionsAnswersOf, readCacheOf } from '../../src/gateway/cache-steps';
import { isShared, type ExecuteStep } from '../../src/gateway/execute-step';
import { hotPathOptions } from '../../src/gateway/hot-path-options';
import { gatewayIdentities, gatewayPlugins, type GatewayPipeline } from '../../src/gateway/plugins';
import { createGatewayRuntime, type GatewayRuntime } from '../../src/gateway/runtime';
import { createLogger } from '../../src/observability/logger';
import { createTraceContexts } from '../../src/tracing/context';

/** Nothing listens there: nothing in these tests calls the upstream. */
const NOWHERE = 'http://127.0.0.1:9';

let runtime: GatewayRuntime;
let pipeline: GatewayPipeline;
let hot: HotDocuments;

beforeAll(async () => {
  const config = loadConfig({ UPSTREAM_SANDBOX_URL: NOWHERE, UPSTREAM_PRODUCTION_URL: NOWHERE });
  const traces = createTraceContexts();
  runtime = await createGatewayRuntime(config, createLogger({ level: 'silent', traces }), traces);
  hot = new HotDocuments(new Map(), runtime.plans, runtime.documents, { texts: true });
  pipeline = gatewayPlugins(runtime, {
    identities: gatewayIdentities(runtime), reads: readCacheOf(runtime), definitionsAnswers: definitionsAnswersOf(runtime), operatorEndpoints: [], hot,
  });
});

afterAll(async () => {
  await runtime.close();
});

/** Whether a plugin, or one it adds as it is set up (useReadCache adds the response cache), hooks onExecute. */
function executes(plugin: Plugin): boolean {
  if (plugin.onExecute) return true;
  const added: Plugin[] = [];
  plugin.onPluginInit?.({ addPlugin: (one: Plugin) => added.push(one), plugins: [], setSchema: () => undefined, registerContextErrorHandler: () => undefined });
  return added.some(executes);
}

const names = (steps: readonly ExecuteStep[]) => steps.map((step) => step.name);

describe("the gateway's execute steps", () => {
  it('name every onExecute plugin of the pipeline: none runs on the Yoga pipeline alone without a step saying so', () => {
    const executing = pipeline.plugins.filter((plugin) => executes(plugin as Plugin));
    expect(executing.length).toBeGreaterThan(10);
    const unnamed = executing.filter((plugin) => !pipeline.steps.some((step) => step.plugin === plugin));
    // Each by its place in the list and its hooks, to find it in src/gateway/plugins.ts.
    expect(unnamed.map((plugin) => `plugin #${pipeline.plugins.indexOf(plugin)} (${Object.keys(plugin).join(', ')})`)).toEqual([]);
  });

  it('give the reason beside every step the hot path does without', () => {
    const alone = pipeline.steps.filter((step) => !isShared(step));
    expect(alone.length).toBeGreaterThan(0);
    for (const step of alone) {
      expect('notOnHotPath' in step && step.notOnHotPath, step.name).toMatch(/^[A-Z].{30,}\.$/);
    }
  });

  it('are walked by the hot path, the shared ones, in the order the pipeline runs them', () => {
    const shared = pipeline.steps.filter(isShared);
    const yoga = { fetchAPI: { Request, Response } as never, handleRequest: () => new Response() };
    const options = hotPathOptions(runtime, { hot, schema: new GraphQLSchema({}), steps: pipeline.steps, yoga });
    expect(options.steps).toEqual(shared.map((step) => step.hot));
    const places = shared.map((step) => pipeline.plugins.indexOf(step.plugin));
    expect(places.every((place, index) => place >= 0 && (index === 0 || place > (places[index - 1] ?? -1)))).toBe(true);
    expect(names(shared)).toEqual(['executed operation', 'CSRF check', 'identity', 'read cache lookahead', 'session limit', 'definitions answers', 'fast path', 'read cache']);
  });

  it('make a document hot after every check the hot path relies on, and before anything answers', () => {
    const order = names(pipeline.steps);
    const hotAt = order.indexOf('hot documents');
    expect(hotAt).toBeGreaterThan(0);
    for (const check of ['PDFs per answer', 'executed operation', 'lone session fields', 'CSRF check', 'identity', 'session limit', 'anonymous limit', 'idempotency']) {
      expect(order.indexOf(check), check).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(check), check).toBeLessThan(hotAt);
    }
    for (const answer of ['definitions answers', 'cache invalidation', 'fast path', 'read cache']) expect(order.indexOf(answer), answer).toBeGreaterThan(hotAt);
  });
});
