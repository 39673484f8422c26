// The storage interface behind sign-in (the router as an OAuth authorization server), and its in-process default. (Its Redis side: redis/sign-in-store.ts.)

/** What sign-in keeps, by kind; every record is plain JSON. */
export type SignInKind =
  /** Dynamically registered clients (RFC 7591) and fetched Client ID Metadata Documents. */
  | 'client'
  /** Authorization requests waiting for the user's login or consent. */
  | 'pending'
  /** Authorization codes: single use, short-lived. */
  | 'code'
  /** Consents given, per subject, client and scopes. */
  | 'consent'
  /** Refresh tokens (by digest) and their families (rotation, reuse detection). */
  | 'refresh'
  | 'family'
  /** The router's signing keys (one per rotation period). */
  | 'keys'
  /** State of a login at an upstream identity provider (oidcUpstream) and the provider's tokens. */
  | 'upstream'
  /** Ids seen once, kept for the lifetime of what they name: client assertions', ID-JAGs' and DPoP proofs' `jti`. */
  | 'replay'
  /** Tokens the gateway obtained for a caller at an upstream's identity provider (RFC 8693), until shortly before they expire. */
  | 'exchange';

/** A stored record: plain JSON, so a store may keep it anywhere. */
export type SignInRecord = Readonly<Record<string, unknown>>;

/**
 * The most records a sign-in store keeps of each kind that a client can make it write (the `auth.server` options
 * `registration.maxClients`, `maxRefreshFamilies`, `maxConsents`, `maxPendingAuthorizations`, `maxCodes`). Each kind
 * has its own bound, so a flood of one (registrations, abandoned authorizations) never evicts another (a signed-in
 * user's refresh family); within a kind the least recently used record goes first.
 */
export interface SignInLimits {
  /** Registered clients and cached Client ID Metadata Documents. */
  readonly clients: number;
  /** Refresh-token families, and (a bound of its own, the same size) their refresh tokens. */
  readonly refreshFamilies: number;
  /** Consents remembered. */
  readonly consents: number;
  /** Authorizations waiting for login or consent, and (a bound of its own) their upstream login state. */
  readonly pendingAuthorizations: number;
  /** Authorization codes, and (a bound of its own) the codes already used that a replay would name. */
  readonly codes: number;
  /** Single-use ids remembered (`jti`s of assertions and proofs). */
  readonly replays: number;
  /** Exchanged tokens kept for callers of upstreams. */
  readonly exchangedTokens: number;
}

/** A store's bound of each kind when it is given none: the default of every `auth.server` sign-in bound. */
export const DEFAULT_MAX_SIGN_IN_RECORDS = 10_000;

/** Which bound counts the records of each kind; `keys` is only written by the router itself, one per rotation. */
const BOUND_OF: Readonly<Record<Exclude<SignInKind, 'keys'>, keyof SignInLimits>> = {
  client: 'clients',
  family: 'refreshFamilies',
  refresh: 'refreshFamilies',
  consent: 'consents',
  pending: 'pendingAuthorizations',
  upstream: 'pendingAuthorizations',
  code: 'codes',
  replay: 'replays',
  exchange: 'exchangedTokens',
};

/**
 * The bounds of a store made for one part of the router that writes only some kinds (DPoP proof ids, exchanged
 * tokens): those given, every other kind the default.
 */
export function signInLimits(given: Partial<SignInLimits>): SignInLimits {
  const d = DEFAULT_MAX_SIGN_IN_RECORDS;
  return {
    ...{ clients: d, refreshFamilies: d, consents: d, pendingAuthorizations: d, codes: d, replays: d },
    ...{ exchangedTokens: d },
    ...given,
  };
}

/** The most records of `kind` a store keeps under `limits`; undefined for `keys`, which no client can make it write. */
export function boundOf(kind: SignInKind, limits: Partial<SignInLimits>): number | undefined {
  return kind === 'keys' ? undefined : (limits[BOUND_OF[kind]] ?? DEFAULT_MAX_SIGN_IN_RECORDS);
}

/**
 * Keeps sign-in state. Every record expires after its `ttlMs`; each kind but `keys` holds at most its bound of
 * {@link SignInLimits}, the least recently used record evicted first (written by `set` or `add`, or read by `use`).
 * The default, `MemorySignInStore` (used when the router has no shared `store`), keeps it in this process; a shared store (Redis) lets several instances share
 * sign-in: a code issued by one instance is redeemed on another, and every instance signs with the same keys.
 */
export interface SignInStore {
  /** Saves a record for `ttlMs`, replacing one with the same kind and id. */
  set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void>;
  /**
   * Saves a record only when none has this kind and id; true when saved. Atomic across instances. For the `replay`
   * kind it never evicts a live record: a single-use id forgotten before it expires could be used again, so when the
   * kind is at its bound (`replays`) and none has expired it saves nothing and answers false.
   */
  add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean>;
  /** The record, or undefined when it is unknown or expired. */
  get(kind: SignInKind, id: string): Promise<SignInRecord | undefined>;
  /**
   * The record, kept for another `ttlMs` from now and made the most recently used of its kind (the last its bound
   * evicts), or undefined when it is unknown or expired: a client's use (authorize, code, refresh) keeps it.
   */
  use(kind: SignInKind, id: string, ttlMs: number): Promise<SignInRecord | undefined>;
  /** Reads and removes a record in one step: of two concurrent takes, one gets it (single-use codes, refresh rotation). */
  take(kind: SignInKind, id: string): Promise<SignInRecord | undefined>;
  /** Removes a record (nothing happens when it is absent). */
  delete(kind: SignInKind, id: string): Promise<void>;
}
