// The keys the authorization server signs its access tokens with: fixed JWKs, or generated ones agreed through the sign-in store, rotated per period.

import type { CryptoKey, JWK } from '../../../edge/security/jose-types';
import { McpConfigError, type OptionKeys } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
import { isObject } from '../../../core/jsonrpc/types';
import type { SignInStore } from '../../../edge/store/sign-in-store';
import { jose } from '../../../edge/security/jose';
import { checkSigningJwk, loadKey, type LoadedKey, type SigningJwk } from './signing-jwk';

/** Default `rotationMs`: a generated signing key per 30 days. */
export const DEFAULT_KEY_ROTATION_MS = 30 * 24 * 60 * 60 * 1000;
/** The shortest `rotationMs`: a key per minute is already more keys than any deployment needs. */
const MIN_KEY_ROTATION_MS = 60_000;
/** The longest `rotationMs`: a year. */
const MAX_KEY_ROTATION_MS = 365 * 24 * 60 * 60 * 1000;
/** How often an unknown `kid` may send an instance back to the store: a flood of made-up kids costs one lookup per this. */
export const UNKNOWN_KID_COOLDOWN_MS = 30_000;

/** How the router gets the keys that sign its access tokens (`auth.server`). */
export interface SigningKeysOptions {
  /**
   * Fixed private JWKs (EC P-256 for ES256, or RSA of at least 2048 bits for RS256): the first signs, every one
   * verifies, so a key is rotated by hand by putting the new one first and dropping the old one after the longest
   * token lifetime. A key without `kid` is named by its RFC 7638 thumbprint.
   * Defaults to `undefined`: keys are generated, kept in the sign-in store, and rotated every `rotationMs`.
   */
  readonly signingKeys?: readonly JWK[];
  /**
   * How long a generated key signs, in ms (between one minute and a year); tokens it signed verify for one period
   * more, so keep it at least as long as the access-token lifetime. Only for generated keys.
   * Defaults to `2592000000` (30 days).
   */
  readonly rotationMs?: number;
}

const SIGNING_KEYS_OPTION_KEYS: OptionKeys<SigningKeysOptions> = { signingKeys: true, rotationMs: true };

/** {@link SigningKeysOptions}, checked: fixed keys (checked, trimmed), or the rotation period of generated ones. */
export interface ResolvedSigningKeys {
  readonly fixed: readonly SigningJwk[] | undefined;
  readonly rotationMs: number;
}

/**
 * Checks the signing-key options of `auth.server` (its other options are checked by their owner).
 *
 * @param path - where the options sit, for messages: `'auth.server'`
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` naming the key at fault (`auth.server.signingKeys[1]`)
 */
export function resolveSigningKeysOptions(options: SigningKeysOptions, path: string): ResolvedSigningKeys {
  // Only these keys: the others of `auth.server` are checked by their owner.
  const { signingKeys, rotationMs } = options;
  const read = OptionReader.of({ signingKeys, rotationMs }, path, SIGNING_KEYS_OPTION_KEYS);
  const period = `a whole number of ms between ${MIN_KEY_ROTATION_MS} (a minute) and ${MAX_KEY_ROTATION_MS} (a year)`;
  const rotation = read.positiveInteger('rotationMs', DEFAULT_KEY_ROTATION_MS, period);
  if (rotation < MIN_KEY_ROTATION_MS || rotation > MAX_KEY_ROTATION_MS) throw read.invalid('rotationMs', period);
  if (signingKeys === undefined) return Object.freeze({ fixed: undefined, rotationMs: rotation });
  if (!Array.isArray(signingKeys) || signingKeys.length === 0) {
    // Never the value itself in the message: it may be a private key, and messages reach logs.
    const got = Array.isArray(signingKeys) ? 'an empty array' : typeof signingKeys;
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${read.pathOf('signingKeys')}' must be a non-empty array of private JWKs, got ${got}`,
    );
  }
  if (rotationMs !== undefined) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${read.pathOf('rotationMs')}' is for generated keys: fixed '${read.pathOf('signingKeys')}' are rotated by hand`,
    );
  }
  const kids = new Set<string>();
  const fixed = signingKeys.map((value: unknown, index) => {
    const checked = checkSigningJwk(value);
    // The key material itself never goes into a message: only what is wrong with it.
    if (typeof checked === 'string')
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${read.pathOf('signingKeys')}[${index}]' must be ${checked}`,
      );
    if (checked.kid !== undefined && kids.has(checked.kid)) {
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `option '${read.pathOf('signingKeys')}[${index}]' has the kid '${checked.kid}' of an earlier key`,
      );
    }
    if (checked.kid !== undefined) kids.add(checked.kid);
    return checked;
  });
  return Object.freeze({ fixed: Object.freeze(fixed), rotationMs: DEFAULT_KEY_ROTATION_MS });
}

/** The router's signing keys, as the token endpoint, the JWKS endpoint and the access-token verifier use them. */
export interface SigningKeys {
  /** The key that signs now, its kid and alg (ES256 for generated keys). */
  current(): Promise<{ key: CryptoKey; kid: string; alg: string }>;
  /**
   * The public key for a kid, from the in-process cache; an unknown kid reloads from the store at most once per
   * {@link UNKNOWN_KID_COOLDOWN_MS} (a flood of unknown kids costs nothing). The verifier must also require the
   * token's `alg` to be the one answered (RFC 8725 §3.1).
   */
  verificationKey(kid: string): Promise<{ key: CryptoKey; alg: string } | undefined>;
  /** The public JWKS (RFC 7517 §5) of every key that may still verify: the current and the previous period's. */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
}

/**
 * The router's signing keys. Fixed keys are imported once. Generated keys: the key of period
 * `floor(now / rotationMs)` is added to `store` (kind `'keys'`, id `p<period>`, for three periods) by the first
 * instance to need it, and every instance reads that one, so all agree without a compare-and-set; the previous
 * period's key still verifies. Keys are cached in the process: the store is read once per period, and for an
 * unknown kid at most once per {@link UNKNOWN_KID_COOLDOWN_MS}.
 *
 * @param now - the clock in ms (tests inject one)
 * @example
 * ```ts
 * const keys = createSigningKeys(resolveSigningKeysOptions({}, 'auth.server'), new MemorySignInStore());
 * const { key, kid, alg } = await keys.current();
 * const token = await new (jose().SignJWT)({ sub }).setProtectedHeader({ alg, kid }).sign(key);
 * ```
 */
export function createSigningKeys(
  options: ResolvedSigningKeys,
  store: SignInStore,
  now: () => number = Date.now,
): SigningKeys {
  return options.fixed === undefined ? new GeneratedKeys(options.rotationMs, store, now) : new FixedKeys(options.fixed);
}

/** The answers every kind of key set gives, from the keys it holds. */
const answers = {
  signer: (key: LoadedKey) => ({ key: key.privateKey, kid: key.kid, alg: key.alg }),
  verifier: (key: LoadedKey | undefined) => key && { key: key.publicKey, alg: key.alg },
  jwks: (keys: Iterable<LoadedKey>) => ({ keys: [...keys].map((key) => ({ ...key.publicJwk })) }),
};

class FixedKeys implements SigningKeys {
  private loading: Promise<readonly LoadedKey[]> | undefined;

  constructor(private readonly fixed: readonly SigningJwk[]) {}

  async current(): Promise<{ key: CryptoKey; kid: string; alg: string }> {
    const [first] = await this.loaded();
    if (first === undefined) throw new Error('no signing key'); // resolveSigningKeysOptions refuses an empty list
    return answers.signer(first);
  }

  async verificationKey(kid: string): Promise<{ key: CryptoKey; alg: string } | undefined> {
    return answers.verifier((await this.loaded()).find((key) => key.kid === kid));
  }

  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    return answers.jwks(await this.loaded());
  }

  private loaded(): Promise<readonly LoadedKey[]> {
    this.loading ??= Promise.all(this.fixed.map((key) => loadKey(key))).catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }
}

/** Generated keys, one per period, agreed through the store; see {@link createSigningKeys}. */
class GeneratedKeys implements SigningKeys {
  /** Keys by period, as last read: undefined when the store had none. Only periods from the previous one on are kept. */
  private readonly byPeriod = new Map<number, LoadedKey | undefined>();
  private loading: { readonly period: number; readonly done: Promise<void> } | undefined;
  private reloading: Promise<void> | undefined;
  private lastReloadAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rotationMs: number,
    private readonly store: SignInStore,
    private readonly now: () => number,
  ) {}

  async current(): Promise<{ key: CryptoKey; kid: string; alg: string }> {
    return answers.signer(await this.signerOf(this.period()));
  }

  async verificationKey(kid: string): Promise<{ key: CryptoKey; alg: string } | undefined> {
    const period = this.period();
    // A cached key answers even while the store is down: tokens already issued keep verifying.
    const cached = this.find(kid, period);
    if (cached !== undefined) return answers.verifier(cached);
    await this.signerOf(period);
    const known = this.find(kid, period);
    if (known !== undefined) return answers.verifier(known);
    if (this.reloading === undefined) {
      const at = this.now();
      if (at - this.lastReloadAt < UNKNOWN_KID_COOLDOWN_MS) return undefined;
      this.lastReloadAt = at;
      this.reloading = this.reload(period).finally(() => (this.reloading = undefined));
    }
    await this.reloading;
    return answers.verifier(this.find(kid, period));
  }

  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    const period = this.period();
    await this.signerOf(period);
    return answers.jwks(
      [...this.byPeriod].flatMap(([keyPeriod, key]) => (keyPeriod >= period - 1 && key !== undefined ? [key] : [])),
    );
  }

  private period(): number {
    return Math.floor(this.now() / this.rotationMs);
  }

  /** The key of `period`, loaded (with the previous period's) once per period: the hot path touches no store. */
  private async signerOf(period: number): Promise<LoadedKey> {
    const cached = this.byPeriod.get(period);
    if (cached !== undefined) return cached;
    if (this.loading?.period !== period) {
      const done = this.load(period).catch((err: unknown) => {
        if (this.loading?.done === done) this.loading = undefined; // a store outage: the next call tries again
        throw err;
      });
      this.loading = { period, done };
    }
    await this.loading.done;
    const loaded = this.byPeriod.get(period);
    if (loaded === undefined) throw new Error(`the signing key of period ${period} was not loaded`);
    return loaded;
  }

  private async load(period: number): Promise<void> {
    const previous = this.byPeriod.has(period - 1) ? this.byPeriod.get(period - 1) : await this.fetch(period - 1);
    const current = (await this.fetch(period)) ?? (await this.create(period));
    // Keys older than the previous period verify nothing any more (their tokens have outlived them).
    for (const known of this.byPeriod.keys()) if (known < period - 1) this.byPeriod.delete(known);
    this.byPeriod.set(period - 1, previous);
    this.byPeriod.set(period, current);
  }

  /** An unknown kid: the previous and next periods may have a key this instance has not seen (clocks differ). */
  private async reload(period: number): Promise<void> {
    const [previous, next] = await Promise.all([this.fetch(period - 1), this.fetch(period + 1)]);
    if (previous !== undefined) this.byPeriod.set(period - 1, previous);
    if (next !== undefined) this.byPeriod.set(period + 1, next);
  }

  /** Adds a new key for `period` unless another instance did first; either way, the one the store holds. */
  private async create(period: number): Promise<LoadedKey> {
    const { generateKeyPair, exportJWK } = jose();
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const generated = await loadStored({ jwk: await exportJWK(privateKey) }, period);
    const record = { jwk: { ...generated.key.jwk, kid: generated.loaded.kid }, createdAt: this.now() };
    // Three periods: the key signs for one, verifies for the next, and outlives both on a late clock.
    if (await this.store.add('keys', `p${period}`, record, 3 * this.rotationMs)) return generated.loaded;
    const winner = await this.fetch(period);
    if (winner === undefined)
      throw new Error(`the signing key of period ${period} was added by another instance and is gone`);
    return winner;
  }

  private async fetch(period: number): Promise<LoadedKey | undefined> {
    const record = await this.store.get('keys', `p${period}`);
    return record && (await loadStored(record, period)).loaded;
  }

  /** The key named `kid` that may still verify in `period`: its own, the previous or (a late clock here) the next. */
  private find(kid: string, period: number): LoadedKey | undefined {
    for (const [keyPeriod, key] of this.byPeriod) if (keyPeriod >= period - 1 && key?.kid === kid) return key;
    return undefined;
  }
}

/** A stored key record (`{ jwk, createdAt }`), checked as a fixed key is: anything may be in a shared store. */
async function loadStored(
  record: Readonly<Record<string, unknown>>,
  period: number,
): Promise<{ key: SigningJwk; loaded: LoadedKey }> {
  const checked = checkSigningJwk(isObject(record) ? record.jwk : undefined);
  if (typeof checked === 'string')
    throw new Error(`the sign-in store's signing key of period ${period} is not usable: it must be ${checked}`);
  return { key: checked, loaded: await loadKey(checked) };
}
