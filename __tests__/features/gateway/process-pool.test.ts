// Per-principal stdio processes through a real router: each caller's own env, 50 callers against maxProcesses 10 (bounded, LRU, a clear error when all are busy), idle end (an ended process counted until it exits and an env function that throws: process-pool-bounds); hostile: a crash loop and commands that cannot be spawned.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../helpers/until';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serveGateway, text } from './upstreams';
import { isRunning } from '../../helpers/pids';
import {
  callerClient,
  closePoolAfterEach,
  FIXTURE,
  poolGateway,
  scratch,
  starts,
  SUBJECTS,
  whoami,
} from './pool-gateway';

closePoolAfterEach();
// Restarts wait 1 s, then 2 s: the crash-loop test watches three starts.
jest.setTimeout(30_000);

describe("processes: 'per-principal'", () => {
  it('each caller gets its own process with env(ctx); the lister has env(undefined); no env value in status()', async () => {
    const { url, handle, startsFile } = await poolGateway({});
    const alice = await callerClient(url, 'alice');
    const bob = await callerClient(url, 'bob');
    expect((await alice.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['env__hold', 'env__whoami']);
    const first = await whoami(alice);
    const second = await whoami(bob);
    expect([first.token, second.token]).toEqual(['secret-of-alice', 'secret-of-bob']);
    expect(first.pid).not.toBe(second.pid);
    expect((await whoami(alice)).pid).toBe(first.pid);
    // The lister, then one process per caller.
    expect(starts(startsFile)).toHaveLength(3);
    expect(handle.status()).toEqual(expect.objectContaining({ state: 'healthy', processes: { running: 2, max: 10 } }));
    expect(JSON.stringify(handle.status())).not.toContain('secret-of');
  });

  it('a caller without an authenticated subject gets a JSON-RPC error saying why; no process is spawned for it', async () => {
    const { url, startsFile } = await poolGateway({}, false);
    const client = await callerClient(url);
    await expect(client.callTool({ name: 'env__whoami', arguments: {} })).rejects.toThrow(
      /process per principal, which needs an authenticated caller/,
    );
    expect(starts(startsFile)).toHaveLength(1);
  });

  it('50 callers against maxProcesses 10: never more than 10 processes, the least recently used ended first', async () => {
    const { url, handle, startsFile } = await poolGateway({ maxProcesses: 10 });
    const pids = new Map<string, number>();
    const callers = new Map<string, Client>();
    for (const subject of SUBJECTS) {
      const client = await callerClient(url, subject);
      callers.set(subject, client);
      const { token, pid } = await whoami(client);
      expect(token).toBe(`secret-of-${subject}`);
      pids.set(subject, pid);
      expect(handle.status().processes!.running).toBeLessThanOrEqual(10);
    }
    expect(starts(startsFile)).toHaveLength(51);
    // The last ten are kept (same process); the first was ended long ago, and a call starts a new one for it.
    expect((await whoami(callers.get('user-45')!)).pid).toBe(pids.get('user-45'));
    await until(() => !isRunning(pids.get('user-0')!), 'the first caller’s process to be gone');
    const again = await whoami(callers.get('user-0')!);
    expect(again.pid).not.toBe(pids.get('user-0'));
    // Room was made by ending the least recently used idle one (user-40; user-45 was just used).
    await until(() => !isRunning(pids.get('user-40')!), 'user-40’s process to be ended');
    expect(isRunning(pids.get('user-45')!)).toBe(true);
    expect(handle.status().processes!.running).toBe(10);
  });

  it('when all maxProcesses are busy, one more caller gets a clear "too many" error at once, and is served once one is free', async () => {
    const { url, handle, dir } = await poolGateway({ maxProcesses: 10 });
    const release = join(dir, 'release');
    const busy = await Promise.all(SUBJECTS.slice(0, 10).map((subject) => callerClient(url, subject)));
    const held = busy.map((client) => client.callTool({ name: 'env__hold', arguments: { file: release } }));
    await until(() => handle.status().processes?.running === 10, 'ten busy processes');
    const late = await callerClient(url, 'alice');
    await expect(late.callTool({ name: 'env__whoami', arguments: {} })).rejects.toThrow(
      /too many processes: all 10 \(maxProcesses\) are busy/,
    );
    writeFileSync(release, '');
    for (const result of await Promise.all(held)) expect(text(result)).toBe('released');
    expect((await whoami(late)).token).toBe('secret-of-alice');
    expect(handle.status().processes!.running).toBe(10);
  });

  it('a process idle for idleTimeoutMs is ended (one timer for all)', async () => {
    const { url, handle } = await poolGateway({ idleTimeoutMs: 300 });
    const alice = await callerClient(url, 'alice');
    const { pid } = await whoami(alice);
    expect(handle.status().processes!.running).toBe(1);
    await until(() => handle.status().processes!.running === 0, 'the idle process to be ended');
    await until(() => !isRunning(pid), 'its pid to be gone');
    // Its next call starts it again.
    expect((await whoami(alice)).pid).not.toBe(pid);
  });
});

describe('hostile programs', () => {
  it('a crash loop (exits at once): restarts back off (≈1 s, then ≈2 s), status() says down and why, no process storm', async () => {
    const dir = scratch();
    const startsFile = join(dir, 'starts');
    const { handles } = await serveGateway({}, (mcp) => [
      mcp.upstream({
        name: 'crashy',
        command: process.execPath,
        args: ['-e', "require('fs').appendFileSync(process.argv[1], Date.now() + '\\n'); process.exit(3)", startsFile],
      }),
    ]);
    const handle = handles[0]!;
    await until(
      () => handle.status().state === 'down' && /exited \(code 3\)/.test(handle.status().error ?? ''),
      'down with the exit reason',
      10_000,
    );
    await until(() => starts(startsFile).length >= 3, 'three starts', 15_000);
    const times = starts(startsFile).map(Number);
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    // Jittered between half and all of 1 s, then of 2 s (a little slack for timer granularity).
    expect(gaps[0]).toBeGreaterThanOrEqual(450);
    expect(gaps[1]).toBeGreaterThanOrEqual(950);
    expect(handle.status().error).not.toContain(process.execPath);
  });

  it.each([
    ['ENOENT', () => join(scratch(), 'no-such-program')],
    ['EACCES', () => FIXTURE],
  ])(
    'a command that cannot be spawned (%s): the upstream is down with status().error saying why; the router serves on',
    async (code, command) => {
      const { url, mcp, handles } = await serveGateway({}, (router) => [
        router.upstream({ name: 'broken', command: command() }),
      ]);
      mcp.tool({ name: 'local', description: 'Local', handler: () => 'ok' });
      await until(() => handles[0]!.status().state === 'down', 'down');
      expect(handles[0]!.status().error).toContain(code);
      const client = await callerClient(url);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['local']);
    },
  );
});
