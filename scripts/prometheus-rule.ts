/**
 * Writes the Prometheus Operator's copy of the alert rules from their one source:
 *
 *   npx tsx scripts/prometheus-rule.ts           # rewrites the PrometheusRule
 *   npx tsx scripts/prometheus-rule.ts --check   # exits 1 if it is not what the source gives
 *
 * deploy/prometheus/alerts.yml is a Prometheus rule file (what the compose Prometheus loads and
 * `promtool check rules` reads); a PrometheusRule holds the same `groups` under `spec`. Kustomize
 * cannot embed a file from outside its folder into a field, so the component's
 * prometheusrule.yaml is this script's output, the rules' comments kept, and
 * test/deploy/alert-rules.unit.test.ts fails when the two differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Document, isSeq, parseDocument } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
export const ALERTS_FILE = 'deploy/prometheus/alerts.yml';
export const PROMETHEUS_RULE_FILE = 'deploy/kubernetes/components/prometheus-rule/prometheusrule.yaml';

const HEADER = [
  ` Generated from ${ALERTS_FILE} by \`npx tsx scripts/prometheus-rule.ts\`:`,
  ' edit that file, then run the script; never edit this one (test/deploy/alert-rules.unit.test.ts',
  ' compares them). `release` is the label kube-prometheus-stack\'s ruleSelector picks (its Helm',
  ' release name): an overlay whose release has another name patches it (docs/kubernetes.md).',
].join('\n');

/** The PrometheusRule's text for a rule file's text: the same `groups`, comments included. */
export function prometheusRuleText(alertsText: string): string {
  const source = parseDocument(alertsText);
  if (source.errors.length) throw new Error(`${ALERTS_FILE}: ${source.errors.map((error) => error.message).join('; ')}`);
  const groups = source.get('groups', true);
  if (!isSeq(groups)) throw new Error(`${ALERTS_FILE} has no list of groups`);
  const rule = new Document({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'statement-gateway', labels: { release: 'kube-prometheus-stack' } },
    spec: { groups: [] },
  });
  rule.setIn(['spec', 'groups'], groups);
  rule.commentBefore = HEADER;
  return rule.toString({ lineWidth: 0 });
}

function main(argv: readonly string[]): number {
  const wanted = prometheusRuleText(readFileSync(path.join(ROOT, ALERTS_FILE), 'utf8'));
  const target = path.join(ROOT, PROMETHEUS_RULE_FILE);
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      // A missing file differs like any other.
    }
    if (current === wanted) return 0;
    process.stderr.write(`${PROMETHEUS_RULE_FILE} is not what ${ALERTS_FILE} gives: run npx tsx scripts/prometheus-rule.ts\n`);
    return 1;
  }
  writeFileSync(target, wanted);
  process.stdout.write(`wrote ${PROMETHEUS_RULE_FILE}\n`);
  return 0;
}

if (path.resolve(process.argv[1] ?? '') === __filename) process.exitCode = main(process.argv.slice(2));
