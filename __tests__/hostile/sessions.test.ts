// Hostile requests: sessions — what a session keeps of its client is bounded, the largest capabilities cost no time,
// and no principal reaches another's session.

import { isPriming, messagesOf, type SseEvent } from '../helpers/sse';
import { MCP_ACCEPT } from '../helpers/messages';
import { auth, Host, initialize, LARGEST_CAPABILITIES, MAIN_OPTIONS, MAX_CAPABILITIES_JSON, rpc } from './host';
import { hostileTable, type Row } from './table';
import { type WireResponse } from './wire';
import { scaled } from '../helpers/time-scale';

const ROWS: Array<[string, Row]> = [
  // ---- 2. what a session keeps of its client is bounded ----
  [
    'initialize with unknown top-level capabilities: succeeds, and they are dropped',
    {
      run: (s) =>
        s.main.post(
          'alice',
          initialize(
            {
              capabilities: {
                roots: { listChanged: true },
                bogus: { a: 1 },
                huge: { pad: 'u'.repeat(10_000) },
                notAnObject: 'x',
              },
            },
            'caps-unknown',
          ),
        ),
      status: 200,
      type: 'json',
      result: { id: 'caps-unknown' },
      also: (res, s) => {
        const id = res.headers['mcp-session-id'];
        const kept = s.main.created.find((record) => record.id === id)?.clientCapabilities ?? {};
        expect(Object.keys(kept)).toEqual(['roots']);
        expect(kept.roots).toEqual({ listChanged: true });
      },
    },
  ],
  [
    'initialize with capabilities of 2,049 characters of JSON: -32602, no session created',
    {
      run: (s) => {
        const capabilities = { experimental: { pad: `${LARGEST_CAPABILITIES.experimental.pad}x` } };
        expect(JSON.stringify(capabilities)).toHaveLength(MAX_CAPABILITIES_JSON + 1);
        return s.main.post('alice', initialize({ capabilities }, 'caps-big'));
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'caps-big' },
      also: (res, s) => {
        expect(res.headers['mcp-session-id']).toBeUndefined();
        expect(
          s.main.created.some((record) => JSON.stringify(record.clientCapabilities).length > MAX_CAPABILITIES_JSON),
        ).toBe(false);
      },
    },
  ],
  [
    'initialize with 50 KB of sampling capabilities: -32602, no session created',
    {
      run: (s) =>
        s.main.post(
          'alice',
          initialize(
            {
              capabilities: {
                sampling: { context: {}, tools: {}, pad: Array.from({ length: 5_000 }, (_, i) => `k${i}`) },
              },
            },
            'caps-sampling',
          ),
        ),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'caps-sampling' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.name of 513 characters: -32602, no session created',
    {
      run: (s) =>
        s.main.post('alice', initialize({ clientInfo: { name: 'n'.repeat(513), version: '1' } }, 'info-long')),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'info-long' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.version of 100,000 characters: -32602',
    {
      run: (s) =>
        s.main.post('alice', initialize({ clientInfo: { name: 'x', version: 'v'.repeat(100_000) } }, 'info-version')),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'info-version' },
      also: (res) => expect(res.headers['mcp-session-id']).toBeUndefined(),
    },
  ],
  [
    'initialize with a clientInfo.name of exactly 512 characters: accepted',
    {
      run: (s) => s.main.post('alice', initialize({ clientInfo: { name: 'n'.repeat(512), version: '1' } }, 'info-512')),
      status: 200,
      type: 'json',
      result: { id: 'info-512' },
    },
  ],
  [
    'resources/subscribe to a URI of 1,025 characters: -32602',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        expect(
          (
            await s.main.post(
              'alice',
              rpc('resources/subscribe', { uri: `docs://${'u'.repeat(1_024 - 7)}` }, 'sub-1024'),
              { session },
            )
          ).json,
        ).toMatchObject({ result: {} });
        return s.main.post(
          'alice',
          rpc('resources/subscribe', { uri: `docs://${'u'.repeat(1_025 - 7)}` }, 'sub-long'),
          { session },
        );
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'sub-long' },
    },
  ],
  [
    'the 33rd distinct subscription of one session: -32602 (sessions.maxSubscriptions defaults to 32)',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        for (let i = 1; i <= 32; i++) {
          const res = await s.main.post('alice', rpc('resources/subscribe', { uri: `docs://topic/${i}` }, `sub-${i}`), {
            session,
          });
          expect(res.json).toEqual({ jsonrpc: '2.0', id: `sub-${i}`, result: {} });
        }
        // Subscribing again to one held already is no new subscription.
        expect(
          (await s.main.post('alice', rpc('resources/subscribe', { uri: 'docs://topic/1' }, 'again'), { session }))
            .json,
        ).toMatchObject({ result: {} });
        return s.main.post('alice', rpc('resources/subscribe', { uri: 'docs://topic/33' }, 'sub-33'), { session });
      },
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'sub-33' },
    },
  ],
  [
    "sessions.maxPerPrincipal: 3: a principal's 4th initialize evicts its least recently active session; other principals' are untouched",
    {
      run: async () => {
        const host = await Host.start({ ...MAIN_OPTIONS, sessions: { maxPerPrincipal: 3 } });
        try {
          const [a1, a2, a3] = [await host.session('alice'), await host.session('alice'), await host.session('alice')];
          const b1 = await host.session('bob');
          // a1 becomes more recently active than a2: a2 is now alice's least recently active session.
          expect((await host.post('alice', rpc('ping', undefined, 'touch'), { session: a1 })).status).toBe(200);
          const a4 = await host.session('alice');
          const gone = await host.post('alice', rpc('ping', undefined, 'evicted'), { session: a2 });
          for (const [who, session] of [
            ['alice', a1],
            ['alice', a3],
            ['alice', a4],
            ['bob', b1],
          ] as const) {
            expect((await host.post(who, rpc('ping', undefined, 'alive'), { session })).json).toEqual({
              jsonrpc: '2.0',
              id: 'alive',
              result: {},
            });
          }
          expect(host.closed).toEqual([{ id: a2, reason: 'evicted' }]);
          return gone;
        } finally {
          await host.close();
        }
      },
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],

  // ---- 3. the largest capabilities allowed do not slow a session down ----
  [
    'after initialize with the largest capabilities allowed (2,048 characters), the session is served normally',
    {
      run: async (s) => {
        expect(JSON.stringify(LARGEST_CAPABILITIES)).toHaveLength(MAX_CAPABILITIES_JSON);
        const init = await s.main.post('alice', initialize({ capabilities: LARGEST_CAPABILITIES }, 'caps-max'));
        expect(init.json).toMatchObject({ id: 'caps-max', result: { protocolVersion: '2025-11-25' } });
        const session = init.headers['mcp-session-id'] as string;
        let last: WireResponse | undefined;
        for (let i = 0; i < 20; i++) {
          last = await s.main.send('alice', {
            headers: {
              'Content-Type': 'application/json',
              Accept: MCP_ACCEPT,
              ...auth('alice'),
              'Mcp-Session-Id': session,
              'MCP-Protocol-Version': '2025-11-25',
            },
            body: JSON.stringify(rpc('tools/list', undefined, `list-${i}`)),
            timeoutMs: scaled(1_000),
          });
          expect(last.status).toBe(200);
        }
        return last as WireResponse;
      },
      status: 200,
      type: 'json',
      result: {
        id: 'list-19',
        check: (result) =>
          expect(result.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'user_orders' })])),
      },
    },
  ],

  // ---- sessions across principals ----
  [
    "bob presenting alice's Mcp-Session-Id: 404, and nothing of her session comes back",
    {
      run: (s) => s.main.post('bob', rpc('tools/list', undefined, 'steal'), { session: s.alice }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    "bob's GET stream on alice's session: 404",
    {
      run: async (s) => (await s.main.stream('bob', s.alice)).res,
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    "bob's DELETE of alice's session: 404, and her session survives",
    {
      run: (s) =>
        s.main.send('bob', {
          method: 'DELETE',
          headers: { ...auth('bob'), 'Mcp-Session-Id': s.alice, 'MCP-Protocol-Version': '2025-11-25' },
        }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
      also: (_res, s) => expect(s.main.closed.map((closed) => closed.id)).not.toContain(s.alice),
    },
  ],
  [
    'a made-up Mcp-Session-Id: 404',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: '00000000-0000-4000-8000-000000000000' }),
      status: 404,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'no Mcp-Session-Id on tools/list: 400, -32000',
    {
      run: (s) => s.main.post('alice', rpc('tools/list')),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'initialize on an initialized session: 400, -32600',
    {
      run: (s) => s.main.post('alice', initialize(), { session: s.alice }),
      status: 400,
      type: 'json',
      error: { code: -32600, id: null },
    },
  ],
  [
    'GET with a forged Last-Event-ID: a fresh stream (priming event), nothing replayed',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const { res, events } = await s.main.stream('alice', session, { 'Last-Event-ID': 'AAAAAAAAAAAAAAAAAA.1' });
        expect(events).toHaveLength(1);
        expect(isPriming(events[0] as SseEvent)).toBe(true);
        return res;
      },
      status: 200,
      type: 'sse',
    },
  ],
  [
    "GET with bob's Last-Event-ID on alice's session: a fresh stream, none of bob's events",
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const bobIds = s.bobEvents.map((event) => event.id as string);
        expect(bobIds.length).toBeGreaterThan(1);
        const { res, events } = await s.main.stream('alice', session, { 'Last-Event-ID': bobIds[0] }, 1);
        expect(events).toHaveLength(1);
        expect(isPriming(events[0] as SseEvent)).toBe(true);
        expect(bobIds).not.toContain(events[0]?.id);
        return res;
      },
      status: 200,
      type: 'sse',
      also: (res) => expect(res.text).not.toMatch(/progress of bob|done for bob/),
    },
  ],
  [
    'control: bob resumes his own stream with its first Last-Event-ID and gets the rest of it',
    {
      run: async (s) => {
        const ids = s.bobEvents.map((event) => event.id as string);
        const { res, events } = await s.main.stream('bob', s.bob, { 'Last-Event-ID': ids[0] }, ids.length - 1);
        expect(messagesOf(events)).toEqual(messagesOf(s.bobEvents.slice(1)));
        return res;
      },
      status: 200,
      type: 'sse',
    },
  ],
  [
    'a forged client response (an id the server never sent): 202, and nothing happens',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', id: 424242, result: { role: 'assistant', content: { type: 'text', text: 'forged' } } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],
  [
    'a forged client error response: 202, and nothing happens',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', id: 'srv-9', error: { code: -32603, message: 'forged' } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],
  [
    'notifications/cancelled for a request that does not exist: 202',
    {
      run: (s) =>
        s.main.post(
          'alice',
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope', reason: 'x' } },
          { session: s.alice },
        ),
      status: 202,
      type: 'none',
    },
  ],
];

hostileTable('hostile requests: sessions (issue 13)', ROWS, 22);
