// Stdio upstreams through a real router: server-everything and server-filesystem over stdio (list, call, read, prompt, progress, status()), a shared process restarted after it is killed, start: 'first-use', server-filesystem's roots/list at start answered from `roots`, and the config errors at boot.

import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mcpRouter, McpConfigError, type UpstreamHandle, type UpstreamOptions } from '../../../lib';
import { Signal } from '../../helpers/events';
import { until } from '../../helpers/until';
import { closeAfterEach, closeGatewaysAfterEach, serveGateway, text, v1Client, v2Client } from './upstreams';
import { isRunning } from '../../helpers/pids';
import { scaled } from '../../helpers/time-scale';

closeGatewaysAfterEach();
closeAfterEach();
jest.setTimeout(30_000);

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = join(__dirname, 'fixtures', 'env-server.js');

describe('server-everything and server-filesystem over stdio, shared processes', () => {
  it('lists, calls, reads, prompts and relays progress for 2025 and 2026 callers; status() is healthy and shows no env value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stdio-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello from disk');
    const { url, handles } = await serveGateway({}, (mcp) => [
      mcp.upstream({
        prefix: 'ev',
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: { GATEWAY_SECRET: 'hunter2' },
        listTimeoutMs: scaled(15_000),
      }),
      mcp.upstream({ prefix: 'fs', command: process.execPath, args: [FILESYSTEM, dir], listTimeoutMs: scaled(15_000) }),
    ]);
    const client = await v1Client(url);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(
      expect.arrayContaining([
        'ev__echo',
        'ev__get-sum',
        'ev__trigger-long-running-operation',
        'fs__read_text_file',
        'fs__list_directory',
      ]),
    );
    expect(text(await client.callTool({ name: 'ev__echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
    expect(
      text(await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'hello.txt') } })),
    ).toBe('hello from disk');
    // The env reached the process (its get-env tool tells), and never status().
    expect(text(await client.callTool({ name: 'ev__get-env', arguments: {} }))).toContain('hunter2');
    expect(JSON.stringify(handles.map((handle) => handle.status()))).not.toContain('hunter2');

    const read = await client.readResource({ uri: 'ev+demo://resource/dynamic/text/1' });
    expect(read.contents[0]).toEqual(expect.objectContaining({ uri: 'ev+demo://resource/dynamic/text/1' }));
    const prompt = await client.getPrompt({ name: 'ev__simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);

    const progress: number[] = [];
    await client.callTool(
      { name: 'ev__trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: ({ progress: step }) => void progress.push(step) },
    );
    expect(progress).toEqual([1, 2, 3]);

    const modern = await v2Client(url);
    expect(await modern.callTool({ name: 'ev__get-sum', arguments: { a: 2, b: 3 } })).toEqual(
      expect.objectContaining({ content: [expect.objectContaining({ text: expect.stringContaining('5') })] }),
    );

    for (const handle of handles) {
      expect(handle.status()).toEqual(
        expect.objectContaining({ state: 'healthy', era: '2025', error: undefined, processes: undefined }),
      );
    }
    expect(handles[0]!.status().items.resourceTemplates).toBeGreaterThan(0);
  });

  it('a killed shared process is restarted (after the backoff) and its items stay meanwhile (graceMs); remove() ends it', async () => {
    const { url, handles } = await serveGateway({}, (mcp) => [
      mcp.upstream({ prefix: 'env', command: process.execPath, args: [FIXTURE], env: { TOKEN: 'shared' } }),
    ]);
    const client = await v1Client(url);
    const whoami = async (): Promise<number> =>
      Number(text(await client.callTool({ name: 'env__whoami', arguments: {} }))!.split(' ')[1]);
    const pid = await whoami();
    process.kill(pid, 'SIGKILL');
    await until(() => handles[0]!.status().state === 'stale', 'stale after the exit');
    expect(handles[0]!.status().error).toMatch(/signal SIGKILL/);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('env__whoami');
    await until(() => handles[0]!.status().state === 'healthy', 'healthy after the restart');
    const restarted = await whoami();
    expect(restarted).not.toBe(pid);
    await handles[0]!.remove();
    await until(() => !isRunning(restarted), 'the process to be ended by remove()');
  });

  it("start: 'first-use' spawns nothing until the router's first request", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stdio-lazy-'));
    const startsFile = join(dir, 'starts');
    let lazy: UpstreamHandle | undefined;
    const { url } = await serveGateway({}, (mcp) => {
      lazy = mcp.upstream({
        prefix: 'env',
        command: process.execPath,
        args: [FIXTURE, startsFile],
        start: 'first-use',
      });
      // Not waited for: it would stay connecting.
      return [];
    });
    expect(lazy!.status().state).toBe('connecting');
    expect(existsSync(startsFile)).toBe(false);
    const client = await v1Client(url);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('env__whoami');
    expect(existsSync(startsFile)).toBe(true);
  });
});

describe("an upstream's roots/list outside any call (server-filesystem asks at each start)", () => {
  /** Every warning and error logged, as text. */
  const logged = (logger: { warn: jest.Mock; error: jest.Mock }): string[] =>
    [...logger.warn.mock.calls, ...logger.error.mock.calls].map((call: unknown[]) =>
      call.map((part) => (part instanceof Error ? part.message : String(part))).join(' '),
    );

  async function filesystem(roots: UpstreamOptions['roots'], line: string) {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'stdio-roots-args-')));
    const log = new Signal();
    const logger = { error: jest.fn(log.notify), warn: jest.fn(log.notify) };
    const { url } = await serveGateway({ logger }, (mcp) => [
      mcp.upstream({ prefix: 'fs', command: process.execPath, args: [FILESYSTEM, dir], roots, listTimeoutMs: 15_000 }),
    ]);
    // Its answer to our roots is a stderr line, which the router logs (stderr is free-form logging).
    await log.when(() => logged(logger).some((text) => text.includes(line)), `'${line}'`, 10_000);
    const client = await v1Client(url);
    const allowed = text(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
    return { dir, logger, allowed };
  }

  it('is answered with the roots option: server-filesystem takes them as its allowed directories; nothing fails', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'stdio-roots-given-')));
    const { dir, logger, allowed } = await filesystem(
      [{ uri: pathToFileURL(root).href, name: 'project' }],
      'Updated allowed directories from MCP roots: 1 valid directories',
    );
    expect(allowed).toBe(`Allowed directories:\n${root}`);
    expect(allowed).not.toContain(dir);
    expect(logger.error).not.toHaveBeenCalled();
    expect(logged(logger).filter((entry) => /fail|roots\/list|-32601/i.test(entry))).toEqual([]);
  });

  it('is answered [] without one: server-filesystem keeps the directories of its arguments; nothing fails', async () => {
    const { dir, logger, allowed } = await filesystem(undefined, 'No valid root directories provided by client');
    expect(allowed).toBe(`Allowed directories:\n${dir}`);
    expect(logger.error).not.toHaveBeenCalled();
    expect(logged(logger).filter((entry) => /fail|roots\/list|-32601/i.test(entry))).toEqual([]);
  });
});

describe('config checks at boot', () => {
  const mount = (options: Record<string, unknown>) => () =>
    mcpRouter({ name: 'gw', version: '1.0.0' }).upstream(options as unknown as UpstreamOptions);

  it.each([
    [
      'url and command',
      { prefix: 'a', url: 'http://127.0.0.1:1/mcp', command: 'x' },
      /upstream 'a': option 'url' must be set when 'command' is not, and only then/,
    ],
    ['neither', { prefix: 'a' }, /upstream 'a': option 'url' must be set when 'command' is not/],
    [
      'headers with command',
      { prefix: 'a', command: 'x', headers: { a: 'b' } },
      /upstream 'a': option 'headers' must be absent for a stdio upstream/,
    ],
    [
      'forwardHeaders with command',
      { prefix: 'a', command: 'x', forwardHeaders: ['x-id'] },
      /upstream 'a': option 'forwardHeaders' must be absent for a stdio upstream/,
    ],
    [
      'processes with url',
      { prefix: 'a', url: 'http://127.0.0.1:1/mcp', processes: 'shared' },
      /upstream 'a': option 'processes' must be absent for an HTTP upstream/,
    ],
    ['an empty command', { prefix: 'a', command: '' }, /upstream 'a': option 'command' must be a program name or path/],
    [
      'args not strings',
      { prefix: 'a', command: 'x', args: [1] },
      /upstream 'a': option 'args' must be an array of strings/,
    ],
    [
      'a bad env name',
      { prefix: 'a', command: 'x', env: { '1BAD': 'secret-value' } },
      /upstream 'a': option 'env' must be variable names of .*, got "1BAD"/,
    ],
    [
      'an env value not a string',
      { prefix: 'a', command: 'x', env: { GOOD: 1 } },
      /upstream 'a': option 'env.GOOD' must be a string/,
    ],
    [
      'an env function on a shared process',
      { prefix: 'a', command: 'x', env: () => ({}) },
      /upstream 'a': option 'env' must be an object with processes: 'shared' \(a function needs processes: 'per-principal'/,
    ],
    [
      'a missing cwd',
      { prefix: 'a', command: 'x', cwd: '/no/such/dir' },
      /upstream 'a': option 'cwd' must be an existing directory/,
    ],
    [
      'a bad processes',
      { prefix: 'a', command: 'x', processes: 'each' },
      /upstream 'a': option 'processes' must be 'shared' or 'per-principal'/,
    ],
    [
      'maxProcesses 0',
      { prefix: 'a', command: 'x', processes: 'per-principal', maxProcesses: 0 },
      /upstream 'a': option 'maxProcesses' must be a positive integer/,
    ],
    [
      'maxProcesses on a shared process',
      { prefix: 'a', command: 'x', maxProcesses: 3 },
      /upstream 'a': option 'maxProcesses' must be absent with processes: 'shared'/,
    ],
    [
      'a bad start',
      { prefix: 'a', command: 'x', start: 'later' },
      /upstream 'a': option 'start' must be 'mounted' or 'first-use'/,
    ],
  ])('%s → McpConfigError', (_case, options, message) => {
    expect(mount(options)).toThrow(McpConfigError);
    expect(mount(options)).toThrow(message);
    // An env value never appears in an error.
    try {
      mount(options)();
    } catch (err) {
      expect((err as Error).message).not.toContain('secret-value');
    }
  });
});
