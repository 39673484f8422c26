// The requestState of input_required results (MCP 2026-07-28 MRTR): HMAC-SHA256 sealed, bound to one call and caller, with an expiry.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { jsonDigest } from '../../jsonrpc/json-digest';
import { isObject } from '../../jsonrpc/types';

/** Options of the router's `inputRequired` (MCP 2026-07-28 input_required results). */
export interface InputRequiredOptions {
  /**
   * The HMAC-SHA256 key that seals `requestState`: at least 32 bytes (a string's UTF-8 bytes). Defaults to random
   * bytes made when the router is created, so state minted by one process is refused by every other (and after a
   * restart): set the same key on every instance behind a load balancer.
   */
  stateKey?: string | Uint8Array;
  /** How long a client has to retry with the answers, in milliseconds. Defaults to 600 000 (10 minutes). */
  stateTtlMs?: number;
}

/** The keys of `inputRequired`. */
const INPUT_REQUIRED_KEYS: OptionKeys<InputRequiredOptions> = { stateKey: true, stateTtlMs: true };

/** `inputRequired` after checking and defaulting. */
export interface ResolvedInputRequired {
  readonly stateKey: Buffer;
  readonly stateTtlMs: number;
}

/** Default `inputRequired.stateTtlMs`: time for a person to answer an elicitation. */
export const DEFAULT_STATE_TTL_MS = 600_000;
/** Shortest `inputRequired.stateKey`: the HMAC-SHA256 block of security (RFC 2104 §3: at least the output length). */
export const MIN_STATE_KEY_BYTES = 32;
/**
 * Longest `requestState` accepted or minted, in characters. It carries the answers of earlier rounds (a sampling
 * result can be long); a bound keeps what one client sends, and what the server verifies, small.
 */
export const MAX_REQUEST_STATE_CHARS = 262_144;

/**
 * Checks `inputRequired` once, at boot.
 *
 * @throws {McpConfigError} naming `inputRequired`, `inputRequired.stateKey` or `inputRequired.stateTtlMs`
 */
export function resolveInputRequired(options: InputRequiredOptions | undefined): ResolvedInputRequired {
  const read = OptionReader.of(options, 'inputRequired', INPUT_REQUIRED_KEYS);
  const stateTtlMs = read.milliseconds('stateTtlMs', DEFAULT_STATE_TTL_MS);
  const stateKey = read.raw('stateKey');
  const expected = `a string or bytes of at least ${MIN_STATE_KEY_BYTES} bytes`;
  let key: Buffer;
  if (stateKey === undefined) key = randomBytes(MIN_STATE_KEY_BYTES);
  else if (typeof stateKey === 'string' || stateKey instanceof Uint8Array) key = Buffer.from(stateKey);
  else throw read.invalid('stateKey', expected, typeof stateKey);
  if (key.length < MIN_STATE_KEY_BYTES) throw read.invalid('stateKey', expected, `${key.length} bytes`);
  return Object.freeze({ stateKey: key, stateTtlMs });
}

/**
 * The call a requestState may be echoed on (MCP 2026-07-28 MRTR, SHOULD: the principal, and the method with a
 * digest of its salient parameters). State minted for one is refused on any other.
 */
export interface StateBinding {
  /** The authenticated principal; undefined without authentication. */
  readonly principal: string | undefined;
  readonly method: string;
  /** The tool's or prompt's name, or the resource's URI. */
  readonly item: string;
  /** The call's arguments (a digest of them is bound). */
  readonly arguments: unknown;
}

/** Mints and opens requestState. */
export interface RequestStateCodec {
  /** Seals the answers gathered so far for the call `binding`; throws a JsonRpcError when they are too large to carry. */
  seal(binding: StateBinding, answers: Readonly<Record<string, unknown>>): string;
  /** The answers a state carries; throws a -32602 JsonRpcError for state that is malformed, tampered, expired or another call's. */
  open(state: unknown, binding: StateBinding): Record<string, unknown>;
}

/** The call a state belongs to, digested: equal arguments digest equally whatever order the client sent them in. */
function digestOf(binding: StateBinding): string {
  return jsonDigest([binding.principal ?? null, binding.method, binding.item, binding.arguments ?? null]);
}

function invalidState(why: string): JsonRpcError {
  // MCP 2026-07-28 MRTR: state failing verification MUST be rejected; the SDK and the conformance suite use -32602.
  return new JsonRpcError(
    ErrorCode.InvalidParams,
    `Invalid params: requestState ${why}; call again without it to start over`,
  );
}

/**
 * Creates the codec of one router. The state is `base64url(payload).base64url(HMAC-SHA256(key, payload))`, the
 * payload `{ v: 1, exp, call, answers }`: `call` a SHA-256 digest of the {@link StateBinding}, `exp` milliseconds
 * since the epoch. Readable by the client, who gave the answers anyway; sealed so that it cannot be changed.
 *
 * @param now - the clock (tests)
 * @example
 * ```ts
 * const codec = createRequestStateCodec(resolveInputRequired({ stateKey: process.env.MCP_STATE_KEY }));
 * const call = { principal: 'alice', method: 'tools/call', item: 'book', arguments: { day: 'mon' } };
 * const state = codec.seal(call, { confirm: { action: 'accept', content: { ok: true } } });
 * codec.open(state, call); // { confirm: { action: 'accept', content: { ok: true } } }
 * ```
 */
export function createRequestStateCodec(
  options: ResolvedInputRequired,
  now: () => number = Date.now,
): RequestStateCodec {
  const mac = (payload: string): Buffer => createHmac('sha256', options.stateKey).update(payload).digest();
  return {
    seal(binding, answers) {
      const payload = Buffer.from(
        JSON.stringify({ v: 1, exp: now() + options.stateTtlMs, call: digestOf(binding), answers }),
      ).toString('base64url');
      const state = `${payload}.${mac(payload).toString('base64url')}`;
      if (state.length > MAX_REQUEST_STATE_CHARS) {
        throw new JsonRpcError(
          ErrorCode.InternalError,
          `Internal error: the answers gathered so far exceed the ${MAX_REQUEST_STATE_CHARS} characters a requestState may carry`,
        );
      }
      return state;
    },
    open(state, binding) {
      if (typeof state !== 'string') throw invalidState('must be the string the server sent');
      if (state.length > MAX_REQUEST_STATE_CHARS)
        throw invalidState(`is longer than ${MAX_REQUEST_STATE_CHARS} characters`);
      const dot = state.indexOf('.');
      const payload = state.slice(0, dot);
      const given = Buffer.from(state.slice(dot + 1), 'base64url');
      const expected = mac(payload);
      // Compared in constant time, and before anything in the payload is read.
      if (
        dot < 1 ||
        given.length !== expected.length ||
        !timingSafeEqual(given, expected) ||
        given.toString('base64url') !== state.slice(dot + 1)
      ) {
        throw invalidState('failed its integrity check (tampered, or minted by another server or key)');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalidState('is malformed');
      }
      if (!isObject(parsed) || parsed.v !== 1 || typeof parsed.exp !== 'number' || !isObject(parsed.answers))
        throw invalidState('is malformed');
      if (parsed.exp <= now()) throw invalidState('has expired');
      if (parsed.call !== digestOf(binding))
        throw invalidState('belongs to another call (principal, method, name or arguments differ)');
      return parsed.answers;
    },
  };
}
