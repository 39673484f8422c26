// A GET stream the client closed is let go of: its session lives on, but the server's response and socket are no
// longer reachable from it (a session's stream outlives its connections; it must not keep the last one).
// Measured in a child run with --expose-gc.

import path from 'node:path';
import { runGcChild } from '../helpers/gc-child';

declare const EXPRESS_MAJOR: number;

const SESSIONS = 300;

let measured: { sessions: number; opened: number; reachable: number; before: number; after: number };

beforeAll(async () => {
  measured = await runGcChild<typeof measured>(path.join(__dirname, 'closed-streams-child.ts'), {
    expressMajor: EXPRESS_MAJOR,
    sessions: SESSIONS,
    timeoutMs: 60_000,
  });
}, 70_000);

it('keeps no response of a closed GET stream reachable', () => {
  expect(measured.opened).toBe(SESSIONS);
  expect(measured.reachable).toBe(0);
});

it('keeps at most 4 KB of heap per session for a GET stream it no longer has (was ~10 KB: the response and socket)', () => {
  expect((measured.after - measured.before) / SESSIONS).toBeLessThanOrEqual(4 * 1024);
});
