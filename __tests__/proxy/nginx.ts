// nginx for the proxy tests: the configuration docs/deployment.md shows, read from it and filled in, run unprivileged
// (its own prefix, config, pid and logs in a temporary directory, on a free port) until stop().

import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { endGroup, spawnGroup } from '../helpers/child';
import { freePort } from '../helpers/ports';
import { until } from '../helpers/until';
import { PUBLIC_HOST, type TestCertificates } from './tls';

/** The document whose ```nginx block is the configuration under test. */
export const DEPLOYMENT_DOC = join(__dirname, '..', '..', 'docs', 'deployment.md');

/** How a setup departs from the documented configuration: each is a misconfiguration users have, or a test's knob. */
export interface NginxVariant {
  /**
   * `off` as documented; `on` turns `proxy_buffering` on and adds `proxy_ignore_headers X-Accel-Buffering` (the
   * router's `X-Accel-Buffering: no` is then ignored, and nginx buffers SSE replies); `on-honouring-app` turns it on
   * and leaves the header honoured. Defaults to `off`.
   */
  readonly buffering?: 'off' | 'on' | 'on-honouring-app';
  /** Drops `proxy_set_header Host …`: the app gets nginx's upstream name as Host, the public one only in X-Forwarded-Host. */
  readonly forwardedHostOnly?: boolean;
  /** `proxy_read_timeout` in seconds, instead of the documented 1h. */
  readonly readTimeoutS?: number;
}

/** The documented configuration's lines the tests rely on: a test fails, naming it, when the document drops one. */
const DOCUMENTED = {
  upstream: '    server 127.0.0.1:3000;\n',
  listen: 'listen 443 ssl;',
  serverName: 'server_name mcp.example.com;',
  certificate: 'ssl_certificate /etc/ssl/mcp.example.com/fullchain.pem;',
  key: 'ssl_certificate_key /etc/ssl/mcp.example.com/privkey.pem;',
  host: '        proxy_set_header Host $http_host;\n',
  buffering: 'proxy_buffering off;',
  readTimeout: 'proxy_read_timeout 1h;',
} as const;

/** The ```nginx blocks of docs/deployment.md, joined: the `http`-level configuration users copy. */
export function documentedNginxConfig(doc = DEPLOYMENT_DOC): string {
  const blocks = [...readFileSync(doc, 'utf8').matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  if (blocks.length === 0) throw new Error(`${doc} has no \`\`\`nginx block`);
  return blocks.join('\n');
}

/** Replaces the one documented `line` in `config`, or throws: the document and the tests must not drift apart. */
function replaceDocumented(config: string, name: keyof typeof DOCUMENTED, by: string): string {
  const line = DOCUMENTED[name];
  const at = config.indexOf(line);
  if (at === -1 || config.indexOf(line, at + 1) !== -1)
    throw new Error(`docs/deployment.md's nginx configuration must hold exactly once: ${line.trim()}`);
  return config.slice(0, at) + by + config.slice(at + line.length);
}

/** Where nginx runs: its port, the upstreams it passes to, and its certificates. */
export interface NginxSetup {
  readonly port: number;
  readonly upstreams: readonly number[];
  readonly certificates: TestCertificates;
  readonly variant?: NginxVariant;
}

/** The documented configuration with this setup's port, certificates, name and upstreams, and the variant's changes. */
export function nginxServerConfig(setup: NginxSetup, doc = DEPLOYMENT_DOC): string {
  const { port, upstreams, certificates, variant = {} } = setup;
  let config = documentedNginxConfig(doc);
  config = replaceDocumented(config, 'upstream', upstreams.map((up) => `    server 127.0.0.1:${up};\n`).join(''));
  config = replaceDocumented(config, 'listen', `listen 127.0.0.1:${port} ssl;`);
  config = replaceDocumented(config, 'serverName', `server_name ${PUBLIC_HOST};`);
  config = replaceDocumented(config, 'certificate', `ssl_certificate ${certificates.certPath};`);
  config = replaceDocumented(config, 'key', `ssl_certificate_key ${certificates.keyPath};`);
  if (variant.forwardedHostOnly) config = replaceDocumented(config, 'host', '');
  if (variant.buffering === 'on')
    config = replaceDocumented(
      config,
      'buffering',
      'proxy_buffering on;\n        proxy_ignore_headers X-Accel-Buffering;',
    );
  if (variant.buffering === 'on-honouring-app') config = replaceDocumented(config, 'buffering', 'proxy_buffering on;');
  if (variant.readTimeoutS !== undefined)
    config = replaceDocumented(config, 'readTimeout', `proxy_read_timeout ${variant.readTimeoutS}s;`);
  return config;
}

/** The whole nginx.conf: a foreground master with one worker, everything it writes under `dir`, and `server` inside `http`. */
function mainConfig(dir: string, server: string): string {
  const temp = (name: string): string => join(dir, 'temp', name);
  return `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} info;
${userInfo().uid === 0 ? `user ${userInfo().username};` : ''}
events { worker_connections 256; }
http {
  access_log ${join(dir, 'access.log')};
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
${server}
}
`;
}

/** The nginx binary: NGINX_PATH, else `nginx` on the PATH, else Debian's /usr/sbin/nginx (not on a user's PATH). */
export function nginxBinary(): string {
  if (process.env.NGINX_PATH) return process.env.NGINX_PATH;
  const onPath = (process.env.PATH ?? '').split(':').find((dir) => dir !== '' && existsSync(join(dir, 'nginx')));
  return onPath === undefined ? '/usr/sbin/nginx' : join(onPath, 'nginx');
}

/** A running proxy: which, its public port, the configuration it runs (the documented one, filled in), its log, and its end. */
export interface RunningProxy {
  readonly kind: 'nginx' | 'caddy';
  readonly port: number;
  readonly config: string;
  /** What it logged (nginx: its error log). */
  log(): string;
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}

/**
 * Starts nginx (Debian's package; `.ci/run` installs it) in `dir` with the documented configuration filled in for
 * `setup` (a free port when `setup.port` is 0), and resolves once it accepts connections.
 *
 * @example
 * ```ts
 * const nginx = await startNginx(dir, { port: 0, upstreams: [appPort], certificates });
 * afterAll(() => nginx?.stop());
 * ```
 */
export async function startNginx(dir: string, setup: NginxSetup): Promise<RunningProxy> {
  const port = setup.port === 0 ? await freePort() : setup.port;
  const config = nginxServerConfig({ ...setup, port });
  for (const name of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, 'temp', name), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir, config));
  const errorLog = (): string =>
    existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
  let output = '';
  const child: ChildProcess = spawnGroup(
    nginxBinary(),
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = (): Promise<void> => endGroup(child);
  try {
    await until(async () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}): ${output}${errorLog()}`);
      return accepts(port);
    }, `nginx to listen on ${port}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { kind: 'nginx', port, config, log: errorLog, stop };
}
