// `npm run demo` (demo/server.ts under tsx, as a child process): it starts and prints its banner, or says in one line
// why it cannot; with AUTH=oauth it challenges with its own authorization server; it starts its two upstreams and
// stops them cleanly. The child loads the installed Express whatever the jest project, so this file loads none and
// runs once, in the core project.

import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { endGroup, spawnGroup } from './helpers/child';
import { scaled } from './helpers/time-scale';
import { until } from './helpers/until';

describe('npm run demo (demo/server.ts run as a child process)', () => {
  const DEMO = path.join(__dirname, '..', 'demo', 'server.ts');
  /** What `npm run demo` runs (`tsx demo/server.ts`), without npm's own lines on stderr. */
  const ARGS = ['--import', 'tsx', DEMO];
  const env = (port: number): NodeJS.ProcessEnv => ({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    MCP_TOKEN: 'tok',
  });

  it('on a busy port exits 1 with only the one-line hint, on stderr: no banner, no token', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      await expect(
        promisify(execFile)(process.execPath, ARGS, { env: env(port), timeout: scaled(30_000) }),
      ).rejects.toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Port ${port} is in use: start with PORT=${port + 1} npm run demo\n`,
      });
    } finally {
      busy.close();
    }
  }, 40_000);

  it('prints the banner once listening: its playground link answers as soon as it is printed', async () => {
    const child = spawnGroup(process.execPath, ARGS, { env: env(0), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    try {
      const link = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const match = /Playground +(\S+)/.exec(stdout);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its banner: ${stderr}`)));
      });
      expect(stdout).toMatch(/^\nDemo store is running\.\n/);
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/playground\/#token=tok$/);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(stderr).toBe('');
    } finally {
      await endGroup(child);
    }
  }, 40_000);
});

describe('AUTH=oauth npm run demo (as a child process)', () => {
  const ARGS = ['--import', 'tsx', path.join(__dirname, '..', 'demo', 'server.ts')];

  it('starts with that banner and both upstreams, and its MCP endpoint challenges with the metadata of its own authorization server', async () => {
    const child = spawnGroup(process.execPath, ARGS, {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', AUTH: 'oauth' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk;
          const match = /MCP endpoint +(\S+)/.exec(stdout);
          if (match?.[1] && stdout.includes('VS Code')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its banner`)));
      });
      expect(stdout).toMatch(/^\nDemo store is running, with OAuth sign-in \(AUTH=oauth\)\.\n/);
      // Both upstreams in this mode too: the roaster over stdio beside the notes server.
      expect(stdout).toContain(
        '  Upstream       roaster over stdio, demo/stdio-upstream.ts (healthy: 2 tools, 1 resource as roaster__<name> and roaster+<uri>)\n',
      );
      expect(stdout).toMatch(/ {2}Upstream {7}notes at http:\/\/127\.0\.0\.1:\d+\/mcp \(healthy: /);
      const refused = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(refused.status).toBe(401);
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(
        refused.headers.get('www-authenticate') ?? '',
      )?.[1] as string;
      expect(await (await fetch(metadataUrl)).json()).toMatchObject({
        resource: endpoint,
        authorization_servers: [endpoint],
      });
    } finally {
      await endGroup(child);
    }
  }, 40_000);

  it('refuses an AUTH it does not know, in one line', async () => {
    await expect(
      promisify(execFile)(process.execPath, ARGS, {
        env: { ...process.env, PORT: '0', AUTH: 'basic' },
        timeout: scaled(30_000),
      }),
    ).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'AUTH=basic: use AUTH=token (the default: a static bearer token), AUTH=oauth (sign-in) or AUTH=enterprise (sign-in and ID-JAGs)\n',
    });
  }, 40_000);
});

describe('npm run demo with its upstreams (demo/server.ts as a child process)', () => {
  const ARGS = ['--import', 'tsx', path.join(__dirname, '..', 'demo', 'server.ts')];

  /** The pids of the roaster processes `pid` started (`pgrep -P`: Linux and macOS). */
  async function roasterPids(pid: number): Promise<number[]> {
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(pid), '-f', 'stdio-upstream\\.ts']).catch(
      () => ({ stdout: '' }),
    );
    return stdout.split('\n').filter(Boolean).map(Number);
  }
  const isAlive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('starts the notes and roaster upstreams with no setup, prints them, serves their tools, and exits 0 on SIGTERM and SIGINT, its roaster process ended', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const child = spawnGroup(process.execPath, ARGS, {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MCP_TOKEN: 'tok' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      try {
        const endpoint = await new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            stdout += chunk;
            const match = /MCP endpoint +(\S+)[\s\S]*Upstream +roaster /.exec(stdout);
            if (match?.[1]) resolve(match[1]);
          });
          child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its banner: ${stderr}`)));
        });
        expect(stdout).toMatch(
          / {2}Upstream {7}notes at http:\/\/127\.0\.0\.1:[1-9]\d*\/mcp \(healthy: 3 tools, 1 prompt, 1 resource, 1 template as notes__<name> and notes\+<uri>\)\n/,
        );
        expect(stdout).toContain(
          '  Upstream       roaster over stdio, demo/stdio-upstream.ts (healthy: 2 tools, 1 resource as roaster__<name> and roaster+<uri>)\n',
        );
        const roasters = await roasterPids(child.pid as number);
        expect(roasters).toHaveLength(1);
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            Authorization: 'Bearer tok',
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'MCP-Protocol-Version': '2025-06-18',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
          }),
        });
        expect(response.status).toBe(200);
        const exited = once(child, 'exit');
        child.kill(signal);
        expect(await exited).toEqual([0, null]);
        expect(stderr).toBe('');
        // Ended by the demo's mcp.close() before it exits (until: a zombie lasts until the system reaps it).
        await until(() => !isAlive(roasters[0]!), 'the roaster process to be gone');
      } finally {
        await endGroup(child);
      }
    }
  }, 60_000);
});
