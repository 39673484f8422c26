// The pool's two promises that no Express detail may break, on both majors: a process ended to make room counts against maxProcesses until it has exited, and what an env function throws stays in the router's log.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpRouter, UpstreamHandle, UpstreamOptions } from '../../../lib';
import { createApp } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { until } from '../../helpers/until';
import { isRunning } from '../../helpers/pids';
import {
  callerClient,
  closePoolAfterEach,
  FIXTURE,
  poolGateway,
  scratch,
  starts,
  TOKENS,
  whoami,
} from './pool-gateway';

closePoolAfterEach();
jest.setTimeout(30_000);

describe('maxProcesses', () => {
  it('a process ended to make room counts until it has exited: the next starts only then, never over maxProcesses alive', async () => {
    // Each caller's process ignores SIGTERM, so it takes the whole stop grace; each start reports the earlier
    // starts' pids alive at its own start (process.kill(pid, 0)).
    const report = join(scratch(), 'live');
    const { url, handle, startsFile } = await poolGateway({
      maxProcesses: 1,
      env: (ctx): Record<string, string> =>
        ctx === undefined ? {} : { TOKEN: `secret-of-${ctx.auth?.subject}`, STUBBORN: '1', LIVE_REPORT: report },
    });
    const [lister] = starts(startsFile);
    const first = await whoami(await callerClient(url, 'alice'));
    // bob's process needs alice's room: alice's (idle) is ended, and bob's starts once it has exited.
    const second = await whoami(await callerClient(url, 'bob'));
    expect(second.token).toBe('secret-of-bob');
    expect(isRunning(first.pid)).toBe(false);
    const alive = readFileSync(report, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' '));
    // At each caller's start, no other caller's process was alive (the lister is not counted in maxProcesses).
    expect(alive).toEqual([
      [String(first.pid), lister],
      [String(second.pid), lister],
    ]);
    expect(handle.status().processes).toEqual({ running: 1, max: 1 });
  });
});

describe('an env function that throws', () => {
  /** What a vault client's error may say: the secret must stay in the router's log. */
  const SECRET = 'vault-token-s3cr3t-4711';
  const routers: McpRouter[] = [];
  afterEach(() => Promise.all(routers.splice(0).map((router) => router.close())));

  function envApp(env: UpstreamOptions['env']) {
    const logger = { error: jest.fn(), warn: jest.fn() };
    let handle: UpstreamHandle | undefined;
    const app = createApp({ auth: { tokens: TOKENS }, logger }, (mcp) => {
      routers.push(mcp);
      handle = mcp.upstream({
        prefix: 'env',
        command: process.execPath,
        args: [FIXTURE],
        processes: 'per-principal',
        start: 'mounted',
        env,
      });
    });
    return { app, logger, handle: handle! };
  }

  const call = (app: ReturnType<typeof createApp>) =>
    modern(app, 'tools/call', { name: 'env__whoami', arguments: {} }, { Authorization: 'Bearer alice-token' });

  it("for a caller: the JSON-RPC reply names the upstream and holds none of it; logger.error gets it with the upstream's name", async () => {
    const { app, logger, handle } = envApp((ctx) => {
      if (ctx === undefined) return {};
      throw new Error(`vault refused ${ctx.auth?.subject}: ${SECRET}`);
    });
    await until(() => handle.status().state === 'healthy', 'the lister');
    const reply = await call(app).expect(200);
    expect(reply.body.error).toEqual({
      code: -32603,
      message: 'Upstream "env" could not be started: its env function failed',
    });
    expect(reply.text).not.toContain(SECRET);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [logged, message] = logger.error.mock.calls[0] as [Error, string];
    expect(logged.message).toBe(`vault refused alice: ${SECRET}`);
    expect(message).toBe("mcpRouter: upstream 'env': its env function failed");
    expect(JSON.stringify(logger.warn.mock.calls)).not.toContain(SECRET);
  });

  it('for the lister: status().error and the warnings hold none of it; logger.error gets it', async () => {
    const { logger, handle } = envApp(() => {
      throw new Error(SECRET);
    });
    await until(() => handle.status().state === 'down', 'the upstream to be down');
    // Either the start's own failure or the supervisor's "down (…); next start in 1 s", by timing: both say why.
    expect(handle.status().error).toContain('could not be started: its env function failed');
    expect(JSON.stringify(handle.status())).not.toContain(SECRET);
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ message: SECRET }),
      "mcpRouter: upstream 'env': its env function failed",
    );
    expect(JSON.stringify(logger.warn.mock.calls.map((args) => args.map(String)))).not.toContain(SECRET);
  });
});
