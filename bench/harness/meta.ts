// Where and how a run happened, for the head of RESULTS.md: date, versions, machine, pinning, exact command.

import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { Pinning } from './child';

/** The facts that make a run repeatable and its numbers comparable. */
export interface RunMeta {
  readonly date: string;
  readonly versions: Readonly<Record<string, string>>;
  readonly machine: string;
  readonly pinning: string;
  readonly command: string;
  /** Load average when the run started and ended: how busy the shared machine was. */
  readonly loadAverage: { start: string; end?: string };
  /** How long the run took, once it ended. */
  readonly minutes?: number;
}

const ROOT = path.join(__dirname, '..', '..');

function packageVersion(name: string): string {
  return (require(path.join(ROOT, 'node_modules', name, 'package.json')) as { version: string }).version;
}

function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    // Code only: RESULTS.md, SOAK.md and notes being written do not make the measured code different.
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'lib', 'bench', ':!bench/*.md'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).trim() !== '';
    return dirty ? `${commit} + uncommitted changes` : commit;
  } catch {
    return 'unknown';
  }
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
}

/** The command that reproduces this run: the npm script plus every BENCH_* variable that was set. */
function command(script: string): string {
  const env = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_'))
    .map(([name, value]) => `${name}=${String(value)}`)
    .sort();
  return [...env, `npm run ${script}`].join(' ');
}

export function collectMeta(script: string, pinning: Pinning | undefined): RunMeta {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    versions: {
      'express-mcp-router': `${(require(path.join(ROOT, 'package.json')) as { version: string }).version} (commit ${gitCommit()})`,
      node: process.version,
      express: packageVersion('express'),
      '@modelcontextprotocol/sdk': packageVersion('@modelcontextprotocol/sdk'),
      '@modelcontextprotocol/server': packageVersion('@modelcontextprotocol/server'),
      '@modelcontextprotocol/node': packageVersion('@modelcontextprotocol/node'),
      autocannon: packageVersion('autocannon'),
      '@opentelemetry/api': packageVersion('@opentelemetry/api'),
      '@opentelemetry/sdk-trace-base': packageVersion('@opentelemetry/sdk-trace-base'),
      '@opentelemetry/sdk-metrics': packageVersion('@opentelemetry/sdk-metrics'),
    },
    machine: `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, ${os.type()} ${os.release()} (shared: other work may run)`,
    pinning: pinning
      ? `servers on CPU ${pinning.serverCpu}, load generator on CPU ${pinning.loadCpu} (taskset)`
      : 'none (taskset missing, fewer than 2 CPUs, or BENCH_NO_PIN=1): servers and load share the CPUs',
    command: command(script),
    loadAverage: { start: loadAverage() },
  };
}

/** The load average and the run's duration, noted at its end. */
export function endLoadAverage(meta: RunMeta): RunMeta {
  return {
    ...meta,
    loadAverage: { ...meta.loadAverage, end: loadAverage() },
    minutes: (Date.now() - Date.parse(meta.date)) / 60_000,
  };
}
