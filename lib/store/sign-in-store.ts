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
  | 'upstream';

/** A stored record: plain JSON, so a store may keep it anywhere. */
export type SignInRecord = Readonly<Record<string, unknown>>;

/**
 * Keeps sign-in state. Every record expires after its `ttlMs`. The default, `MemorySignInStore` (used when the
 * router has no shared `store`), keeps it in this process; a shared store (Redis) lets several instances share
 * sign-in: a code issued by one instance is redeemed on another, and every instance signs with the same keys.
 */
export interface SignInStore {
  /** Saves a record for `ttlMs`, replacing one with the same kind and id. */
  set(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<void>;
  /** Saves a record only when none has this kind and id; true when saved. Atomic across instances. */
  add(kind: SignInKind, id: string, value: SignInRecord, ttlMs: number): Promise<boolean>;
  /** The record, or undefined when it is unknown or expired. */
  get(kind: SignInKind, id: string): Promise<SignInRecord | undefined>;
  /** Reads and removes a record in one step: of two concurrent takes, one gets it (single-use codes, refresh rotation). */
  take(kind: SignInKind, id: string): Promise<SignInRecord | undefined>;
  /** Removes a record (nothing happens when it is absent). */
  delete(kind: SignInKind, id: string): Promise<void>;
}
