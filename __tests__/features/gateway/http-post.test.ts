// The gateway's POSTs to an HTTP upstream on the client's own keep-alive pool: connections reused, replaced when the upstream ends one, ended before the upstream's idle timeout, closed with the client; a redirect still refused.

import type { Socket } from 'node:net';
import { mcpRouter } from '../../../lib';
import { within } from '../../helpers/events';
import {
  clientFor,
  clientSocketsClosed,
  closeAfterEach,
  LABEL,
  registerTools,
  rejection,
  serve,
  text,
  toolNames,
} from './upstreams';

closeAfterEach();

/** An upstream (this router, both eras) that counts the TCP connections its requests came on. */
async function countingUpstream(closeFirst = false) {
  const sockets = new Set<Socket>();
  const upstream = await serve((app) => {
    app.use('/mcp', (req, res, next) => {
      // The first answer ends its connection (`Connection: close`, RFC 9112 § 9.6): the client must not reuse it.
      if (closeFirst && sockets.size === 0) res.set('Connection', 'close');
      sockets.add(req.socket);
      next();
    });
    const mcp = mcpRouter({ name: 'upstream', version: '1.0.0', rateLimit: false });
    registerTools(mcp);
    app.use('/mcp', mcp);
  });
  return { upstream, sockets };
}

describe('gateway POSTs to an HTTP upstream', () => {
  it('sends the handshake and every sequential call on one keep-alive connection', async () => {
    const { upstream, sockets } = await countingUpstream();
    const client = clientFor(upstream);
    for (let call = 0; call < 5; call++)
      expect(text(await client.request('tools/call', { name: 'add', arguments: { a: call, b: 1 } }))).toBe(
        String(call + 1),
      );
    expect(sockets.size).toBe(1);
  });

  it('opens connections for calls in flight at once and reuses them for the next ones', async () => {
    const { upstream, sockets } = await countingUpstream();
    const client = clientFor(upstream);
    const batch = (): Promise<unknown[]> =>
      Promise.all(
        Array.from({ length: 4 }, (_, index) =>
          client.request('tools/call', { name: 'add', arguments: { a: index, b: 0 } }),
        ),
      );
    expect((await batch()).map(text)).toEqual(['0', '1', '2', '3']);
    const opened = sockets.size;
    expect(opened).toBeLessThanOrEqual(4);
    expect((await batch()).map(text)).toEqual(['0', '1', '2', '3']);
    expect(sockets.size).toBe(opened);
  });

  it('does not reuse a connection the upstream closed after its answer, and the next call succeeds on a new one', async () => {
    const { upstream, sockets } = await countingUpstream(true);
    const client = clientFor(upstream);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }))).toBe('4');
    expect(sockets.size).toBe(2);
  });

  it("ends an idle connection before the upstream's own Keep-Alive timeout, and the next call opens another", async () => {
    const sockets = new Set<Socket>();
    const upstream = await serve((app) => {
      app.use('/mcp', (req, res, next) => {
        sockets.add(req.socket);
        // RFC 9112 appendix C.2.2: the server keeps an idle connection 2 s; the client must end it sooner.
        res.set('Keep-Alive', 'timeout=2');
        next();
      });
      const mcp = mcpRouter({ name: 'upstream', version: '1.0.0', rateLimit: false });
      registerTools(mcp);
      app.use('/mcp', mcp);
    });
    const client = clientFor(upstream);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    const opened = sockets.size;
    // Within 1.9 s: the upstream (Node's default `keepAliveTimeout`) would end it after 5 s, and announced 2.
    await within(clientSocketsClosed(upstream.port), 'the client to end the idle connection', 1_900);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }))).toBe('4');
    expect(sockets.size).toBe(opened + 1);
  });

  it('close() ends the pooled connections', async () => {
    const { upstream } = await countingUpstream();
    const client = clientFor(upstream);
    await client.request('tools/list', {});
    await client.close();
    await within(clientSocketsClosed(upstream.port), 'the pooled connections to close');
  });

  it('never sends a tools/call twice: a reused connection that breaks before any answer fails the call', async () => {
    let executed = 0;
    const upstream = await serve((app) => {
      // The upstream reads the call, may have run it, and drops the connection without an answer.
      app.use('/mcp', (req, res, next) => {
        const body = req.body as { method?: string; params?: { name?: string } };
        if (body.method !== 'tools/call' || body.params?.name !== 'drop') return next();
        executed++;
        req.socket.destroy();
      });
      const mcp = mcpRouter({ name: 'upstream', version: '1.0.0', rateLimit: false });
      registerTools(mcp);
      mcp.tool({ name: 'drop', description: 'Never answered', handler: () => 'unreachable' });
      app.use('/mcp', mcp);
    });
    const client = clientFor(upstream);
    // The handshake leaves an idle pooled connection: the call goes out on it.
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    const error = await rejection(client.request('tools/call', { name: 'drop', arguments: {} }));
    expect(error.message).toBe(`Upstream "${LABEL}" could not be reached`);
    expect(executed).toBe(1);
  });

  it('sends a list once more when a reused connection breaks before any answer (a repetition changes nothing)', async () => {
    let dropped = 0;
    const upstream = await serve((app) => {
      app.use('/mcp', (req, res, next) => {
        const body = req.body as { method?: string };
        if (body.method !== 'tools/list' || dropped > 0) return next();
        dropped++;
        req.socket.destroy();
      });
      const mcp = mcpRouter({ name: 'upstream', version: '1.0.0', rateLimit: false });
      registerTools(mcp);
      app.use('/mcp', mcp);
    });
    const client = clientFor(upstream);
    expect(text(await client.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } }))).toBe('2');
    expect(toolNames(await client.request('tools/list', {}))).toContain('add');
    expect(dropped).toBe(1);
  });

  it('refuses a redirect as fetch with redirect: error did: the upstream could not be reached', async () => {
    const upstream = await serve((app) => {
      app.post('/mcp', (_req, res) => res.redirect(307, '/elsewhere'));
      app.post('/elsewhere', (_req, res) => res.json({ jsonrpc: '2.0', id: 1, result: {} }));
    });
    const error = await rejection(clientFor(upstream).request('tools/list', {}));
    expect(error.message).toBe(`Upstream "${LABEL}" could not be reached`);
    expect(upstream.seen.map((request) => request.rpc)).toEqual(['server/discover']);
  });
});
