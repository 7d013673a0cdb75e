/**
 * The monitoring files of deploy/, checked as far as this machine can without a Docker engine: the
 * Grafana dashboard and the alert rules query only metrics (and labels) that `/metrics` really
 * exposes; Prometheus sends the OPS_TOKEN the gateways read. The compose file and nginx:
 * deploy-compose.test.ts; the Dockerfile: dockerfile.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { signedInUser } from '../support/cache';
import { useGatewayOnEmulators } from '../support/gateway';
import { scrape, type Scrape } from '../support/metrics';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Labels Prometheus adds at scrape time, or histogram internals. */
const SCRAPE_LABELS = new Set(['instance', 'job', 'le']);
const OUR_METRIC = /^(statement_gateway_|graphql_|process_|nodejs_)/;
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);

interface Query {
  readonly metric: string;
  readonly labels: string[];
}

/** The metric selectors of a PromQL expression and the label names each uses (matchers, `by`). */
function selectors(expr: string): Query[] {
  const found: Query[] = [];
  const grouping = [...expr.matchAll(/\bby\s*\(([^)]*)\)/g)].flatMap((match) => (match[1] ?? '').split(',').map((name) => name.trim()).filter(Boolean));
  for (const match of expr.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{([^}]*)\})?/g)) {
    const metric = match[1] ?? '';
    if (!OUR_METRIC.test(metric) || KEYWORDS.has(metric)) continue;
    const matchers = [...(match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)/g)].map((entry) => entry[1] ?? '');
    found.push({ metric, labels: [...matchers, ...grouping] });
  }
  return found;
}

interface Dashboard {
  uid: string;
  panels: { id: number; type: string; title: string; datasource?: { uid: string }; gridPos: { h: number; w: number; x: number; y: number }; targets?: { expr: string; refId: string }[] }[];
  templating: { list: { name: string; type: string; query?: unknown }[] };
  links?: { title: string; type: string; url: string }[];
}

function dashboardExpressions(dashboard: Dashboard): string[] {
  const panelExprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  const variableExprs = dashboard.templating.list.flatMap((variable) => {
    const query = variable.query as { query?: string } | string | undefined;
    return typeof query === 'object' && query?.query ? [query.query] : [];
  });
  return [...panelExprs, ...variableExprs];
}

/** Where a queried name lives on /metrics: its family, and the label names its series carry. */
function exposed(metrics: Scrape, name: string): { family: boolean; labels: Set<string> | undefined } {
  const histogramPart = /^(.*)_(bucket|count|sum)$/.exec(name);
  const family = metrics.types.has(name) || (histogramPart !== null && metrics.types.get(histogramPart[1] ?? '') === 'histogram');
  const series = metrics.series.filter((entry) => entry.name === name);
  return { family, labels: series.length ? new Set(series.flatMap((entry) => Object.keys(entry.labels))) : undefined };
}

interface ScrapeJob {
  job_name: string;
  static_configs: { targets: string[] }[];
  authorization?: { type?: string; credentials?: string; credentials_file?: string };
}

interface ComposeFile {
  services: Record<string, { environment?: Record<string, string>; secrets?: string[]; ports?: string[] }>;
  secrets?: Record<string, { environment?: string; file?: string }>;
}

const OPS_TOKEN = 'ops-token-of-the-deploy-test-0123456789';

/**
 * The Authorization header Prometheus sends to the gateway as deploy/ configures it: its job's
 * `authorization` type and credentials file, that file being a compose secret whose variable
 * (`environment`) has the value `variables` give it.
 */
function prometheusAuthorization(variables: Record<string, string>): string | undefined {
  const prometheus = parseYaml(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: ScrapeJob[] };
  const auth = prometheus.scrape_configs.find((config) => config.job_name === 'statement-gateway')?.authorization;
  if (!auth) return undefined;
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as ComposeFile;
  let credentials = auth.credentials;
  const secret = /^\/run\/secrets\/([\w.-]+)$/.exec(auth.credentials_file ?? '')?.[1];
  if (secret && (compose.services.prometheus?.secrets ?? []).includes(secret)) {
    const variable = compose.secrets?.[secret]?.environment;
    credentials = variable === undefined ? undefined : variables[variable];
  }
  return credentials === undefined ? undefined : `${auth.type ?? 'Bearer'} ${credentials}`;
}

describe('the Grafana dashboard and the alert rules', () => {
  // As in compose: the gateways have an OPS_TOKEN, so /metrics needs it (Prometheus sends it).
  const { sandbox, gateway } = useGatewayOnEmulators({ OPS_TOKEN });
  let metrics: Scrape;
  beforeAll(async () => {
    // Traffic through every cache and the upstream, so the labelled series exist.
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    for (let round = 0; round < 2; round++) {
      await user.browser.graphql('{ statementDefinitions { definitions { identifier } } }');
      await user.browser.graphql('{ getStatements { statements { nodes { otxId pdf } } } }');
      await user.browser.graphql('{ getF1099necStatements { statements { nodes { otxId } } } }');
    }
    await user.browser.graphql('{ nope }');
    metrics = await scrape(gateway.current.url, prometheusAuthorization({ OPS_TOKEN }));
  });

  it('has Prometheus send OPS_TOKEN as a Bearer token, from a compose secret of the variable the gateways read', async () => {
    expect(prometheusAuthorization({ OPS_TOKEN })).toBe(`Bearer ${OPS_TOKEN}`);
    const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as ComposeFile;
    for (const name of ['gateway-1', 'gateway-2']) expect(compose.services[name]?.environment?.OPS_TOKEN).toMatch(/^\$\{OPS_TOKEN:\?/);
    expect((await fetch(`${gateway.current.url}/metrics`)).status).toBe(401);
  });

  const dashboard = JSON.parse(read('deploy/grafana/statement-gateway.json')) as Dashboard;

  it('is a well-formed dashboard: unique panel ids, every query on the datasource variable, panels inside the 24-column grid', () => {
    expect(dashboard.uid).toBe('statement-gateway');
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join(' | ');
    for (const topic of ['hit rate per cache', 'hit rate per operation', 'upstream latency', 'upstream error rate', 'errors by code', 'rate-limit', 'sessions by event']) {
      expect(titles).toContain(topic);
    }
  });

  it('queries only metrics and labels that /metrics exposes', () => {
    const queries = dashboardExpressions(dashboard).flatMap(selectors);
    expect(queries.length).toBeGreaterThan(20);
    const names = new Set(queries.map((query) => query.metric));
    for (const required of ['statement_gateway_cache_lookups_total', 'statement_gateway_upstream_request_duration_seconds_bucket', 'statement_gateway_rate_limited_total', 'statement_gateway_sessions_total']) {
      expect(names.has(required), required).toBe(true);
    }
    for (const query of queries) {
      const { family, labels } = exposed(metrics, query.metric);
      expect(family, `${query.metric} is not on /metrics`).toBe(true);
      if (!labels) continue; // a labelled family with no series yet (e.g. no refusal so far)
      for (const label of query.labels) {
        if (!SCRAPE_LABELS.has(label)) expect(labels.has(label), `${query.metric} has no label ${label}`).toBe(true);
      }
    }
  });

  it('alerts only on metrics that /metrics exposes', () => {
    const rules = parseYaml(read('deploy/prometheus/alerts.yml')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const alerts = rules.groups.flatMap((group) => group.rules);
    expect(alerts.map((rule) => rule.alert)).toEqual(expect.arrayContaining(['UpstreamErrors', 'SessionStoreUnavailable', 'CacheStoreErrors', 'DefinitionsHitRateFalling', 'EventLoopBlocked', 'UpstreamCircuitOpen']));
    for (const rule of alerts) {
      for (const query of selectors(rule.expr)) {
        const { family, labels } = exposed(metrics, query.metric);
        expect(family, `${rule.alert}: ${query.metric}`).toBe(true);
        for (const label of query.labels) {
          if (labels && !SCRAPE_LABELS.has(label)) expect(labels.has(label), `${rule.alert}: ${query.metric} ${label}`).toBe(true);
        }
      }
    }
  });
});

interface ProvisionedDatasource {
  name: string;
  uid: string;
  type: string;
  access: string;
  url: string;
  isDefault?: boolean;
}

describe('the trace of a log line\'s trace_id, from Grafana', () => {
  const DATASOURCES = 'deploy/grafana/provisioning/datasources';
  const provisioned = (file: string) => parseYaml(read(`${DATASOURCES}/${file}`)) as { apiVersion: number; datasources: ProvisionedDatasource[] };
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as ComposeFile;
  const dashboard = JSON.parse(read('deploy/grafana/statement-gateway.json')) as Dashboard;

  it('provisions a Jaeger datasource on compose\'s Jaeger service (its query port), Prometheus staying the default', () => {
    const jaeger = provisioned('jaeger.yaml');
    expect(jaeger.apiVersion).toBe(1);
    expect(jaeger.datasources).toEqual([{ name: 'Jaeger', uid: 'jaeger', type: 'jaeger', access: 'proxy', url: 'http://jaeger:16686', isDefault: false, editable: false }]);
    const url = new URL(jaeger.datasources[0]?.url ?? '');
    // The service exists, and 16686 is the port its container serves the UI and query API on.
    expect(compose.services[url.hostname]?.ports?.map((port) => port.split(':').at(-1))).toContain(url.port);
    const all = readdirSync(path.join(ROOT, DATASOURCES)).flatMap((file) => provisioned(file).datasources);
    expect(new Set(all.map((source) => source.uid)).size).toBe(all.length);
    expect(all.filter((source) => source.isDefault).map((source) => source.uid)).toEqual(['prometheus']);
  });

  it('has a Trace id box and two links to its trace: Explore on the Jaeger datasource, and Jaeger\'s own UI as compose publishes it', () => {
    expect(dashboard.templating.list.find((variable) => variable.name === 'trace_id')).toMatchObject({ type: 'textbox', query: '' });
    const links = dashboard.links ?? [];
    const explore = links.find((link) => link.url.startsWith('/explore?'));
    const params = new URLSearchParams(explore?.url.split('?')[1]);
    expect(params.get('schemaVersion')).toBe('1');
    // Grafana's Explore URL (schema 1): panes by id, each a datasource and its queries.
    const panes = Object.values(JSON.parse(params.get('panes') ?? '{}') as Record<string, unknown>);
    expect(panes).toEqual([expect.objectContaining({ datasource: 'jaeger', queries: [{ refId: 'A', datasource: { type: 'jaeger', uid: 'jaeger' }, query: '${trace_id}' }] })]);
    const published = compose.services.jaeger?.ports?.find((port) => port.endsWith(':16686'))?.replace(/:16686$/, '');
    expect(published).toBe('127.0.0.1:16686');
    expect(links.map((link) => link.url)).toContain(`http://${published ?? ''}/trace/\${trace_id}`);
    for (const link of links) expect(link).toMatchObject({ type: 'link', title: expect.stringContaining('${trace_id}') });
  });
});
