/**
 * Accounts and credentials as devise_token_auth 1.2 keeps them: one token per `client` (device)
 * per account, at most 10 clients, each with an expiry. With `change_headers_on_each_request` a new
 * access-token on every authenticated response: the token it replaces (`previous_token`) stays
 * valid until the next rotation, the one before that (`last_token`) only within the 5-second batch
 * window (`token_can_be_reused?`).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const BATCH_WINDOW_MS = 5_000;
export const MAX_CLIENTS_PER_ACCOUNT = 10;

interface ClientToken {
  token: string;
  previousToken: string | null;
  lastToken: string | null;
  /** Epoch seconds, as devise_token_auth's `expiry`. */
  expiry: number;
  updatedAtMs: number;
}

export interface Account {
  readonly id: number;
  readonly email: string;
  passwordDigest: Buffer | null;
  confirmationToken: string | null;
  readonly tokens: Map<string, ClientToken>;
}

export interface Credential {
  readonly accessToken: string;
  readonly client: string;
  readonly uid: string;
  readonly expiry: number;
}

export type Authentication =
  | { ok: true; account: Account; client: string; token: string }
  | { ok: false };

function digest(password: string): Buffer {
  return createHash('sha256').update(password).digest();
}

function newToken(): string {
  return randomBytes(16).toString('base64url');
}

export class Accounts {
  private readonly byEmail = new Map<string, Account>();
  private nextId = 1;

  constructor(private readonly now: () => number = Date.now) {}

  /** Creates a confirmed account (with a password) or an unconfirmed one (returns its token). */
  create(email: string, password?: string): Account {
    const key = email.toLowerCase();
    if (this.byEmail.has(key)) throw new Error('exists');
    const account: Account = {
      id: this.nextId++,
      email: key,
      passwordDigest: password === undefined ? null : digest(password),
      confirmationToken: password === undefined ? randomBytes(12).toString('hex') : null,
      tokens: new Map(),
    };
    this.byEmail.set(key, account);
    return account;
  }

  find(email: string): Account | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  clear(): void {
    this.byEmail.clear();
    this.nextId = 1;
  }

  /** Accepts the password only for a confirmed account; compares digests in constant time. */
  checkPassword(account: Account, password: string): boolean {
    return account.passwordDigest !== null && timingSafeEqual(account.passwordDigest, digest(password));
  }

  confirm(confirmationToken: string, password: string): Account | undefined {
    for (const account of this.byEmail.values()) {
      if (account.confirmationToken !== null && account.confirmationToken === confirmationToken) {
        account.confirmationToken = null;
        account.passwordDigest = digest(password);
        return account;
      }
    }
    return undefined;
  }

  /** A new client and token, as a successful sign-in creates; the oldest client beyond 10 is dropped. */
  issue(account: Account, ttlSeconds: number): Credential {
    const client = randomBytes(16).toString('base64url');
    const token = newToken();
    const expiry = Math.floor(this.now() / 1000) + ttlSeconds;
    account.tokens.set(client, { token, previousToken: null, lastToken: null, expiry, updatedAtMs: this.now() });
    while (account.tokens.size > MAX_CLIENTS_PER_ACCOUNT) {
      const oldest = [...account.tokens.entries()].sort((a, b) => a[1].expiry - b[1].expiry)[0];
      if (oldest) account.tokens.delete(oldest[0]);
    }
    return { accessToken: token, client, uid: account.email, expiry };
  }

  /**
   * devise_token_auth's `valid_token?`: the current or previous token before the expiry
   * (`token_is_current?`), or the last token within the batch window (`token_can_be_reused?`).
   */
  authenticate(uid: string | undefined, client: string | undefined, token: string | undefined): Authentication {
    if (!uid || !client || !token) return { ok: false };
    const account = this.find(uid);
    const entry = account?.tokens.get(client);
    if (!account || !entry) return { ok: false };
    const nowMs = this.now();
    if (entry.expiry * 1000 <= nowMs) return { ok: false };
    const current = safeEqual(entry.token, token) || (entry.previousToken !== null && safeEqual(entry.previousToken, token));
    const reusable = entry.lastToken !== null && safeEqual(entry.lastToken, token) && nowMs - entry.updatedAtMs < BATCH_WINDOW_MS;
    return current || reusable ? { ok: true, account, client, token } : { ok: false };
  }

  /**
   * The credential headers of an authenticated response when tokens rotate: a new token, unless the
   * request is a batch request (a last token exists and the last rotation is under 5 seconds old),
   * where devise answers a blank `access-token` (a single space) so that a racing response never
   * hands out a stale token, and extends the window.
   */
  rotate(account: Account, client: string, ttlSeconds: number): Credential | 'batch' {
    const entry = account.tokens.get(client);
    if (!entry) return 'batch';
    const nowMs = this.now();
    if (entry.lastToken !== null && nowMs - entry.updatedAtMs < BATCH_WINDOW_MS) {
      entry.updatedAtMs = nowMs; // extend_batch_buffer
      return 'batch';
    }
    entry.lastToken = entry.previousToken;
    entry.previousToken = entry.token;
    entry.token = newToken();
    entry.updatedAtMs = nowMs;
    entry.expiry = Math.floor(nowMs / 1000) + ttlSeconds;
    return { accessToken: entry.token, client, uid: account.email, expiry: entry.expiry };
  }

  /** The headers devise sends without rotation: the presented token again, with its client's expiry. */
  echo(account: Account, client: string, token: string): Credential {
    const expiry = account.tokens.get(client)?.expiry ?? 0;
    return { accessToken: token, client, uid: account.email, expiry };
  }

  signOut(uid: string | undefined, client: string | undefined, token: string | undefined): boolean {
    const auth = this.authenticate(uid, client, token);
    if (!auth.ok) return false;
    auth.account.tokens.delete(auth.client);
    return true;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The `{ data }` body of devise_token_auth's sign-in response. */
export function accountResource(account: Account): Record<string, unknown> {
  return {
    id: account.id,
    email: account.email,
    provider: 'email',
    uid: account.email,
    allow_password_change: false,
    name: null,
    nickname: null,
    image: null,
  };
}

