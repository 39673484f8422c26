// The shapes of a tool's schemas, checked at registration: inputSchema and outputSchema are object schemas, and a non-object output schema is sent wrapped as { result }.

import { McpConfigError } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';

/** A JSON Schema object (2020-12 unless `$schema` says otherwise). */
export type JsonSchema = Record<string, unknown>;

/**
 * True when an output schema describes something other than an object (`{ type: 'array' }`, `{ type: 'string' }`,
 * `{ enum: [...] }`): MCP wants `structuredContent` to be an object, so such results travel as `{ result: value }`
 * under `{ type: 'object', properties: { result: schema }, required: ['result'] }`, as the Python SDKs do.
 *
 * @throws {McpConfigError} for a schema that is not an object, or that lists object keywords without `type: 'object'`
 */
export function wrapsOutput(schema: unknown, label: string): boolean {
  if (!isObject(schema)) throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} must be a JSON Schema object`);
  if (schema.type === 'object') return false;
  if (
    schema.type === undefined &&
    ('properties' in schema || 'required' in schema || 'additionalProperties' in schema)
  ) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_SCHEMA',
      `${label} lists object keywords without type: 'object'; add it (any other schema is sent as { result: <value> })`,
    );
  }
  return true;
}

/** The object schema a non-object output schema is sent as (see {@link wrapsOutput}). */
export function wrappedSchema(schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

/**
 * `schema` as an object schema, the only root MCP allows for inputSchema and outputSchema.
 *
 * @throws {McpConfigError} for anything else
 */
export function objectSchema(schema: unknown, label: string): JsonSchema {
  // MCP: inputSchema and outputSchema are JSON Schema objects whose root type is "object".
  if (!isObject(schema) || schema.type !== 'object') {
    throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} must be a JSON Schema object with type: 'object'`);
  }
  return schema;
}
