// Resources and resource templates as users define them, and the one table of each kind's keys: MCP wire fields and ours.

import type { OptionKeys } from '../../options/config-error';
import type { AccessRule } from './access';
import { CACHE_HINT_KEYS, type CacheHintOptions } from './cache-hint';
import type { Completer } from './completion';
import type { BinaryData, ContentAnnotations } from './content';
import type { Icon } from './definition';
import type { ResourceGuard } from './guards';
import type { RequestContext } from './request-context';

/** One content of a resource as `read` may return it; `uri` and `mimeType` default to the resource's. */
export type ResourceContentInput =
  | {
      /** The URI these contents are for. Defaults to the URI read. */
      uri?: string;
      /** Their media type. Defaults to the resource's `mimeType`. */
      mimeType?: string;
      /** The contents as text. */
      text: string;
      /** Extra data for clients that know its keys; passed through untouched. */
      _meta?: Record<string, unknown>;
    }
  | {
      /** The URI these contents are for. Defaults to the URI read. */
      uri?: string;
      /** Their media type. Defaults to the resource's `mimeType`. */
      mimeType?: string;
      /** The contents as bytes (base64-encoded on the wire). */
      blob: BinaryData;
      /** Extra data for clients that know its keys; passed through untouched. */
      _meta?: Record<string, unknown>;
    };

/** What `read` may return: text, bytes (→ base64 blob), one content, several, or `{ contents }`. */
export type ResourceValue =
  | string
  | Uint8Array
  | ResourceContentInput
  | ResourceContentInput[]
  | {
      /** Every contents item of the read, as `resources/read` answers them. */
      contents: ResourceContentInput[];
    };

/** What a resource and a resource template both have. */
export interface ResourceFields extends AccessRule {
  /** A short name for the resource, shown in lists. */
  name: string;
  /** A display name for people. Defaults to none. */
  title?: string;
  /** What the resource holds, for the model. Defaults to none. */
  description?: string;
  /** The media type its contents have, listed and used for contents that do not give their own. Defaults to none. */
  mimeType?: string;
  /** Hints for the client: audience, priority, last change. Defaults to none. */
  annotations?: ContentAnnotations;
  /** Icons a client may show beside it (MCP 2025-11-25). Defaults to none. */
  icons?: Icon[];
  /** Extra data listed with it, for clients that know its keys. Defaults to none. */
  _meta?: Record<string, unknown>;
  /**
   * Guards around each read, after the router's `guards` (see {@link Guard} for the whole order): they may let
   * a read through, end it with contents or a JSON-RPC error, or change its contents. Defaults to none.
   */
  guards?: ReadonlyArray<ResourceGuard>;
  /**
   * How long a 2026-07-28 client may reuse what `resources/read` returns, and who may: overrides the router's
   * `cache` for this item's reads. Defaults to the router's.
   */
  cache?: CacheHintOptions;
}

/** A resource with a fixed URI, registered with `mcp.resource()`. */
export interface ResourceDefinition extends ResourceFields {
  /** An absolute URI with a scheme (RFC 3986), e.g. `docs://readme` or `file:///etc/motd`. */
  uri: string;
  /** Size in bytes, if known (MCP 2025-03-26 and later). */
  size?: number;
  /**
   * Reads the resource; a string is text, bytes are a blob, and `mimeType` applies to both unless a contents item gives
   * its own.
   */
  read(uri: string, ctx: RequestContext): ResourceValue | Promise<ResourceValue>;
}

/** A family of resources named by an RFC 6570 template, registered with `mcp.resourceTemplate()`. */
export interface ResourceTemplateDefinition<
  Vars extends Record<string, string> = Record<string, string>,
> extends ResourceFields {
  /** e.g. `users://{id}/profile` (simple `{x}` and reserved `{+x}` expansion, and RFC 6570 levels 1–3). */
  uriTemplate: string;
  /** Reads one resource of the family; `variables` are the decoded values matched in the URI. */
  read(uri: string, variables: Vars, ctx: RequestContext): ResourceValue | Promise<ResourceValue>;
  /** Completers for the template's variables (`completion/complete` with `ref/resource`). */
  complete?: { [name: string]: Completer };
}

/** The fields an MCP Resource and ResourceTemplate share (schema 2025-11-25 and 2026-07-28), listed as given. */
const LISTED_FIELDS = {
  name: true,
  title: true,
  description: true,
  mimeType: true,
  annotations: true,
  icons: true,
  _meta: true,
} as const satisfies Partial<OptionKeys<ResourceFields>>;
/** The router's own keys of both kinds. */
const OWN_KEYS = {
  scopes: true,
  canAccess: true,
  guards: true,
  cache: true,
  read: true,
} as const satisfies Partial<OptionKeys<ResourceDefinition>>;

/**
 * The fields of an MCP Resource (schema 2025-11-25 and 2026-07-28 › Resource) a definition gives as they go on the
 * wire: `resources/list` shows them, and a gateway takes them from an upstream's entry.
 */
export const RESOURCE_WIRE_FIELDS = {
  uri: true,
  ...LISTED_FIELDS,
  size: true,
} as const satisfies Partial<OptionKeys<ResourceDefinition>>;
/** Every key of a resource definition. */
export const RESOURCE_KEYS: OptionKeys<ResourceDefinition> = { ...RESOURCE_WIRE_FIELDS, ...OWN_KEYS };

/** The fields of an MCP ResourceTemplate (schema › ResourceTemplate) a definition gives as they go on the wire. */
export const TEMPLATE_WIRE_FIELDS = {
  uriTemplate: true,
  ...LISTED_FIELDS,
} as const satisfies Partial<OptionKeys<ResourceTemplateDefinition>>;
/** Every key of a resource template definition. */
export const TEMPLATE_KEYS: OptionKeys<ResourceTemplateDefinition> = {
  ...TEMPLATE_WIRE_FIELDS,
  ...OWN_KEYS,
  complete: true,
};

/** The nested options of both kinds that are this router's: their keys are checked too. */
export const RESOURCE_NESTED_KEYS = { cache: CACHE_HINT_KEYS };
