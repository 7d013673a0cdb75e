/**
 * The alert rules and their runbooks, as files: deploy/prometheus/alerts.yml is the one source,
 * loaded by the compose Prometheus, and the PrometheusRule of
 * deploy/kubernetes/components/prometheus-rule is exactly what scripts/prometheus-rule.ts makes of
 * it; every alert is a page (with a `for:`) or a ticket, links its section of docs/runbooks.md,
 * and the alerts the contract's Kubernetes list asks for exist. Each runbook says what the alert
 * means, what to look at first (dashboard panels that exist, log events the gateway writes) and
 * what to do. With promtool installed (Prometheus's; Debian: apt-get install prometheus), the rules
 * also pass `promtool check rules` and their unit tests on made-up series
 * (deploy/prometheus/alerts.test.yml). That the rules query only what /metrics exposes:
 * test/e2e/deploy.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ALERTS_FILE, PROMETHEUS_RULE_FILE, prometheusRuleText } from '../../scripts/prometheus-rule';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const source = parseYaml(read(ALERTS_FILE)) as { groups: { name: string; rules: Rule[] }[] };
const alerts = source.groups.flatMap((group) => group.rules);
const byName = new Map(alerts.map((rule) => [rule.alert, rule]));

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

/** docs/runbooks.md's `## ` sections, by anchor. */
const runbooks = new Map(
  read('docs/runbooks.md')
    .split(/^## /m)
    .slice(1)
    .map((section) => [anchorOf(section.slice(0, section.indexOf('\n'))), section] as const),
);

const seconds = (duration: string) => {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600 };
  return [...duration.matchAll(/(\d+)([smh])/g)].reduce((sum, [, value, unit]) => sum + Number(value) * (units[unit ?? 's'] ?? 1), 0);
};

describe('the alert rules have one source', () => {
  it('the PrometheusRule is what scripts/prometheus-rule.ts makes of deploy/prometheus/alerts.yml, byte for byte', () => {
    expect(read(PROMETHEUS_RULE_FILE), 'run npx tsx scripts/prometheus-rule.ts').toBe(prometheusRuleText(read(ALERTS_FILE)));
  });

  it('and holds the same groups and rules, read as YAML', () => {
    const rule = parseYaml(read(PROMETHEUS_RULE_FILE)) as { apiVersion: string; kind: string; spec: { groups: unknown } };
    expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    expect(rule.spec.groups).toEqual(source.groups);
  });

  it('is the file the compose Prometheus loads', () => {
    const prometheus = parseYaml(read('deploy/prometheus/prometheus.yml')) as { rule_files: string[] };
    const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, { volumes?: string[] }> };
    const mounts = (compose.services.prometheus?.volumes ?? []).map((volume) => volume.split(':'));
    const loaded = prometheus.rule_files.map((file) => mounts.find(([, inside]) => inside === file)?.[0]);
    expect(loaded).toEqual([`./${path.relative('deploy', ALERTS_FILE)}`]);
  });
});

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;

describe.runIf(promtool)('promtool (Prometheus\'s own rule checker)', () => {
  it('parses every rule, and each fires on the series deploy/prometheus/alerts.test.yml makes up, and only there', () => {
    for (const args of [['check', 'rules', ALERTS_FILE], ['test', 'rules', 'deploy/prometheus/alerts.test.yml']]) {
      const result = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
      expect(result.status, `promtool ${args.join(' ')}:\n${result.stdout}${result.stderr}`).toBe(0);
    }
  });
});

describe('every alert', () => {
  it.each(alerts.map((rule) => [rule.alert, rule] as const))('%s is a page or a ticket with a summary, and links its runbook, which exists', (name, rule) => {
    expect(['page', 'ticket']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toEqual(expect.any(String));
    expect(rule.annotations?.runbook_url).toBe(`docs/runbooks.md#${name.toLowerCase()}`);
    expect(runbooks.has(name.toLowerCase()), `docs/runbooks.md has no section ## ${name}`).toBe(true);
  });

  it('that pages waits a `for:` of at least a minute, so a blip wakes nobody', () => {
    const pages = alerts.filter((rule) => rule.labels?.severity === 'page');
    expect(pages.length).toBeGreaterThan(0);
    for (const rule of pages) expect(seconds(rule.for ?? ''), rule.alert).toBeGreaterThanOrEqual(60);
    // The one that paged on a single stall.
    expect(byName.get('EventLoopBlocked')?.for).toBeDefined();
  });

  it('has a unique name, and no runbook section is left without its alert', () => {
    expect(byName.size).toBe(alerts.length);
    expect([...runbooks.keys()].sort()).toEqual(alerts.map((rule) => rule.alert.toLowerCase()).sort());
  });
});

describe('the alerts the contract\'s Kubernetes list asks for', () => {
  const find = (name: string) => {
    const rule = byName.get(name);
    if (!rule) throw new Error(`no alert ${name}`);
    return { ...rule, expr: rule.expr.replace(/\s+/g, ' ') };
  };

  it.each([
    ['the gateway\'s own 5xx ratio', 'GatewayErrorRatioHigh', /statusCode=~"5\.\."\S*\s*\/ sum\(rate\(graphql_yoga_http_duration_count/, 'page'],
    ['a latency objective', 'GatewayLatencyHigh', /graphql_yoga_http_duration_bucket\{[^}]*le="1"/, 'page'],
    ['every replica gone', 'GatewayAbsent', /^absent\(up\{job="statement-gateway"\} == 1\)$/, 'page'],
    ['restarts', 'GatewayRestarting', /changes\(process_start_time_seconds/, 'ticket'],
    ['the HPA at its maximum', 'GatewayAtMaxReplicas', /kube_horizontalpodautoscaler_status_current_replicas.*>= .*kube_horizontalpodautoscaler_spec_max_replicas/, 'ticket'],
    ['Redis memory near its limit', 'RedisMemoryNearLimit', /redis_memory_used_bytes \/ \(redis_memory_max_bytes > 0\)/, 'page'],
    ['a dependency down', 'DependencyDown', /statement_gateway_dependency_up/, 'page'],
    ['an open circuit', 'UpstreamCircuitOpen', /statement_gateway_upstream_circuit_state\{[^}]*\}\) == 2/, 'page'],
    ['a breaking upstream schema change', 'UpstreamSchemaBreaking', /statement_gateway_upstream_schema_changes\{[^}]*severity="breaking"\}\) > 0/, 'ticket'],
    ['trusted documents invalid', 'TrustedDocumentsInvalid', /statement_gateway_trusted_documents_invalid\{[^}]*\}\) > 0/, 'page'],
  ] as const)('%s: %s', (_what, name, expr, severity) => {
    const rule = find(name);
    expect(rule.expr).toMatch(expr);
    expect(rule.labels?.severity).toBe(severity);
  });

  it('counts the cache store out of DependencyDown\'s page: without it the gateway answers, uncached (a ticket)', () => {
    expect(find('DependencyDown').expr).toContain('dependency!="cacheStore"');
    expect(find('CacheStoreDown')).toMatchObject({ labels: { severity: 'ticket' } });
  });

  it('reads the gateway\'s metrics of the scraped job only, so another job\'s series never fire them', () => {
    for (const rule of alerts) {
      for (const selector of rule.expr.matchAll(/\b(statement_gateway_\w+|graphql_\w+|nodejs_\w+|process_\w+|up)\b(\{[^}]*\})?/g)) {
        expect(selector[2] ?? '', `${rule.alert}: ${selector[1]}`).toContain('job="statement-gateway"');
      }
    }
  });
});

describe('the metrics the rules and the dashboard read', () => {
  /** Names the gateway's code defines (`name: 'statement_gateway_...'`). */
  const defined = new Set(
    ['src/observability/metrics.ts', 'src/observability/event-loop-stalls.ts', 'src/observability/upstream-schema-gauges.ts'].flatMap((file) => [...read(file).matchAll(/name: '(statement_gateway_\w+)'/g)].map((match) => match[1])),
  );
  const family = (name: string) => name.replace(/_(bucket|count|sum)$/, '');

  it('are the gateway\'s own statement_gateway_* names (no typo reaches a rule that can then never fire)', () => {
    const dashboard = JSON.parse(read('deploy/grafana/statement-gateway.json')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = [...alerts.map((rule) => rule.expr), ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr))];
    const used = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\bstatement_gateway_\w+/g)].map((match) => family(match[0]))));
    for (const name of used) expect(defined.has(name), name).toBe(true);
  });
});

describe('docs/runbooks.md', () => {
  const dashboard = JSON.parse(read('deploy/grafana/statement-gateway.json')) as { panels: { title: string; type: string }[] };
  const titles = new Set(dashboard.panels.filter((panel) => panel.type !== 'row').map((panel) => panel.title));
  const events = new Set([...read('src/observability/log-events.ts').matchAll(/event: '([\w.-]+)'/g)].map((match) => match[1]));

  it.each([...runbooks.entries()])('#%s says what it means, what to look at first (panels that exist, events the gateway logs, a command) and what to do', (_anchor, section) => {
    expect(section).toContain('**What it means.**');
    expect(section).toContain('**What to do.**');
    const first = /\*\*Look first\.\*\*([\s\S]*?)\*\*What to do\.\*\*/.exec(section)?.[1] ?? '';
    expect(first, 'a Look first paragraph').not.toBe('');
    for (const [, panel] of first.matchAll(/\*\*(.+?)\*\*/gs)) expect(titles.has((panel ?? '').replace(/\s+/g, ' ')), `panel ${panel}`).toBe(true);
    const named = [...first.matchAll(/`([a-z-]+\.[a-z_.-]+)`/g)].map((match) => match[1] ?? '');
    expect(named.length, 'a log event').toBeGreaterThan(0);
    for (const event of named) expect(events.has(event), `log event ${event}`).toBe(true);
    expect(first).toMatch(/```bash\n|`(kubectl|curl|redis-cli|npm) /);
  });

  it('is matched by docs/operations.md\'s alert table, every alert with its severity', () => {
    const section = /## What to alert on\n([\s\S]*?)\n## /.exec(read('docs/operations.md'))?.[1] ?? '';
    const listed = [...section.matchAll(/^\| `(\w+)` \| (page|ticket) \|/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(listed.sort()).toEqual(alerts.map((rule) => `${rule.alert} ${rule.labels?.severity}`).sort());
  });

  it('links only to sections that exist', () => {
    for (const [, anchor] of read('docs/runbooks.md').matchAll(/\]\(#([\w-]+)\)/g)) expect(runbooks.has(anchor ?? ''), `#${anchor}`).toBe(true);
  });
});

describe('the Grafana dashboard', () => {
  const dashboard = JSON.parse(read('deploy/grafana/statement-gateway.json')) as { panels: { title: string; targets?: { expr: string }[] }[] };
  const panelReading = (pattern: RegExp) => dashboard.panels.filter((panel) => (panel.targets ?? []).some((target) => pattern.test(target.expr))).map((panel) => panel.title);

  it.each([
    ['the circuits', /statement_gateway_upstream_circuit_state/],
    ['the retries', /statement_gateway_upstream_retries_total/],
    ['CPU', /process_cpu_seconds_total/],
    ['the replicas', /up\{job="statement-gateway"\} == 1/],
    ['the HPA\'s replicas', /kube_horizontalpodautoscaler_status_current_replicas/],
  ])('has a panel for %s', (_what, pattern) => {
    expect(panelReading(pattern).length).toBeGreaterThan(0);
  });
});
