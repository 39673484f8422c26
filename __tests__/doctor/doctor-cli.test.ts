// The doctor's command line as users run it, in a child process: help, a bad command line, --json and the exit codes 0, 1 and 2.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXIT_USAGE, main } from '../../lib/doctor/cli';
import { runDoctor } from '../../lib/doctor/run';
import { formatText } from '../../lib/doctor/report';
import { endGroup, spawnGroup } from '../helpers/child';
import { within } from '../helpers/events';
import { freePort } from '../helpers/ports';
import { badToolsApp, closeAll, endpointOf, routerApp, serve, testSettings } from './servers';

const children: ChildProcess[] = [];

afterAll(async () => {
  await Promise.all(children.map((child) => endGroup(child)));
  await closeAll();
  rmSync(dirname(GARBLED_PEM), { recursive: true, force: true });
});

const CLI = join(__dirname, '../../lib/doctor/cli.ts');

/** A file that looks like PEM but holds no certificate. */
const GARBLED_PEM = join(mkdtempSync(join(tmpdir(), 'doctor-ca-')), 'garbled.pem');
writeFileSync(GARBLED_PEM, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
const TSX = join(__dirname, '../../node_modules/.bin/tsx');

/** Runs the command with `args`; resolves with its exit code and output. */
function doctor(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawnGroup(TSX, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return within(
    new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err }))),
    `express-mcp-router ${args.join(' ')}`,
    30_000,
  );
}

it('--help prints the usage and exits 0; a bad command line exits 64 with the reason', async () => {
  const help = await doctor(['--help']);
  expect(help.code).toBe(0);
  expect(help.out).toMatch(/^Usage: express-mcp-router doctor <url>/);
  const bad = await doctor(['doctor']);
  expect(bad.code).toBe(64);
  expect(bad.err).toMatch(/^express-mcp-router: give one URL/);
});

it.each([
  [['check', 'http://x'], /unknown command "check"/],
  [['doctor', 'ftp://x'], /must be http: or https:/],
  [['doctor', 'not a url'], /not a URL/],
  [['doctor', 'http://x', '--nope'], /Unknown option '--nope'/],
  [['doctor', 'http://x', '--args', '[1]'], /--args must be an object/],
  [['doctor', 'http://x', '--timeout', '0'], /--timeout must be a positive number/],
  [['doctor', 'http://x', '--timeout', '2147483648'], /--timeout must be at most 2147483647/],
  [['doctor', 'http://x', '--stream-seconds', '99999999'], /--stream-seconds must be at most \d+/],
  [['doctor', 'http://x', '--stream-seconds=-1'], /--stream-seconds must be a positive number/],
  [['doctor', 'http://x', '--ca', join(__dirname, '../../package.json')], /--ca: no certificate in \S+package\.json/],
  [['doctor', 'http://x', '--ca', GARBLED_PEM], /--ca: a certificate in \S+ cannot be read/],
])('refuses %j with exit 64', async (args, message) => {
  let err = '';
  const code = await main(
    args,
    () => undefined,
    (text) => (err += text),
  );
  expect(code).toBe(EXIT_USAGE);
  expect(err).toMatch(message);
});

it('a healthy router: exit 0, and --json gives the findings', async () => {
  const listening = await serve(routerApp());
  const { code, out } = await doctor(['doctor', endpointOf(listening).href, '--json', '--stream-seconds', '0.5']);
  expect(code).toBe(0);
  const report = JSON.parse(out) as { url: string; exitCode: number; findings: { id: string; severity: string }[] };
  expect(report).toMatchObject({ url: endpointOf(listening).href, exitCode: 0 });
  expect(report.findings).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: 'era2025.initialize', severity: 'ok' })]),
  );
});

it('problems: exit 1 and a text report with marks, fixes and docs links', async () => {
  const listening = await serve(badToolsApp());
  const { code, out } = await doctor(['doctor', endpointOf(listening).href, '--stream-seconds', '0.5']);
  expect(code).toBe(1);
  expect(out).toMatch(/^tools$/m);
  expect(out).toMatch(/✗ tool names listed twice: ok {2}\[tools\.duplicate\]/);
  expect(out).toMatch(/docs: \S+docs\/doctor\.md#tools/);
  expect(out).toMatch(/exit 1\)\n$/);
});

it('nothing listening: exit 2', async () => {
  const { code, out } = await doctor(['doctor', `http://127.0.0.1:${await freePort()}/mcp`, '--json']);
  expect(code).toBe(2);
  expect(JSON.parse(out)).toMatchObject({
    exitCode: 2,
    findings: [{ id: 'reach.refused', severity: 'fail' }, { id: 'reach.stopped' }],
  });
});

it('the text report groups by area in order and prints a finding’s detail, fix and docs under it', async () => {
  const listening = await serve(routerApp({ keepAliveMs: false }));
  const report = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
  const text = formatText(report, (page) => `DOCS/${page}`);
  const areas = text.split('\n').filter((line) => /^[a-z0-9]+$/.test(line));
  expect(areas).toEqual(['reach', 'tls', 'era2025', 'era2026', 'auth', 'stream', 'cors', 'tools', 'card']);
  expect(text).toMatch(
    /! no keep-alive comment in the 0\.6 s watched {2}\[stream\.no-keepalive\]\n {6}.+\n {6}fix: .+\n {6}docs: DOCS\/deployment\.md#idle-timeouts-of-load-balancers/,
  );
});
