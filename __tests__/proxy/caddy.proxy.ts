// Behind Caddy with TLS termination, with the Caddyfile docs/deployment.md shows: public URLs with `trust proxy`
// (forwarded headers a client forges are replaced), sign-in with the SDK, and progress one by one.

import { MCP_ACCEPT } from '../helpers/messages';
import type { McpRouter } from '../../lib';
import {
  discover,
  expectUrlsUnder,
  INITIALIZE,
  pacedTool,
  progressV1,
  signingIn,
  signInV1,
  STEPS,
  useProxy,
  whoami,
} from './checks';

jest.setTimeout(30_000);

const paced = pacedTool();
const proxy = useProxy({
  proxy: 'caddy',
  router: signingIn(),
  setup: (mcp: McpRouter) => {
    whoami(mcp);
    paced.setup(mcp);
  },
});

it('the challenge, the metadata and every endpoint name https://<public host>:<port>', async () => {
  expect(proxy().front.kind).toBe('caddy');
  await expectUrlsUnder(proxy(), proxy().url);
});

it('replaces the X-Forwarded-Host and X-Forwarded-Proto a client sends', async () => {
  const forged = { 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'http' };
  const { challenge, resource } = await discover(proxy(), forged);
  expect(challenge).toBe(`${proxy().url}/.well-known/oauth-protected-resource`);
  expect(resource.resource).toBe(proxy().url);
  const answer = await proxy().fetch(proxy().url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...forged },
    body: JSON.stringify(INITIALIZE),
  });
  expect(answer.status).toBe(401);
});

it('the SDK v1 client signs in through Caddy and calls a tool as the user', async () => {
  const client = await signInV1(proxy());
  expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice' });
  await client.close();
});

it('progress arrives one by one: Caddy flushes text/event-stream as it is written', async () => {
  const { arrivals } = await progressV1(proxy(), signInV1);
  expect(arrivals).toHaveLength(STEPS);
  const last = paced.emits[STEPS - 1]!;
  expect(arrivals.slice(0, -1).map((at) => at < last)).toEqual(Array(STEPS - 1).fill(true));
});
