// `npm run demo` (demo/server.ts under tsx, as a child process): it starts and prints its banner, or says in one line
// why it cannot. The child loads the installed Express whatever the jest project, so this file loads none and runs
// once, in the core project.

import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

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
        promisify(execFile)(process.execPath, ARGS, { env: env(port), timeout: 30_000 }),
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
    const child = spawn(process.execPath, ARGS, { env: env(0), stdio: ['ignore', 'pipe', 'pipe'] });
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
      child.kill();
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  }, 40_000);
});
