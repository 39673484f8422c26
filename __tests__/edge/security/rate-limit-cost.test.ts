// A request over the rate limit costs less than one served: at most a small prefix of its body is read, none of it parsed whole.

import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { idInJsonPrefix, REFUSED_ID_PREFIX_BYTES } from '../../../lib/edge/security/rate-limit';
import { createApp, MCP_ACCEPT, post, rpc } from '../../helpers/create-app';
import { RawConnection } from '../../helpers/raw-connection';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  jest.restoreAllMocks();
  for (let cleanup = cleanups.pop(); cleanup !== undefined; cleanup = cleanups.pop()) await cleanup();
});

const POST_HEADERS = { 'Content-Type': 'application/json', Accept: MCP_ACCEPT };
const MB4 = 4 * 1024 * 1024;

/** A stateless router allowing one request per window, whose one request is spent already. */
async function spent(
  options: Parameters<typeof createApp>[0] = {},
  host?: (app: Express) => Express,
): Promise<Express> {
  const inner = createApp({ rateLimit: { limit: 1 }, ...options });
  const app = host ? host(inner) : inner;
  expect((await post(app, rpc('ping'))).status).toBe(200);
  return app;
}

async function listen(app: Express): Promise<number> {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

function connect(port: number): RawConnection {
  const connection = new RawConnection(port);
  cleanups.push(() => connection.close());
  return connection;
}

/** A tools/call of about `bytes` bytes, its id written before or after its params. */
function bigCall(bytes: number, id: string | number, idFirst: boolean): string {
  const params = JSON.stringify({ name: 'echo', arguments: { pad: 'x'.repeat(bytes) } });
  return idFirst
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":${params}}`
    : `{"jsonrpc":"2.0","method":"tools/call","params":${params},"id":${JSON.stringify(id)}}`;
}

describe('idInJsonPrefix', () => {
  it.each([
    ['a whole request', '{"jsonrpc":"2.0","id":7,"method":"ping"}', 7],
    ['a string id', '{"id":"a-1","method":"ping"}', 'a-1'],
    ['an id with escapes', '{"id":"a\\"b\\u00e9","method":"ping"}', 'a"bé'],
    ['an escaped key', '{"\\u0069d":3}', 3],
    ['white space and a byte-order mark', '\ufeff \n{ "method" : "ping" ,\t"id" : -2.5e1 }', -25],
    ['an id after nested values', '{"params":{"id":1,"list":[{"id":2},"]}"]},"id":9}', 9],
    ['the last of two ids, as JSON.parse keeps', '{"id":1,"id":2}', 2],
    ['a cut before the id', '{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"xx', null],
    ['an id cut inside its string', '{"id":"abc', null],
    ['a number id cut at the end (it may go on)', '{"id":12', null],
    ['an id before the cut', '{"jsonrpc":"2.0","id":12,"params":{"pad":"xx', 12],
    ['a null id', '{"id":null}', null],
    ['an object id', '{"id":{"a":1}}', null],
    ['a boolean id', '{"id":true}', null],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null],
    ['no object', '"id"', null],
    ['no JSON', 'id=1', null],
    ['an empty text', '', null],
    ['a nested id only', '{"params":{"id":5}}', null],
    ['a member without a colon', '{"id" 5}', null],
  ])('%s', (_name, text, expected) => {
    expect(idInJsonPrefix(text)).toBe(expected);
  });
});

describe('a POST over the rate limit', () => {
  it('with a 4 MB body is answered 429 with its id, and JSON.parse never sees more than the prefix', async () => {
    const app = await spent();
    const parse = jest.spyOn(JSON, 'parse');
    const res = await post(app, bigCall(MB4 - 1_000, 'big-1', true));
    const longest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThanOrEqual(REFUSED_ID_PREFIX_BYTES);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'big-1',
      error: { code: -32000, message: expect.stringMatching(/^Too Many Requests/) },
    });
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers.ratelimit).toMatch(/^"1-in-1min"; r=0; t=\d+$/);
    expect(res.headers['ratelimit-policy']).toMatch(/^"1-in-1min"; q=1; w=60; pk=:/);
  });

  it('is answered once the prefix has arrived, before the rest of its body is sent; the rest is dropped and the connection serves its next request', async () => {
    const port = await listen(await spent());
    const connection = connect(port);
    const body = Buffer.from(bigCall(MB4 - 1_000, 7, true));
    // The headers and the first 8 KB: a server reading the whole body would wait here for the other 4 MB.
    connection.sendHead('POST', { ...POST_HEADERS, 'Content-Length': body.length }, body.subarray(0, 8_192));
    const refused = await connection.response('POST');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32000, message: expect.stringMatching(/^Too Many Requests/) },
    });
    expect(refused.headers.connection).toBe('keep-alive');
    await connection.sendBody(body.subarray(8_192));
    // The rest was read off the socket and dropped: the next request on it is parsed and answered (429 again).
    const next = await connection.exchange('POST', POST_HEADERS, JSON.stringify(rpc('ping', undefined, 8)));
    expect(next.status).toBe(429);
    expect(JSON.parse(next.body).id).toBe(8);
  });

  it('whose id comes after a params larger than the prefix (as the official SDK writes it) gets id null', async () => {
    const app = await spent();
    const res = await post(app, bigCall(2 * REFUSED_ID_PREFIX_BYTES, 5, false));
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^Too Many Requests/) },
    });
  });

  it.each([
    ['a small request', JSON.stringify(rpc('tools/list', undefined, 'small-1')), 'small-1'],
    ['a request with its id last, within the prefix', bigCall(1_000, 11, false), 11],
    ['a batch', JSON.stringify([rpc('ping', undefined, 1), rpc('ping', undefined, 2)]), null],
    ['a body malformed after its id (only its start is read)', '{"id": 3, oops', 3],
  ])('echoes the id it can read: %s', async (_name, body, id) => {
    const res = await post(await spent(), body);
    expect(res.status).toBe(429);
    expect(res.body.id).toBe(id);
  });

  it('with a non-JSON Content-Type is not read, and gets id null', async () => {
    const parse = jest.spyOn(JSON, 'parse');
    const res = await post(await spent(), JSON.stringify(rpc('ping', undefined, 4)), { 'Content-Type': 'text/plain' });
    expect(res.status).toBe(429);
    expect(res.body.id).toBeNull();
    expect(parse.mock.calls.map(([text]) => String(text))).not.toContain(JSON.stringify(rpc('ping', undefined, 4)));
  });

  it('declared larger than bodyLimit is not read at all: 429 with Connection: close, as its 413 would be', async () => {
    const port = await listen(await spent({ bodyLimit: 1_024 }));
    const connection = connect(port);
    // Not one byte of the body is sent: the answer cannot depend on reading it.
    connection.sendHead('POST', { ...POST_HEADERS, 'Content-Length': 2_048 });
    const refused = await connection.response('POST');
    expect(refused.status).toBe(429);
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^Too Many Requests/) },
    });
  });

  it('takes the id from a body the host app parsed (express.json() before the router)', async () => {
    const app = await spent({}, (inner) => express().use(express.json()).use(inner));
    const res = await post(app, bigCall(1_000, 'parsed-1', false));
    expect(res.status).toBe(429);
    expect(res.body.id).toBe('parsed-1');
  });
});
