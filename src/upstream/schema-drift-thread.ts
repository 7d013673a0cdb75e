/**
 * Runs one comparison (schema-drift-worker.ts) on a thread of its own and answers its findings:
 * the gateway's event loop only hands the texts over. A thread per check, ended after it: checks
 * are an hour apart by default, and an idle thread would hold its heap for nothing. The thread's
 * heap is bounded, so a huge or hostile introspection answer costs that thread, not the gateway.
 * From the checkout (tsx) the worker is the TypeScript file, loaded with tsx as the gateway is;
 * from dist/ the compiled one, with node alone.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SchemaChange } from './schema-drift';
import type { InvalidDocument } from './trusted-document-drift';

export interface DriftInput {
  /** The served upstream schema, printed (printSchema). */
  readonly servedSdl: string;
  /** The introspection answer's status and body, as the upstream sent them. */
  readonly status: number;
  readonly body: string;
  readonly documents: readonly { readonly id: string; readonly text: string }[];
}

export type DriftOutput =
  | { readonly ok: true; readonly changes: SchemaChange[]; readonly invalidDocuments: InvalidDocument[] }
  | { readonly ok: false; readonly error: string };

/** The worker's heap: the upstream's introspection answer is a few hundred KiB; this is ample. */
const WORKER_HEAP_MB = 256;
/** A comparison takes well under a second; one that takes this long is stopped. */
const COMPARISON_TIMEOUT_MS = 30_000;

export function findDriftOnThread(input: DriftInput, timeoutMs = COMPARISON_TIMEOUT_MS): Promise<DriftOutput> {
  const extension = path.extname(__filename);
  const worker = new Worker(path.join(__dirname, `schema-drift-worker${extension}`), {
    workerData: input,
    // tsx by its path, found from here: whatever the working directory (a checkout only; dist/ has no TypeScript).
    execArgv: extension === '.ts' ? ['--import', pathToFileURL(createRequire(__filename).resolve('tsx')).href] : [],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    // Its logs, if any, are not the gateway's JSON lines.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  // A check never keeps the process alive: a stopping gateway does not wait for it.
  worker.unref();
  let timer: NodeJS.Timeout | undefined;
  return new Promise<DriftOutput>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `the comparison took over ${timeoutMs} ms and was stopped` }), timeoutMs);
    timer.unref();
    worker.once('message', (output: DriftOutput) => resolve(output));
    worker.once('error', (error: Error) => resolve({ ok: false, error: `the comparison failed: ${error.message}` }));
    worker.once('exit', (code) => resolve({ ok: false, error: `the comparison's thread ended (exit ${code}) without an answer` }));
  }).finally(() => {
    clearTimeout(timer);
    void worker.terminate();
  });
}
