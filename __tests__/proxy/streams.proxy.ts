// Behind nginx, SSE as users see it: progress notifications arrive one by one with the documented block and all at
// the end with proxy_buffering on (the router's X-Accel-Buffering ignored); a 2025 GET stream and a 2026
// subscriptions/listen stream outlive twice nginx's proxy_read_timeout thanks to keep-alive comments, and without
// them nginx cuts the stream.

import { performance } from 'node:perf_hooks';
import { Signal } from '../helpers/events';
import { MCP_ACCEPT, notification, rpc } from '../helpers/messages';
import { envelope, MODERN } from '../helpers/modern';
import type { BehindProxy, BehindProxyOptions } from './behind-proxy';
import { pacedTool, progressV1, progressV2, STEPS, useProxy as useSetup } from './checks';

jest.setTimeout(30_000);

/** A setup with the paced tool for one describe block; `emits` holds the tool's emit times of its last call. */
function useProxy(options: BehindProxyOptions): { proxy: () => BehindProxy; emits: number[] } {
  const { setup, emits } = pacedTool();
  return { proxy: useSetup({ setup, ...options }), emits };
}

describe('progress through the documented block (proxy_buffering off)', () => {
  const { proxy, emits } = useProxy({});

  it.each([
    ['SDK v1, 2025', progressV1],
    ['SDK v2, 2026-07-28', progressV2],
  ])('arrives one by one, over the call (%s)', async (_era, call) => {
    const { arrivals } = await call(proxy());
    expect(arrivals).toHaveLength(STEPS);
    expect(emits).toHaveLength(STEPS);
    // Each notification but the last reached the client before the tool sent its last one: not held back to the end.
    const last = emits[STEPS - 1]!;
    expect(arrivals.slice(0, -1).map((at) => at < last)).toEqual(Array(STEPS - 1).fill(true));
  });
});

describe('progress with proxy_buffering on and the router’s X-Accel-Buffering: no ignored (what the doctor must catch)', () => {
  const { proxy, emits } = useProxy({ nginx: { buffering: 'on' } });

  it.each([
    ['SDK v1, 2025', progressV1],
    ['SDK v2, 2026-07-28', progressV2],
  ])('arrives all together, after the tool sent its last one (%s)', async (_era, call) => {
    const { arrivals } = await call(proxy());
    expect(arrivals).toHaveLength(STEPS);
    const last = emits[STEPS - 1]!;
    expect(arrivals.map((at) => at >= last)).toEqual(Array(STEPS).fill(true));
  });
});

describe('progress with proxy_buffering on but X-Accel-Buffering honoured (nginx’s default)', () => {
  const { proxy, emits } = useProxy({ nginx: { buffering: 'on-honouring-app' } });

  it('still arrives one by one: nginx obeys the router’s X-Accel-Buffering: no', async () => {
    const { arrivals } = await progressV1(proxy());
    expect(arrivals).toHaveLength(STEPS);
    expect(arrivals[0]!).toBeLessThan(emits[STEPS - 1]!);
  });
});

/** A response body read as it comes: each SSE line with its arrival time, and whether the stream ended. */
class StreamLines {
  readonly lines: Array<{ at: number; text: string }> = [];
  ended: number | undefined;
  readonly changed = new Signal();
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
    void this.#read();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let pending = '';
    try {
      for (let chunk = await this.#reader.read(); !chunk.done; chunk = await this.#reader.read()) {
        pending += decoder.decode(chunk.value, { stream: true });
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const text of parts) this.lines.push({ at: performance.now(), text });
        this.changed.notify();
      }
    } catch {
      // nginx cutting the connection mid-body: the stream ended as well.
    }
    this.ended = performance.now();
    this.changed.notify();
  }

  /** The keep-alive comments received (SSE lines starting with ':'). */
  comments(): number {
    return this.lines.filter(({ text }) => text.startsWith(':')).length;
  }

  /** Whether a `data:` line holding `text` arrived. */
  has(text: string): boolean {
    return this.lines.some((line) => line.text.startsWith('data:') && line.text.includes(text));
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }
}

const READ_TIMEOUT_S = 2;

/** Opens a 2025 session through the proxy and its GET stream. */
async function getStream(proxy: BehindProxy): Promise<StreamLines> {
  const post = (body: unknown, session?: string): Promise<Response> =>
    proxy.fetch(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
      },
      body: JSON.stringify(body),
    });
  const init = await post(
    rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1.0.0' },
    }),
  );
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get('mcp-session-id') as string;
  expect((await post(notification('notifications/initialized'), session)).status).toBe(202);
  const stream = await proxy.fetch(proxy.url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  });
  expect(stream.status).toBe(200);
  return new StreamLines(stream.body as ReadableStream<Uint8Array>);
}

/** Opens a 2026-07-28 subscriptions/listen stream for tool list changes through the proxy. */
async function listenStream(proxy: BehindProxy): Promise<StreamLines> {
  const response = await proxy.fetch(proxy.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(
      rpc('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: envelope() }, 'sub-1'),
    ),
  });
  expect(response.status).toBe(200);
  return new StreamLines(response.body as ReadableStream<Uint8Array>);
}

describe(`long streams through nginx with proxy_read_timeout ${READ_TIMEOUT_S}s`, () => {
  const open: StreamLines[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((stream) => stream.cancel()));
  });

  describe('keep-alive comments every 500 ms', () => {
    const { proxy } = useProxy({ nginx: { readTimeoutS: READ_TIMEOUT_S }, router: { keepAliveMs: 500 } });

    it.each([
      ['a 2025 GET stream', getStream],
      ['a 2026 subscriptions/listen stream', listenStream],
    ])('%s stays open for twice the read timeout, and still delivers', async (_kind, openStream) => {
      const stream = await openStream(proxy());
      open.push(stream);
      const opened = performance.now();
      const lasted = 2 * READ_TIMEOUT_S * 1000;
      await stream.changed.when(
        () => stream.ended !== undefined || performance.now() - opened > lasted,
        `the stream to last ${lasted} ms`,
        lasted + 5_000,
      );
      expect(stream.ended).toBeUndefined();
      expect(stream.comments()).toBeGreaterThanOrEqual(2);
      // Still a live stream: a tool registered now is announced on it.
      const added = proxy().instances[0]!.mcp.tool({ name: 'late', description: 'Added later', handler: () => 'late' });
      try {
        await stream.changed.when(
          () => stream.has('notifications/tools/list_changed'),
          'the list change on the stream',
        );
      } finally {
        added.remove();
      }
    });
  });

  describe('without keep-alive (keepAliveMs: false), the control', () => {
    const { proxy } = useProxy({ nginx: { readTimeoutS: READ_TIMEOUT_S }, router: { keepAliveMs: false } });

    it.each([
      ['a 2025 GET stream', getStream],
      ['a 2026 subscriptions/listen stream', listenStream],
    ])('%s is cut by nginx once quiet for the read timeout', async (_kind, openStream) => {
      const stream = await openStream(proxy());
      open.push(stream);
      const opened = performance.now();
      await stream.changed.when(
        () => stream.ended !== undefined,
        'nginx to cut the stream',
        READ_TIMEOUT_S * 1000 + 5_000,
      );
      expect(stream.comments()).toBe(0);
      // Cut by the read timeout (counted by nginx from its last read, a little before `opened`), not at once.
      expect((stream.ended as number) - opened).toBeGreaterThan((READ_TIMEOUT_S * 1000) / 2);
      expect(proxy().front.log()).toMatch(/upstream timed out/);
    });
  });
});
