// Scenario `session-per-call`'s "other service": a node:http server answering every request with a small JSON.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveForBench } from './control';

serveForBench((req: IncomingMessage, res: ServerResponse) => {
  const body = JSON.stringify({ rate: 1.25, url: req.url });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
