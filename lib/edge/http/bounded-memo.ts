// A bounded memo: values derived from what clients repeat on every request (an Accept header, a rate-limit key), each derived once.

import { BoundedMap } from '../../core/bounded-map';

/**
 * Wraps `derive` so that each key is derived once: a client sends the same header or key on every request.
 * Past `max` distinct keys the least recently derived is forgotten, so a client sending a new value each time
 * costs memory up to `max` entries and one derivation per request, as without this.
 *
 * @example
 * ```ts
 * const acceptsOf = memoizeBounded(parseAccept, 64);
 * acceptsOf('application/json, text/event-stream'); // parsed once, then looked up
 * ```
 */
export function memoizeBounded<T>(derive: (key: string) => T, max: number): (key: string) => T {
  const values = new BoundedMap<string, T>({ max });
  return (key) => {
    let value = values.get(key);
    if (value === undefined) values.set(key, (value = derive(key)));
    return value;
  };
}
