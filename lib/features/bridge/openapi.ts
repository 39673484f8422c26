// OpenAPI 3 → route tools: one per operation (operationId → name), parameters and JSON body → input; `x-mcp: false` skips.

import { McpConfigError } from '../../options/config-error';
import { isObject } from '../../core/jsonrpc/types';
import type { JsonSchema } from '../../core/registry/tools';
import type { RouteInput, RouteToolMeta } from '../../edge/host-routes/route-tool-meta';
import { pathFromTemplate } from './path-template';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const;
const VALID_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Local `$ref`s (`#/components/schemas/User`) replaced by what they point to; a cycle stops at `{}` (any value). */
function resolveRefs(value: unknown, document: Record<string, unknown>, seen: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, document, seen));
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') {
    const ref = value.$ref;
    if (!ref.startsWith('#/') || seen.includes(ref)) return {};
    let target: unknown = document;
    for (const part of ref.slice(2).split('/'))
      target = isObject(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (target === undefined)
      throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `OpenAPI document: '${ref}' does not resolve`);
    return resolveRefs(target, document, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRefs(item, document, seen)]));
}

function objectSchema(parameters: Record<string, unknown>[]): JsonSchema | undefined {
  if (parameters.length === 0) return undefined;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    const name = String(parameter.name);
    properties[name] = {
      ...(isObject(parameter.schema) ? parameter.schema : { type: 'string' }),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.required === true || parameter.in === 'path') required.push(name);
  }
  return { type: 'object', properties, required };
}

/**
 * The route tools an OpenAPI 3 document describes: `operationId` names each one (else method and path do),
 * `summary`/`description` describes it, path and query parameters and an `application/json` request body make
 * its input, and an operation (or path item) with `x-mcp: false` is left out.
 *
 * @throws {McpConfigError} for a document that is not OpenAPI 3 or a `$ref` that does not resolve
 * @example
 * ```ts
 * mcp.exposeRoutes(app, routesFromOpenApi(openApiDocument)); // what mcp.exposeOpenApi(app, openApiDocument) does
 * ```
 */
export function routesFromOpenApi(document: unknown): Array<RouteToolMeta & { method: string; path: string }> {
  if (
    !isObject(document) ||
    typeof document.openapi !== 'string' ||
    !document.openapi.startsWith('3') ||
    !isObject(document.paths)
  ) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      "exposeOpenApi: expected an OpenAPI 3 document (with 'openapi: 3.x' and 'paths')",
    );
  }
  const routes: Array<RouteToolMeta & { method: string; path: string }> = [];
  for (const [openApiPath, rawItem] of Object.entries(document.paths)) {
    if (!isObject(rawItem) || rawItem['x-mcp'] === false) continue;
    const item = resolveRefs(rawItem, document) as Record<string, unknown>;
    const shared = Array.isArray(item.parameters) ? (item.parameters as Record<string, unknown>[]) : [];
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || operation['x-mcp'] === false) continue;
      const parameters = [
        ...shared,
        ...(Array.isArray(operation.parameters) ? (operation.parameters as Record<string, unknown>[]) : []),
      ];
      const content =
        isObject(operation.requestBody) && isObject(operation.requestBody.content)
          ? operation.requestBody.content['application/json']
          : undefined;
      const input: RouteInput = {};
      const params = objectSchema(parameters.filter((parameter) => parameter.in === 'path'));
      const query = objectSchema(parameters.filter((parameter) => parameter.in === 'query'));
      if (params) input.params = params;
      if (query) input.query = query;
      if (isObject(content) && isObject(content.schema)) input.body = content.schema;
      const operationId =
        typeof operation.operationId === 'string' && VALID_NAME.test(operation.operationId)
          ? operation.operationId
          : undefined;
      const description = [operation.summary, operation.description]
        .filter((text) => typeof text === 'string' && text !== '')
        .join('. ');
      routes.push({
        method: method.toUpperCase(),
        // OpenAPI templates /users/{id}; Express paths /users/:id (`{user-id}` → `:"user-id"`, so the name is kept whole).
        path: pathFromTemplate(openApiPath),
        ...(operationId ? { name: operationId } : {}),
        description: description || `${method.toUpperCase()} ${openApiPath}`,
        input,
      });
    }
  }
  return routes;
}
