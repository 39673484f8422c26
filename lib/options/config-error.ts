// McpConfigError: the one error thrown at setup time (bad options, duplicate names, schemas that won't compile), and the checks every option shares.

/** Stable machine codes of {@link McpConfigError}. */
export type McpConfigErrorCode =
  | 'ERR_MCP_UNKNOWN_OPTION'
  | 'ERR_MCP_INVALID_OPTION'
  | 'ERR_MCP_INVALID_NAME'
  | 'ERR_MCP_DUPLICATE'
  | 'ERR_MCP_INVALID_SCHEMA'
  | 'ERR_MCP_INVALID_DEFINITION'
  | 'ERR_MCP_INVALID_URI_TEMPLATE'
  | 'ERR_MCP_NOT_FOR_PRODUCTION';

/**
 * Thrown synchronously while the router is being set up (by `mcpRouter()` or a registration such as
 * `mcp.tool()`), never while a request is served. The message starts with `mcpRouter:` and names the
 * option or registration at fault.
 *
 * @example
 * ```ts
 * try { mcp.tool({ name: 'bad name', description: '…', handler }) }
 * catch (err) { if (err instanceof McpConfigError) console.error(err.code) } // ERR_MCP_INVALID_NAME
 * ```
 */
export class McpConfigError extends Error {
  /** Always `'McpConfigError'`, so logs and `instanceof`-free checks can tell it from other errors. */
  override readonly name = 'McpConfigError';

  /**
   * @param code - stable machine code, e.g. `ERR_MCP_DUPLICATE`
   * @param message - human text; `mcpRouter: ` is prefixed when missing
   */
  constructor(
    readonly code: McpConfigErrorCode,
    message: string,
  ) {
    super(message.startsWith('mcpRouter:') ? message : `mcpRouter: ${message}`);
  }
}

/** True for a positive safe integer: the one check of every count, limit and duration option. */
export function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/**
 * The error of an option with a bad value: `option 'auth.tokens' must be a non-empty array, got []`, or for an item's
 * definition `app 'form': option 'maxBytes' must be a positive integer, got 0`.
 *
 * @param item - the item the options define, named before the message as {@link rejectUnknownKeys} names it
 */
export function invalidOption(option: string, expected: string, value: unknown, item?: string): McpConfigError {
  return new McpConfigError(
    'ERR_MCP_INVALID_OPTION',
    `${item === undefined ? '' : `${item}: `}option '${option}' must be ${expected}, got ${shown(value)}`,
  );
}

/** A value as a message shows it: JSON, else (a bigint, a circular object) its type. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** A list of every key of an options type, which the compiler checks: the known keys of a runtime check for JavaScript callers. */
export type OptionKeys<T> = { [P in keyof Required<T>]: true };

/** The keys of `options` whose value is not `undefined`: what a spread over defaults may override. */
export function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The known key closest to a misspelt one (same but for case, or up to two typos), for "Did you mean". */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(candidate, key);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/**
 * Keys written for another that no edit distance finds: an MCP wire name this router sets from its own key, or the
 * key of another kind of definition. Suggested only where the options know the target.
 */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  // A tool's 2025-11-25 `execution.taskSupport` is set by `task`.
  execution: 'task',
  // A tool's handler is a prompt's `get`.
  handler: 'get',
  // A route's schemas are `input` (params, query, body) and `output`, not the tool's wire names.
  inputSchema: 'input',
  outputSchema: 'output',
};

/** What {@link rejectUnknownKeys} says besides the key: the item the options define, and where a misplaced key belongs. */
export interface UnknownKeyContext {
  /** The item the options define, named before each message (`tool 'add'`); absent for the router's own options. */
  readonly item?: string;
  /**
   * The known keys of its nested options, by the key that holds them (`{ ui: UI_LINK_KEYS }`): a key given one level
   * too high is suggested where it belongs (`visibility` → `ui.visibility`).
   */
  readonly nested?: Readonly<Record<string, Readonly<Record<string, true>>>>;
}

/**
 * Throws for the first key of `options` that `known` does not list, naming it under `prefix` with the closest known
 * key as a hint: `unknown option 'listen.maxStream'. Did you mean 'listen.maxStreams'?`, or for an item's definition
 * `tool 'add': unknown option 'inputschema'. Did you mean 'inputSchema'?`. The one writer of that message.
 *
 * @param prefix - where the options sit, ending in a dot (`'listen.'`); empty for the router's own
 * @param context - the item they define, and the keys of its nested options
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION`
 */
export function rejectUnknownKeys(
  options: object,
  known: Readonly<Record<string, true>>,
  prefix = '',
  context: UnknownKeyContext = {},
): void {
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(known, key)) continue;
    const alias = Object.hasOwn(KEY_ALIASES, key) ? KEY_ALIASES[key] : undefined;
    const hint =
      (alias !== undefined && Object.hasOwn(known, alias) ? alias : undefined) ??
      closestKey(key, Object.keys(known)) ??
      nestedHint(key, context.nested);
    throw new McpConfigError(
      'ERR_MCP_UNKNOWN_OPTION',
      `${context.item === undefined ? '' : `${context.item}: `}unknown option '${prefix}${key}'.${hint ? ` Did you mean '${prefix}${hint}'?` : ''}`,
    );
  }
}

/** The nested option closest to a key given one level too high (`ui.visibility` for `visibility`), if any. */
function nestedHint(key: string, nested: UnknownKeyContext['nested']): string | undefined {
  const candidates = Object.entries(nested ?? {}).flatMap(([holder, keys]) =>
    Object.keys(keys).map((inner) => ({ holder, inner })),
  );
  const inner = closestKey(
    key,
    candidates.map((candidate) => candidate.inner),
  );
  const found = candidates.find((candidate) => candidate.inner === inner);
  return found && `${found.holder}.${found.inner}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
