/**
 * "Your sessions": the browsers signed in as this user (`sessions`, this one first), with a button
 * to end any other one (`endSession`), and two to log out the others or everywhere
 * (`logoutEverywhere`). A lost laptop is ended from the phone; the laptop's next request is
 * UNAUTHENTICATED, which sends it back to the login form like any ended session.
 */
import { execute } from './client';
import { EndSessionMutation, LogoutEverywhereMutation, SessionsQuery } from './operations';

export interface SessionsPanel {
  /** Lists the sessions again (after login, an action, or Refresh). */
  load(): Promise<void>;
  clear(): void;
}

export interface SessionsPanelOptions {
  readonly say: (text: string, kind?: 'info' | 'error') => void;
  /** Every session was ended, this one included: back to the login form with this message. */
  readonly signedOut: (text: string) => void;
  readonly handle: (error: unknown) => void;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** "just now", "5 min ago", or the date: when a session was last used. */
function ago(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
}

export function sessionsPanel({ say, signedOut, handle }: SessionsPanelOptions): SessionsPanel {
  const section = document.getElementById('sessions') as HTMLElement;
  const rows = document.getElementById('session-rows') as HTMLElement;

  async function end(id: string): Promise<void> {
    try {
      const { endSession } = await execute(EndSessionMutation, { id });
      say(endSession ? 'That session has ended: it is signed out.' : 'That session had already ended.', 'info');
      await load();
    } catch (error) {
      handle(error);
    }
  }

  async function load(): Promise<void> {
    const { sessions } = await execute(SessionsQuery);
    rows.replaceChildren(...sessions.map((session) => {
      const row = document.createElement('tr');
      row.dataset.current = String(session.current);
      row.insertCell().textContent = session.userAgent ?? 'Unknown browser';
      row.insertCell().textContent = new Date(session.createdAt).toLocaleString();
      row.insertCell().textContent = session.current ? 'now (this browser)' : ago(session.lastSeenAt);
      const actions = row.insertCell();
      if (!session.current) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'End';
        button.onclick = () => void end(session.id);
        actions.append(button);
      }
      return row;
    }));
    (document.getElementById('session-count') as HTMLElement).textContent = plural(sessions.length, 'session');
    section.hidden = false;
  }

  (document.getElementById('logout-others') as HTMLButtonElement).onclick = async () => {
    try {
      const { logoutEverywhere } = await execute(LogoutEverywhereMutation, { keepCurrent: true });
      say(`Logged out ${plural(logoutEverywhere, 'other session')}.`, 'info');
      await load();
    } catch (error) {
      handle(error);
    }
  };
  (document.getElementById('logout-everywhere') as HTMLButtonElement).onclick = async () => {
    try {
      const { logoutEverywhere } = await execute(LogoutEverywhereMutation, { keepCurrent: false });
      signedOut(`You are logged out everywhere (${plural(logoutEverywhere, 'session')} ended).`);
    } catch (error) {
      handle(error);
    }
  };

  return {
    load,
    clear() {
      section.hidden = true;
      rows.replaceChildren();
    },
  };
}
