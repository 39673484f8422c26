// Scenario `exchange`: the cost of a cached exchanged token (tokenExchange's hit path: the subject token's digest and one map lookup), in process, on the compiled router.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BUILD_DIR } from '../harness/build';
import type { BenchConfig } from '../harness/config';
import { median } from '../stats';

/** The figure the issue sets: a cache hit costs at most this, in µs. */
export const EXCHANGE_HIT_TARGET_MICROS = 5;
/** Hits timed per round, after as many untimed. */
const HITS = 200_000;

export interface ExchangeResults {
  /** µs per `tokenFor(ctx)` that finds its token cached, per round: the caller's `AuthInfo` seen before (a verifier's cache). */
  readonly microsPerHit: readonly number[];
  /** The same with a new `AuthInfo` per call (a verifier without a cache). */
  readonly microsPerHitDigested: readonly number[];
  readonly hits: number;
}

type Lib = typeof import('../../lib');

/** An IdP answering every exchange at once with one token valid for an hour: only the first call reaches it. */
async function fastIdp(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: 'exchanged', token_type: 'Bearer', expires_in: 3600 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Mounts an upstream whose `auth` is the exchange (that binds it to the router), warms the cache with one exchange,
 * then times `tokenFor(ctx)` of one caller with a JWT-sized subject token, `config.repeats` rounds.
 */
export async function measureExchange(config: BenchConfig): Promise<ExchangeResults> {
  const lib = require(path.join(BUILD_DIR, 'lib', 'index.js')) as Lib;
  const idp = await fastIdp();
  const subjectToken = `eyJ${'a'.repeat(800)}`;
  const exchange = lib.tokenExchange({
    tokenEndpoint: idp.url,
    audience: 'https://upstream.bench/mcp',
    clientAuth: { clientId: 'bench', clientSecret: 'bench-secret' },
    subjectToken: () => subjectToken,
  });
  const silent = { error: () => undefined, warn: () => undefined };
  const mcp = lib.mcpRouter({ name: 'bench', version: '1.0.0', logger: silent });
  mcp.upstream({ prefix: 'up', url: 'http://127.0.0.1:9/mcp', auth: exchange, listTimeoutMs: 100, graceMs: 100 });
  const ctx = { auth: { subject: 'bench-user', scopes: [] } } as unknown as Parameters<typeof exchange.tokenFor>[0];
  try {
    await exchange.tokenFor(ctx);
    const fresh = () => ({ ...ctx, auth: { subject: 'bench-user', scopes: [] } }) as typeof ctx;
    const time = async (next: () => typeof ctx): Promise<number> => {
      for (let i = 0; i < HITS; i++) await exchange.tokenFor(next());
      const start = process.hrtime.bigint();
      for (let i = 0; i < HITS; i++) await exchange.tokenFor(next());
      return Number(process.hrtime.bigint() - start) / 1000 / HITS;
    };
    const microsPerHit: number[] = [];
    const microsPerHitDigested: number[] = [];
    for (let round = 0; round < config.repeats; round++) {
      microsPerHit.push(await time(() => ctx));
      microsPerHitDigested.push(await time(fresh));
    }
    return { microsPerHit, microsPerHitDigested, hits: HITS };
  } finally {
    await mcp.close();
    await idp.close();
  }
}

/** The median µs per hit. */
export function exchangeHitMicros(results: ExchangeResults): number {
  return median([...results.microsPerHit]);
}
