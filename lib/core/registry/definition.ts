// Checks shared by every registration (tool, resource, template, prompt): shape, handler, names, copies.

import { McpConfigError, rejectUnknownKeys } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';

/** An icon a client may show (MCP 2025-11-25). */
export interface Icon {
  /** Where the client fetches the icon: an `https:` or `data:` URL. */
  src: string;
  /** Its media type (`image/png`, `image/svg+xml`, …), when the URL does not tell. */
  mimeType?: string;
  /** The sizes it is drawn for (`48x48`, or `any` for a vector image). */
  sizes?: string[];
  /** The background it is drawn for: `light` or `dark`; absent for either. */
  theme?: 'light' | 'dark';
}

/**
 * True for an icon a client may fetch: its `src` an `http(s):` or `data:` URL (MCP 2025-11-25 `Icon`), never
 * `javascript:` or a path a client would resolve against who knows what.
 */
export function isIcon(icon: unknown): icon is Icon {
  const src = (icon as Icon | undefined)?.src;
  return typeof src === 'string' && /^(https?:\/\/|data:)/i.test(src);
}

/** Returned by every registration: `remove()` takes the item off the router again. */
export interface McpRegistration {
  /** Removes the item; later calls and lists no longer see it. Returns false if it was already removed. */
  remove(): boolean;
}

/** @throws {McpConfigError} when a registration is not an object */
export function checkDefinitionObject(
  definition: unknown,
  kind: string,
): asserts definition is Record<string, unknown> {
  if (!isObject(definition)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `a ${kind} definition must be an object, got ${definition === null ? 'null' : typeof definition}`,
    );
  }
}

/** The keys of one kind of definition, checked by the compiler against its type (`OptionKeys<ToolDefinition>`). */
export type KeyTable = Readonly<Record<string, true>>;

/**
 * Refuses a key of `definition`, or of one of its nested options given as an object (`ui`, `rateLimit`, `cache`, …),
 * that its kind does not have: a typo must not silently drop a protection (`inputschema` registers a tool with no
 * input validation). A key given one level too high is suggested where it belongs.
 *
 * @param item - names the item in the message: `tool 'add'`
 * @param nested - the key tables of its nested options, by the key that holds them
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION`: `tool 'add': unknown option 'inputschema'. Did you mean 'inputSchema'?`
 */
export function rejectUnknownDefinitionKeys(
  definition: Record<string, unknown>,
  known: KeyTable,
  item: string,
  nested: Readonly<Record<string, KeyTable>> = {},
): void {
  rejectUnknownKeys(definition, known, '', { item, nested });
  for (const [holder, keys] of Object.entries(nested)) {
    const value = definition[holder];
    if (isObject(value)) rejectUnknownKeys(value, keys, `${holder}.`, { item });
  }
}

/** How messages name an item before its identifier is checked: `tool 'add'`, or `tool` when it has none yet. */
export function itemLabel(kind: string, id: unknown): string {
  return typeof id === 'string' ? `${kind} '${id}'` : kind;
}

/** The fields of `source` that `fields` lists (one kind's MCP wire fields), as given: what goes on to a list entry. */
export function pickFields(source: object, fields: KeyTable): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) picked[key] = (source as Record<string, unknown>)[key];
  return picked;
}

/**
 * The one check of a definition's functions: a required one (`handler`, `read`, `get`) must be there, an optional
 * one (`canAccess`, a completer) a function when given.
 *
 * @throws {McpConfigError} `ERR_MCP_INVALID_DEFINITION`: `tool 'add' needs a 'handler' function`, or for an optional
 *   one `tool 'add' canAccess must be a function`
 */
export function checkFunction(fn: unknown, label: string, key: string, optional = false): void {
  if (typeof fn === 'function' || (optional && fn === undefined)) return;
  throw new McpConfigError(
    'ERR_MCP_INVALID_DEFINITION',
    optional ? `${label} ${key} must be a function` : `${label} needs a '${key}' function`,
  );
}

/** @throws {McpConfigError} when `name` is not a non-empty string */
export function checkName(name: unknown, kind: string): asserts name is string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new McpConfigError(
      'ERR_MCP_INVALID_NAME',
      `a ${kind} needs a non-empty string 'name', got ${JSON.stringify(name)}`,
    );
  }
}

/** A frozen copy of `fields` without its undefined values: the list entry as it goes on the wire. */
export function copyDefined(fields: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) copy[key] = copyJson(value);
  }
  return Object.freeze(copy);
}

/** A deep copy of JSON data (schemas, icons, annotations): what goes on the wire is exactly what was registered. */
export function copyJson<T>(value: T): T {
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as T) : value;
}
