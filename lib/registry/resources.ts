// Resources: static resources and RFC 6570 resource templates, their guard chains, and what `read` returns → contents.

import { McpConfigError } from '../config-error';
import { isObject } from '../jsonrpc/types';
import { toBase64, type BinaryData, type ContentAnnotations, type ResourceContents } from './content';
import { accessRuleOf, type AccessRule } from './access';
import type { RequestContext } from './request-context';
import { checkCacheHint, type CacheHintOptions } from './cache-hint';
import { checkCompleter, type Completer } from './completion';
import { checkDefinitionObject, checkHandler, checkName, copyDefined, type Icon } from './definition';
import type { ReadResourceResult } from './results';
import type { Guard, ResourceGuard, ResourceGuardCall } from './guards';
import { composePipeline, guardLinks, type CallEntry, type Step } from './item-pipeline';
import { parseUriTemplate, type UriTemplate } from './uri-template';

export type { ReadResourceResult } from './results';

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

interface ResourceFields extends AccessRule {
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

/** A static resource, checked. */
export interface RegisteredResource {
  readonly uri: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly read: (
    uri: string,
    variables: Record<string, string>,
    ctx: RequestContext,
  ) => ResourceValue | Promise<ResourceValue>;
  readonly mimeType: string | undefined;
  /** Who may list and read it; undefined for everyone. */
  readonly access: AccessRule | undefined;
  /** Its own cache hint for 2026 reads, checked; undefined for the router's. */
  readonly cache: Readonly<CacheHintOptions> | undefined;
  /** Reads `uri` through the item's pipeline, composed at registration (see {@link Guard} for its order). */
  readonly run: (
    uri: string,
    variables: Record<string, string>,
    ctx: RequestContext,
    entry?: CallEntry,
  ) => Promise<ReadResourceResult>;
}

/** A resource template, parsed and checked. */
export interface RegisteredTemplate extends RegisteredResource {
  readonly template: UriTemplate;
  readonly completers: ReadonlyMap<string, Completer>;
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/**
 * @param routerGuards - the router's `guards`, run before the resource's own
 * @throws {McpConfigError} for a missing name or `read`, a URI without a scheme, or bad guards
 */
export function defineResource(
  definition: ResourceDefinition,
  routerGuards: readonly Guard[] = [],
): RegisteredResource {
  checkDefinitionObject(definition, 'resource');
  const { uri } = definition;
  if (typeof uri !== 'string' || !ABSOLUTE_URI.test(uri)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `resource uri ${JSON.stringify(uri)} must be an absolute URI with a scheme, e.g. 'docs://readme'`,
    );
  }
  checkName(definition.name, `resource '${uri}'`);
  checkHandler(definition.read, `resource '${uri}'`, 'read');
  const read = definition.read.bind(definition);
  return withChain(
    {
      uri,
      descriptor: copyDefined({ uri, ...listedFields(definition), size: definition.size }),
      read: (target: string, _variables: Record<string, string>, ctx: RequestContext) => read(target, ctx),
      mimeType: definition.mimeType,
      access: accessRuleOf(definition, `resource '${uri}'`),
      cache: checkCacheHint(definition.cache, `resource '${uri}' cache`),
    },
    definition,
    `resource '${uri}'`,
    routerGuards,
  );
}

/**
 * @param routerGuards - the router's `guards`, run before the template's own
 * @throws {McpConfigError} for a bad template, a missing name or `read`, a completer for an unknown variable, or bad guards
 */
export function defineTemplate(
  definition: ResourceTemplateDefinition<never>,
  routerGuards: readonly Guard[] = [],
): RegisteredTemplate {
  checkDefinitionObject(definition, 'resource template');
  const template = parseUriTemplate(definition.uriTemplate);
  const label = `resource template '${definition.uriTemplate}'`;
  checkName(definition.name, label);
  checkHandler(definition.read, label, 'read');
  const completers = new Map<string, Completer>();
  for (const [variable, completer] of Object.entries(definition.complete ?? {})) {
    if (!template.variableNames.includes(variable)) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `${label} has a completer for '${variable}', which is not one of its variables (${template.variableNames.join(', ')})`,
      );
    }
    checkCompleter(completer, `${label} variable '${variable}'`);
    completers.set(variable, completer);
  }
  return withChain(
    {
      uri: template.template,
      template,
      completers,
      descriptor: copyDefined({ uriTemplate: template.template, ...listedFields(definition) }),
      read: definition.read.bind(definition) as RegisteredTemplate['read'],
      mimeType: definition.mimeType,
      access: accessRuleOf(definition, label),
      cache: checkCacheHint(definition.cache, `${label} cache`),
    },
    definition,
    label,
    routerGuards,
  );
}

/** The item, frozen, with its pipeline composed: access → the router's guards → its own → read → contents. */
function withChain<T extends Omit<RegisteredResource, 'run'>>(
  item: T,
  definition: ResourceFields,
  label: string,
  routerGuards: readonly Guard[],
): T & RegisteredResource {
  const name = definition.name;
  const pipeline = composePipeline<ResourceGuardCall>({
    access: item.access,
    checks: [],
    guards: guardLinks<ResourceGuardCall>(routerGuards, definition.guards, label),
    run: [],
    terminal: readStep(item),
  });
  const { descriptor } = item;
  return Object.freeze({
    ...item,
    run: (uri: string, variables: Record<string, string>, ctx: RequestContext, entry?: CallEntry) =>
      pipeline({ kind: 'resource', name, uri, arguments: variables, meta: ctx.meta, descriptor, ctx }, entry),
  });
}

/** The end of the chain: `read`, and what it returned as contents (a throw goes on to the dispatcher: -32603). */
function readStep(resource: Omit<RegisteredResource, 'run'>): Step<ResourceGuardCall> {
  return async function runRead(call) {
    const value: unknown = await resource.read(call.uri, call.arguments as Record<string, string>, call.ctx);
    const inputs: unknown[] =
      isObject(value) && Array.isArray(value.contents) ? value.contents : Array.isArray(value) ? value : [value];
    return { contents: inputs.map((input) => toContents(input, call.uri, resource.mimeType)) };
  };
}

function listedFields(definition: ResourceFields): Record<string, unknown> {
  const { name, title, description, mimeType, annotations, icons, _meta } = definition;
  return { name, title, description, mimeType, annotations, icons, _meta };
}

/** Reads a resource through its chain (access, guards, `read`) and turns what `read` returned into contents. */
export function readResource(
  resource: RegisteredResource,
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
): Promise<ReadResourceResult> {
  return resource.run(uri, variables, ctx);
}

function toContents(input: unknown, uri: string, mimeType: string | undefined): ResourceContents {
  if (typeof input === 'string') return withMime({ uri, text: input }, mimeType);
  if (input instanceof Uint8Array) return withMime({ uri, blob: toBase64(input) }, mimeType);
  const { text, blob } = isObject(input) ? input : {};
  if (!isObject(input) || (typeof text !== 'string' && typeof blob !== 'string' && !(blob instanceof Uint8Array))) {
    throw new TypeError(
      `resource '${uri}' read() returned something that is neither text, bytes nor { text } / { blob }`,
    );
  }
  const base = {
    uri: typeof input.uri === 'string' ? input.uri : uri,
    ...(isObject(input._meta) ? { _meta: input._meta } : {}),
  };
  const contents = typeof text === 'string' ? { ...base, text } : { ...base, blob: toBase64(blob as BinaryData) };
  return withMime(contents, typeof input.mimeType === 'string' ? input.mimeType : mimeType);
}

function withMime(contents: ResourceContents, mimeType: string | undefined): ResourceContents {
  return mimeType === undefined ? contents : { ...contents, mimeType };
}
