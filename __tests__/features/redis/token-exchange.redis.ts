// Exchanged tokens across instances on one Redis: an exchange made on one gateway instance is a hit on another (the IdP is called once).

import { redisStore } from '../../../lib/redis';
import { GATEWAY_AUDIENCE, startExchangeIdp, type ExchangeIdp } from '../../helpers/exchange-idp';
import { connectCaller, seen, startGateway, startUpstream, type TestUpstream } from '../gateway/exchange-fixture';
import { useRedis } from './redis-server';

const redis = useRedis();
let idp: ExchangeIdp;
let upstream: TestUpstream;

beforeAll(async () => {
  idp = await startExchangeIdp();
  upstream = await startUpstream(idp, ['2025', '2026']);
});

afterAll(async () => {
  await upstream?.close();
  await idp?.close();
});

it('a token exchanged on instance A is used by instance B without a second exchange', async () => {
  const prefix = `exchange-${Date.now()}:`;
  const store = () => ({ store: redisStore({ url: redis.url, prefix }) });
  const a = await startGateway(idp, { up: upstream.url }, {}, store());
  redis.closeAfter(a);
  const b = await startGateway(idp, { up: upstream.url }, {}, store());
  redis.closeAfter(b);
  const token = await idp.mint('roamer', GATEWAY_AUDIENCE);
  const onA = await connectCaller(a.url, token, '2025');
  redis.closeAfter(onA);
  const onB = await connectCaller(b.url, token, '2026');
  redis.closeAfter(onB);

  const before = idp.tokenRequests;
  const first = seen(await onA.call('up__whoami'));
  const second = seen(await onB.call('up__whoami'));
  expect(first.subject).toBe('roamer');
  expect(second.token).toBe(first.token);
  expect(idp.tokenRequests).toBe(before + 1);
});
