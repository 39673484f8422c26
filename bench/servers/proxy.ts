// The Redis scenario's load balancer: a plain round-robin HTTP proxy with no stickiness (the idea of the
// multi-instance tests' proxy), streaming both ways so SSE passes. argv: the upstream ports.

import { Agent, request, type RequestListener } from 'node:http';
import { serveForBench } from './control';

const ports = process.argv.slice(2).map(Number);
if (ports.length === 0 || ports.some((port) => !Number.isInteger(port)))
  throw new Error('usage: servers/proxy.ts <port>…');
// Keep-alive to the instances, as a real balancer pools its upstream connections. An idle pooled socket is closed
// after 4 s, before the instance's server closes it (Node's keepAliveTimeout, 5 s): else a request sent on a socket
// the instance is closing at that moment fails (ECONNRESET), a proxy fault, not the router's: the likely cause of
// run 2's two 502s in 116,471 requests (bench/README.md). A socket in use is never closed by this timeout.
const agent = new Agent({ keepAlive: true, timeout: 4_000 });
let next = 0;

const proxy: RequestListener = (req, res) => {
  const port = ports[next++ % ports.length] as number;
  const upstream = request(
    { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: `bad gateway: ${err.code ?? err.message}${upstream.reusedSocket ? ' (on a reused socket)' : ''}`,
      }),
    );
  });
  // A client that goes away (a GET stream closed) closes its upstream request too.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
};

serveForBench(proxy);
