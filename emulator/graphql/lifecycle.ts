/**
 * `finalizeStatements`, `submitStatements` and `confirmRegistration`. Production charges a card
 * to finalize and really submits; the sandbox ignores the card, keeps the watermark, and accepts
 * submissions without sending anything.
 */
import { randomUUID } from 'node:crypto';
import { STATUS, SUBMISSION, type StoredStatement } from '../statements';
import { NO_IDS_ERROR, hasIds, storeOf, type EmulatorContext, type IdArgs } from './context';

export const CONFIRMATION_SUCCEEDED = 'Registration confirmation succeeded. You can log in and begin processing statements.';
export const MIN_PASSWORD_LENGTH = 20;

export interface CreditCard {
  firstName: string; lastName: string; companyName?: string | null; address: string; city: string;
  state: string; zipCode: string; cardNumber: string; cardExpiration: string; cvv: string;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Why a card cannot be charged, or null when it can. */
export function cardProblem(card: CreditCard | null | undefined, now: Date): string | null {
  if (!card) return 'A credit card is required to finalize statements in production';
  const number = card.cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(number) || !luhn(number)) return 'Card number is invalid';
  const exp = /^(\d{2})\/?(\d{2})$/.exec(card.cardExpiration);
  const month = exp ? Number(exp[1]) : 0;
  if (!exp || month < 1 || month > 12) return 'Card expiration must be MMYY';
  const endOfMonth = Date.UTC(2000 + Number(exp[2]), month, 1);
  if (endOfMonth <= now.getTime()) return 'Card has expired';
  if (!/^\d{3,4}$/.test(card.cvv)) return 'Cvv is invalid';
  const blank = (['firstName', 'lastName', 'address', 'city', 'state', 'zipCode'] as const).find((k) => card[k].trim() === '');
  return blank ? `Card ${blank} can't be blank` : null;
}

type Outcome = { ok: true; message: string } | { ok: false; messages: string[] };

function applyEach(ctx: EmulatorContext, args: IdArgs, step: (s: StoredStatement) => Outcome) {
  let successCount = 0;
  const messages = storeOf(ctx).select(args).map((s) => {
    const outcome = step(s);
    if (outcome.ok) successCount += 1;
    return { otxId: s.otxId, uploaderId: s.data.uploaderId ?? null, messages: outcome.ok ? [outcome.message] : outcome.messages };
  });
  return { errors: [] as string[], messages, successCount };
}

function finalizeStatements(_: unknown, args: IdArgs & { creditCard?: CreditCard | null }, ctx: EmulatorContext) {
  if (!hasIds(args)) return { errors: [NO_IDS_ERROR], messages: [], successCount: 0 };
  if (ctx.state.environment === 'production') {
    const problem = cardProblem(args.creditCard, new Date());
    if (problem) return { errors: [problem], messages: [], successCount: 0 };
  }
  return applyEach(ctx, args, (s) => {
    if (s.status === STATUS.finalized) return { ok: false, messages: ['Statement is already finalized'] };
    if (s.validationMessages.length > 0) {
      return { ok: false, messages: ['Statement is not valid and cannot be finalized', ...s.validationMessages] };
    }
    s.status = STATUS.finalized;
    s.revision += 1;
    return { ok: true, message: 'Statement finalized' };
  });
}

function submitStatements(_: unknown, args: IdArgs, ctx: EmulatorContext) {
  if (!hasIds(args)) return { errors: [NO_IDS_ERROR], messages: [], successCount: 0 };
  if (ctx.state.environment === 'sandbox') {
    return applyEach(ctx, args, () => ({ ok: true, message: 'Accepted; sandbox statements are not sent to the tax authority' }));
  }
  return applyEach(ctx, args, (s) => {
    if (s.status !== STATUS.finalized) return { ok: false, messages: ['Only finalized statements can be submitted'] };
    if (s.submissionStatus !== SUBMISSION.notSubmitted) return { ok: false, messages: ['Statement was already submitted'] };
    s.submissionStatus = SUBMISSION.submitted;
    s.otxSubmissionId = randomUUID();
    s.taFileDate = new Date().toISOString().slice(0, 10);
    s.revision += 1;
    return { ok: true, message: `Statement submitted to the ${s.form.metadata.taxAuthority}` };
  });
}

function confirmRegistration(_: unknown, args: { confirmationToken: string; password: string }, ctx: EmulatorContext) {
  if (args.password.length < MIN_PASSWORD_LENGTH) {
    return { message: null, errors: [`Password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`] };
  }
  const account = ctx.state.accounts.confirm(args.confirmationToken, args.password);
  return account ? { message: CONFIRMATION_SUCCEEDED, errors: [] } : { message: null, errors: ['Confirmation token is invalid'] };
}

export function lifecycleResolvers(): Record<string, unknown> {
  return { finalizeStatements, submitStatements, confirmRegistration };
}
