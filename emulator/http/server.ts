/**
 * The emulator's HTTP server: the upstream's three endpoints, the control API, and the injected
 * latency, hang, failure statuses and dropped answers that the control API sets. Control requests
 * are never delayed, failed or logged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EmulatorSchemas } from '../graphql/schema';
import type { EmulatorState } from '../state';
import { signIn, signOut, credentialOf } from './auth';
import { handleControl } from './control';
import { handleGraphql, operationsOf } from './graphql';
import { BAD_JSON, NOT_FOUND, TOO_LARGE, parseParams, readBody, sendFailure, sendJson } from './io';

/** Waits `ms`, or resolves false early when the client goes away (the request is then dropped). */
function wait(ms: number, req: IncomingMessage, pending: Set<() => void>): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (alive: boolean) => {
      clearTimeout(timer);
      req.socket.off('close', onClose);
      pending.delete(onClose);
      resolve(alive);
    };
    const onClose = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    req.socket.once('close', onClose);
    pending.add(onClose);
  });
}

export interface EmulatorServer {
  readonly server: Server;
  /** Ends the delays still pending, so that close() never waits for a hang to elapse. */
  readonly abortPending: () => void;
}

export function createEmulatorServer(state: EmulatorState): EmulatorServer {
  const schemas = new EmulatorSchemas();
  const pending = new Set<() => void>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://emulator').pathname;
    const raw = await readBody(req);
    if (raw === null) return sendJson(res, 413, TOO_LARGE, { connection: 'close' });
    const body = parseParams(req, raw);
    if (path.startsWith('/__emulator/')) {
      return body.ok ? handleControl(state, schemas, method, path, body.params, res) : sendJson(res, 400, BAD_JSON);
    }
    const { latencyMs, hangMs, failStatus } = state.settings;
    if (!(await wait(latencyMs + hangMs, req, pending))) return;
    // The schema as the settings say once the request is processed (schemaChanges, built when set).
    const { schema, documents } = schemas.servedFor(state.settings.schemaChanges);
    const params = body.ok ? body.params : {};
    const record = (status: number, uid: string | null, operations: readonly string[] = [], fault?: 'failNext' | 'dropped') =>
      state.log({ path, operations, uid, status, traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : null, ...(fault ? { fault } : {}) });
    const failNext = failStatus === null && state.takeFailNext();
    if (failStatus !== null || failNext) {
      const status = failStatus ?? state.settings.failNextStatus;
      const c = credentialOf(req, params);
      const auth = state.accounts.authenticate(c.uid, c.client, c.token);
      sendFailure(res, status);
      return record(status, auth.ok ? auth.account.email : null, path === '/v2/graphql' ? operationsOf(documents, params) : [], failNext ? 'failNext' : undefined);
    }
    if (!body.ok) {
      sendJson(res, body.status, BAD_JSON);
      return record(body.status, null);
    }
    if (method === 'POST' && path === '/v2/auth/sign_in') {
      const uid = signIn(state, params, res);
      return record(res.statusCode, uid);
    }
    if (method === 'DELETE' && path === '/v2/auth/sign_out') {
      const uid = signOut(state, req, params, res);
      return record(res.statusCode, uid);
    }
    if (method === 'POST' && path === '/v2/graphql') {
      const drop = state.takeDropNext();
      const outcome = await handleGraphql(state, schema, documents, req, params, res, drop);
      return record(outcome.status, outcome.uid, outcome.operations, drop ? 'dropped' : undefined);
    }
    sendJson(res, 404, NOT_FOUND);
    record(404, null);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('emulator: unexpected error', error);
      if (!res.headersSent) sendJson(res, 500, { status: 500, error: 'Internal Server Error' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;
  return { server, abortPending: () => [...pending].forEach((abort) => abort()) };
}
