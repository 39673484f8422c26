// Digests of JSON values that do not depend on the order of their object keys: how client data is bound and keyed.

import { createHash } from 'node:crypto';
import { isObject } from './types';

/** JSON with object keys sorted (members whose value is undefined left out, as `JSON.stringify` leaves them out). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 of {@link canonicalJson}, base64url: equal values digest equally whatever order their keys were sent in.
 *
 * @example
 * ```ts
 * jsonDigest({ b: 1, a: [2] }) === jsonDigest({ a: [2], b: 1 }); // true
 * ```
 */
export function jsonDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}
