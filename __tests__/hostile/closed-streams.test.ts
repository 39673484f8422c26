// A GET stream the client closed is let go of: its session lives on, but the server's response and socket are no
// longer reachable from it (a session's stream outlives its connections; it must not keep the last one).
// Measured in a child run with --expose-gc.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

declare const EXPRESS_MAJOR: number;

const run = promisify(execFile);
const SESSIONS = 300;

let measured: { sessions: number; opened: number; reachable: number; before: number; after: number };

beforeAll(async () => {
  const child = path.join(__dirname, 'closed-streams-child.ts');
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', child], {
    env: {
      ...process.env,
      MCP_TEST_EXPRESS: EXPRESS_MAJOR === 4 ? 'express4' : 'express',
      MCP_TEST_SESSIONS: String(SESSIONS),
    },
    timeout: 60_000,
  });
  measured = JSON.parse(stdout.trim().split('\n').pop() as string) as typeof measured;
}, 70_000);

it('keeps no response of a closed GET stream reachable', () => {
  expect(measured.opened).toBe(SESSIONS);
  expect(measured.reachable).toBe(0);
});

it('keeps at most 4 KB of heap per session for a GET stream it no longer has (was ~10 KB: the response and socket)', () => {
  expect((measured.after - measured.before) / SESSIONS).toBeLessThanOrEqual(4 * 1024);
});
