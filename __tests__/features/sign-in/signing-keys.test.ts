// The authorization server's signing keys: generated keys agreed through one store, rotation, fixed keys, the public JWKS, the in-process cache, and hostile kids and stores.

import { generateKeyPairSync } from 'node:crypto';
import type { JWK } from 'jose';
import { McpConfigError } from '../../../lib/options/config-error';
import { jose } from '../../../lib/edge/security/jose';
import {
  createSigningKeys,
  DEFAULT_KEY_ROTATION_MS,
  resolveSigningKeysOptions,
  UNKNOWN_KID_COOLDOWN_MS,
  type SigningKeys,
} from '../../../lib/features/sign-in/tokens/keys';
import { MemorySignInStore } from '../../../lib/edge/store/memory-sign-in-store';
import type { SignInKind, SignInRecord, SignInStore } from '../../../lib/edge/store/sign-in-store';

const DAY = 24 * 60 * 60 * 1000;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

/** A real MemorySignInStore that counts the calls made to it, and fails them while `failing` is set (an outage). */
class CountingStore implements SignInStore {
  readonly calls: string[] = [];
  failing = false;
  constructor(readonly inner: SignInStore = new MemorySignInStore()) {}
  private note(what: string): void {
    this.calls.push(what);
    if (this.failing) throw new Error('store down');
  }
  async set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void> {
    this.note(`set ${kind} ${id}`);
    return this.inner.set(kind, id, value, ttlMs);
  }
  async add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean> {
    this.note(`add ${kind} ${id}`);
    return this.inner.add(kind, id, value, ttlMs);
  }
  async get(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    this.note(`get ${kind} ${id}`);
    return this.inner.get(kind, id);
  }
  async use(kind: SignInKind, id: string, ttlMs: number): Promise<SignInRecord | undefined> {
    this.note(`use ${kind} ${id}`);
    return this.inner.use(kind, id, ttlMs);
  }
  async take(kind: SignInKind, id: string): Promise<SignInRecord | undefined> {
    this.note(`take ${kind} ${id}`);
    return this.inner.take(kind, id);
  }
  async delete(kind: SignInKind, id: string): Promise<void> {
    this.note(`delete ${kind} ${id}`);
    return this.inner.delete(kind, id);
  }
}

/** A JWT for `sub` signed by the keys' current key. */
async function signed(keys: SigningKeys, sub = 'alice'): Promise<{ token: string; kid: string }> {
  const { key, kid, alg } = await keys.current();
  return { token: await new (jose().SignJWT)({ sub }).setProtectedHeader({ alg, kid }).sign(key), kid };
}

/** Verifies `token` as a resource server would: the key named by its kid, the alg that key answers with. */
async function verified(keys: SigningKeys, token: string): Promise<string | undefined> {
  const { kid } = jose().decodeProtectedHeader(token);
  const found = kid === undefined ? undefined : await keys.verificationKey(kid);
  if (found === undefined) return undefined;
  const { payload } = await jose().jwtVerify(token, found.key, { algorithms: [found.alg] });
  return payload.sub;
}

function ecJwk(): JWK {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
}
function rsaJwk(modulusLength = 2048): JWK {
  return generateKeyPairSync('rsa', { modulusLength }).privateKey.export({ format: 'jwk' }) as JWK;
}
const RSA = rsaJwk();

describe('generated signing keys', () => {
  let clock = 0;
  const now = (): number => clock;
  const options = resolveSigningKeysOptions({ rotationMs: DAY }, 'auth.server');
  beforeEach(() => {
    clock = 1_000 * DAY + 5;
  });

  it('two instances over one store agree: the same kid, and a token signed by one verifies on the other', async () => {
    const store = new MemorySignInStore();
    const one = createSigningKeys(options, store, now);
    const two = createSigningKeys(options, store, now);
    const [a, b] = await Promise.all([one.current(), two.current()]);
    expect([a.kid, a.alg]).toEqual([b.kid, 'ES256']);
    const { token } = await signed(one);
    await expect(verified(two, token)).resolves.toBe('alice');
  });

  it('rotation: after a period a new key signs and the old one still verifies; two periods later it does not', async () => {
    const keys = createSigningKeys(options, new MemorySignInStore(), now);
    const first = await signed(keys);
    clock += DAY;
    const second = await signed(keys);
    expect(second.kid).not.toBe(first.kid);
    await expect(verified(keys, first.token)).resolves.toBe('alice');
    expect((await keys.jwks()).keys.map((key) => key.kid).sort()).toEqual([first.kid, second.kid].sort());
    clock += DAY;
    await expect(verified(keys, first.token)).resolves.toBeUndefined();
    await expect(verified(keys, second.token)).resolves.toBe('alice');
    expect((await keys.jwks()).keys.map((key) => key.kid)).not.toContain(first.kid);
  });

  it('an instance that joins late reads the key the first one made, and still verifies the previous period', async () => {
    const store = new MemorySignInStore();
    const early = createSigningKeys(options, store, now);
    const old = await signed(early);
    clock += DAY;
    await early.current();
    const late = createSigningKeys(options, store, now);
    expect((await late.current()).kid).toBe((await early.current()).kid);
    await expect(verified(late, old.token)).resolves.toBe('alice');
  });

  it('keeps each period key in the store for three periods, as { jwk, createdAt }', async () => {
    const store = new MemorySignInStore({}, now);
    const keys = createSigningKeys(options, store, now);
    const { kid } = await keys.current();
    const period = Math.floor(clock / DAY);
    expect(await store.get('keys', `p${period}`)).toEqual({
      jwk: expect.objectContaining({ kty: 'EC', crv: 'P-256', d: expect.any(String), kid }),
      createdAt: clock,
    });
    clock += 3 * DAY - 1; // it lives three periods from when it was made
    await expect(store.get('keys', `p${period}`)).resolves.toBeDefined();
    clock += 1;
    await expect(store.get('keys', `p${period}`)).resolves.toBeUndefined();
  });

  it('the hot path touches no store: current() and verificationKey() read the store once per period', async () => {
    const store = new CountingStore();
    const keys = createSigningKeys(options, store, now);
    const { kid } = await keys.current();
    const afterLoad = store.calls.length;
    for (let index = 0; index < 100; index++) {
      await keys.current();
      await keys.verificationKey(kid);
    }
    expect(store.calls.length).toBe(afterLoad);
    clock += DAY;
    await keys.current();
    expect(store.calls.slice(afterLoad)).toEqual([
      `get keys p${Math.floor(clock / DAY)}`,
      `add keys p${Math.floor(clock / DAY)}`,
    ]);
  });

  it('concurrent first calls in one instance load the key once', async () => {
    const store = new CountingStore();
    const keys = createSigningKeys(options, store, now);
    const kids = await Promise.all(Array.from({ length: 20 }, async () => (await keys.current()).kid));
    expect(new Set(kids).size).toBe(1);
    expect(store.calls.filter((call) => call.startsWith('add'))).toHaveLength(1);
  });

  it('a token signed by current() verifies with jose against verificationKey(kid); a tampered one does not', async () => {
    const keys = createSigningKeys(options, new MemorySignInStore(), now);
    const { token } = await signed(keys, 'bob');
    await expect(verified(keys, token)).resolves.toBe('bob');
    const [header, , signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'mallory' })).toString('base64url')}.${signature}`;
    await expect(verified(keys, forged)).rejects.toThrow(/signature/);
  });

  it('the JWKS has every key that may verify, public members only: kty, crv, x, y, kid, alg, use', async () => {
    const keys = createSigningKeys(options, new MemorySignInStore(), now);
    await keys.current();
    clock += DAY;
    const { keys: published } = await keys.jwks();
    expect(published).toHaveLength(2);
    for (const key of published) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      expect(key).toEqual(expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' }));
    }
  });
});

describe('generated signing keys, hostile', () => {
  let clock = 0;
  const now = (): number => clock;
  const options = resolveSigningKeysOptions({ rotationMs: DAY }, 'auth.server');
  beforeEach(() => {
    clock = 2_000 * DAY;
  });

  it(`a flood of unknown kids reaches the store at most once per ${UNKNOWN_KID_COOLDOWN_MS} ms, and answers undefined`, async () => {
    const store = new CountingStore();
    const keys = createSigningKeys(options, store, now);
    await keys.current();
    const afterLoad = store.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, (_, index) => keys.verificationKey(`made-up-${index}`)),
    );
    expect(answers.every((answer) => answer === undefined)).toBe(true);
    const period = Math.floor(clock / DAY);
    expect(store.calls.slice(afterLoad).sort()).toEqual([`get keys p${period - 1}`, `get keys p${period + 1}`]);
    clock += UNKNOWN_KID_COOLDOWN_MS - 1;
    await keys.verificationKey('made-up-again');
    expect(store.calls.length).toBe(afterLoad + 2);
    clock += 1;
    await keys.verificationKey('made-up-again');
    expect(store.calls.length).toBe(afterLoad + 4);
  });

  it('an unknown kid that another instance made (its clock ahead, in the next period) is found by the reload', async () => {
    const store = new MemorySignInStore();
    const behind = createSigningKeys(options, store, now);
    await behind.current();
    const ahead = createSigningKeys(options, store, () => clock + DAY);
    const { token } = await signed(ahead);
    await expect(verified(behind, token)).resolves.toBe('alice');
  });

  it('a store outage: cached keys still verify; a new period fails with the store error, then recovers', async () => {
    const store = new CountingStore();
    const keys = createSigningKeys(options, store, now);
    const { token } = await signed(keys);
    store.failing = true;
    await expect(verified(keys, token)).resolves.toBe('alice');
    clock += DAY;
    await expect(keys.current()).rejects.toThrow('store down');
    await expect(verified(keys, token)).resolves.toBe('alice');
    store.failing = false;
    const next = await keys.current();
    expect(next.kid).not.toBe(jose().decodeProtectedHeader(token).kid);
  });

  it.each([
    ['not an object', { jwk: 'text' }],
    ['a public key only', { jwk: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', kid: 'k' } }],
    ['a symmetric key', { jwk: { kty: 'oct', k: 'c2VjcmV0', kid: 'k' } }],
    ['no jwk at all', { createdAt: 1 }],
  ])(
    'junk in the store under keys/p<period> (%s) fails current() with a clear error, not a crash',
    async (_what, record) => {
      const store = new MemorySignInStore();
      await store.set('keys', `p${Math.floor(clock / DAY)}`, record, DAY);
      const keys = createSigningKeys(options, store, now);
      await expect(keys.current()).rejects.toThrow(
        /^the sign-in store's signing key of period \d+ is not usable: it must be /,
      );
    },
  );
});

describe('fixed signing keys', () => {
  it('the first key signs, every key verifies, the store is never used', async () => {
    const store = new CountingStore();
    const ec = { ...ecJwk(), kid: 'ec-1' };
    const keys = createSigningKeys(resolveSigningKeysOptions({ signingKeys: [RSA, ec] }, 'auth.server'), store);
    const { alg, kid } = await keys.current();
    expect(alg).toBe('RS256');
    expect(kid).toBe(await jose().calculateJwkThumbprint({ kty: 'RSA', n: RSA.n, e: RSA.e }));
    const { token } = await signed(keys);
    await expect(verified(keys, token)).resolves.toBe('alice');
    const old = await new (jose().SignJWT)({ sub: 'carol' })
      .setProtectedHeader({ alg: 'ES256', kid: 'ec-1' })
      .sign(await jose().importJWK(ec, 'ES256'));
    await expect(verified(keys, old)).resolves.toBe('carol');
    await expect(keys.verificationKey('unknown')).resolves.toBeUndefined();
    expect(store.calls).toEqual([]);
  });

  it('the JWKS of fixed RSA and EC keys has no private member (d, p, q, dp, dq, qi), nor what the JWK carried besides', async () => {
    const extra = { ...ecJwk(), kid: 'e', key_ops: ['sign'], ext: true, x5c: ['not-a-cert'] };
    const keys = createSigningKeys(
      resolveSigningKeysOptions({ signingKeys: [RSA, extra] }, 'auth.server'),
      new MemorySignInStore(),
    );
    const { keys: published } = await keys.jwks();
    expect(published.map((key) => Object.keys(key).sort())).toEqual([
      ['alg', 'e', 'kid', 'kty', 'n', 'use'],
      ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'],
    ]);
    for (const key of published) for (const member of PRIVATE_MEMBERS) expect(key).not.toHaveProperty(member);
    expect(JSON.stringify(published)).not.toContain(String(RSA.d));
  });

  it('leaves the caller options alone (frozen input is fine)', () => {
    const signingKeys = Object.freeze([Object.freeze({ ...ecJwk(), kid: 'frozen' })]);
    const options = Object.freeze({ signingKeys });
    expect(resolveSigningKeysOptions(options, 'auth.server').fixed?.[0]?.kid).toBe('frozen');
  });
});

describe('resolveSigningKeysOptions', () => {
  it('defaults to generated keys rotated every 30 days', () => {
    expect(resolveSigningKeysOptions({}, 'auth.server')).toEqual({
      fixed: undefined,
      rotationMs: DEFAULT_KEY_ROTATION_MS,
    });
    expect(DEFAULT_KEY_ROTATION_MS).toBe(30 * DAY);
  });

  const ec = ecJwk();
  const otherEc = ecJwk();
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'jwk' });
  const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  it.each([
    [
      'a symmetric key',
      { signingKeys: [ec, { kty: 'oct', k: 'c2VjcmV0' }] },
      /^mcpRouter: option 'auth\.server\.signingKeys\[1\]' must be a private EC P-256 or RSA key, not a symmetric \(oct\) key/,
    ],
    [
      'a public key',
      { signingKeys: [{ kty: 'EC', crv: 'P-256', x: ec.x, y: ec.y }] },
      /'auth\.server\.signingKeys\[0\]' must be a private key \(with d\)/,
    ],
    [
      'P-384',
      { signingKeys: [p384] },
      /'auth\.server\.signingKeys\[0\]' must be an EC key on P-256 \(ES256\), not crv "P-384"/,
    ],
    [
      'Ed25519',
      { signingKeys: [ed25519] },
      /'auth\.server\.signingKeys\[0\]' must be a private EC P-256 or RSA key \(kty 'EC' or 'RSA'\), not kty "OKP"/,
    ],
    [
      'RSA 1024',
      { signingKeys: [rsaJwk(1024)] },
      /'auth\.server\.signingKeys\[0\]' must be an RSA key of at least 2048 bits \(RFC 7518 §3\.3\), not 1024/,
    ],
    [
      'an alg that is not the key type',
      { signingKeys: [{ ...ec, alg: 'HS256' }] },
      /must be a key for ES256 \(its alg is "HS256"\)/,
    ],
    [
      'an encryption key',
      { signingKeys: [{ ...ec, use: 'enc' }] },
      /must be a signing key \(use 'sig'\), not use "enc"/,
    ],
    [
      'an empty kid',
      { signingKeys: [{ ...ec, kid: '' }] },
      /must be a key whose kid, when given, is a non-empty string/,
    ],
    [
      'mismatched halves',
      { signingKeys: [{ ...ec, d: otherEc.d }] },
      /must be a key whose private and public members belong together/,
    ],
    [
      'broken members',
      { signingKeys: [{ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', d: 'AA' }] },
      /'auth\.server\.signingKeys\[0\]' must be a valid private JWK \(/,
    ],
    [
      'a key member of the wrong type',
      { signingKeys: [{ ...RSA, p: 1234567891011 }] },
      /'auth\.server\.signingKeys\[0\]' must be a valid private JWK \(The "key\.p" property must be of type string\)$/,
    ],
    [
      'not an object',
      { signingKeys: ['-----BEGIN PRIVATE KEY-----'] },
      /'auth\.server\.signingKeys\[0\]' must be a JWK object/,
    ],
    [
      'an empty list',
      { signingKeys: [] },
      /option 'auth\.server\.signingKeys' must be a non-empty array of private JWKs, got an empty array$/,
    ],
    [
      'not a list (a lone key)',
      { signingKeys: ec },
      /option 'auth\.server\.signingKeys' must be a non-empty array of private JWKs, got object$/,
    ],
    [
      'rotationMs 0',
      { rotationMs: 0 },
      /option 'auth\.server\.rotationMs' must be a whole number of ms between 60000 \(a minute\) and 31536000000 \(a year\), got 0/,
    ],
    ['rotationMs fractional', { rotationMs: 90_000.5 }, /'auth\.server\.rotationMs' must be a whole number/],
    [
      'rotationMs as text',
      { rotationMs: '30d' },
      /'auth\.server\.rotationMs' must be a whole number of ms .*, got "30d"/,
    ],
    ['rotationMs under a minute', { rotationMs: 30 }, /'auth\.server\.rotationMs' must be a whole number/],
    [
      'rotationMs with fixed keys',
      { signingKeys: [ec], rotationMs: DAY },
      /option 'auth\.server\.rotationMs' is for generated keys: fixed 'auth\.server\.signingKeys' are rotated by hand/,
    ],
  ])('refuses %s with McpConfigError naming the option', (_what, options, message) => {
    let thrown: unknown;
    try {
      resolveSigningKeysOptions(options as never, 'auth.server');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    expect((thrown as McpConfigError).code).toBe('ERR_MCP_INVALID_OPTION');
    expect((thrown as Error).message).toMatch(message);
    // The key material never reaches a message (logs keep messages).
    expect((thrown as Error).message).not.toMatch(new RegExp(`${String(ec.d)}|${String(RSA.d)}|1234567891011`));
  });

  it('refuses two keys with one kid (ERR_MCP_DUPLICATE)', () => {
    expect(() =>
      resolveSigningKeysOptions(
        {
          signingKeys: [
            { ...ecJwk(), kid: 'k' },
            { ...RSA, kid: 'k' },
          ],
        },
        'auth.server',
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_MCP_DUPLICATE',
        message: "mcpRouter: option 'auth.server.signingKeys[1]' has the kid 'k' of an earlier key",
      }),
    );
  });
});
