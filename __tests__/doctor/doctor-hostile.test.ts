// The doctor against servers that misbehave on purpose: terminal escapes in what they say, silence past the run's
// deadline, a port that does not speak TLS, credentials in the URL, and a body larger than the doctor reads.

import http from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { send } from '../../lib/doctor/http';
import { post } from '../../lib/doctor/mcp';
import { formatJson, formatText } from '../../lib/doctor/report';
import { runDoctor, type Report } from '../../lib/doctor/run';
import { Signal, within } from '../helpers/events';
import { closeAll, endpointOf, serve, severities, started, testSettings } from './servers';

afterAll(closeAll);

/** A TCP server that runs `onSocket` for each connection, its sockets destroyed when the file's servers close. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<{ port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  started.push({
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return { port: (server.address() as AddressInfo).port, sockets };
}

const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('the text report neutralises what a server says', () => {
  const hostile = '\u001b[2J\u001b[H\r\n  ✓ all good, exit 0  [card.remotes]\u001b]0;pwned\u0007\u009b31m\u007f';

  it('escapes control characters and keeps a newline from starting a line of the report', () => {
    const report: Report = {
      url: 'http://x/\u001b[31m',
      exitCode: 1,
      findings: [
        { id: 'reach.ok', severity: 'ok', summary: `reached ${hostile}` },
        { id: 'reach.server-error', severity: 'fail', summary: 'bad', detail: hostile, fix: hostile },
      ],
    };
    const text = formatText(report, (page) => page);
    expect(text).not.toMatch(CONTROL);
    expect(text).not.toMatch(/^ {0,4}✓ all good/m);
    expect(text).toContain('\\u001b[2J');
    expect(text).toContain('\\u009b31m');
    // --json keeps the text as it came, every control character escaped (DEL and C1 too, which JSON allows raw).
    const json = formatJson(report);
    expect(json).not.toMatch(CONTROL);
    expect((JSON.parse(json) as Report).findings[0]?.summary).toBe(`reached ${hostile}`);
  });

  it('end to end: a server whose errors carry escapes', async () => {
    const message = JSON.stringify(hostile);
    const listening = await serve((_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(`{"jsonrpc":"2.0","id":100,"error":{"code":-32000,"message":${message}}}`);
    });
    const report = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
    expect(JSON.stringify(report.findings)).toContain('\\u001b');
    const text = formatText(report, (page) => page);
    expect(text).not.toMatch(CONTROL);
    expect(text).not.toMatch(/^ {0,4}✓ all good/m);
  });
});

describe("the run's deadline", () => {
  it('ends every request in flight: a server that never answers holds no connection past it', async () => {
    const closed = new Signal();
    // Reading (and dropping) what comes, so the client's close is seen.
    const silent = await tcpServer((socket) => socket.on('close', closed.notify).resume());
    const settings = { ...testSettings({ timeoutMs: 120_000 }), deadlineMs: 300 };
    const startedAt = performance.now();
    const report = await within(
      runDoctor({ url: new URL(`http://127.0.0.1:${silent.port}/mcp`), calls: [] }, settings),
      'the run to end at its deadline',
    );
    expect(performance.now() - startedAt).toBeLessThan(300 + 2_000);
    await closed.when(() => silent.sockets.size === 0, 'the silent server’s connections to close', 2_000);
    // Nothing was checked: never an exit 0.
    expect(severities(report)['reach.deadline']).toBe('fail');
    expect(report.exitCode).toBe(1);
  });
});

describe('a port that does not speak TLS', () => {
  it.each([
    [
      'a plain http server',
      (socket: Socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')),
    ],
    ['a server answering garbage', (socket: Socket) => socket.once('data', () => socket.end('garbage garbage\r\n'))],
  ])('%s: tls.not-tls, and the run stops with exit 1', async (_name, onSocket) => {
    const { port } = await tcpServer(onSocket);
    const report = await runDoctor({ url: new URL(`https://127.0.0.1:${port}/mcp`), calls: [] }, testSettings());
    expect(severities(report)).toMatchObject({ 'tls.not-tls': 'fail', 'reach.stopped': 'info' });
    expect(severities(report)['tls.untrusted']).toBeUndefined();
    expect(report.exitCode).toBe(1);
  });
});

it('credentials in the URL are neither sent nor printed', async () => {
  const authorizations: (string | undefined)[] = [];
  const listening = await serve((req: http.IncomingMessage, res: http.ServerResponse) => {
    authorizations.push(req.headers.authorization);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
  });
  const url = endpointOf(listening);
  url.username = 'alice';
  url.password = 'hunter2';
  const report = await runDoctor({ url, calls: [] }, testSettings());
  expect(report.url).toBe(endpointOf(listening).href);
  expect(severities(report)['reach.userinfo']).toBe('info');
  for (const printed of [formatJson(report), formatText(report, (page) => page)]) {
    expect(printed).not.toContain('hunter2');
    expect(printed).not.toContain('alice');
  }
  expect(authorizations.length).toBeGreaterThan(0);
  expect(authorizations.filter(Boolean)).toEqual([]);
});

it('reads a body up to maxBytes exactly, whatever the size of the pieces, and no further', async () => {
  const listening = await serve((_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    // 1 MB in 64 KB pieces of a two-byte character, so a cut falls inside pieces and characters.
    for (let i = 0; i < 16; i++) res.write('é'.repeat(32 * 1024));
    res.end();
  });
  const reply = await send({ timeoutMs: 5_000, maxBytes: 100_001 }, { method: 'GET', url: endpointOf(listening) });
  expect(reply.truncated).toBe(true);
  expect(reply.body).toBe('é'.repeat(50_000));
});

describe('a body cut at the byte limit is parsed no further than its last whole part', () => {
  const huge = (type: string, start: string) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': type });
    res.write(start);
    // Deeply nested JSON, endless: parsing a cut piece of it would cost many times its bytes.
    const pump = (): void => {
      while (!res.destroyed) if (!res.write('['.repeat(16 * 1024))) return void res.once('drain', pump);
    };
    pump();
  };
  const ctx = (port: number) => ({
    target: { url: new URL(`http://127.0.0.1:${port}/mcp`), calls: [] },
    http: { timeoutMs: 5_000, maxBytes: 256 * 1024 },
  });
  afterEach(() => jest.restoreAllMocks());

  it('JSON: not parsed at all', async () => {
    const listening = await serve(huge('application/json', ''));
    const parse = jest.spyOn(JSON, 'parse');
    const reply = await post(ctx(listening.port), 'ping', {}, 1);
    expect(reply.http.truncated).toBe(true);
    expect(reply).toMatchObject({ format: 'other', messages: [] });
    expect(parse.mock.calls.filter(([text]) => text.length > 1024)).toEqual([]);
  });

  it('SSE: the whole events read, the cut one left out', async () => {
    const whole = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n';
    const listening = await serve(huge('text/event-stream', `${whole}data: `));
    const parse = jest.spyOn(JSON, 'parse');
    const reply = await post(ctx(listening.port), 'ping', {}, 1);
    expect(reply.http.truncated).toBe(true);
    expect(reply.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: {} }]);
    expect(parse.mock.calls.filter(([text]) => text.length > 1024)).toEqual([]);
  });
});
