/**
 * The deployment files follow the contract's readiness and SIGTERM rules (issue 28): compose checks
 * health on /readiness (200 until SIGTERM, degraded included), gives the drain its whole time
 * before SIGKILL, and paging follows statement_gateway_dependency_up, not readiness. Parsed files
 * only: no engine runs here (deploy.test.ts checks the queries against a live /metrics).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '../../src/config/duration';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
  environment?: Record<string, string>;
}

/** Compose's (Go) durations: `25s`, `1m30s`, `500ms`. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, value, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(value) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

/** SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT as the gateway reads them (contract defaults 5s and 15s). */
function drainSeconds(env: Record<string, string>): number {
  const ms = (name: string, fallback: string) => parseDuration(env[name] ?? fallback) ?? Number.NaN;
  return (ms('SHUTDOWN_DELAY', '5s') + ms('SHUTDOWN_TIMEOUT', '15s')) / 1000;
}

describe.each(['deploy/compose.yaml', 'deploy/compose.ha.yaml'])('%s', (file) => {
  const services = (parseYaml(read(file), { merge: true }) as { services: Record<string, Service> }).services;
  const gateways = Object.entries(services).filter(([name]) => name.startsWith('gateway'));

  it('checks each gateway on /readiness and lets its drain finish before SIGKILL', () => {
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    for (const [name, gateway] of gateways) {
      expect(gateway.healthcheck?.test.join(' '), name).toContain('/readiness');
      expect(gateway.healthcheck?.test.join(' '), name).not.toContain('/healthcheck');
      const grace = seconds(gateway.stop_grace_period ?? '10s'); // Docker's default is 10 s
      expect(grace, `${name}: stop_grace_period`).toBeGreaterThanOrEqual(drainSeconds(gateway.environment ?? {}) + 5);
    }
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  const rules = (parseYaml(read('deploy/prometheus/alerts.yml')) as { groups: { rules: { alert: string; expr: string; for?: string; labels?: { severity?: string } }[] }[] }).groups.flatMap((group) => group.rules);

  it('pages on a dependency down for a while, and never on readiness itself', () => {
    const down = rules.find((rule) => rule.alert === 'DependencyDown');
    expect(down?.expr).toContain('statement_gateway_dependency_up');
    expect(down?.labels?.severity).toBe('page');
    expect(seconds(down?.for ?? '0s')).toBeGreaterThanOrEqual(60);
    for (const rule of rules) expect(rule.expr, rule.alert).not.toMatch(/readiness|probe_success/);
  });

  it('reads event-loop stalls from the histogram no scrape resets', () => {
    const blocked = rules.find((rule) => rule.alert === 'EventLoopBlocked');
    expect(blocked?.expr).toContain('statement_gateway_event_loop_max_delay_seconds_bucket');
    expect(blocked?.expr).not.toContain('nodejs_eventloop_lag_max_seconds');
    expect(blocked?.labels?.severity).toBe('page');
  });
});

describe('deploy/grafana/statement-gateway.json', () => {
  const panels = (JSON.parse(read('deploy/grafana/statement-gateway.json')) as { panels: { title: string; targets?: { expr: string }[] }[] }).panels;

  it('shows each dependency as readiness reports it', () => {
    const panel = panels.find((candidate) => candidate.targets?.some((target) => target.expr.includes('statement_gateway_dependency_up')));
    expect(panel?.title).toMatch(/dependenc/i);
  });

  it('shows the event-loop stalls the EventLoopBlocked alert pages on', () => {
    const panel = panels.find((candidate) => candidate.targets?.some((target) => target.expr.includes('statement_gateway_event_loop_max_delay_seconds_bucket')));
    expect(panel?.title).toMatch(/stall/i);
  });
});
