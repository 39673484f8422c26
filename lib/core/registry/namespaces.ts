// Namespaces claimed in a registry: the names and URIs under a gateway upstream's prefix are its alone, from its mount on.

import { McpConfigError } from '../../options/config-error';
import type { Collection } from './collection';

/** Whether a key is a name (tools, prompts) or a URI (resources, templates). */
export type KeyKind = 'name' | 'uri';

/** What one owner claims: every key starting with one of its starts (compared without case). */
export interface NamespaceClaim {
  /** How messages name the owner: `upstream 'fs' (prefix 'fs')`. */
  readonly owner: string;
  /** Its items' group in the registry (see {@link Collection.add}): only they may take keys in it. */
  readonly group: number;
  /** Starts of the names it owns: `['fs__']`. */
  readonly names: readonly string[];
  /** Starts of the URIs it owns: `['fs+', 'ui://fs+']`. */
  readonly uris: readonly string[];
}

/** A claim in force: what it took from others when made, and how it ends. */
export interface NamespaceHold {
  /** The groups whose items in the namespace were removed when it was claimed (their owners should sync again). */
  readonly evicted: ReadonlySet<number>;
  release(): void;
}

/** The collections a claim covers (a registry's). */
export type ClaimedCollections = Readonly<Record<'tools' | 'prompts' | 'resources' | 'templates', Collection<unknown>>>;

/** The kind of each collection's keys. */
const KEYS = { tools: 'name', prompts: 'name', resources: 'uri', templates: 'uri' } as const;

function startsOf(claim: NamespaceClaim, kind: KeyKind): readonly string[] {
  return kind === 'name' ? claim.names : claim.uris;
}

/**
 * A key as the namespace test reads it: lower case, and for a URI with its percent-encoded unreserved characters
 * decoded (RFC 3986 §6.2.2.2: `%67` and `g` are one URI), so `ui://%67ood+viewer` is `ui://good+viewer`.
 */
function normalised(kind: KeyKind, key: string): string {
  if (kind === 'name' || !key.includes('%')) return key.toLowerCase();
  return key
    .replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
      const char = String.fromCharCode(parseInt(hex, 16));
      return /[A-Za-z0-9._~-]/.test(char) ? char : escape;
    })
    .toLowerCase();
}

/**
 * Whether a (normalised) key falls in a namespace whose starts are `starts`: it begins with one, or it is a URI
 * template whose fixed text ends at the prefix itself (`ui://good{+x}`, `good{+x}`, against `ui://good+`, `good+`).
 * Such a template can only be meant for the namespace, where the owner's templates alone match (registry.ts).
 */
function fallsIn(kind: KeyKind, key: string, starts: readonly string[]): boolean {
  const brace = kind === 'uri' ? key.indexOf('{') : -1;
  const literal = brace === -1 ? undefined : key.slice(0, brace);
  return starts.some((start) => key.startsWith(start) || literal === start.slice(0, -1));
}

/**
 * The claims of one registry. Names are compared without case as URI schemes and authorities are (RFC 3986 §3.1,
 * §3.2.2), so `FS__x` and `Fs+file:///x` are `fs`'s too: no lookalike of an upstream's item can sit beside it.
 */
export class Namespaces {
  readonly #claims: NamespaceClaim[] = [];
  /** Keys of the router's own items registered later (a route learned on the first request), checked as if there. */
  readonly #reserved: { kind: KeyKind; what: string; key: string }[] = [];

  /** The claim `key` falls in; undefined for none. */
  ownerOf(kind: KeyKind, key: string): NamespaceClaim | undefined {
    if (this.#claims.length === 0) return undefined;
    const read = normalised(kind, key);
    return this.#claims.find((claim) => fallsIn(kind, read, startsOf(claim, kind)));
  }

  /**
   * Refuses `key` for an item of `group` when another owner claims it.
   *
   * @param what - the item as messages name it: `tool`, `resource template`…
   * @throws {McpConfigError} `ERR_MCP_DUPLICATE`, naming the item and the owner
   */
  refuseTaken(kind: KeyKind, what: string, key: string, group: number): void {
    const owner = this.ownerOf(kind, key);
    if (owner !== undefined && owner.group !== group)
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `${what} '${key}' is in the namespace of ${owner.owner}, which only its items may use; pick another name`,
      );
  }

  /**
   * Checks a key of the router's own item that is registered later, and keeps it: a claim made before then is
   * refused as one over a registered item is. So `mcp.route({ name })` throws at boot whichever is called first.
   *
   * @throws {McpConfigError} `ERR_MCP_DUPLICATE` when an owner claims it already
   */
  reserve(kind: KeyKind, what: string, key: string): void {
    this.refuseTaken(kind, what, key, 0);
    this.#reserved.push({ kind, what, key });
  }

  /**
   * Claims a namespace. The router's own items in it (group 0) refuse the claim; other upstreams' items in it are
   * removed (they would otherwise hold the owner's names by having listed first).
   *
   * @throws {McpConfigError} `ERR_MCP_DUPLICATE` for a namespace that overlaps one claimed already, or that holds one
   *   of the router's own items
   */
  claim(claim: NamespaceClaim, collections: ClaimedCollections): NamespaceHold {
    const lowered: NamespaceClaim = {
      ...claim,
      names: claim.names.map((start) => start.toLowerCase()),
      uris: claim.uris.map((start) => start.toLowerCase()),
    };
    for (const other of this.#claims) {
      const overlaps = (kind: KeyKind): boolean =>
        startsOf(lowered, kind).some((mine) =>
          startsOf(other, kind).some((theirs) => mine.startsWith(theirs) || theirs.startsWith(mine)),
        );
      // Two owners of one key would make its item depend on which listed first.
      if (overlaps('name') || overlaps('uri'))
        throw new McpConfigError('ERR_MCP_DUPLICATE', `${claim.owner} overlaps the namespace of ${other.owner}`);
    }
    const inside = (kind: KeyKind, key: string): boolean =>
      fallsIn(kind, normalised(kind, key), startsOf(lowered, kind));
    const reserved = this.#reserved.find(({ kind, key }) => inside(kind, key));
    if (reserved !== undefined)
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `${claim.owner} cannot be mounted: the router's own ${reserved.what} '${reserved.key}' is in its namespace; rename it or pick another prefix`,
      );
    const taken: [Collection<unknown>, string, unknown, number][] = [];
    for (const [list, kind] of Object.entries(KEYS) as [keyof typeof KEYS, KeyKind][]) {
      const collection = collections[list];
      for (const { key, value, group } of collection.entries()) {
        if (!inside(kind, key) || group === claim.group) continue;
        if (group === 0)
          throw new McpConfigError(
            'ERR_MCP_DUPLICATE',
            `${claim.owner} cannot be mounted: the router's own ${collection.kind} '${key}' is in its namespace; rename it or pick another prefix`,
          );
        taken.push([collection, key, value, group]);
      }
    }
    const evicted = new Set<number>();
    for (const [collection, key, value, group] of taken) {
      collection.remove(key, value);
      evicted.add(group);
    }
    this.#claims.push(lowered);
    return {
      evicted,
      release: () => {
        const index = this.#claims.indexOf(lowered);
        if (index !== -1) this.#claims.splice(index, 1);
      },
    };
  }
}
