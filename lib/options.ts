// McpRouterOptions (public, with defaults) and resolveOptions(): checked once, frozen, never written back.

import type Ajv2020 from 'ajv/dist/2020';
import { McpConfigError } from './errors';
import type { McpLogger } from './logger';
import { copyJson, type Icon } from './registry/definition';

/** Default `pageSize`: items per page of `tools/list`, `resources/list`, … */
export const DEFAULT_PAGE_SIZE = 100;
/** Default `bodyLimit`: 4 MB, as the official SDK. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** Options of {@link mcpRouter}. */
export interface McpRouterOptions {
  /** The server's name (`serverInfo.name`). Required. */
  name: string;
  /** The server's version (`serverInfo.version`). Required. */
  version: string;
  /** A display name (MCP 2025-06-18 and later). Defaults to none. */
  title?: string;
  /** What the server is for, for people (MCP 2025-11-25). Defaults to none. */
  description?: string;
  /** The server's home page (MCP 2025-11-25). Defaults to none. */
  websiteUrl?: string;
  /** Icons a client may show (MCP 2025-11-25). Defaults to none. */
  icons?: Icon[];
  /** Guidance for the model on using this server, sent by `initialize`. Defaults to none. */
  instructions?: string;
  /** Items per page of every list; a `nextCursor` is sent when more remain. Defaults to `100`. */
  pageSize?: number;
  /** Largest request body, in bytes or as text like `'512kb'` or `'4mb'`; larger → HTTP 413. Defaults to `'4mb'`. */
  bodyLimit?: number | string;
  /** Where the router reports failures (handler bugs) that it does not send to clients. Defaults to `console`. */
  logger?: McpLogger;
  /** An `Ajv2020` instance (for custom keywords or formats) to compile schemas with. Defaults to one per router, with `ajv-formats`. */
  ajv?: Ajv2020;
}

/** The options after checking and defaulting: internal, frozen. */
export interface ResolvedConfig {
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly bodyLimit: number;
  readonly logger: McpLogger;
  readonly ajv: Ajv2020 | undefined;
}

type KeysEnum<T> = { [P in keyof Required<T>]: true };
// Checked by the compiler against McpRouterOptions, and at run time for JavaScript callers.
const KNOWN_OPTIONS: KeysEnum<McpRouterOptions> = {
  name: true,
  version: true,
  title: true,
  description: true,
  websiteUrl: true,
  icons: true,
  instructions: true,
  pageSize: true,
  bodyLimit: true,
  logger: true,
  ajv: true,
};

function invalid(option: string, expected: string, value: unknown): McpConfigError {
  return new McpConfigError('ERR_MCP_INVALID_OPTION', `option '${option}' must be ${expected}, got ${JSON.stringify(value) ?? typeof value}`);
}

/** The known option closest to a misspelt one (case or up to two typos), for "Did you mean". */
function closestOption(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(KNOWN_OPTIONS)) {
    const distance = known.toLowerCase() === key.toLowerCase() ? 0 : editDistance(known, key);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNIT: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseBodyLimit(value: number | string): number {
  const match = typeof value === 'string' ? SIZE.exec(value.trim()) : null;
  const bytes = typeof value === 'number' ? value : match ? Math.floor(Number(match[1]) * (UNIT[(match[2] ?? 'b').toLowerCase()] ?? 1)) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw invalid('bodyLimit', "a positive number of bytes or text like '4mb'", value);
  return bytes;
}

function optionalString(options: McpRouterOptions, key: 'title' | 'description' | 'websiteUrl' | 'instructions'): string | undefined {
  const value = options[key];
  if (value !== undefined && typeof value !== 'string') throw invalid(key, 'a string', value);
  return value;
}

/**
 * Checks every option and fills in defaults, once, when `mcpRouter()` is called.
 *
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key it does not know, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function resolveOptions(options: McpRouterOptions): ResolvedConfig {
  if (typeof options !== 'object' || options === null) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', "options must be an object with at least 'name' and 'version'");
  }
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(KNOWN_OPTIONS, key)) {
      const hint = closestOption(key);
      throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown option '${key}'.${hint ? ` Did you mean '${hint}'?` : ''}`);
    }
  }
  const { name, version, icons, pageSize = DEFAULT_PAGE_SIZE, logger = console, ajv } = options;
  if (typeof name !== 'string' || name.trim() === '') throw invalid('name', 'a non-empty string', name);
  if (typeof version !== 'string' || version.trim() === '') throw invalid('version', 'a non-empty string', version);
  const title = optionalString(options, 'title');
  const description = optionalString(options, 'description');
  const websiteUrl = optionalString(options, 'websiteUrl');
  const instructions = optionalString(options, 'instructions');
  if (icons !== undefined && (!Array.isArray(icons) || !icons.every((icon) => typeof icon?.src === 'string'))) {
    throw invalid('icons', "an array of { src, mimeType?, sizes? }", icons);
  }
  if (!Number.isInteger(pageSize) || pageSize < 1) throw invalid('pageSize', 'a positive integer', pageSize);
  if (typeof logger?.error !== 'function' || typeof logger.warn !== 'function') throw invalid('logger', 'an object with error() and warn()', typeof logger);
  if (ajv !== undefined && typeof ajv?.compile !== 'function') throw invalid('ajv', 'an Ajv2020 instance', typeof ajv);

  const serverInfo: Record<string, unknown> = { name, version };
  if (title !== undefined) serverInfo.title = title;
  if (description !== undefined) serverInfo.description = description;
  if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
  if (icons !== undefined) serverInfo.icons = copyJson(icons);
  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    instructions,
    pageSize,
    bodyLimit: parseBodyLimit(options.bodyLimit ?? DEFAULT_BODY_LIMIT),
    logger,
    ajv,
  });
}
