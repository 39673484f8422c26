// Caddy for the proxy tests: the Caddyfile docs/deployment.md shows, read from it and filled in, run unprivileged (its
// data, config and log in a temporary directory, no admin endpoint, on a free port of 127.0.0.1) until stop().

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { endGroup, spawnGroup } from '../helpers/child';
import { freePort } from '../helpers/ports';
import { until } from '../helpers/until';
import { accepts, DEPLOYMENT_DOC, type RunningProxy } from './nginx';
import { PUBLIC_HOST, type TestCertificates } from './tls';

/** The documented Caddyfile's lines the tests fill in: a test fails, naming it, when the document drops one. */
const DOCUMENTED = {
  site: 'mcp.example.com {',
  tls: 'tls /etc/ssl/mcp.example.com/fullchain.pem /etc/ssl/mcp.example.com/privkey.pem',
  upstream: 'reverse_proxy 127.0.0.1:3000',
} as const;

/** The ```caddy block of docs/deployment.md: the site users copy into their Caddyfile. */
export function documentedCaddyfile(doc = DEPLOYMENT_DOC): string {
  const blocks = [...readFileSync(doc, 'utf8').matchAll(/^```caddy\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  if (blocks.length !== 1) throw new Error(`${doc} must have one \`\`\`caddy block, has ${blocks.length}`);
  return blocks[0]!;
}

/** Replaces the one documented `line` in `config`, or throws. */
function replaceDocumented(config: string, name: keyof typeof DOCUMENTED, by: string): string {
  const line = DOCUMENTED[name];
  const at = config.indexOf(line);
  if (at === -1 || config.indexOf(line, at + 1) !== -1)
    throw new Error(`docs/deployment.md's Caddyfile must hold exactly once: ${line}`);
  return config.slice(0, at) + by + config.slice(at + line.length);
}

/** Where Caddy runs: its port, the upstreams it passes to, and its certificates. */
export interface CaddySetup {
  readonly port: number;
  readonly upstreams: readonly number[];
  readonly certificates: TestCertificates;
}

/** The documented site with this setup's address, certificates and upstreams. */
export function caddySiteConfig(setup: CaddySetup, doc = DEPLOYMENT_DOC): string {
  let config = documentedCaddyfile(doc);
  config = replaceDocumented(config, 'site', `https://${PUBLIC_HOST}:${setup.port} {`);
  config = replaceDocumented(config, 'tls', `tls ${setup.certificates.certPath} ${setup.certificates.keyPath}`);
  const upstreams = setup.upstreams.map((port) => `127.0.0.1:${port}`).join(' ');
  return replaceDocumented(config, 'upstream', `reverse_proxy ${upstreams}`);
}

/** The binary: CADDY_PATH, else `caddy` (Debian's package puts it in /usr/bin). */
export function caddyBinary(): string {
  return process.env.CADDY_PATH ?? 'caddy';
}

/**
 * Starts Caddy (Debian's package) in `dir` with the documented site filled in for `setup` (a free port when
 * `setup.port` is 0) behind global options that keep it to itself: no admin endpoint, no redirect server on port 80,
 * loopback only, its storage and log under `dir`. Resolves once it accepts connections.
 */
export async function startCaddy(dir: string, setup: CaddySetup): Promise<RunningProxy> {
  const port = setup.port === 0 ? await freePort() : setup.port;
  const site = caddySiteConfig({ ...setup, port });
  const logFile = join(dir, 'caddy.log');
  writeFileSync(
    join(dir, 'Caddyfile'),
    `{\n\tadmin off\n\tauto_https disable_redirects\n\tdefault_bind 127.0.0.1\n\tstorage file_system ${join(dir, 'caddy-data')}\n\tlog {\n\t\toutput file ${logFile}\n\t}\n}\n\n${site}`,
  );
  const log = (): string => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  let output = '';
  const child = spawnGroup(caddyBinary(), ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') },
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = (): Promise<void> => endGroup(child);
  try {
    await until(async () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`caddy exited (${child.exitCode ?? child.signalCode}): ${output}${log()}`);
      return accepts(port);
    }, `caddy to listen on ${port}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { kind: 'caddy', port, config: site, log: () => output + log(), stop };
}
