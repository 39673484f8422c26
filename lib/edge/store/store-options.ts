// Option checks shared by the in-memory stores: an object of known keys, positive integers.

import { isPositiveInteger, McpConfigError } from '../../options/config-error';

/**
 * @param owner - the class, for messages (`MemoryEventStore`)
 * @param known - every key the options may have
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` for a non-object, `ERR_MCP_UNKNOWN_OPTION` for an unknown key
 */
export function checkStoreOptions(owner: string, options: unknown, known: Readonly<Record<string, true>>): void {
  if (typeof options !== 'object' || options === null) {
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', `${owner} options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(known, key))
      throw new McpConfigError('ERR_MCP_UNKNOWN_OPTION', `unknown ${owner} option '${key}'`);
  }
}

/** @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` unless `value` is a positive safe integer */
export function positiveInteger(owner: string, option: string, value: number): number {
  if (!isPositiveInteger(value)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${owner} option '${option}' must be a positive integer, got ${JSON.stringify(value) ?? typeof value}`,
    );
  }
  return value;
}
