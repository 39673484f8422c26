// Bounded memory: 2,000 sessions holding the largest client data the limits allow stay under the heap figure README
// states, and the heap returns to its baseline once they are deleted (measured in a child run with --expose-gc).

import path from 'node:path';
import { runGcChild } from '../helpers/gc-child';

declare const EXPRESS_MAJOR: number;

const SESSIONS = 2000;
/** README › Limits: a session with every client limit at its largest costs at most this much heap. */
const MAX_HEAP_PER_SESSION = 64 * 1024;
/** What the router may keep after every session is gone: Maps keep their capacity, caches their entries. */
const MAX_HEAP_LEFT_AFTER_DELETE = 2 * 1024 * 1024;

interface Measured {
  sessions: number;
  before: number;
  open: number;
  after: number;
  secondOpen: number;
  secondAfter: number;
}

let measured: Measured;

beforeAll(async () => {
  measured = await runGcChild<Measured>(path.join(__dirname, 'session-memory-child.ts'), {
    expressMajor: EXPRESS_MAJOR,
    sessions: SESSIONS,
    timeoutMs: 150_000,
  });
}, 160_000);

it(`${SESSIONS} sessions with the largest client data cost at most 64 KB of heap each`, () => {
  const perSession = (measured.open - measured.before) / SESSIONS;
  // Not nothing: the sessions were really opened with their data (a broken child would measure ~0).
  expect(perSession).toBeGreaterThan(16 * 1024);
  expect(perSession).toBeLessThanOrEqual(MAX_HEAP_PER_SESSION);
  expect((measured.secondOpen - measured.before) / SESSIONS).toBeLessThanOrEqual(MAX_HEAP_PER_SESSION);
});

it('the heap returns to its baseline once they are deleted, and does not grow from one round to the next', () => {
  expect(measured.after - measured.before).toBeLessThanOrEqual(MAX_HEAP_LEFT_AFTER_DELETE);
  expect(measured.secondAfter - measured.after).toBeLessThanOrEqual(512 * 1024);
});
