/**
 * One account's statements: drafts (valid or not), finalized, submitted. Statements keep creation
 * order, as a Rails `where(...)` without an explicit order returns them.
 */
import { randomUUID } from 'node:crypto';
import type { FormSpec } from '../sources/statement-filing-service/catalogue';
import { isBlank, validateStatement, type StatementData } from './validation';

export const STATUS = { draft: 1, finalized: 2 } as const;
export const STATUS_DESCRIPTION: Readonly<Record<number, string>> = {
  1: 'Draft: the statement can be changed, deleted or finalized.',
  2: 'Finalized: the statement can no longer be changed.',
};
export const SUBMISSION = { notSubmitted: 0, submitted: 1 } as const;
export const SUBMISSION_DESCRIPTION: Readonly<Record<number, string>> = {
  0: 'Not submitted.',
  1: 'Submitted to the tax authority; awaiting its response.',
};

export interface StoredStatement {
  readonly otxId: string;
  readonly form: FormSpec;
  data: StatementData;
  validationMessages: string[];
  status: number;
  submissionStatus: number;
  otxSubmissionId: string | null;
  taFileDate: string | null;
  /** Bumped on every change; the PDF cache is keyed by it. */
  revision: number;
  /** The rendered PDF of one revision and watermark, made once and kept until the next change. */
  pdf?: { readonly key: string; readonly base64: Promise<string> };
}

export interface Selection {
  readonly otxIds?: readonly string[] | null;
  readonly uploaderIds?: readonly string[] | null;
}

export class StatementStore {
  private readonly byOtxId = new Map<string, StoredStatement>();
  private readonly byUploaderId = new Map<string, StoredStatement>();
  private sequence = 0;

  constructor(private readonly defaultTaxYear: number) {}

  /** A number that only goes up, for generated uploaderIds. */
  nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  hasUploaderId(uploaderId: string): boolean {
    return this.byUploaderId.has(uploaderId);
  }

  /** Stores a statement, valid or not; the caller has checked that its uploaderId is free. */
  add(form: FormSpec, input: StatementData): StoredStatement {
    const data: StatementData = { ...input };
    if (data.taxYear === undefined || data.taxYear === null) data.taxYear = this.defaultTaxYear;
    const statement: StoredStatement = {
      otxId: randomUUID(),
      form,
      data,
      validationMessages: validateStatement(form, data),
      status: STATUS.draft,
      submissionStatus: SUBMISSION.notSubmitted,
      otxSubmissionId: null,
      taFileDate: null,
      revision: 1,
    };
    this.byOtxId.set(statement.otxId, statement);
    this.byUploaderId.set(String(data.uploaderId), statement);
    return statement;
  }

  /** Applies a partial change: given fields replace stored ones, an explicit null clears one. */
  update(statement: StoredStatement, change: StatementData): void {
    const before = String(statement.data.uploaderId);
    for (const [key, value] of Object.entries(change)) {
      if (value !== undefined) statement.data[key] = value;
    }
    if (isBlank(statement.data.taxYear)) statement.data.taxYear = this.defaultTaxYear;
    const after = String(statement.data.uploaderId);
    if (after !== before) {
      this.byUploaderId.delete(before);
      this.byUploaderId.set(after, statement);
    }
    statement.validationMessages = validateStatement(statement.form, statement.data);
    statement.revision += 1;
  }

  delete(statement: StoredStatement): void {
    this.byOtxId.delete(statement.otxId);
    this.byUploaderId.delete(String(statement.data.uploaderId));
  }

  findOne(key: { otxId?: string | null; uploaderId?: string | null }): StoredStatement | undefined {
    if (key.otxId) return this.byOtxId.get(key.otxId);
    if (key.uploaderId) return this.byUploaderId.get(key.uploaderId);
    return undefined;
  }

  /**
   * The statements that match every given criterion (otxIds AND uploaderIds), of one form when
   * `form` is given, in creation order. A missing criterion matches everything; an empty list
   * matches nothing (Rails' `where(otx_id: [])`). Unknown ids are ignored.
   */
  select(selection: Selection, form?: FormSpec): StoredStatement[] {
    const otx = selection.otxIds ? new Set(selection.otxIds) : null;
    const upl = selection.uploaderIds ? new Set(selection.uploaderIds) : null;
    const out: StoredStatement[] = [];
    for (const s of this.byOtxId.values()) {
      if (form && s.form !== form) continue;
      if (otx && !otx.has(s.otxId)) continue;
      if (upl && !upl.has(String(s.data.uploaderId))) continue;
      out.push(s);
    }
    return out;
  }
}

/** The fields a statement object shows, the form's own and the service's bookkeeping. */
export function statementView(s: StoredStatement): Record<string, unknown> {
  return {
    ...s.data,
    otxId: s.otxId,
    otxSubmissionId: s.otxSubmissionId,
    formType: s.form.metadata.identifier,
    statementValid: s.validationMessages.length === 0,
    validationMessages: s.validationMessages,
    status: s.status,
    statusDescription: STATUS_DESCRIPTION[s.status],
    submissionStatus: s.submissionStatus,
    submissionStatusDescription: SUBMISSION_DESCRIPTION[s.submissionStatus],
    taFileDate: s.taFileDate,
    taResponseDate: null,
    taxAuthority: s.form.metadata.taxAuthority,
    corrected: s.data.corrected ?? false,
    __statement: s,
  };
}
