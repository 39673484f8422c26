// Per-tool call limits: counted per principal (else per session, else per client address), in fixed windows, with a message a model can act on.

import { MemoryStore } from 'express-rate-limit';
import { createCallLimiter } from '../../../lib/core/registry/call-limit';
import type { AuthInfo, RequestContext } from '../../../lib/core/registry/request-context';
import { createApp, post, rpc } from '../../helpers/create-app';
import { testContext } from '../../helpers/context';

function caller(auth: AuthInfo | undefined, sessionId: string | undefined, clientAddress?: string): RequestContext {
  const ctx = Object.create(testContext()) as RequestContext;
  // clientAddress is a getter on HandlerContext: defined over it, as auth and sessionId are.
  return Object.defineProperties(ctx, {
    auth: { value: auth },
    sessionId: { value: sessionId },
    clientAddress: { value: clientAddress },
  });
}

describe('createCallLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('allows `limit` calls per window and per caller, then says how long to wait, then resets', async () => {
    const limiter = createCallLimiter({ limit: 2, windowMs: 10_000 }, 'x', "tool 'x'");
    const alice = caller({ subject: 'alice', scopes: [] }, 's1');
    const bob = caller({ subject: 'bob', scopes: [] }, 's1');
    expect([await limiter.take(alice), await limiter.take(alice), await limiter.take(alice)]).toEqual([
      undefined,
      undefined,
      10,
    ]);
    expect(await limiter.take(bob)).toBeUndefined();
    jest.setSystemTime(1_007_500);
    expect(await limiter.take(alice)).toBe(3);
    jest.setSystemTime(1_010_000);
    expect(await limiter.take(alice)).toBeUndefined();
  });

  it("forgets ended windows (express-rate-limit's MemoryStore), so the callers it keeps are those of two windows at most", async () => {
    const store = new MemoryStore();
    const limiter = createCallLimiter({ limit: 1, windowMs: 10_000, store }, 'x', "tool 'x'");
    for (let i = 0; i < 1_000; i++) await limiter.take(caller(undefined, `s${i}`));
    jest.advanceTimersByTime(20_000);
    expect(await store.get('session:s0')).toBeUndefined();
    expect(await limiter.take(caller(undefined, 's0'))).toBeUndefined();
  });

  it('counts callers without auth by session', async () => {
    const limiter = createCallLimiter({ limit: 1, windowMs: 60_000 }, 'x', "tool 'x'");
    expect(await limiter.take(caller(undefined, 'a'))).toBeUndefined();
    expect(await limiter.take(caller(undefined, 'b'))).toBeUndefined();
    expect(await limiter.take(caller(undefined, 'a'))).toBe(60);
  });

  it('counts callers without auth or session (2026 requests, stateless 2025) by address, IPv6 by /56', async () => {
    const limiter = createCallLimiter({ limit: 1, windowMs: 60_000 }, 'x', "tool 'x'");
    expect(await limiter.take(caller(undefined, undefined, '10.0.0.1'))).toBeUndefined();
    expect(await limiter.take(caller(undefined, undefined, '10.0.0.2'))).toBeUndefined();
    expect(await limiter.take(caller(undefined, undefined, '10.0.0.1'))).toBe(60);
    expect(await limiter.take(caller(undefined, undefined, '2001:db8:0:1::1'))).toBeUndefined();
    expect(await limiter.take(caller(undefined, undefined, '2001:db8:0:2::7'))).toBe(60);
    expect(await limiter.take(caller(undefined, undefined, '2001:db8:1::1'))).toBeUndefined();
  });

  it('counts in the store it is given, else in the one the router offers for the tool', async () => {
    const given = new MemoryStore();
    const offered = new MemoryStore();
    const stores = jest.fn(() => offered);
    await createCallLimiter({ limit: 5, windowMs: 60_000, store: given }, 'x', "tool 'x'", stores).take(
      caller(undefined, 'a'),
    );
    expect(stores).not.toHaveBeenCalled();
    expect((await given.get('session:a'))?.totalHits).toBe(1);
    await createCallLimiter({ limit: 5, windowMs: 60_000 }, 'export', "tool 'export'", stores).take(
      caller(undefined, 'a'),
    );
    expect(stores).toHaveBeenCalledWith('export');
    expect((await offered.get('session:a'))?.totalHits).toBe(1);
  });

  it.each([
    [{ limit: 0, windowMs: 1000 }],
    [{ limit: 1, windowMs: 0 }],
    [{ limit: 1.5, windowMs: 1000 }],
    [{ limit: 1 }],
    [undefined],
  ])('refuses %p at registration', (options) => {
    expect(() => createCallLimiter(options as never, 'x', "tool 'x'")).toThrow(
      expect.objectContaining({
        code: 'ERR_MCP_INVALID_DEFINITION',
        message: "mcpRouter: tool 'x' rateLimit must be { limit, windowMs } with positive integers",
      }),
    );
  });

  it('refuses a store without increment() at registration', () => {
    expect(() => createCallLimiter({ limit: 1, windowMs: 1000, store: {} as never }, 'x', "tool 'x'")).toThrow(
      expect.objectContaining({
        code: 'ERR_MCP_INVALID_DEFINITION',
        message: "mcpRouter: tool 'x' rateLimit.store must be an express-rate-limit store (an object with increment())",
      }),
    );
  });
});

describe('a tool rateLimit over HTTP', () => {
  it('answers the call past the limit with an isError result, and does not run the handler', async () => {
    const handler = jest.fn(() => 'exported');
    const app = createApp({ rateLimit: false }, (mcp) =>
      mcp.tool({ name: 'export', description: 'Costly export', rateLimit: { limit: 1, windowMs: 60_000 }, handler }),
    );
    const call = (id: number) =>
      post(app, rpc('tools/call', { name: 'export', arguments: {} }, id), { 'MCP-Protocol-Version': '2025-11-25' });
    expect((await call(1)).body.result).toEqual({ content: [{ type: 'text', text: 'exported' }] });
    expect((await call(2)).body.result).toEqual({
      content: [{ type: 'text', text: "Tool 'export' is over its rate limit; try again in 60 s" }],
      isError: true,
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses the call, without running it, when the store cannot count (a shared store down): a limit never fails open', async () => {
    const handler = jest.fn(() => 'exported');
    const broken = {
      increment: async () => Promise.reject(new Error('redis down')),
      decrement: async () => undefined,
      resetKey: async () => undefined,
    };
    const app = createApp({ rateLimit: false }, (mcp) =>
      mcp.tool({
        name: 'export',
        description: 'Costly export',
        rateLimit: { limit: 1, windowMs: 60_000, store: broken },
        handler,
      }),
    );
    const res = await post(app, rpc('tools/call', { name: 'export', arguments: {} }, 1), {
      'MCP-Protocol-Version': '2025-11-25',
    });
    expect(res.body.result).toEqual({
      content: [
        {
          type: 'text',
          text: "Tool 'export' cannot check its rate limit now (its store does not answer); try again later",
        },
      ],
      isError: true,
    });
    expect(handler).not.toHaveBeenCalled();
  });
});
