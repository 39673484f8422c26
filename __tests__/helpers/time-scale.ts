// The tests' one "the machine is slow" factor, in test code: TEST_TIME_SCALE, which jest.config.js sets for the run
// (__tests__/support/time-scale.js: from the load and the cores, unless set by hand). Test and hook timeouts are
// scaled by the test environment; use scaled() for any other wait a test gives a deadline.

/** The factor of this run (1 outside jest, where nothing set it). */
export const TIME_SCALE = Number(process.env.TEST_TIME_SCALE) >= 1 ? Number(process.env.TEST_TIME_SCALE) : 1;

/** `ms` on this machine: what a wait that takes `ms` on a quiet machine may take here. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}
