/**
 * The idle countdown: `Session.idleExpiresAt` is when the gateway ends the session if no request
 * arrives. Every request moves it on; asking `session` is how a page reads the new value.
 */

export interface Countdown {
  /** Starts over from a new `idleExpiresAt`. */
  reset(idleExpiresAt: string): void;
  stop(): void;
}

function format(milliseconds: number): string {
  const seconds = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Shows the time left in `element` every second and calls `onZero` once when it runs out. */
export function countdown(element: HTMLElement, onZero: () => void): Countdown {
  let timer: number | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    stop,
    reset(idleExpiresAt) {
      stop();
      const end = Date.parse(idleExpiresAt);
      element.dataset.idleExpiresAt = idleExpiresAt;
      const tick = () => {
        const left = end - Date.now();
        element.textContent = `Session ends in ${format(left)} without activity`;
        element.classList.toggle('warning', left < 60_000);
        if (left <= 0) {
          stop();
          onZero();
        }
      };
      timer = window.setInterval(tick, 1000);
      tick();
    },
  };
}
