// Server (a), the floor: bare Express that parses JSON and answers with hand-written MCP replies, no MCP library.
// It keeps sessions in a Map of { createdAt } (the least a session server can keep), and streams `count` as
// 100 hand-written SSE progress events and the result: the bare-Express SSE floor of scenario 2. A 2026-07-28
// request (its protocol version in `params._meta`, scenarios 1m and 2m) gets the result shape that revision
// asks for, so that the floor writes the same reply as the servers it is compared with. A GET, and a POST of
// `subscriptions/listen` (with its acknowledgment), open an SSE stream held until the client hangs up: the floor of
// scenario `streams` (bytes per open stream). With argv[2] `recording` it is (ar), the floor of a resumable stream:
// every SSE event also gets an id and its JSON text is kept, the 100 most recent streams' events, as a server that
// lets a client resume with `Last-Event-ID` must keep them (MCP transports › Resumability).

import { randomBytes, randomUUID } from 'node:crypto';
import express, { type Response } from 'express';
import { serveForBench } from './control';
import { addResult, COUNT_RESULT, PROGRESS_STEPS, SERVER_INFO, shapedFor } from './common';

const sessions = new Map<string, { createdAt: number }>();

/** (ar): recorded streams, oldest first, each its events' JSON text; the 100 most recent are kept. */
const RECORDING = process.argv[2] === 'recording';
const RECORDED_STREAMS = 100;
const recorded = new Map<string, string[]>();

/** Writes SSE events, and in (ar) records each under `<stream>.<seq>`. */
class SseWriter {
  readonly #res: Response;
  readonly #streamId: string | undefined;
  readonly #events: string[] = [];

  constructor(res: Response) {
    this.#res = res;
    if (!RECORDING) return;
    this.#streamId = randomBytes(12).toString('base64url');
    recorded.set(this.#streamId, this.#events);
    if (recorded.size > RECORDED_STREAMS) recorded.delete(recorded.keys().next().value as string);
  }

  write(message: object): void {
    const json = JSON.stringify(message);
    if (this.#streamId === undefined) {
      this.#res.write(`event: message\ndata: ${json}\n\n`);
      return;
    }
    this.#events.push(json);
    this.#res.write(`id: ${this.#streamId}.${this.#events.length}\nevent: message\ndata: ${json}\n\n`);
  }
}

function sseEvent(res: Response, message: object): void {
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

function streamCount(res: Response, id: unknown, params: Record<string, any>): void {
  const progressToken = params._meta?.progressToken;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  const sse = new SseWriter(res);
  for (let progress = 1; progress <= PROGRESS_STEPS; progress++) {
    sse.write({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken, progress, total: PROGRESS_STEPS },
    });
  }
  sse.write({ jsonrpc: '2.0', id, result: shapedFor(params, COUNT_RESULT) });
  res.end();
}

const SSE_HEAD = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

/** A hand-written listen stream: the acknowledgment with the filter as asked, then nothing until the client hangs up. */
function holdListen(res: Response, id: unknown, params: Record<string, any> | undefined): void {
  res.writeHead(200, SSE_HEAD);
  sseEvent(res, {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id }, notifications: params?.notifications },
  });
}

const app = express();
app.post('/mcp', express.json(), (req, res) => {
  const { id, method, params } = req.body as { id?: unknown; method?: string; params?: Record<string, any> };
  if (id === undefined) {
    res.status(202).end();
  } else if (method === 'initialize') {
    const sessionId = randomUUID();
    sessions.set(sessionId, { createdAt: Date.now() });
    res.set('Mcp-Session-Id', sessionId).json({
      jsonrpc: '2.0',
      id,
      result: { protocolVersion: params?.protocolVersion, capabilities: { tools: {} }, serverInfo: SERVER_INFO },
    });
  } else if (method === 'subscriptions/listen') {
    holdListen(res, id, params);
  } else if (method === 'tools/call' && params?.name === 'count') {
    streamCount(res, id, params);
  } else if (method === 'tools/call') {
    res.json({ jsonrpc: '2.0', id, result: shapedFor(params, addResult(params?.arguments?.a, params?.arguments?.b)) });
  } else {
    res.status(400).json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
});
app.get('/mcp', (_req, res) => {
  res.writeHead(200, SSE_HEAD).flushHeaders();
});
app.delete('/mcp', (req, res) => {
  res.status(sessions.delete(String(req.headers['mcp-session-id'])) ? 200 : 404).end();
});

serveForBench(app);
