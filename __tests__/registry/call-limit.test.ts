// Per-tool call limits: counted per principal (else per session, else per client address), in fixed windows, with a message a model can act on.

import { createCallLimiter } from '../../lib/registry/call-limit';
import type { AuthInfo, RequestContext } from '../../lib/registry/request-context';
import { createApp, post, rpc } from '../helpers/create-app';
import { testContext } from '../helpers/context';

function caller(auth: AuthInfo | undefined, sessionId: string | undefined, clientAddress?: string): RequestContext {
  const ctx = Object.create(testContext()) as RequestContext;
  // clientAddress is a getter on HandlerContext: defined over it, as auth and sessionId are.
  return Object.defineProperties(ctx, { auth: { value: auth }, sessionId: { value: sessionId }, clientAddress: { value: clientAddress } });
}

describe('createCallLimiter', () => {
  it('allows `limit` calls per window and per caller, then says how long to wait, then resets', () => {
    let time = 1_000_000;
    const limiter = createCallLimiter({ limit: 2, windowMs: 10_000 }, "tool 'x'", () => time);
    const alice = caller({ subject: 'alice', scopes: [] }, 's1');
    const bob = caller({ subject: 'bob', scopes: [] }, 's1');
    expect([limiter.take(alice), limiter.take(alice), limiter.take(alice)]).toEqual([undefined, undefined, 10]);
    expect(limiter.take(bob)).toBeUndefined();
    time += 7_500;
    expect(limiter.take(alice)).toBe(3);
    time += 2_500;
    expect(limiter.take(alice)).toBeUndefined();
  });

  it('sweeps ended windows at most once per window, so a call never walks every caller while all windows run', () => {
    let time = 1_000_000;
    const limiter = createCallLimiter({ limit: 1, windowMs: 10_000 }, "tool 'x'", () => time);
    for (let i = 0; i <= 10_001; i++) limiter.take(caller(undefined, `s${i}`));
    const walks = jest.spyOn(Map.prototype, Symbol.iterator);
    try {
      for (let i = 0; i < 100; i++) limiter.take(caller(undefined, `late${i}`));
      expect(walks.mock.calls.length).toBeLessThanOrEqual(1);
      // Once the windows ended, the next call sweeps them: the callers count afresh.
      time += 10_000;
      walks.mockClear();
      expect(limiter.take(caller(undefined, 's0'))).toBeUndefined();
      expect(walks).toHaveBeenCalledTimes(1);
    } finally {
      walks.mockRestore();
    }
  });

  it('counts callers without auth by session', () => {
    const limiter = createCallLimiter({ limit: 1, windowMs: 60_000 }, "tool 'x'");
    expect(limiter.take(caller(undefined, 'a'))).toBeUndefined();
    expect(limiter.take(caller(undefined, 'b'))).toBeUndefined();
    expect(limiter.take(caller(undefined, 'a'))).toBe(60);
  });

  it('counts callers without auth or session (2026 requests, stateless 2025) by address, IPv6 by /56', () => {
    const limiter = createCallLimiter({ limit: 1, windowMs: 60_000 }, "tool 'x'");
    expect(limiter.take(caller(undefined, undefined, '10.0.0.1'))).toBeUndefined();
    expect(limiter.take(caller(undefined, undefined, '10.0.0.2'))).toBeUndefined();
    expect(limiter.take(caller(undefined, undefined, '10.0.0.1'))).toBe(60);
    expect(limiter.take(caller(undefined, undefined, '2001:db8:0:1::1'))).toBeUndefined();
    expect(limiter.take(caller(undefined, undefined, '2001:db8:0:2::7'))).toBe(60);
    expect(limiter.take(caller(undefined, undefined, '2001:db8:1::1'))).toBeUndefined();
  });

  it.each([[{ limit: 0, windowMs: 1000 }], [{ limit: 1, windowMs: 0 }], [{ limit: 1.5, windowMs: 1000 }], [{ limit: 1 }], [undefined]])('refuses %p at registration', (options) => {
    expect(() => createCallLimiter(options as never, "tool 'x'")).toThrow(
      expect.objectContaining({ code: 'ERR_MCP_INVALID_DEFINITION', message: "mcpRouter: tool 'x' rateLimit must be { limit, windowMs } with positive integers" }),
    );
  });
});

describe('a tool rateLimit over HTTP', () => {
  it('answers the call past the limit with an isError result, and does not run the handler', async () => {
    const handler = jest.fn(() => 'exported');
    const app = createApp({ rateLimit: false }, (mcp) => mcp.tool({ name: 'export', description: 'Costly export', rateLimit: { limit: 1, windowMs: 60_000 }, handler }));
    const call = (id: number) => post(app, rpc('tools/call', { name: 'export', arguments: {} }, id), { 'MCP-Protocol-Version': '2025-11-25' });
    expect((await call(1)).body.result).toEqual({ content: [{ type: 'text', text: 'exported' }] });
    expect((await call(2)).body.result).toEqual({ content: [{ type: 'text', text: "Tool 'export' is over its rate limit; try again in 60 s" }], isError: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });
});
