// Resources: static resources and RFC 6570 resource templates, their guard chains, and what `read` returns → contents.

import { McpConfigError } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';
import { toBase64, type BinaryData, type ResourceContents } from './content';
import { accessRuleOf, type AccessRule } from './access';
import type { RequestContext } from './request-context';
import { checkCacheHint, type CacheHintOptions } from './cache-hint';
import {
  RESOURCE_KEYS,
  RESOURCE_NESTED_KEYS,
  RESOURCE_WIRE_FIELDS,
  TEMPLATE_KEYS,
  TEMPLATE_WIRE_FIELDS,
  type ResourceDefinition,
  type ResourceFields,
  type ResourceTemplateDefinition,
  type ResourceValue,
} from './resource-definition';
import { checkCompleter, type Completer } from './completion';
import {
  checkDefinitionObject,
  checkFunction,
  checkName,
  copyDefined,
  itemLabel,
  pickFields,
  rejectUnknownDefinitionKeys,
} from './definition';
import type { ReadResourceResult } from './results';
import type { Guard, ResourceGuardCall } from './guards';
import { composePipeline, guardLinks, type CallEntry, type Step } from './item-pipeline';
import { parseUriTemplate, type UriTemplate } from './uri-template';

export type { ReadResourceResult } from './results';
export {
  RESOURCE_WIRE_FIELDS,
  TEMPLATE_WIRE_FIELDS,
  type ResourceContentInput,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ResourceValue,
} from './resource-definition';

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
 * @throws {McpConfigError} for an unknown key, a missing name or `read`, a URI without a scheme, or bad guards
 */
export function defineResource(
  definition: ResourceDefinition,
  routerGuards: readonly Guard[] = [],
): RegisteredResource {
  checkDefinitionObject(definition, 'resource');
  rejectUnknownDefinitionKeys(definition, RESOURCE_KEYS, itemLabel('resource', definition.uri), RESOURCE_NESTED_KEYS);
  const { uri } = definition;
  if (typeof uri !== 'string' || !ABSOLUTE_URI.test(uri)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `resource uri ${JSON.stringify(uri)} must be an absolute URI with a scheme, e.g. 'docs://readme'`,
    );
  }
  checkName(definition.name, `resource '${uri}'`);
  checkFunction(definition.read, `resource '${uri}'`, 'read');
  const read = definition.read.bind(definition);
  return withChain(
    {
      uri,
      descriptor: copyDefined({ ...pickFields(definition, RESOURCE_WIRE_FIELDS), uri }),
      read: (target: string, _variables: Record<string, string>, ctx: RequestContext) => read(target, ctx),
      mimeType: definition.mimeType,
      access: accessRuleOf(definition, `resource '${uri}'`),
      cache: checkCacheHint(definition.cache, 'cache', `resource '${uri}'`),
    },
    definition,
    `resource '${uri}'`,
    routerGuards,
  );
}

/**
 * @param routerGuards - the router's `guards`, run before the template's own
 * @throws {McpConfigError} for an unknown key, a bad template, a missing name or `read`, a completer for an unknown variable, or bad guards
 */
export function defineTemplate(
  definition: ResourceTemplateDefinition<never>,
  routerGuards: readonly Guard[] = [],
): RegisteredTemplate {
  checkDefinitionObject(definition, 'resource template');
  rejectUnknownDefinitionKeys(
    definition,
    TEMPLATE_KEYS,
    itemLabel('resource template', definition.uriTemplate),
    RESOURCE_NESTED_KEYS,
  );
  const template = parseUriTemplate(definition.uriTemplate);
  const label = `resource template '${definition.uriTemplate}'`;
  checkName(definition.name, label);
  checkFunction(definition.read, label, 'read');
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
      descriptor: copyDefined({ ...pickFields(definition, TEMPLATE_WIRE_FIELDS), uriTemplate: template.template }),
      read: definition.read.bind(definition) as RegisteredTemplate['read'],
      mimeType: definition.mimeType,
      access: accessRuleOf(definition, label),
      cache: checkCacheHint(definition.cache, 'cache', label),
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
