// Scenario `session-per-call`'s I/O-bound tool, the same code in every server: one Redis read and one HTTP call.

import { createClient } from 'redis';

/** The keys the harness writes before the run; a call names one of them. */
export const LOOKUP_KEYS = 100;

/** The JSON Schema of `lookup`'s arguments (the SDK servers state the same with zod). */
export const LOOKUP_INPUT_SCHEMA = {
  type: 'object',
  properties: { key: { type: 'string' } },
  required: ['key'],
} as const;

/** `lookup`'s description everywhere. */
export const LOOKUP_DESCRIPTION = 'Reads a key from Redis and asks the rates service about it';

/** The tool's result: one text block with the Redis value and the service's answer. */
export type LookupResult = { content: Array<{ type: 'text'; text: string }> };

/** The value the harness stores under key `k<i>`. */
export function lookupValue(index: number): string {
  return `value-${index}`;
}

/**
 * The tool's work, bound to one Redis client (connected once per process, as a service does) and to the local HTTP
 * service's URL; `fetch` uses Node's global undici agent, which keeps connections alive.
 */
export async function lookupTool(
  redisUrl: string,
  serviceUrl: string,
): Promise<(key: string) => Promise<LookupResult>> {
  const redis = createClient({ url: redisUrl });
  redis.on('error', () => undefined);
  await redis.connect();
  return async (key) => {
    const value = await redis.get(key);
    const reply = await fetch(`${serviceUrl}?key=${encodeURIComponent(key)}`);
    if (!reply.ok) throw new Error(`rates service answered ${reply.status}`);
    const { rate } = (await reply.json()) as { rate: number };
    return { content: [{ type: 'text', text: `${key}=${value ?? ''} rate=${rate}` }] };
  };
}

/** The Redis URL and the service URL a session-per-call server gets after its own arguments. */
export function toolArgs(argv: readonly string[], from: number): { redisUrl: string; serviceUrl: string } {
  const [redisUrl, serviceUrl] = argv.slice(from);
  if (redisUrl === undefined || serviceUrl === undefined)
    throw new Error('session-per-call servers take <redis url> <service url> after their own arguments');
  return { redisUrl, serviceUrl };
}
