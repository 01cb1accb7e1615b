/**
 * Every wait of the suite derives from the user's step timeout (`--timeout`), so a user who gives a slow
 * server or a loaded machine more time per step gives it more time everywhere. Each wait has a floor: a
 * short `--timeout` (for a fast server) must not turn a grace period into a race.
 */

export interface Waits {
  /** One request, one HTTP exchange: the user's `--timeout` as given. */
  stepMs: number;
  /**
   * "A reasonable time" for a stdio server to exit after stdin closes or SIGTERM arrives: 30% of the
   * step, at least 3 s (the default step of 10 s gives exactly 3 s).
   */
  exitGraceMs: number;
  /**
   * How long a GET waits for the headers of the server's event stream. Some servers send them only
   * with their first event, so the wait is generous: a whole step, at least 5 s.
   */
  getStreamHeadersMs: number;
  /** The polite DELETE that ends an HTTP session the suite no longer needs: 20% of the step, at least 2 s. */
  closeSessionMs: number;
}

export const EXIT_GRACE_FLOOR_MS = 3000;
export const GET_STREAM_HEADERS_FLOOR_MS = 5000;
export const CLOSE_SESSION_FLOOR_MS = 2000;

export function waitsFor(stepMs: number): Waits {
  return {
    stepMs,
    exitGraceMs: Math.max(EXIT_GRACE_FLOOR_MS, Math.round(stepMs * 0.3)),
    getStreamHeadersMs: Math.max(GET_STREAM_HEADERS_FLOOR_MS, stepMs),
    closeSessionMs: Math.max(CLOSE_SESSION_FLOOR_MS, Math.round(stepMs * 0.2)),
  };
}
