// Compiles lib/ and bench/ with tsc before a run, so every child runs plain JavaScript as users do (dist/ is tsc's).
// Running the children under tsx instead would add esbuild's keepNames wrappers to every closure the router
// creates per request, a cost that the published package does not have and the SDK does not pay.

import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Where the compiled tree goes: under node_modules/.cache, which git ignores. */
export const BUILD_DIR =
  process.env.BENCH_BUILD_DIR ?? path.join(ROOT, 'node_modules', '.cache', 'express-mcp-router-bench');

/** Compiles lib/ and bench/ into {@link BUILD_DIR}; throws with tsc's output when it fails. */
export function buildForBench(): void {
  rmSync(BUILD_DIR, { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  try {
    execFileSync(
      process.execPath,
      [tsc, '-p', path.join(ROOT, 'bench', 'tsconfig.build.json'), '--outDir', BUILD_DIR],
      { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' },
    );
  } catch (err) {
    const output = (err as { stdout?: string }).stdout ?? '';
    throw new Error(`tsc could not build the benchmark:\n${output}`);
  }
}

/** The compiled file of a bench/ script: `servers/router.ts` → `<BUILD_DIR>/bench/servers/router.js`. */
export function compiled(script: string): string {
  return path.join(BUILD_DIR, 'bench', script.replace(/\.ts$/, '.js'));
}
