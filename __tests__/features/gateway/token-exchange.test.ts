// Calling upstreams as the caller (RFC 8693): the upstream sees a token exchanged for the caller, never the caller's own; cached per caller, exchanged anew on expiry and once on 401; both eras of caller and upstream.

import { GATEWAY_AUDIENCE, startExchangeIdp, type ExchangeIdp } from '../../helpers/exchange-idp';
import {
  connectCaller,
  seen,
  startGateway,
  startUpstream,
  UPSTREAM_AUDIENCE,
  type Caller,
  type TestGateway,
  type TestUpstream,
} from './exchange-fixture';

let idp: ExchangeIdp;
let modern: TestUpstream;
let legacy: TestUpstream;
let gateway: TestGateway;
const callers: Caller[] = [];

beforeAll(async () => {
  idp = await startExchangeIdp();
  modern = await startUpstream(idp, ['2025', '2026']);
  legacy = await startUpstream(idp, ['2025']);
  gateway = await startGateway(idp, { up: modern.url, old: legacy.url }, { scope: 'files:read' });
});

afterEach(async () => {
  await Promise.all(callers.splice(0).map((caller) => caller.close()));
  jest.restoreAllMocks();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([modern?.close(), legacy?.close()]);
  await idp?.close();
});

async function caller(subject: string, era: '2025' | '2026'): Promise<Caller> {
  const connected = await connectCaller(gateway.url, await idp.mint(subject, GATEWAY_AUDIENCE), era);
  callers.push(connected);
  return connected;
}

describe.each([
  ['a 2026 upstream', 'up'],
  ['a 2025 upstream (a session per caller)', 'old'],
] as const)('%s', (_name, prefix) => {
  const upstreamOf = (): TestUpstream => (prefix === 'up' ? modern : legacy);

  it.each(['2025', '2026'] as const)(
    'a %s caller: the upstream sees a token exchanged for the caller, never its own; the second call is a cache hit',
    async (era) => {
      const alice = await caller(`alice-${prefix}-${era}`, era);
      const before = idp.tokenRequests;
      const first = seen(await alice.call(`${prefix}__whoami`));
      expect(first).toMatchObject({ subject: `alice-${prefix}-${era}`, audience: UPSTREAM_AUDIENCE });
      expect(first.token).not.toBe(alice.token);
      expect(upstreamOf().tokens).not.toContain(alice.token);
      expect(idp.exchanges.at(-1)).toEqual({
        subject: `alice-${prefix}-${era}`,
        audience: UPSTREAM_AUDIENCE,
        resource: null,
        scope: 'files:read',
        requestedTokenType: 'urn:ietf:params:oauth:token-type:access_token',
        clientAuth: 'basic',
      });
      const second = seen(await alice.call(`${prefix}__whoami`));
      expect(second.token).toBe(first.token);
      expect(idp.tokenRequests).toBe(before + 1);
    },
  );

  it('two callers get two tokens, each for its own subject', async () => {
    const [ann, ben] = await Promise.all([caller(`ann-${prefix}`, '2025'), caller(`ben-${prefix}`, '2026')]);
    const [a, b] = await Promise.all([ann.call(`${prefix}__whoami`), ben.call(`${prefix}__whoami`)]);
    expect(seen(a).subject).toBe(`ann-${prefix}`);
    expect(seen(b).subject).toBe(`ben-${prefix}`);
    expect(seen(a).token).not.toBe(seen(b).token);
  });

  it('concurrent first calls of one caller share one exchange', async () => {
    const cat = await caller(`cat-${prefix}`, '2026');
    const before = idp.tokenRequests;
    const results = await Promise.all([1, 2, 3].map(() => cat.call(`${prefix}__whoami`)));
    expect(new Set(results.map((result) => seen(result).token)).size).toBe(1);
    expect(idp.tokenRequests).toBe(before + 1);
  });

  it('a token near its expiry is exchanged anew', async () => {
    const dan = await caller(`dan-${prefix}`, '2025');
    const before = idp.tokenRequests;
    const first = seen(await dan.call(`${prefix}__whoami`));
    // expires_in 3600, refreshBeforeSec 30: from 3570 s on it is exchanged again.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 3571_000);
    const later = seen(await dan.call(`${prefix}__whoami`));
    expect(idp.tokenRequests).toBe(before + 2);
    expect(later.token).not.toBe(first.token);
  });

  it("the upstream's 401: the token is dropped, exchanged once more and the call retried", async () => {
    const eve = await caller(`eve-${prefix}`, '2026');
    const first = seen(await eve.call(`${prefix}__whoami`));
    upstreamOf().revoked.add(first.token);
    const before = idp.tokenRequests;
    const retried = seen(await eve.call(`${prefix}__whoami`));
    expect(retried.subject).toBe(`eve-${prefix}`);
    expect(retried.token).not.toBe(first.token);
    expect(idp.tokenRequests).toBe(before + 1);
  });

  it('a second 401 is an isError result naming the upstream, without the token', async () => {
    const fay = await caller(`fay-${prefix}`, '2025');
    upstreamOf().refusedSubjects.add(`fay-${prefix}`);
    const before = idp.tokenRequests;
    const result = await fay.call(`${prefix}__whoami`);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toBe(`Upstream "${prefix}" refused the caller's exchanged token (HTTP 401)`);
    expect(idp.tokenRequests).toBe(before + 2);
  });
});

it('lists are fetched with the gateway’s own headers, not an exchanged token', async () => {
  const lister = await caller('lister-check', '2026');
  expect(gateway.mcp).toBeDefined();
  const result = await lister.call('up__whoami');
  expect(seen(result).subject).toBe('lister-check');
  expect(idp.exchanges.every((exchange) => exchange.subject !== 'gateway-lister')).toBe(true);
});
