// Tool arguments mirrored into `Mcp-Param-{Name}` headers (MCP 2026-07-28, SEP-2243): read from `"x-mcp-header"` in an inputSchema, checked once at registration.

import { McpConfigError } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';

/** The JSON Schema keyword that marks a tool argument as mirrored into a header. */
export const X_MCP_HEADER = 'x-mcp-header';

/** The types an `x-mcp-header` argument may have (MCP 2026-07-28 transports › Schema Extension: `number` is not permitted). */
export type HeaderParamType = 'string' | 'integer' | 'boolean';

/** One argument a client must mirror into a header on `tools/call`. */
export interface HeaderParam {
  /** The chain of `properties` keys from the arguments' root to the argument. */
  readonly path: readonly string[];
  /** The header as clients spell it: `Mcp-Param-{Name}` with the declared name. */
  readonly header: string;
  /** The header's name lowercased, as Node's `req.headers` holds it. */
  readonly key: string;
  readonly type: HeaderParamType;
}

const HEADER_PARAM_TYPES: ReadonlySet<string> = new Set<HeaderParamType>(['string', 'integer', 'boolean']);
/** RFC 9110 §5.1 `token` (`1*tchar`): no space, control character or delimiter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Keywords whose subschemas are not reached through `properties` alone: an `x-mcp-header` under any of them is
 * invalid (MCP 2026-07-28: the chain must not pass through array, composition or conditional keywords, or `$ref`).
 */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
/** The same, for keywords holding a list or a map of subschemas. */
const UNREACHABLE_GROUPS = ['oneOf', 'anyOf', 'allOf', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/** A tool without header parameters: one frozen empty list for all. */
export const NO_HEADER_PARAMS: readonly HeaderParam[] = Object.freeze([]);

/**
 * The `x-mcp-header` arguments of a tool's inputSchema, checked as MCP 2026-07-28 (transports › Custom Headers from
 * Tool Parameters) requires of a tool definition: a non-empty RFC 9110 token, unique ignoring case, on a `string`,
 * `integer` or `boolean` property reached from the root through `properties` keys only.
 *
 * @param label - names the tool in errors, e.g. `tool 'search'`
 * @throws {McpConfigError} ERR_MCP_INVALID_SCHEMA naming the property and the rule it breaks
 * @example
 * ```ts
 * headerParamsOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }, "tool 'sql'");
 * // [{ path: ['region'], header: 'Mcp-Param-Region', key: 'mcp-param-region', type: 'string' }]
 * ```
 */
export function headerParamsOf(inputSchema: Record<string, unknown>, label: string): readonly HeaderParam[] {
  const params: HeaderParam[] = [];
  const refuseHeaderParam = (path: readonly string[], rule: string): never => {
    const where = path.length === 0 ? 'the inputSchema root' : `property '${path.join('.')}'`;
    throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} inputSchema: "${X_MCP_HEADER}" on ${where} ${rule}`);
  };

  function collect(schema: unknown, path: readonly string[], reachable: boolean): void {
    if (!isObject(schema)) return;
    if (Object.hasOwn(schema, X_MCP_HEADER)) {
      if (!reachable || path.length === 0)
        refuseHeaderParam(
          path,
          'is not allowed: only properties reached from the root through "properties" keys may be mirrored into headers',
        );
      params.push(declaration(schema, path, refuseHeaderParam));
    }
    if (isObject(schema.properties)) {
      for (const [name, child] of Object.entries(schema.properties)) collect(child, [...path, name], reachable);
    }
    for (const keyword of UNREACHABLE_KEYWORDS) collect(schema[keyword], [...path, keyword], false);
    for (const keyword of UNREACHABLE_GROUPS) {
      const group = schema[keyword];
      const members = Array.isArray(group) ? group : isObject(group) ? Object.values(group) : [];
      for (const member of members) collect(member, [...path, keyword], false);
    }
  }

  collect(inputSchema, [], true);
  const seen = new Map<string, HeaderParam>();
  for (const param of params) {
    const earlier = seen.get(param.key);
    if (earlier !== undefined)
      refuseHeaderParam(
        param.path,
        `repeats the header name of property '${earlier.path.join('.')}' (names are compared ignoring case)`,
      );
    seen.set(param.key, param);
  }
  return params.length === 0 ? NO_HEADER_PARAMS : Object.freeze(params);
}

function declaration(
  schema: Record<string, unknown>,
  path: readonly string[],
  refuseHeaderParam: (path: readonly string[], rule: string) => never,
): HeaderParam {
  const name = schema[X_MCP_HEADER];
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    refuseHeaderParam(
      path,
      `must be a non-empty HTTP token (letters, digits and !#$%&'*+-.^_\`|~), not ${JSON.stringify(name)}`,
    );
  }
  const { type } = schema;
  if (typeof type !== 'string' || !HEADER_PARAM_TYPES.has(type)) {
    refuseHeaderParam(
      path,
      `needs "type": "string", "integer" or "boolean" (MCP 2026-07-28 permits no other), not ${JSON.stringify(type)}`,
    );
  }
  const header = `Mcp-Param-${name as string}`;
  return Object.freeze({
    path: Object.freeze([...path]),
    header,
    key: header.toLowerCase(),
    type: type as HeaderParamType,
  });
}
