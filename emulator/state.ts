/**
 * Everything one emulator instance (one environment) holds: accounts, their statements, the
 * control API's settings, the request log and the rendered blank forms.
 */
import { z } from 'zod';
import { FORMS, type FormSpec } from '../sources/statement-filing-service/catalogue';
import { Accounts } from './accounts';
import { renderBlankForm, renderStatementPdf } from './pdf';
import { STATUS, StatementStore, type StoredStatement } from './statements';

export type Environment = 'sandbox' | 'production';

export const DEMO_ACCOUNT = { email: 'demo@example.com', password: 'demo-password-0123456789' } as const;
export const DEFAULT_TOKEN_TTL_SECONDS = 14 * 24 * 3600;
const REQUEST_LOG_LIMIT = 2_000;

// A final status with a body: 1xx would leave clients waiting, 204/205/304 carry no body.
const failureStatus = z.number().int().min(200).max(599).refine((s) => ![204, 205, 304].includes(s), 'a status with a body');

export const settingsSchema = z
  .object({
    latencyMs: z.number().int().min(0).max(600_000),
    failStatus: failureStatus.nullable(),
    hangMs: z.number().int().min(0).max(600_000),
    tokenTtlSeconds: z.number().int().min(1).max(10 * 365 * 24 * 3600),
    rotateTokens: z.boolean(),
    // Faults for a deterministic number of requests (a transient 503, a lost answer), counted down.
    failNextCount: z.number().int().min(0).max(1_000_000),
    failNextStatus: failureStatus,
    dropNextResponses: z.number().int().min(0).max(1_000_000),
    // The upstream's schema as its operators might change it (graphql/schema-changes.ts); null: as committed.
    schemaChanges: z
      .object({ remove: z.array(z.string().max(200)).max(200).optional(), add: z.array(z.string().max(200)).max(200).optional() })
      .strict()
      .nullable(),
  })
  .strict();
export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  latencyMs: 0, failStatus: null, hangMs: 0, tokenTtlSeconds: DEFAULT_TOKEN_TTL_SECONDS, rotateTokens: false,
  failNextCount: 0, failNextStatus: 503, dropNextResponses: 0, schemaChanges: null,
};

export interface LoggedRequest {
  readonly path: string;
  readonly operations: readonly string[];
  readonly uid: string | null;
  readonly status: number;
  /** The W3C trace context the request came with (what the gateway propagated), or null. */
  readonly traceparent: string | null;
  /**
   * Set when a counted fault applied: `failNext` (answered `failNextStatus`), or `dropped` (carried
   * out, `status` is what it would have answered, and the connection closed with no answer).
   */
  readonly fault?: 'failNext' | 'dropped';
}

export class EmulatorState {
  readonly accounts: Accounts;
  settings: Settings = { ...DEFAULT_SETTINGS };
  private readonly stores = new Map<number, StatementStore>();
  private requestLog: LoggedRequest[] = [];
  private readonly blankForms = new Map<FormSpec, Promise<string>>();

  /** `now` dates tokens, their expiry and devise's batch window (tests move it instead of waiting). */
  constructor(readonly environment: Environment, now: () => number = Date.now) {
    this.accounts = new Accounts(now);
    this.reset();
  }

  /** Forgets everything but the demo account (which starts again with no statements and no tokens). */
  reset(): void {
    this.accounts.clear();
    this.stores.clear();
    this.requestLog = [];
    this.settings = { ...DEFAULT_SETTINGS };
    this.accounts.create(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
  }

  storeOf(accountId: number): StatementStore {
    let store = this.stores.get(accountId);
    if (!store) {
      store = new StatementStore(new Date().getUTCFullYear() - 1);
      this.stores.set(accountId, store);
    }
    return store;
  }

  /** Counts one request down from `failNextCount`: true when it is to fail. */
  takeFailNext(): boolean {
    if (this.settings.failNextCount <= 0) return false;
    this.settings = { ...this.settings, failNextCount: this.settings.failNextCount - 1 };
    return true;
  }

  /** Counts one GraphQL request down from `dropNextResponses`: true when its answer is to be dropped. */
  takeDropNext(): boolean {
    if (this.settings.dropNextResponses <= 0) return false;
    this.settings = { ...this.settings, dropNextResponses: this.settings.dropNextResponses - 1 };
    return true;
  }

  log(entry: LoggedRequest): void {
    this.requestLog.push(entry);
    if (this.requestLog.length > REQUEST_LOG_LIMIT) this.requestLog.splice(0, this.requestLog.length - REQUEST_LOG_LIMIT);
  }

  get requests(): readonly LoggedRequest[] {
    return this.requestLog;
  }

  clearRequests(): void {
    this.requestLog = [];
  }

  /** SANDBOX on every sandbox PDF; DRAFT on production PDFs until the statement is finalized. */
  watermarkOf(statement: StoredStatement): string | null {
    if (this.environment === 'sandbox') return 'SANDBOX';
    return statement.status === STATUS.finalized ? null : 'DRAFT';
  }

  /** The statement's PDF, rendered once per revision and watermark. */
  pdfOf(statement: StoredStatement): Promise<string> {
    const watermark = this.watermarkOf(statement);
    const key = `${statement.revision}:${watermark ?? ''}`;
    if (statement.pdf?.key !== key) {
      statement.pdf = { key, base64: renderStatementPdf(statement.form, statement.data, statement.otxId, watermark) };
    }
    return statement.pdf.base64;
  }

  blankFormOf(form: FormSpec): Promise<string> {
    let pdf = this.blankForms.get(form);
    if (!pdf) {
      pdf = renderBlankForm(form);
      this.blankForms.set(form, pdf);
    }
    return pdf;
  }

  /** Renders every blank form ahead of the first `statementDefinitions` call. */
  async warmUp(): Promise<void> {
    await Promise.all(FORMS.map((f) => this.blankFormOf(f)));
  }
}
