// A plain round-robin HTTP proxy (no stickiness), to run two demo instances on Redis behind one address: `tsx demo/proxy.ts 3001 3002`.

import { createServer, request, type Server } from 'node:http';

/** One forwarded request, for whoever watches (the multi-instance tests record them). */
export interface RoutedRequest {
  /** Index of the target in `targets`. */
  readonly target: number;
  readonly method: string;
  readonly body: Buffer;
}

/**
 * A proxy sending each request to the next target in turn (SSE and every other body streamed both ways). A target
 * that is down gets its turn anyway and the client sees a 502, as behind a balancer without health checks.
 *
 * @example
 * ```ts
 * roundRobinProxy([{ port: 3001 }, { port: 3002 }]).listen(3000);
 * ```
 */
export function roundRobinProxy(
  targets: ReadonlyArray<{ readonly host?: string; readonly port: number }>,
  onRoute: (routed: RoutedRequest) => void = () => undefined,
  /** Told when the target's answer starts (its status and headers): for a stream, once the target holds it open. */
  onAnswer: (routed: RoutedRequest, status: number) => void = () => undefined,
): Server {
  let next = 0;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = next++ % targets.length;
      const target = targets[index]!;
      const body = Buffer.concat(chunks);
      const routed: RoutedRequest = { target: index, method: req.method ?? '', body };
      onRoute(routed);
      const forwarded = request(
        {
          host: target.host ?? '127.0.0.1',
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          onAnswer(routed, answer.statusCode ?? 502);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":"bad gateway: the instance did not answer"}');
      });
      res.on('close', () => forwarded.destroy());
      forwarded.end(body);
    });
  });
}

if (require.main === module) {
  const ports = process.argv.slice(2).map(Number);
  const listen = Number(process.env.PORT ?? 3000);
  if (ports.length === 0 || ports.some((port) => !Number.isInteger(port))) {
    console.error('usage: PORT=3000 tsx demo/proxy.ts <instance port> <instance port> …');
    process.exit(1);
  }
  roundRobinProxy(ports.map((port) => ({ port }))).listen(listen, '127.0.0.1', () => {
    console.log(
      `round-robin proxy on http://127.0.0.1:${listen}/mcp → ${ports.map((port) => `127.0.0.1:${port}`).join(', ')}`,
    );
  });
}
