/**
 * The idle countdown. `Session.idleExpiresInSeconds` is the time left before the gateway ends the
 * session if no request arrives, counted by the gateway's clock: the page counts down from it on
 * its own monotonic clock (performance.now), so a browser clock that is wrong, or changes, does not
 * matter (counting down to `idleExpiresAt` with Date.now would, and did).
 */

export interface Countdown {
  /** Starts over from a new `idleExpiresInSeconds`. */
  reset(secondsLeft: number): void;
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
    reset(secondsLeft) {
      stop();
      const end = performance.now() + secondsLeft * 1000;
      element.dataset.idleExpiresInSeconds = String(secondsLeft);
      const tick = () => {
        const left = end - performance.now();
        element.textContent = `Session ends in ${format(left)} without activity`;
        element.classList.toggle('warning', left < 60_000);
        if (left <= 0) {
          stop();
          onZero();
        }
      };
      timer = window.setInterval(tick, 250);
      tick();
    },
  };
}
