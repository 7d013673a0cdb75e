/**
 * The comparison of one upstream schema check, on a worker thread (schema-drift-thread.ts starts
 * it): the introspection answer parsed and built into a schema, compared with the served one, every
 * trusted document validated. That is tens of milliseconds of CPU in one piece (over 150 ms when
 * graphql-js's code is still cold, as it is at start and an hour later), which on the gateway's own
 * thread every request arriving meanwhile would wait for. Here only the texts go in and the
 * findings come out. One input (workerData), one message, then the thread ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildSchema, parse } from 'graphql';
import { schemaFromAnswer } from './introspection';
import { compareSchemas } from './schema-drift';
import type { DriftInput, DriftOutput } from './schema-drift-thread';
import { refusedDocuments } from './trusted-document-drift';

function findDrift({ servedSdl, status, body, documents }: DriftInput): DriftOutput {
  try {
    const served = buildSchema(servedSdl);
    const live = schemaFromAnswer(status, body);
    const parsed = documents.map(({ id, text }) => ({ id, document: parse(text) }));
    return { ok: true, changes: compareSchemas(served, live), invalidDocuments: refusedDocuments(parsed, served, live) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.postMessage(findDrift(workerData as DriftInput));
