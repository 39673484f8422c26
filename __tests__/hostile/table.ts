// The hostile suites' table (issue 13): rows of requests against one auth-enabled, session-keeping router on a real
// HTTP server, with bridged Express routes; each row's exact status, content type and JSON-RPC code or result; after
// every row, nothing leaked (no stack, no path, no token, no other principal's session or data), Object.prototype is
// untouched, and alice is still served. The concern files (bodies, sessions, auth, headers, limits, methods) hold rows.

import { inspect } from 'node:util';
import { MCP_ACCEPT } from '../helpers/messages';
import { messagesOf, type SseEvent } from '../helpers/sse';
import {
  auth,
  Host,
  MAIN_OPTIONS,
  PLAIN_OPTIONS,
  ORDERS_SECRET,
  owners,
  REPORT_SECRET,
  rpc,
  open,
  SECRETS,
  seen,
} from './host';
import { resultOf } from './requests';
import { expectPrototypeClean, openStream, prototypeSnapshot, send, within, type WireResponse } from './wire';

/** The whole suite's state: the main host, and the sessions every row may use. */
export interface Suite {
  main: Host;
  /** alice's session on 2025-11-25: the after-row check uses it. */
  alice: string;
  /** bob's session on 2025-11-25. */
  bob: string;
  /** alice's session on 2025-03-26, which may send batches. */
  aliceOld: string;
  /** Ids of bob's SSE events (a progress reply in his session), and what they carried. */
  bobEvents: SseEvent[];
  /** A stateless host without auth, with a prompt: where anyone's bad input lands (bad-input.ts). */
  plain: Host;
}

export interface Row {
  /** Sends the row's request(s); resolves with the response under test. */
  run: (s: Suite) => Promise<WireResponse>;
  status: number;
  /** The response's Content-Type: JSON, an event stream, or no body at all. */
  type: 'json' | 'sse' | 'none';
  /** A JSON-RPC error: its code, and the id it must carry (or one of the ids it may carry). */
  error?: { code: number; id: string | number | null | ReadonlyArray<string | number | null> };
  /** A JSON-RPC success: its id, and more checks of its result. */
  result?: { id: string | number; check?: (result: Record<string, unknown>) => void };
  /** More checks of the response, and of the servers afterwards. */
  also?: (res: WireResponse, s: Suite) => void | Promise<void>;
}

/** Runs `rows` (at least `minRows` of them) against one main host, its sessions made once, under `title`. */
export function hostileTable(title: string, rows: ReadonlyArray<[string, Row]>, minRows: number): void {
  // Some rows send dozens of requests (33 subscriptions, a 4 MB body): generous, for a machine shared with other runs.
  jest.setTimeout(30_000);
  describe(title, () => {
    let suite: Suite;
    let main: Host | undefined;
    let plain: Host | undefined;
    let before: string[];

    beforeAll(async () => {
      before = prototypeSnapshot();
      main = await Host.start(MAIN_OPTIONS);
      const alice = await main.session('alice');
      const bob = await main.session('bob');
      const aliceOld = await main.session('alice', '2025-03-26');
      // bob's own SSE events: a progress reply (priming, progress, result), recorded for resumption.
      const stream = await openStream(main.origin, {
        method: 'POST',
        path: '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: MCP_ACCEPT,
          ...auth('bob'),
          'Mcp-Session-Id': bob,
          'MCP-Protocol-Version': '2025-11-25',
        },
        body: JSON.stringify(
          rpc('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'bob-token' } }, 'bob-progress'),
        ),
      });
      const bobEvents = await within(stream.events().rest(), 5_000, "bob's progress reply");
      expect(messagesOf(bobEvents).map((message) => message.method ?? 'result')).toEqual([
        'notifications/progress',
        'result',
      ]);
      plain = await Host.start(PLAIN_OPTIONS, (mcp) =>
        mcp.prompt({ name: 'greet', description: 'Says hello', get: () => 'hello' }),
      );
      suite = { main, alice, bob, aliceOld, bobEvents, plain };
    });

    afterAll(async () => {
      await main?.close();
      await plain?.close();
    });

    let consoleSpies: jest.SpyInstance[] = [];
    beforeEach(() => {
      seen.length = 0;
      if (main) main.ordersCalls = 0;
      // Nothing may print a token either; and nothing should print at all.
      consoleSpies = (['error', 'warn', 'log', 'info', 'debug'] as const).map((method) =>
        jest.spyOn(console, method).mockImplementation(() => undefined),
      );
    });

    afterEach(async () => {
      jest.useRealTimers();
      for (const spy of consoleSpies) spy.mockRestore();
      // The hosts a row started for itself.
      await Promise.all([...open].filter((host) => host !== main && host !== plain).map((host) => host.close()));
    });

    it(`has at least ${minRows} rows`, () => {
      expect(rows.length).toBeGreaterThanOrEqual(minRows);
    });

    it.each(rows)('%s', async (_name, row) => {
      const s = suite;
      const res = await row.run(s);

      expect(res.status).toBe(row.status);
      const type = String(res.headers['content-type'] ?? '');
      if (row.type === 'json') expect(type).toMatch(/^application\/json(;|$)/);
      else if (row.type === 'sse') expect(type).toMatch(/^text\/event-stream(;|$)/);
      else expect(res.text).toBe('');
      if (row.error) {
        const ids = Array.isArray(row.error.id) ? row.error.id : [row.error.id];
        const { id, ...rest } = res.json as Record<string, unknown>;
        expect(ids).toContain(id);
        expect(rest).toEqual({
          jsonrpc: '2.0',
          error: expect.objectContaining({ code: row.error.code, message: expect.any(String) }),
        });
      }
      if (row.result) {
        expect(res.json).toEqual({ jsonrpc: '2.0', id: row.result.id, result: expect.any(Object) });
        row.result.check?.(resultOf(res));
      }
      await row.also?.(res, s);

      // Nothing leaked, in any response of the row: no stack, no file path, no token, no other principal's session or data.
      expect(seen.length).toBeGreaterThan(0);
      for (const { who, res: response } of seen) {
        const text = `${JSON.stringify(response.headers)}\n${response.text}`;
        // A stack line, raw or JSON-escaped, or any file:line:column.
        expect(text).not.toMatch(/(?:\n|\\n)\s+at \S|\.(?:[cm]?js|ts):\d+:\d+/);
        for (const path of ['/work/', 'node_modules', process.cwd(), __dirname]) expect(text).not.toContain(path);
        for (const secret of SECRETS) expect(text).not.toContain(secret);
        if (who !== 'bob') {
          expect(text).not.toContain(ORDERS_SECRET);
          expect(text).not.toContain(REPORT_SECRET);
          expect(text).not.toMatch(/progress of bob|done for bob/);
        }
        for (const [session, owner] of owners) if (owner !== who) expect(text).not.toContain(session);
      }
      expect(s.main.logger.error).not.toHaveBeenCalled();
      // No token in any host's log, or on the console.
      const logged = inspect(
        [
          [...open].map((host) => [host.logger.error.mock.calls, host.logger.warn.mock.calls]),
          consoleSpies.map((spy) => spy.mock.calls),
        ],
        { depth: 20 },
      );
      for (const secret of SECRETS) expect(logged).not.toContain(secret);

      // Object.prototype is untouched, and alice is still served.
      expectPrototypeClean(before);
      const list = await send(s.main.origin, {
        path: '/mcp',
        headers: {
          'Content-Type': 'application/json',
          Accept: MCP_ACCEPT,
          ...auth('alice'),
          'Mcp-Session-Id': s.alice,
          'MCP-Protocol-Version': '2025-11-25',
        },
        body: JSON.stringify(rpc('tools/list', undefined, 'after')),
      });
      expect(list.status).toBe(200);
      const names = ((list.json as { result: { tools: Array<{ name: string }> } }).result.tools ?? []).map(
        (tool) => tool.name,
      );
      expect(names).toEqual(['user_orders', 'echo', 'keys', 'progress']);
    });
  });
}
