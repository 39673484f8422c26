// A hostile or broken IdP behind an upstream's token exchange: every failure is the caller's isError naming the upstream, with no token and no IdP text; the IdP's text only in the server log; nothing hangs.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GATEWAY_AUDIENCE, startExchangeIdp, type ExchangeIdp } from '../helpers/exchange-idp';
import { freePort } from '../helpers/ports';
import {
  connectCaller,
  startGateway,
  startUpstream,
  type Caller,
  type TestGateway,
  type TestUpstream,
} from '../features/gateway/exchange-fixture';

const IDP_SECRET_TEXT = 'idp-internal-detail-7f3a';
const FAILED = 'Upstream "up" could not get a token for the caller';

let idp: ExchangeIdp;
let upstream: TestUpstream;
let gateway: TestGateway;
let down: TestGateway;
const callers: Caller[] = [];

beforeAll(async () => {
  idp = await startExchangeIdp();
  upstream = await startUpstream(idp, ['2025', '2026']);
  gateway = await startGateway(idp, { up: upstream.url }, { timeoutMs: 500 });
  down = await startGateway(
    idp,
    { up: upstream.url },
    { tokenEndpoint: `http://127.0.0.1:${await freePort()}/token`, timeoutMs: 500 },
  );
});

afterEach(async () => {
  idp?.misbehave(undefined);
  await Promise.all(callers.splice(0).map((caller) => caller.close()));
});

afterAll(async () => {
  await Promise.all([gateway?.close(), down?.close()]);
  await upstream?.close();
  await idp?.close();
});

const json = (res: ServerResponse, body: unknown, status = 200): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

const ROWS: Array<[string, (req: IncomingMessage, res: ServerResponse) => void, RegExp]> = [
  [
    'an answer of 10 MB',
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"access_token":"${'x'.repeat(10 * 1024 * 1024)}"}`);
    },
    /more than 65536 bytes/,
  ],
  ['no answer at all', () => undefined, /did not answer within 500 ms/],
  [
    'an answer that is not JSON',
    (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>'),
    /something other than JSON/,
  ],
  ['no access_token', (_req, res) => json(res, { token_type: 'Bearer', expires_in: 60 }), /without an access_token/],
  [
    'a 400 with error text',
    (_req, res) => json(res, { error: 'invalid_grant', error_description: IDP_SECRET_TEXT }, 400),
    new RegExp(`HTTP 400 invalid_grant: ${IDP_SECRET_TEXT}`),
  ],
  [
    'a token_type other than Bearer',
    (_req, res) => json(res, { access_token: 'opaque-token', token_type: 'N_A', expires_in: 60 }),
    /not a Bearer token/,
  ],
];

describe('a broken IdP', () => {
  it.each(ROWS)('%s: isError naming the upstream, the reason in the log only', async (_name, handler, logged) => {
    idp.misbehave(handler);
    const subject = `victim-${callers.length}-${Math.random()}`;
    const caller = await connectCaller(gateway.url, await idp.mint(subject, GATEWAY_AUDIENCE), '2026');
    callers.push(caller);
    gateway.logger.error.mockClear();
    const result = await caller.call('up__whoami');
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: FAILED }] });
    expect(JSON.stringify(result)).not.toContain(caller.token);
    expect(JSON.stringify(result)).not.toContain(IDP_SECRET_TEXT);
    expect(gateway.logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringMatching(logged) }),
      "mcpRouter: upstream 'up': token exchange failed",
    );
    const loggedText = JSON.stringify(gateway.logger.error.mock.calls.map(([err]) => (err as Error).message));
    expect(loggedText).not.toContain(caller.token);
    expect(upstream.tokens).not.toContain(caller.token);
  });

  it('a token for another audience (a JWT whose aud is not the upstream): refused before it is sent', async () => {
    const other = await idp.mint('someone', 'https://other.test/mcp');
    idp.misbehave((_req, res) => json(res, { access_token: other, token_type: 'Bearer', expires_in: 60 }));
    const caller = await connectCaller(gateway.url, await idp.mint('aud-victim', GATEWAY_AUDIENCE), '2025');
    callers.push(caller);
    const result = await caller.call('up__whoami');
    expect(result).toMatchObject({ isError: true, content: [{ text: FAILED }] });
    expect(upstream.tokens).not.toContain(other);
    expect(gateway.logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringMatching(/for another audience/) }),
      expect.any(String),
    );
  });

  it('an IdP that is down: isError naming the upstream', async () => {
    const caller = await connectCaller(down.url, await idp.mint('down-victim', GATEWAY_AUDIENCE), '2025');
    callers.push(caller);
    const result = await caller.call('up__whoami');
    expect(result).toMatchObject({ isError: true, content: [{ text: FAILED }] });
    expect(down.logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringMatching(/could not be reached/) }),
      expect.any(String),
    );
  });

  it('a read through the upstream: -32603 with the same message, no token, no IdP text', async () => {
    idp.misbehave((_req, res) => json(res, { error: 'invalid_grant', error_description: IDP_SECRET_TEXT }, 400));
    const caller = await connectCaller(gateway.url, await idp.mint('reader', GATEWAY_AUDIENCE), '2025');
    callers.push(caller);
    const error = await caller.read('up+docs://readme').then(
      () => undefined,
      (err: unknown) => err as { code: number; message: string },
    );
    expect(error).toMatchObject({ code: -32603 });
    expect(error?.message).toContain(FAILED);
    expect(error?.message).not.toContain(IDP_SECRET_TEXT);
    expect(error?.message).not.toContain('Upstream "up": Upstream');
  });
});
