// The 2026 result shaper (protocol/era-2026/result-envelope.ts): resultType, serverInfo `_meta` and cache hints, in the
// member order of the object literals it replaced (`{ ttlMs, cacheScope, ...result, resultType, _meta }`).

import { createShaper2026 } from '../../../../lib/core/protocol/era-2026/result-envelope';

const SERVER_INFO = Object.freeze({ name: 'inventory', version: '1.0.0', title: 'Inventory' });
const CACHE = Object.freeze({ ttlMs: 5_000, scope: 'private' as const });
const META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
const SYMBOL = Symbol('own');

/** What the shaper wrote before it built its result without a spread: the wire form the tests pin. */
function literal(result: Record<string, unknown>, cacheable: boolean): Record<string, unknown> {
  const own = result._meta;
  const _meta = own === undefined || own === null || typeof own !== 'object' ? META : { ...own, ...META };
  const resultType = result.resultType ?? 'complete';
  return cacheable
    ? { ttlMs: CACHE.ttlMs, cacheScope: CACHE.scope, ...result, resultType, _meta }
    : { ...result, resultType, _meta };
}

describe('createShaper2026', () => {
  const shape = createShaper2026(SERVER_INFO, CACHE);

  it.each<[string, () => Record<string, unknown>]>([
    ['a tool result', () => ({ content: [{ type: 'text', text: '3' }], isError: false })],
    ['an empty result', () => ({})],
    [
      'a result with its own resultType',
      () => ({ resultType: 'input_required', inputRequests: {}, requestState: 's' }),
    ],
    ['a result with its own _meta', () => ({ _meta: { trace: 'a', 'io.modelcontextprotocol/serverInfo': 0 }, x: 1 })],
    ['a result whose _meta is not an object', () => ({ _meta: 'text', x: 1 })],
    ['a result with its own cache hint', () => ({ contents: [], ttlMs: 10, cacheScope: 'public' })],
    ['a parsed result with an own __proto__ key', () => JSON.parse('{"__proto__":{"polluted":true},"x":1}')],
    ['a result with symbol and undefined members', () => ({ [SYMBOL]: 1, gone: undefined, kept: null })],
  ])('writes %s as the literal did, cacheable or not', (_name, make) => {
    for (const cacheable of [false, true]) {
      const shaped = shape(make(), cacheable);
      const expected = literal(make(), cacheable);
      expect(JSON.stringify(shaped)).toBe(JSON.stringify(expected));
      expect(Reflect.ownKeys(shaped)).toEqual(Reflect.ownKeys(expected));
      expect(Object.getPrototypeOf(shaped)).toBe(Object.prototype);
    }
  });

  it('never changes the result it shapes', () => {
    const result = Object.freeze({ content: Object.freeze([]) });
    shape(result, true);
    expect(result).toEqual({ content: [] });
  });
});
