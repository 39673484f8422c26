// mcpRouter(options): resolves options once, builds registry, validator and dispatcher, and composes the express.Router.

import express, { type ErrorRequestHandler, type Router } from 'express';
import { ErrorCode } from './jsonrpc/errors';
import { resolveOptions, type McpRouterOptions } from './options';
import { createDispatcher } from './protocol/dispatcher';
import type { McpRegistration } from './registry/definition';
import type { PromptDefinition } from './registry/prompts';
import { Registry } from './registry/registry';
import type { ResourceDefinition, ResourceTemplateDefinition } from './registry/resources';
import type { JsonSchema, ToolDefinition } from './registry/tools';
import type { InferSchema, InferToolArgs } from './schema/infer';
import { createSchemaValidator } from './schema/validator';
import { sendHttpError } from './transport/http-error';
import { createMethodNotAllowedHandler } from './transport/not-allowed';
import { createPostHandler } from './transport/post';

/** What `mcpRouter()` adds to an `express.Router`: registration of tools, resources and prompts. */
export interface McpRouterApi {
  /**
   * Registers a tool. Its schemas are compiled now; a bad definition throws `McpConfigError`. When
   * `inputSchema` is written inline, the handler's arguments are typed from it ({@link InferSchema}).
   *
   * @returns a handle whose `remove()` takes the tool off again
   */
  tool<const Schema extends JsonSchema = JsonSchema, Args = InferToolArgs<Schema>>(definition: ToolDefinition<Args> & { inputSchema?: Schema }): McpRegistration;
  /** Registers a resource with a fixed URI. */
  resource(definition: ResourceDefinition): McpRegistration;
  /** Registers a family of resources named by an RFC 6570 URI template (`users://{id}/profile`). */
  resourceTemplate<Vars extends Record<string, string> = Record<string, string>>(definition: ResourceTemplateDefinition<Vars>): McpRegistration;
  /** Registers a prompt. */
  prompt<Args extends Record<string, string | undefined> = Record<string, string | undefined>>(definition: PromptDefinition<Args>): McpRegistration;
}

/** An `express.Router` serving MCP at the path it is mounted on, plus {@link McpRouterApi}. */
export type McpRouter = Router & McpRouterApi;

/**
 * Creates an MCP endpoint for an Express 4 or 5 app. Options are checked and schemas compiled now, so
 * a misconfiguration fails at boot; each router owns its registry, and two routers share nothing.
 *
 * @param options - see {@link McpRouterOptions}; `name` and `version` are required
 * @throws {McpConfigError} for an unknown option or a bad value
 * @example
 * ```ts
 * import express from 'express';
 * import { mcpRouter } from 'express-mcp-router';
 *
 * const mcp = mcpRouter({ name: 'inventory', version: '1.0.0' });
 * mcp.tool({
 *   name: 'add',
 *   description: 'Add two numbers',
 *   inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
 *   handler: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
 * });
 * const app = express();
 * app.use('/mcp', mcp);
 * app.listen(3000);
 * ```
 */
export function mcpRouter(options: McpRouterOptions): McpRouter {
  const config = resolveOptions(options);
  const registry = new Registry(createSchemaValidator(config.ajv));
  const dispatcher = createDispatcher(registry, {
    identity: { serverInfo: config.serverInfo, instructions: config.instructions },
    pageSize: config.pageSize,
    logger: config.logger,
  });
  const postHandler = createPostHandler(dispatcher, config);

  const router = express.Router();
  router.post('/', function mcpPost(req, res, next) {
    // Express 4 does not catch rejected promises; hand failures to the error handler below.
    postHandler(req, res).catch(next);
  });
  router.all('/', createMethodNotAllowedHandler(['POST']));
  router.use(function mcpErrorHandler(err, _req, res, _next) {
    config.logger.error(err, 'mcpRouter: request failed');
    if (res.headersSent) res.destroy();
    else sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
  } as ErrorRequestHandler);

  const api: McpRouterApi = {
    tool: (definition) => registry.addTool(definition as ToolDefinition<never>),
    resource: (definition) => registry.addResource(definition),
    resourceTemplate: (definition) => registry.addTemplate(definition as ResourceTemplateDefinition<never>),
    prompt: (definition) => registry.addPrompt(definition as PromptDefinition<never>),
  };
  return Object.assign(router, api);
}
