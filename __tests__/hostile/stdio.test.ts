// Hostile stdio upstreams (issue 31 §1, §3): a crash, a silent child, garbage and floods on stdout and stderr, a missing
// command, a child that ignores SIGTERM, and a router killed with SIGTERM or SIGKILL leaving no child behind.

import { once } from 'node:events';
import path from 'node:path';
import {
  createStdioUpstreamClient,
  type StdioClientOptions,
  type StdioUpstreamClient,
} from '../../lib/features/gateway/stdio/stdio-client';
import { STDIO_LOG_LINES_PER_WINDOW } from '../../lib/features/gateway/stdio/stdio-log';
import { spawnGroup } from '../helpers/child';
import { Signal, within } from '../helpers/events';
import { until } from '../helpers/until';
import { CLIENT_INFO } from '../features/gateway/client-info';
import { isRunning as isAlive } from '../helpers/pids';
import { scaled } from '../helpers/time-scale';

jest.setTimeout(30_000);

const FIXTURES = path.resolve(__dirname, '../features/gateway/fixtures');
const fixture = (name: string): string => path.join(FIXTURES, name);
const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const clients: StdioUpstreamClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

interface Harness {
  readonly client: StdioUpstreamClient;
  readonly warnings: string[];
  readonly exits: string[];
  /** Told at each warning and each exit. */
  readonly told: Signal;
}

function start(args: string[], overrides: Partial<StdioClientOptions> = {}, command = process.execPath): Harness {
  const warnings: string[] = [];
  const exits: string[] = [];
  const told = new Signal();
  const warn = (error: unknown): void => {
    warnings.push(String(error));
    told.notify();
  };
  const client = createStdioUpstreamClient({
    program: { command, args },
    label: 'hostile',
    timeoutMs: scaled(10_000),
    clientInfo: CLIENT_INFO,
    logger: { warn, error: warn },
    onExit: (why) => {
      exits.push(why);
      told.notify();
    },
    ...overrides,
  });
  clients.push(client);
  return { client, warnings, exits, told };
}

describe('hostile stdio upstreams', () => {
  it('a child that exits at once: the request fails at once naming the exit, onExit is told, its stderr is logged; each request tries again', async () => {
    const { client, warnings, exits } = start([fixture('exit-at-once.js')]);
    await expect(client.request('tools/list', {})).rejects.toMatchObject({
      code: -32603,
      message: 'Upstream "hostile" exited (code 1)',
    });
    expect(exits).toEqual(['exited (code 1)']);
    expect(warnings).toContain("mcpRouter: upstream 'hostile' stderr: fatal: cannot start");
    expect(client.pid).toBeUndefined();
    // The owner decides when to restart (with backoff): the next request spawns a new process.
    await expect(client.request('tools/list', {})).rejects.toThrow('exited (code 1)');
    expect(exits).toHaveLength(2);
  });

  it('a child that never answers initialize: the request times out and the child is killed', async () => {
    const { client, exits, told } = start([fixture('never-initialize.js')], { timeoutMs: 300 });
    const outcome = client.request('tools/list', {}).catch((error: Error) => error.message);
    await until(() => client.pid !== undefined, 'the spawn');
    const pid = client.pid as number;
    expect(await outcome).toBe('Upstream "hostile" did not answer within 300 ms');
    await until(() => !isAlive(pid), 'the silent child killed');
    await told.when(() => exits.length === 1, 'onExit');
    expect(exits).toEqual(['did not answer initialize within 300 ms, and was stopped']);
  });

  it('close() sends SIGKILL to a child that ignores SIGTERM and stdin’s end, 2 s later', async () => {
    const { client, exits, warnings, told } = start([fixture('never-initialize.js'), '--ignore-sigterm']);
    const outcome = client.request('tools/list', {}).catch((error: Error) => error.message);
    await told.when(() => warnings.includes("mcpRouter: upstream 'hostile' stderr: ready"), 'the child ready');
    const pid = client.pid as number;
    const began = Date.now();
    await client.close();
    expect(Date.now() - began).toBeGreaterThanOrEqual(1_900);
    expect(isAlive(pid)).toBe(false);
    expect(await outcome).toBe('Upstream "hostile" client was closed');
    expect(exits).toEqual([]);
  });

  it.each([
    [
      'non-JSON output',
      'non-json',
      'wrote a stdout line that is not JSON; it was dropped (stdout is for MCP messages only, logs go to stderr)',
    ],
    ['a 10 MB line', 'huge-line', 'wrote a stdout line over 4194304 bytes (maxMessageBytes); it was dropped'],
  ])('%s on stdout is logged and dropped; the stream goes on', async (_name, mode, warning) => {
    const { client, warnings, exits } = start([fixture('noisy-server.js'), mode]);
    expect(await client.request('tools/list', {})).toEqual({
      tools: [{ name: 'env', inputSchema: { type: 'object' } }],
    });
    expect(warnings).toEqual([`mcpRouter: upstream 'hostile': ${warning}`]);
    expect(exits).toEqual([]);
  });

  it('a 200 MB stdout flood: memory stays bounded by the line cap, and the next message is read', async () => {
    const { client, warnings } = start([fixture('noisy-server.js'), 'flood'], { maxMessageBytes: 1024 * 1024 });
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 5);
    try {
      expect(await client.request('tools/list', {})).toMatchObject({ tools: [{ name: 'env' }] });
    } finally {
      clearInterval(sampler);
    }
    expect(warnings).toEqual([
      "mcpRouter: upstream 'hostile': wrote a stdout line over 1048576 bytes (maxMessageBytes); it was dropped",
    ]);
    // Held: at most one line cap plus the pipe's chunks in flight, never the 200 MB.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  });

  it(`a stderr flood: ${STDIO_LOG_LINES_PER_WINDOW} lines logged, then one count of the rest`, async () => {
    const { client, warnings, told } = start([fixture('noisy-server.js'), 'stderr-flood']);
    expect(await client.request('tools/list', {})).toMatchObject({ tools: [{ name: 'env' }] });
    await client.close();
    const stderr = (): string[] =>
      warnings.filter((warning) => warning.startsWith("mcpRouter: upstream 'hostile' stderr: "));
    // The count is logged once the child's stderr is read to its end.
    await told.when(() => stderr().length > STDIO_LOG_LINES_PER_WINDOW, 'the count of lines dropped');
    expect(stderr()).toHaveLength(STDIO_LOG_LINES_PER_WINDOW + 1);
    expect(stderr()[0]).toBe("mcpRouter: upstream 'hostile' stderr: noise line 0");
    expect(stderr()[STDIO_LOG_LINES_PER_WINDOW]).toBe(
      `mcpRouter: upstream 'hostile' stderr: ${5000 - STDIO_LOG_LINES_PER_WINDOW} more lines dropped (at most ${STDIO_LOG_LINES_PER_WINDOW} per 10 s are logged)`,
    );
  });

  it('a child that stops reading its stdin: requests fail at once past 16 MB unread, the router’s buffer does not grow', async () => {
    const { client } = start([fixture('noisy-server.js'), 'deaf'], { timeoutMs: 1_000 });
    const large = 'x'.repeat(1024 * 1024);
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, () =>
        client.request('tools/call', { name: 'env', arguments: { large } }).catch((error: Error) => error.message),
      ),
    );
    // What fits is written and times out unanswered; the rest is refused without being buffered.
    expect(new Set(outcomes)).toEqual(
      new Set([
        'Upstream "hostile" did not answer within 1000 ms',
        'Upstream "hostile" is not reading its input (over 16777216 bytes unread)',
      ]),
    );
  });

  it.each([
    ['ENOENT', '/nonexistent/mcp-server'],
    ['EACCES', fixture('exit-at-once.js')],
  ])(
    'a command that cannot be spawned (%s): -32603 naming the upstream and the errno, never the env; onExit told',
    async (errno, command) => {
      const { client, exits, warnings } = start(
        [],
        { program: { command, args: [], env: { API_TOKEN: 'secret-token-value' } } },
        command,
      );
      const error = await client.request('tools/list', {}).catch((failure: Error) => failure);
      expect(error).toMatchObject({ code: -32603, message: `Upstream "hostile" could not be started (${errno})` });
      expect(exits).toEqual([`could not be started (${errno})`]);
      expect(JSON.stringify([error, exits, warnings])).not.toContain('secret-token-value');
    },
  );

  it("gives the child a minimal environment and the program's env, not the router's", async () => {
    process.env.ROUTER_OWN_SECRET = 'router-secret';
    try {
      const { client } = start([fixture('noisy-server.js'), 'env'], {
        program: {
          command: process.execPath,
          args: [fixture('noisy-server.js'), 'env'],
          env: { GITHUB_TOKEN: 'caller-token' },
        },
      });
      const result = (await client.request('tools/call', { name: 'env', arguments: {} })) as {
        content: { text: string }[];
      };
      const env = JSON.parse(result.content[0]!.text) as Record<string, string>;
      expect(env.GITHUB_TOKEN).toBe('caller-token');
      expect(env.PATH).toBe(process.env.PATH);
      expect(env.ROUTER_OWN_SECRET).toBeUndefined();
    } finally {
      delete process.env.ROUTER_OWN_SECRET;
    }
  });
});

// Concurrent: each case is a router process and its child, independent of the others, and most of its ~2 s is spent
// waiting for the orphaned child to notice it is alone (server-everything's next write to a closed pipe). Serially the
// six cases took ~10.6 s, concurrently ~2.5 s. Jest starts concurrent tests before the file's serial ones, and none
// of these touches the in-process state those measure (the harness's clients, this process's heap).
describe('no orphans when the router process is killed', () => {
  /** Starts fixtures/router.ts holding one child; resolves with both pids once it reports the child's. */
  async function router(
    child: string[],
    wait: 'listed' | 'spawn' = 'listed',
    appSigterm?: 'once',
  ): Promise<{ routerPid: number; childPid: number; exited: Promise<[number | null, NodeJS.Signals | null]> }> {
    const proc = spawnGroup(process.execPath, ['--import', 'tsx', fixture('router.ts'), process.execPath, ...child], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ORPHAN_TEST_WAIT: wait, ...(appSigterm ? { ORPHAN_TEST_APP_SIGTERM: appSigterm } : {}) },
    });
    const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let output = '';
    const printed = new Signal();
    proc.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      printed.notify();
    });
    await printed.when(() => output.includes('\n'), 'the router to report its child', 20_000);
    const { pid } = JSON.parse(output.split('\n')[0]!) as { pid: number };
    return { routerPid: proc.pid as number, childPid: pid, exited };
  }

  it.concurrent.each([
    ['SIGTERM', 'server-everything', [EVERYTHING, 'stdio'], 'listed'],
    [
      'SIGTERM',
      'a child that ignores SIGTERM and stdin’s end (the router SIGKILLs it)',
      [fixture('never-initialize.js'), '--ignore-sigterm'],
      'spawn',
    ],
    ['SIGINT', 'server-everything', [EVERYTHING, 'stdio'], 'listed'],
    ['SIGKILL', 'server-everything (it exits on stdin’s end)', [EVERYTHING, 'stdio'], 'listed'],
    ['SIGKILL', 'server-filesystem (it exits on stdin’s end)', [FILESYSTEM, FIXTURES], 'listed'],
  ] as const)('router killed with %s, child %s: the child is gone', async (signal, _name, child, wait) => {
    const { routerPid, childPid, exited } = await router([...child], wait);
    expect(isAlive(childPid)).toBe(true);
    process.kill(routerPid, signal);
    // Its 'exit' is emitted once it has been reaped: its pid is gone.
    await within(exited, 'the router to die');
    await until(() => !isAlive(childPid), 'the child to be gone', 10_000);
  });

  it.concurrent(
    "an app's own process.once('SIGTERM') handler, registered before the child was spawned, owns the shutdown: it closes the client and exits 0",
    async () => {
      // The reaper's listener ran after the app's once-listener had removed itself, counted no app listener, and re-raised
      // SIGTERM: the app died by the signal in the middle of its own clean shutdown (found by the demo's SIGTERM test).
      const { routerPid, childPid, exited } = await router([EVERYTHING, 'stdio'], 'listed', 'once');
      process.kill(routerPid, 'SIGTERM');
      expect(await exited).toEqual([0, null]);
      await until(() => !isAlive(childPid), 'the child to be gone', 10_000);
    },
  );
});
