/** The rows of one bench run: each a measured target in a scenario at one emulator latency. */
import type { Measured } from './load';

export interface Row extends Measured {
  readonly scenario: string;
  readonly latencyMs: number;
  readonly target: string;
  /** The row's name among its scenario and latency, for baselines and goals (not written out). */
  readonly key: string;
  /** The target of the row `ratio` compares with. */
  baseline?: string;
  /** This row's req/s over the baseline row's. */
  ratio?: number;
  note?: string;
  /** Counted by the proxy in front of the production emulator (scenario 4). */
  upstream?: { readonly bytesPerRequest: number; readonly pdfBytesPerRequest: number; readonly callsPerRequest: number };
}

export class Rows {
  readonly list: Row[] = [];

  /** Adds a row and reports it on stderr. */
  add(scenario: string, latencyMs: number, key: string, target: string, measured: Measured, note?: string): Row {
    const entry: Row = { scenario, latencyMs, key, target, ...measured, ...(note ? { note } : {}) };
    this.list.push(entry);
    const failed = measured.failed > 0 ? `, ${measured.failed} FAILED` : '';
    console.error(`  ${scenario} @${latencyMs}ms ${target}: ${measured.requestsPerSecond.toFixed(0)} req/s, p50 ${measured.p50Ms.toFixed(2)} ms${failed}`);
    return entry;
  }

  find(scenario: string, latencyMs: number, key: string): Row | undefined {
    return this.list.find((r) => r.scenario === scenario && r.latencyMs === latencyMs && r.key === key);
  }

  /** Sets the row's `ratio` over the baseline row (when both were measured). */
  relate(scenario: string, latencyMs: number, key: string, baselineKey: string): void {
    const subject = this.find(scenario, latencyMs, key);
    const base = this.find(scenario, latencyMs, baselineKey);
    if (!subject || !base) return;
    subject.baseline = base.target;
    subject.ratio = subject.requestsPerSecond / base.requestsPerSecond;
  }
}
