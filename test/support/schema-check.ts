/** `GET /ops/upstream-schema` for the upstream schema check's specs (test/ops/upstream-schema*.test.ts, test/e2e/check-upstream.test.ts). */

export interface SchemaCheckAnswer {
  readonly checkedAt: string | null;
  readonly status: 'same' | 'changed' | 'unknown' | 'failed';
  readonly changes: { readonly severity: string; readonly path: string; readonly description: string }[];
  readonly invalidDocuments: { readonly id: string; readonly name: string; readonly message: string }[];
  readonly lastSuccessAt: string | null;
  readonly reason?: string;
  readonly durationMs?: number;
}
export type SchemaCheckAnswers = Record<'sandbox' | 'production', SchemaCheckAnswer>;

/** The token the specs' gateways are given. */
export const SCHEMA_TEST_TOKEN = 'ops-token-of-the-schema-test-0123456789';

/** The gateway's last check per environment; throws unless it answers 200. */
export async function upstreamSchemaStatuses(gatewayUrl: string, token = SCHEMA_TEST_TOKEN): Promise<SchemaCheckAnswers> {
  const answer = await fetch(`${gatewayUrl}/ops/upstream-schema`, { headers: { authorization: `Bearer ${token}` } });
  if (answer.status !== 200) throw new Error(`/ops/upstream-schema answered ${answer.status}`);
  return (await answer.json()) as SchemaCheckAnswers;
}

/** Trusted documents of a first-party frontend: one selects a field the specs remove upstream. */
export const SCHEMA_TEST_DOCUMENTS = {
  w2: 'query W2Recipients { getFw2Statements { statements { nodes { otxId recipientTin } } } }',
  dashboard: 'query Dashboard { session { uid } getStatements(first: 5) { statements { nodes { otxId } } } }',
  greeting: 'query Greeting { secretGreeting { response } }',
};

/** The emulator's `schemaChanges` the specs make: a field a trusted document selects removed, one added. */
export const REMOVED_AND_ADDED = { remove: ['Fw2Statement.recipientTin'], add: ['SecretGreetingPayload.mood: String'] };
