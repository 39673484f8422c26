#!/usr/bin/env node
// The `express-mcp-router` command: `doctor <url>` and its options, a report on stdout, and the exit code 0, 1 or 2.

import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DoctorTarget } from './context';
import { formatJson, formatText } from './report';
import { DEFAULT_SETTINGS, MAX_TIMER_MS, runDoctor, type DoctorSettings } from './run';

/** The exit code of a command line the doctor cannot run (sysexits EX_USAGE), apart from a report's 0, 1 and 2. */
export const EXIT_USAGE = 64;

export const USAGE = `Usage: express-mcp-router doctor <url> [options]

Checks an MCP endpoint from outside, the way hosted clients connect, and says what to fix.

Options:
  --token <token>         call as this principal (Authorization: Bearer)
  --origin <origin>       check CORS for a browser page on this origin
  --call <tool[,tool]>    call these tools (no other tool is ever called)
  --args <json>           their arguments, by tool name: '{"search":{"q":"x"}}' (default {})
  --json                  print the report as JSON
  --timeout <ms>          the most one request may take (default ${DEFAULT_SETTINGS.http.timeoutMs})
  --stream-seconds <s>    how long a stream is watched (default ${DEFAULT_SETTINGS.stream.watchMs / 1000})
  --ca <file>             trust this CA (PEM) too; NODE_EXTRA_CA_CERTS works as well
  -h, --help              this text

Exit codes: 0 ok, 1 problems found, 2 unreachable, ${EXIT_USAGE} a bad command line.
Docs: docs/doctor.md in this package.
`;

/** A command line the doctor cannot run, with the reason. */
class UsageError extends Error {}

const OPTIONS = {
  token: { type: 'string' },
  origin: { type: 'string' },
  call: { type: 'string' },
  args: { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'stream-seconds': { type: 'string' },
  ca: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A duration option in ms: positive, and at most `maxMs` (beyond Node's longest timer it would fire at once). */
function duration(text: string | undefined, name: string, fallback: number, maxMs: number, scale = 1): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${name} must be a positive number, not ${JSON.stringify(text)}`);
  if (value * scale > maxMs) throw new UsageError(`--${name} must be at most ${Math.floor(maxMs / scale)}`);
  return value * scale;
}

/** `--ca`: a file of PEM certificates, each one parsed, so a wrong file is refused here rather than as an untrusted server. */
function caOf(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  const pem = readFileSync(file);
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    throw new UsageError(`--ca: no certificate in ${file} (a PEM file: -----BEGIN CERTIFICATE-----)`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new UsageError(`--ca: a certificate in ${file} cannot be read: ${(error as Error).message}`);
    }
  }
  return pem;
}

function argsOf(text: string | undefined): DoctorTarget['args'] {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--args must be JSON: {"tool": {"argument": value}}');
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value) || !Object.values(value).every(isObject))
    throw new UsageError('--args must be an object of argument objects, by tool name');
  return value as DoctorTarget['args'];
}

/** The target and settings a command line asks for. */
export function parseCommandLine(
  argv: readonly string[],
): { target: DoctorTarget; settings: DoctorSettings; json: boolean } | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [command, url, ...rest] = positionals;
  if (command !== 'doctor')
    throw new UsageError(
      command === undefined ? 'name a command: doctor' : `unknown command ${JSON.stringify(command)}`,
    );
  if (url === undefined || rest.length > 0) throw new UsageError('give one URL: express-mcp-router doctor <url>');
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(url)}`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:')
    throw new UsageError('the URL must be http: or https:');
  const calls = (values.call ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const args = argsOf(values.args);
  const target: DoctorTarget = {
    url: endpoint,
    calls,
    ...(values.token ? { token: values.token } : {}),
    ...(values.origin ? { origin: values.origin } : {}),
    ...(args ? { args } : {}),
  };
  // The deadline is the watch and a fixed margin; the stream's own timeout, the watch and the head wait: each a timer.
  const margin = DEFAULT_SETTINGS.deadlineMs - DEFAULT_SETTINGS.stream.watchMs;
  const timeoutMs = duration(values.timeout, 'timeout', DEFAULT_SETTINGS.http.timeoutMs, MAX_TIMER_MS);
  const watchMs = duration(
    values['stream-seconds'],
    'stream-seconds',
    DEFAULT_SETTINGS.stream.watchMs,
    MAX_TIMER_MS - Math.max(margin, DEFAULT_SETTINGS.stream.headWaitMs),
    1000,
  );
  const ca = caOf(values.ca);
  const settings: DoctorSettings = {
    http: { ...DEFAULT_SETTINGS.http, timeoutMs, ...(ca ? { ca } : {}) },
    stream: { ...DEFAULT_SETTINGS.stream, watchMs },
    deadlineMs: margin + watchMs,
  };
  return { target, settings, json: values.json === true };
}

/** Where a docs page of this package is on disk (dist/doctor/ and lib/doctor/ are both two levels under the package). */
function docsAt(page: string): string {
  const [file = '', anchor] = page.split('#');
  const path = join(__dirname, '..', '..', 'docs', file);
  return `${existsSync(path) ? path : `docs/${file}`}${anchor ? `#${anchor}` : ''}`;
}

/**
 * Runs the command line `argv` (without node and the script) and resolves with the exit code, writing the report
 * (or help, or a usage error) to `out` and `err`.
 *
 * @example
 * ```ts
 * process.exitCode = await main(['doctor', 'https://mcp.example.com/mcp', '--json']);
 * ```
 */
export async function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
): Promise<number> {
  let command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError) && (error as NodeJS.ErrnoException).code === undefined) throw error;
    err(`express-mcp-router: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (command === 'help') {
    out(USAGE);
    return 0;
  }
  const report = await runDoctor(command.target, command.settings);
  out(command.json ? formatJson(report) : formatText(report, docsAt));
  return report.exitCode;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
