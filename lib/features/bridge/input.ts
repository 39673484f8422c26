// A bridged route's tool input: the schemas of path params, query and body merged into one, and split back per call.

import { McpConfigError, type OptionKeys } from '../../options/config-error';
import { isObject } from '../../core/jsonrpc/types';
import type { JsonSchema } from '../../core/registry/tools';
import type { RouteInput } from '../../edge/host-routes/route-tool-meta';

/** The keys of a route's `input`. */
export const ROUTE_INPUT_KEYS: OptionKeys<RouteInput> = { params: true, query: true, body: true };

/** The tool arguments of one call, put back where the route expects them. */
export interface SplitArguments {
  /** Path values: numbers and booleans as text, anything else as given (the path template checks them). */
  readonly params: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
}

/** A route's tool input schema and how to split arguments back into params, query and body. */
export interface InputLayout {
  readonly schema: JsonSchema;
  /**
   * The arguments with a finite number or a boolean given for a string path or query value (or an item of a
   * string array query value) replaced by its text, `String(value)`, before the schema is checked: the wire
   * carries text there, and clients that type arguments from a command line (`id=2`) send numbers. Body fields
   * are left as given. A new object when anything changes; the caller's is never written to.
   */
  wireText(args: Record<string, unknown>): Record<string, unknown>;
  split(args: Record<string, unknown>): SplitArguments;
}

function propertiesOf(schema: JsonSchema | undefined): { properties: Record<string, unknown>; required: string[] } {
  return {
    properties: isObject(schema?.properties) ? schema.properties : {},
    required: Array.isArray(schema?.required) ? (schema.required as string[]) : [],
  };
}

/** True for a schema of text only: `type: 'string'`, or a list of types with `string` and no number or boolean. */
function isTextSchema(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const { type } = schema;
  if (type === 'string') return true;
  return (
    Array.isArray(type) &&
    type.includes('string') &&
    !type.some((name) => name === 'number' || name === 'integer' || name === 'boolean')
  );
}

/**
 * A finite number or a boolean as its text, anything else as it is. `String(n)` is ECMAScript's Number::toString,
 * the shortest text that reads back as `n`: `2`, `0.1`, `-0` → `0`, and exponent form from 1e21 (`1e+21`) and below
 * 1e-6 (`1e-7`), which is what the query string and the path would carry anyway. NaN and the infinities stay
 * numbers (JSON cannot carry them): the schema refuses them.
 */
function asText(value: unknown): unknown {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' ? String(value) : value;
}

/** Finds once which of `properties` are text (or lists of text); the function puts the text of what is sent for them. */
function textOf(properties: Record<string, unknown>): (values: Record<string, unknown>) => Record<string, unknown> {
  const scalars = Object.keys(properties).filter((name) => isTextSchema(properties[name]));
  const lists = Object.keys(properties).filter((name) => {
    const schema = properties[name];
    return isObject(schema) && schema.type === 'array' && isTextSchema(schema.items);
  });
  if (scalars.length === 0 && lists.length === 0) return (values) => values;
  return (values) => {
    let copy: Record<string, unknown> | undefined;
    for (const name of scalars) {
      const value = values[name];
      if (Object.hasOwn(values, name) && asText(value) !== value) (copy ??= { ...values })[name] = asText(value);
    }
    for (const name of lists) {
      const value = values[name];
      if (Object.hasOwn(values, name) && Array.isArray(value) && value.some((item) => asText(item) !== item))
        (copy ??= { ...values })[name] = value.map(asText);
    }
    return copy ?? values;
  };
}

function pick(args: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (Object.hasOwn(args, name)) picked[name] = args[name];
  return picked;
}

/**
 * Builds the input of a bridged route. `flat` (the default) merges params, query and body properties into one
 * object, so a model sees `{ id, limit, name }`; a name in two places is refused at boot, and `nested` keeps
 * `{ params, query, body }` apart instead.
 *
 * Only declared query names and (for an object body) declared body properties go out, in either layout: an
 * undeclared `_method` must not reach a host that lets it override the method.
 *
 * @param pathParams - the names of the route path's parameters (`/users/:id` → `['id']`)
 * @param optionalParams - those of `pathParams` the path lets a call leave out (`/users{/:id}`); not required
 * @throws {McpConfigError} for a name found in two places (flat layout)
 * @example
 * ```ts
 * const layout = inputLayoutFor({ body: { type: 'object', properties: { name: { type: 'string' } } } }, ['id'], "route 'x'", 'flat');
 * layout.split({ id: '7', name: 'Ada' }); // { params: { id: '7' }, query: {}, body: { name: 'Ada' } }
 * ```
 */
export function inputLayoutFor(
  input: RouteInput | undefined,
  pathParams: readonly string[],
  label: string,
  layout: 'flat' | 'nested',
  optionalParams: readonly string[] = [],
): InputLayout {
  const paramsSchema: JsonSchema = input?.params ?? {
    type: 'object',
    properties: Object.fromEntries(pathParams.map((name) => [name, { type: 'string' }])),
    required: pathParams.filter((name) => !optionalParams.includes(name)),
  };
  const params = propertiesOf(paramsSchema);
  const query = propertiesOf(input?.query);
  const bodyIsObject = input?.body !== undefined && input.body.type === 'object';
  const body = bodyIsObject
    ? propertiesOf(input?.body)
    : { properties: input?.body ? { body: input.body } : {}, required: input?.body ? ['body'] : [] };

  const queryNames = Object.keys(query.properties);
  const bodyNames = Object.keys(body.properties);
  if (layout === 'nested') {
    const properties: Record<string, unknown> = { params: paramsSchema };
    if (input?.query) properties.query = input.query;
    if (input?.body) properties.body = input.body;
    // A body schema that lists its properties and does not open itself to others (`additionalProperties`) sends those only.
    const listed =
      bodyIsObject && isObject(input?.body?.properties) && (input?.body?.additionalProperties ?? false) === false;
    const paramsText = textOf(params.properties);
    const queryText = textOf(query.properties);
    return {
      schema: { type: 'object', properties, required: ['params', ...(input?.body ? ['body'] : [])] },
      wireText: (args) => {
        const params = isObject(args.params) ? paramsText(args.params) : args.params;
        const query = isObject(args.query) ? queryText(args.query) : args.query;
        if (params === args.params && query === args.query) return args;
        return { ...args, ...(params !== args.params && { params }), ...(query !== args.query && { query }) };
      },
      split: (args) => ({
        params: isObject(args.params) ? args.params : {},
        query: isObject(args.query) ? pick(args.query, queryNames) : {},
        body: listed && isObject(args.body) ? pick(args.body, bodyNames) : args.body,
      }),
    };
  }

  const seen = new Map<string, string>();
  for (const [where, part] of [
    ['params', params],
    ['query', query],
    ['body', body],
  ] as const) {
    for (const name of Object.keys(part.properties)) {
      const first = seen.get(name);
      if (first !== undefined) {
        throw new McpConfigError(
          'ERR_MCP_INVALID_DEFINITION',
          `${label}: '${name}' is both a ${first} and a ${where} input; rename one, or use layout: 'nested'`,
        );
      }
      seen.set(name, where);
    }
  }
  const paramNames = Object.keys(params.properties);
  return {
    wireText: textOf({ ...params.properties, ...query.properties }),
    schema: {
      type: 'object',
      properties: { ...params.properties, ...query.properties, ...body.properties },
      required: [...params.required, ...query.required, ...body.required],
    },
    split: (args) => ({
      params: Object.fromEntries(
        Object.entries(pick(args, paramNames)).map(([k, v]) => [
          k,
          typeof v === 'number' || typeof v === 'boolean' ? String(v) : v,
        ]),
      ),
      query: pick(args, queryNames),
      body: bodyIsObject ? pick(args, bodyNames) : args.body,
    }),
  };
}
