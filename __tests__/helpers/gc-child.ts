// Runs a memory test's child program with --expose-gc on this project's Express major, and reads its last JSON line.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { scaled } from './time-scale';

const run = promisify(execFile);

/**
 * Runs `child` (a .ts file, through tsx) with `--expose-gc`, `MCP_TEST_EXPRESS` naming the Express major the jest
 * project tests (express4 is an npm alias of express@4) and `MCP_TEST_SESSIONS` set, and parses the last line it
 * prints as JSON. `timeoutMs` is on a quiet machine (stretched by TEST_TIME_SCALE).
 */
export async function runGcChild<T>(
  child: string,
  { expressMajor, sessions, timeoutMs }: { expressMajor: number; sessions: number; timeoutMs: number },
): Promise<T> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', child], {
    env: {
      ...process.env,
      MCP_TEST_EXPRESS: expressMajor === 4 ? 'express4' : 'express',
      MCP_TEST_SESSIONS: String(sessions),
    },
    timeout: scaled(timeoutMs),
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as T;
}
