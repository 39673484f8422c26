// A rate-bounded log for what a child process writes: at most so many lines per window, then one count of those dropped.

import type { McpLogger } from '../../../core/logger';

/** Lines logged per window, per kind (stderr, protocol faults), before the rest of the window's lines are counted instead. */
export const STDIO_LOG_LINES_PER_WINDOW = 20;
/** The window of {@link STDIO_LOG_LINES_PER_WINDOW}, in milliseconds. */
export const STDIO_LOG_WINDOW_MS = 10_000;
/** Longest line logged: a child chooses what it writes. */
const MAX_LOGGED_CHARS = 1_000;

/** Logs one line, bounded; `flush()` reports the lines dropped since the last report. */
export interface BoundedLog {
  write(text: string): void;
  flush(): void;
}

/**
 * A log that passes at most {@link STDIO_LOG_LINES_PER_WINDOW} lines per {@link STDIO_LOG_WINDOW_MS} to `logger.warn`,
 * each prefixed with `prefix`, and then one "n lines dropped" line when the next window starts (or on `flush()`):
 * a child flooding its stderr costs the router a bounded number of log lines, and no timer.
 */
export function boundedLog(logger: McpLogger, prefix: string, now: () => number = Date.now): BoundedLog {
  let windowStart = -Infinity;
  let written = 0;
  let dropped = 0;
  const flush = (): void => {
    if (dropped === 0) return;
    logger.warn(
      `${prefix}: ${dropped} more line${dropped === 1 ? '' : 's'} dropped (at most ${STDIO_LOG_LINES_PER_WINDOW} per ${STDIO_LOG_WINDOW_MS / 1000} s are logged)`,
    );
    dropped = 0;
  };
  return {
    write(text) {
      const time = now();
      if (time - windowStart >= STDIO_LOG_WINDOW_MS) {
        flush();
        windowStart = time;
        written = 0;
      }
      if (written >= STDIO_LOG_LINES_PER_WINDOW) {
        dropped++;
        return;
      }
      written++;
      logger.warn(`${prefix}: ${text.length > MAX_LOGGED_CHARS ? `${text.slice(0, MAX_LOGGED_CHARS)}…` : text}`);
    },
    flush,
  };
}
