/** The control API under /__emulator/ (docs/reference.md, "Emulator control API"). */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { findForm, FORMS } from '../../sources/statement-filing-service/catalogue';
import { generateStatements } from '../generate';
import { SchemaChangeError } from '../graphql/schema-changes';
import type { EmulatorSchemas } from '../graphql/schema';
import { settingsSchema, type EmulatorState } from '../state';
import { NOT_FOUND, sendJson, type Params } from './io';

const accountBody = z.object({ email: z.string().email(), password: z.string().min(1).optional() }).strict();
const statementsBody = z.object({
  email: z.string().email(),
  form: z.string(),
  count: z.number().int().min(1).max(10_000),
  uploaderIdPrefix: z.string().min(1).max(40).optional(),
}).strict();

function invalid(res: ServerResponse, error: z.ZodError): void {
  sendJson(res, 400, { errors: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`) });
}

export function handleControl(state: EmulatorState, schemas: EmulatorSchemas, method: string, path: string, params: Params, res: ServerResponse): void {
  const route = `${method} ${path}`;
  switch (route) {
    case 'POST /__emulator/accounts': {
      const body = accountBody.safeParse(params);
      if (!body.success) return invalid(res, body.error);
      if (state.accounts.find(body.data.email)) return sendJson(res, 409, { errors: ['Email has already been taken'] });
      const account = state.accounts.create(body.data.email, body.data.password);
      return sendJson(res, 201, {
        email: account.email,
        ...(account.confirmationToken ? { confirmationToken: account.confirmationToken } : {}),
      });
    }
    case 'POST /__emulator/statements': {
      const body = statementsBody.safeParse(params);
      if (!body.success) return invalid(res, body.error);
      const form = findForm(body.data.form);
      if (!form) return sendJson(res, 400, { errors: [`form: one of ${FORMS.map((f) => f.key).join(', ')}`] });
      const account = state.accounts.find(body.data.email);
      if (!account) return sendJson(res, 404, { errors: ['No account with that email'] });
      const result = generateStatements(state.storeOf(account.id), form, body.data.count, body.data.uploaderIdPrefix);
      return result.ok ? sendJson(res, 201, result.created) : sendJson(res, 409, { errors: [result.error] });
    }
    case 'GET /__emulator/settings':
      return sendJson(res, 200, state.settings);
    case 'PATCH /__emulator/settings': {
      const body = settingsSchema.partial().safeParse(params);
      if (!body.success) return invalid(res, body.error);
      // Built now: changes that cannot be made are refused here, and later requests find it built.
      if (body.data.schemaChanges) {
        try {
          schemas.servedFor(body.data.schemaChanges);
        } catch (error) {
          if (error instanceof SchemaChangeError) return sendJson(res, 400, { errors: [`schemaChanges: ${error.message}`] });
          throw error;
        }
      }
      state.settings = { ...state.settings, ...body.data };
      return sendJson(res, 200, state.settings);
    }
    case 'GET /__emulator/requests':
      return sendJson(res, 200, state.requests);
    case 'DELETE /__emulator/requests':
      state.clearRequests();
      res.writeHead(204).end();
      return;
    case 'POST /__emulator/reset':
      state.reset();
      res.writeHead(204).end();
      return;
    default:
      return sendJson(res, 404, NOT_FOUND);
  }
}
