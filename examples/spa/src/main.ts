/**
 * The example page: log in, follow the session's idle countdown, list statements, add one (once per
 * intent: add-statement.ts), open or download their PDFs, see and end this user's sessions in other
 * browsers (sessions-panel.ts), log out. Errors are handled by their contract code (see `handle`).
 */
import './style.css';
import { w2Filer } from './add-statement';
import { execute, GatewayError, pdfLink, read } from './client';
import { countdown } from './countdown';
import { sessionsPanel } from './sessions-panel';
import type { Environment } from './gql/graphql';
import { waitText } from './wait-text';
import { LoginMutation, LogoutMutation, SessionLeftQuery, SessionQuery, StatementsQuery } from './operations';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const loginForm = $<HTMLFormElement>('login');
const sessionPanel = $('session-panel');
const statements = $('statements');
const message = $('message');
const addForm = $<HTMLFormElement>('add');
const fileW2 = w2Filer();
const timer = countdown($('countdown'), () => void refreshSession(SessionLeftQuery));
const sessions = sessionsPanel({ say, signedOut: (text) => showLogin(text), handle });

const NO_COOKIE = `Logged in, but the browser did not send the session cookie back. The page (${location.origin}) and the gateway must be on the same site: one host name, any port (localhost and 127.0.0.1 are different sites).`;

const field = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;

interface SessionView {
  uid: string;
  environment: Environment;
  idleExpiresInSeconds: number;
}

function say(text: string, kind: 'info' | 'error' = 'error'): void {
  message.textContent = text;
  message.className = kind;
  message.hidden = text === '';
}

/** `kind`: 'error' for what the developer must fix (a setup problem), else 'info'. */
function showLogin(text = '', kind: 'info' | 'error' = 'info'): void {
  timer.stop();
  sessionPanel.hidden = true;
  statements.hidden = true;
  sessions.clear();
  $('rows').replaceChildren();
  loginForm.hidden = false;
  say(text, kind);
}

function showSession(session: SessionView): void {
  loginForm.hidden = true;
  sessionPanel.hidden = false;
  statements.hidden = false;
  $('uid').textContent = session.uid;
  $('environment').textContent = session.environment.toLowerCase();
  // At least a second: at zero the gateway may still hold the session for a moment (another tab
  // kept it alive, or its end is less than a second away); the page asks again then.
  timer.reset(Math.max(1, session.idleExpiresInSeconds));
}

/** Waits out a RATE_LIMITED answer: every button stays disabled for the time the gateway named. */
function waitOut(seconds: number): void {
  const buttons = [...document.querySelectorAll('button')];
  buttons.forEach((button) => (button.disabled = true));
  const end = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.ceil((end - Date.now()) / 1000);
    if (left > 0) return say(`Too many requests: try again in ${waitText(left)}.`);
    clearInterval(interval);
    buttons.forEach((button) => (button.disabled = false));
    say('');
  };
  const interval = setInterval(tick, 250);
  tick();
}

/** What a page does with each error code of the gateway's contract. */
function handle(error: unknown): void {
  if (!(error instanceof GatewayError)) return say(String(error));
  switch (error.code) {
    case 'UNAUTHENTICATED': // no, expired or revoked session: log in again
      return showLogin('Your session has ended. Please log in again.');
    case 'INVALID_CREDENTIALS':
      return say('Wrong e-mail or password.');
    case 'RATE_LIMITED':
      return waitOut(error.retryAfterSeconds ?? 1);
    case 'IDEMPOTENCY_KEY_IN_USE': // the first attempt of this intent is still running: the same key again soon
      return say('Still being filed: try again in a moment.', 'info');
    case 'CSRF_CHECK_FAILED': // a setup problem: the message says which check failed and why
    case 'PERSISTED_QUERY_ONLY': // a setup problem: the gateway's TRUSTED_DOCUMENTS_FILE lacks this page's documents
    default:
      return say(`${error.code}: ${error.message}`);
  }
}

/**
 * Re-reads the time left; null means the session has ended. After every request and at zero this
 * is `session(touch: false)`, which is no activity (else an idle tab would never sign out);
 * "Stay signed in" asks `session`, which is.
 */
async function refreshSession(query: typeof SessionQuery | typeof SessionLeftQuery = SessionLeftQuery): Promise<void> {
  try {
    const { session } = await execute(query);
    // Signed out while this was on its way (a logout just after a download): its message stands.
    if (sessionPanel.hidden) return;
    if (session) showSession(session);
    else showLogin('Your session has ended. Please log in again.');
  } catch (error) {
    if (!sessionPanel.hidden) handle(error);
  }
}

/** `fresh`: past the gateway's read cache (Refresh), so statements added elsewhere show at once. */
async function loadStatements(fresh = false): Promise<void> {
  const { data, ageSeconds } = await read(StatementsQuery, { first: 50 }, { noCache: fresh });
  const { getStatements } = data;
  if (getStatements?.errors.length) say(getStatements.errors.join(' '));
  const rows = (getStatements?.statements?.nodes ?? []).map((statement) => {
    const row = document.createElement('tr');
    const recipient = [statement.recipientFirstName, statement.recipientLastName].filter(Boolean).join(' ');
    for (const text of [statement.uploaderId, statement.formType, statement.taxYear, recipient, statement.statusDescription]) {
      row.insertCell().textContent = String(text ?? '');
    }
    const actions = row.insertCell();
    // Plain links: the cookie is all the gateway needs for a PDF (no X-CSRF, no JSON, no Blob).
    for (const [label, inline] of [['Open PDF', true], ['Download', false]] as const) {
      const link = document.createElement('a');
      link.textContent = label;
      link.className = 'button';
      link.href = pdfLink(statement.otxId ?? '', inline);
      if (inline) link.target = '_blank';
      // A download is session activity: re-read the time left once the gateway has answered it.
      // Only while still signed in: a logout within that second must keep its own message (and
      // refreshSession drops an answer that comes back after one).
      link.onclick = () => void setTimeout(() => void (sessionPanel.hidden || refreshSession()), 1_000);
      actions.append(link);
    }
    return row;
  });
  $('rows').replaceChildren(...rows);
  $('count').textContent = `${rows.length} statement${rows.length === 1 ? '' : 's'}`;
  // An answer of the read cache says how old it is: the list may miss what changed since.
  const age = $('age');
  age.hidden = ageSeconds === undefined;
  age.textContent = ageSeconds === undefined ? '' : `(as of ${ageSeconds} s ago)`;
}

loginForm.onsubmit = async (event) => {
  event.preventDefault();
  try {
    const { login } = await execute(LoginMutation, {
      email: field(loginForm, 'email'),
      password: field(loginForm, 'password'),
      environment: field(loginForm, 'environment') as Environment,
    });
    loginForm.reset();
    say('');
    showSession(login);
  } catch (error) {
    return handle(error);
  }
  try {
    await loadStatements();
    await sessions.load();
  } catch (error) {
    // Refused right after a successful login: the browser did not send the cookie back.
    if (error instanceof GatewayError && error.code === 'UNAUTHENTICATED') return showLogin(NO_COOKIE, 'error');
    handle(error);
  }
};

addForm.onsubmit = async (event) => {
  event.preventDefault();
  const uploaderId = field(addForm, 'uploaderId');
  const taxYear = Number(field(addForm, 'taxYear'));
  try {
    const { replayed } = await fileW2({
      uploaderId,
      recipientFirstName: field(addForm, 'recipientFirstName'),
      recipientLastName: field(addForm, 'recipientLastName'),
      ...(taxYear ? { taxYear } : {}),
    });
    addForm.reset();
    // The gateway dropped this account's cached reads when the mutation ran: the list is fresh.
    await loadStatements();
    say(replayed ? `${uploaderId} was already filed (the first attempt's answer).` : `Filed ${uploaderId}.`, 'info');
    await refreshSession();
  } catch (error) {
    handle(error);
  }
};

$('refresh').onclick = async () => {
  try {
    await loadStatements(true);
    await sessions.load();
    await refreshSession();
  } catch (error) {
    handle(error);
  }
};
$('stay').onclick = () => void refreshSession(SessionQuery);
$('logout').onclick = async () => {
  try {
    await execute(LogoutMutation);
    showLogin('You are logged out.');
  } catch (error) {
    handle(error);
  }
};

/** A reload keeps the session (the cookie outlives the page): resume it, or ask to log in. */
async function start(): Promise<void> {
  try {
    const { session } = await execute(SessionLeftQuery);
    if (!session) return showLogin();
    showSession(session);
    await loadStatements();
    await sessions.load();
  } catch (error) {
    showLogin();
    handle(error);
  }
}

void start();
