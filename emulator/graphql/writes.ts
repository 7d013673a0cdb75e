/**
 * `add<Form>Statements`, `update<Form>Statements` and `deleteStatements`. Invalid statements are
 * stored as drafts and reported through `messages`; a statement that cannot be stored at all (no
 * or a taken uploaderId) comes back with `statement: null` and the reason.
 */
import { FORMS, type FormSpec } from '../../sources/statement-filing-service/catalogue';
import { STATUS } from '../statements';
import { isBlank, type StatementData } from '../validation';
import { NO_IDS_ERROR, hasIds, labelOf, nodeOf, storeOf, type EmulatorContext, type IdArgs } from './context';

/** The most statements one add or update call takes. */
export const MAX_STATEMENTS_PER_CALL = 1_000;
const TOO_MANY = `A maximum of ${MAX_STATEMENTS_PER_CALL} statements can be sent in one request`;

interface UpdateItem {
  otxId?: string | null;
  uploaderId?: string | null;
  statement: StatementData;
}

function addStatements(form: FormSpec) {
  return (_: unknown, args: { statements: StatementData[] }, ctx: EmulatorContext) => {
    if (args.statements.length > MAX_STATEMENTS_PER_CALL) return { errors: [TOO_MANY], statements: [] };
    const store = storeOf(ctx);
    const statements = args.statements.map((input, i) => {
      const recordNumber = i + 1;
      if (isBlank(input.uploaderId)) return { recordNumber, statement: null, messages: ["Uploader can't be blank"] };
      const uploaderId = String(input.uploaderId);
      if (store.hasUploaderId(uploaderId)) {
        return { recordNumber, statement: null, messages: [`Uploader ${uploaderId} has already been taken`] };
      }
      const stored = store.add(form, input);
      return { recordNumber, statement: nodeOf(ctx, stored), messages: [...stored.validationMessages] };
    });
    return { errors: [], statements };
  };
}

function updateStatements(form: FormSpec) {
  return (_: unknown, args: { statements: UpdateItem[] }, ctx: EmulatorContext) => {
    if (args.statements.length > MAX_STATEMENTS_PER_CALL) return { errors: [TOO_MANY], statements: [] };
    const store = storeOf(ctx);
    const statements = args.statements.map((item, i) => {
      const recordNumber = i + 1;
      const refusal = (message: string) => ({ recordNumber, statement: null, messages: [message] });
      if (isBlank(item.otxId) && isBlank(item.uploaderId)) return refusal('Supply otxId or uploaderId to choose the statement');
      const target = store.findOne(item);
      if (!target || target.form !== form) return refusal(`Statement ${item.otxId ?? item.uploaderId} was not found`);
      if (target.status !== STATUS.draft) return refusal(`Statement ${labelOf(target)} is finalized and can no longer be changed`);
      const newId = item.statement.uploaderId;
      if (newId !== undefined && isBlank(newId)) return refusal("Uploader can't be blank");
      if (newId != null && String(newId) !== String(target.data.uploaderId) && store.hasUploaderId(String(newId))) {
        return refusal(`Uploader ${String(newId)} has already been taken`);
      }
      store.update(target, item.statement);
      return { recordNumber, statement: nodeOf(ctx, target), messages: [...target.validationMessages] };
    });
    return { errors: [], statements };
  };
}

function deleteStatements(_: unknown, args: IdArgs, ctx: EmulatorContext) {
  if (!hasIds(args)) return { errors: [NO_IDS_ERROR], deleteCount: 0 };
  const store = storeOf(ctx);
  const errors: string[] = [];
  let deleteCount = 0;
  for (const s of store.select(args)) {
    if (s.status !== STATUS.draft) {
      errors.push(`Statement ${labelOf(s)} is finalized and cannot be deleted`);
      continue;
    }
    store.delete(s);
    deleteCount += 1;
  }
  return { errors, deleteCount };
}

export function writeResolvers(): Record<string, unknown> {
  return {
    ...Object.fromEntries(FORMS.flatMap((f): [string, unknown][] => [
      [f.operations.add, addStatements(f)],
      [f.operations.update, updateStatements(f)],
    ])),
    deleteStatements,
  };
}
