// Bounded memory: 2,000 sessions holding the largest client data the limits allow stay under the heap figure README
// states, and the heap returns to its baseline once they are deleted (measured in a child run with --expose-gc).

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

declare const EXPRESS_MAJOR: number;

const run = promisify(execFile);
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
  const child = path.join(__dirname, 'session-memory-child.ts');
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', child], {
    env: {
      ...process.env,
      MCP_TEST_EXPRESS: EXPRESS_MAJOR === 4 ? 'express4' : 'express',
      MCP_TEST_SESSIONS: String(SESSIONS),
    },
    timeout: 150_000,
    maxBuffer: 1024 * 1024,
  });
  measured = JSON.parse(stdout.trim().split('\n').pop() as string) as Measured;
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
