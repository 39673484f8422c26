// Resources: static resources and RFC 6570 resource templates, and what their `read` returns → contents.

import { McpConfigError } from '../errors';
import { isObject } from '../jsonrpc/types';
import { toBase64, type BinaryData, type ContentAnnotations, type ResourceContents } from './content';
import { accessRuleOf, type AccessRule } from './access';
import type { RequestContext } from './request-context';
import { checkCompleter, type Completer } from './completion';
import { checkDefinitionObject, checkHandler, checkName, copyDefined, type Icon } from './definition';
import { parseUriTemplate, type UriTemplate } from './uri-template';

/** One content of a resource as `read` may return it; `uri` and `mimeType` default to the resource's. */
export type ResourceContentInput =
  | { uri?: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri?: string; mimeType?: string; blob: BinaryData; _meta?: Record<string, unknown> };

/** What `read` may return: text, bytes (→ base64 blob), one content, several, or `{ contents }`. */
export type ResourceValue = string | Uint8Array | ResourceContentInput | ResourceContentInput[] | { contents: ResourceContentInput[] };

interface ResourceFields extends AccessRule {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: ContentAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** A resource with a fixed URI, registered with `mcp.resource()`. */
export interface ResourceDefinition extends ResourceFields {
  /** An absolute URI with a scheme (RFC 3986), e.g. `docs://readme` or `file:///etc/motd`. */
  uri: string;
  /** Size in bytes, if known (MCP 2025-03-26 and later). */
  size?: number;
  read(uri: string, ctx: RequestContext): ResourceValue | Promise<ResourceValue>;
}

/** A family of resources named by an RFC 6570 template, registered with `mcp.resourceTemplate()`. */
export interface ResourceTemplateDefinition<Vars extends Record<string, string> = Record<string, string>> extends ResourceFields {
  /** e.g. `users://{id}/profile` (simple `{x}` and reserved `{+x}` expansion, and RFC 6570 levels 1–3). */
  uriTemplate: string;
  /** Reads one resource of the family; `variables` are the decoded values matched in the URI. */
  read(uri: string, variables: Vars, ctx: RequestContext): ResourceValue | Promise<ResourceValue>;
  /** Completers for the template's variables (`completion/complete` with `ref/resource`). */
  complete?: { [name: string]: Completer };
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  contents: ResourceContents[];
}

/** A static resource, checked. */
export interface RegisteredResource {
  readonly uri: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly read: (uri: string, variables: Record<string, string>, ctx: RequestContext) => ResourceValue | Promise<ResourceValue>;
  readonly mimeType: string | undefined;
  /** Who may list and read it; undefined for everyone. */
  readonly access: AccessRule | undefined;
}

/** A resource template, parsed and checked. */
export interface RegisteredTemplate extends RegisteredResource {
  readonly template: UriTemplate;
  readonly completers: ReadonlyMap<string, Completer>;
}

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

/** @throws {McpConfigError} for a missing name or `read`, or a URI without a scheme */
export function defineResource(definition: ResourceDefinition): RegisteredResource {
  checkDefinitionObject(definition, 'resource');
  const { uri } = definition;
  if (typeof uri !== 'string' || !ABSOLUTE_URI.test(uri)) {
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `resource uri ${JSON.stringify(uri)} must be an absolute URI with a scheme, e.g. 'docs://readme'`);
  }
  checkName(definition.name, `resource '${uri}'`);
  checkHandler(definition.read, `resource '${uri}'`, 'read');
  const read = definition.read.bind(definition);
  return Object.freeze({
    uri,
    descriptor: copyDefined({ uri, ...listedFields(definition), size: definition.size }),
    read: (target: string, _variables: Record<string, string>, ctx: RequestContext) => read(target, ctx),
    mimeType: definition.mimeType,
    access: accessRuleOf(definition, `resource '${uri}'`),
  });
}

/** @throws {McpConfigError} for a bad template, a missing name or `read`, or a completer for an unknown variable */
export function defineTemplate(definition: ResourceTemplateDefinition<never>): RegisteredTemplate {
  checkDefinitionObject(definition, 'resource template');
  const template = parseUriTemplate(definition.uriTemplate);
  const label = `resource template '${definition.uriTemplate}'`;
  checkName(definition.name, label);
  checkHandler(definition.read, label, 'read');
  const completers = new Map<string, Completer>();
  for (const [variable, completer] of Object.entries(definition.complete ?? {})) {
    if (!template.variableNames.includes(variable)) {
      throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `${label} has a completer for '${variable}', which is not one of its variables (${template.variableNames.join(', ')})`);
    }
    checkCompleter(completer, `${label} variable '${variable}'`);
    completers.set(variable, completer);
  }
  return Object.freeze({
    uri: template.template,
    template,
    completers,
    descriptor: copyDefined({ uriTemplate: template.template, ...listedFields(definition) }),
    read: definition.read.bind(definition) as RegisteredTemplate['read'],
    mimeType: definition.mimeType,
    access: accessRuleOf(definition, label),
  });
}

function listedFields(definition: ResourceFields): Record<string, unknown> {
  const { name, title, description, mimeType, annotations, icons, _meta } = definition;
  return { name, title, description, mimeType, annotations, icons, _meta };
}

/** Runs a resource's `read` and turns what it returned into `resources/read` contents. */
export async function readResource(
  resource: RegisteredResource,
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
): Promise<ReadResourceResult> {
  const value: unknown = await resource.read(uri, variables, ctx);
  const inputs: unknown[] = isObject(value) && Array.isArray(value.contents) ? value.contents : Array.isArray(value) ? value : [value];
  return { contents: inputs.map((input) => toContents(input, uri, resource.mimeType)) };
}

function toContents(input: unknown, uri: string, mimeType: string | undefined): ResourceContents {
  if (typeof input === 'string') return withMime({ uri, text: input }, mimeType);
  if (input instanceof Uint8Array) return withMime({ uri, blob: toBase64(input) }, mimeType);
  const { text, blob } = isObject(input) ? input : {};
  if (!isObject(input) || (typeof text !== 'string' && typeof blob !== 'string' && !(blob instanceof Uint8Array))) {
    throw new TypeError(`resource '${uri}' read() returned something that is neither text, bytes nor { text } / { blob }`);
  }
  const base = { uri: typeof input.uri === 'string' ? input.uri : uri, ...(isObject(input._meta) ? { _meta: input._meta } : {}) };
  const contents = typeof text === 'string' ? { ...base, text } : { ...base, blob: toBase64(blob as BinaryData) };
  return withMime(contents, typeof input.mimeType === 'string' ? input.mimeType : mimeType);
}

function withMime(contents: ResourceContents, mimeType: string | undefined): ResourceContents {
  return mimeType === undefined ? contents : { ...contents, mimeType };
}
