/**
 * Filing a W-2 from the page's form, at most once per intent. An intent is what the form holds
 * when the user clicks "Add": it gets one `Idempotency-Key` (a UUID), reused every time the same
 * intent is sent again (after a network failure, a 409, a rate limit), so a retry whose first
 * attempt did reach the upstream gets that first answer back instead of filing a second W-2.
 * Changing the form is a new intent, with a new key (the gateway refuses a key reused for another
 * request: IDEMPOTENCY_KEY_REUSED). After UPSTREAM_UNAVAILABLE the gateway keeps that unclear
 * answer for the key (the upstream may have filed it): the page reads whether the statement
 * exists, and files it again under a new key only if it does not (docs/resilience.md).
 */
import { execute, GatewayError, mutate } from './client';
import { AddW2Mutation, StatementsByUploaderQuery } from './operations';

export interface W2Fields {
  readonly uploaderId: string;
  readonly recipientFirstName: string;
  readonly recipientLastName: string;
  readonly taxYear?: number;
}

export interface Filed {
  readonly otxId: string;
  /** The gateway answered with the first attempt's answer (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
}

/** Whether a W-2 with this uploader id exists; undefined when the gateway cannot tell now. */
async function filedAlready(uploaderId: string): Promise<string | undefined | null> {
  try {
    const { getFw2Statements } = await execute(StatementsByUploaderQuery, { uploaderIds: [uploaderId] });
    return getFw2Statements?.statements?.nodes?.[0]?.otxId ?? null;
  } catch {
    return undefined;
  }
}

/** `file(fields)`: files one W-2, or throws a GatewayError; keeps the current intent's key between calls. */
export function w2Filer(newKey: () => string = () => crypto.randomUUID()): (fields: W2Fields) => Promise<Filed> {
  let intent: { key: string; fields: string } | undefined;
  return async (fields) => {
    const sent = JSON.stringify(fields);
    if (intent?.fields !== sent) intent = { key: newKey(), fields: sent };
    try {
      const { data, replayed } = await mutate(AddW2Mutation, { statements: [fields] }, intent.key);
      const payload = data.addFw2Statements;
      const otxId = payload?.statements?.[0]?.statement?.otxId;
      if (!otxId) {
        const problems = [...(payload?.errors ?? []), ...(payload?.statements ?? []).flatMap((result) => result.messages)];
        // The upstream's refusal is the kept answer for this key: change the form (a new intent) to try again.
        throw new GatewayError('NOT_FILED', problems.join(' ') || 'The statement was not filed.');
      }
      intent = undefined;
      return { otxId, replayed: replayed === true };
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== 'UPSTREAM_UNAVAILABLE') throw error;
      const found = await filedAlready(fields.uploaderId);
      if (found) {
        intent = undefined;
        return { otxId: found, replayed: false };
      }
      // Not filed: the next attempt is a new request with a new key. Unknown (the check failed
      // too): keep the key, so a retry replays the kept answer and checks again, never files twice.
      if (found === null) intent = undefined;
      throw error;
    }
  };
}
