// Unknown keys of every definition are refused at registration, with the item named and the nearest key suggested.

import express, { type RequestHandler } from 'express';
import * as sdkTypes from '@modelcontextprotocol/sdk/types.js';
import { McpConfigError, mcpRouter, type McpRouter } from '../../../lib';
import { tool } from '../../../lib/decorators';
import { PROMPT_ARGUMENT_WIRE_FIELDS, PROMPT_WIRE_FIELDS } from '../../../lib/core/registry/prompts';
import { RESOURCE_WIRE_FIELDS, TEMPLATE_WIRE_FIELDS } from '../../../lib/core/registry/resources';
import { TOOL_WIRE_FIELDS } from '../../../lib/core/registry/tools';
import { modern } from '../../helpers/modern';
import schema2026 from '../../conformance/schema-2026-07-28.json';

const handler = (): string => 'ok';
const read = (): string => 'text';
const get = (): string => 'Review it';
const html = '<!doctype html><p>form</p>';
const url = 'http://127.0.0.1:1/mcp';
const getUser: RequestHandler = (_req, res) => {
  res.json({});
};

/** A router with the app 'form' registered, so tools may link to it. */
function router(): McpRouter {
  const mcp = mcpRouter({ name: 'keys', version: '1.0.0', rateLimit: false });
  mcp.app({ name: 'form', html });
  return mcp;
}

function refusal(register: (mcp: McpRouter) => unknown): McpConfigError {
  const mcp = router();
  try {
    register(mcp);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  } finally {
    void mcp.close();
  }
  throw new Error('the definition was registered');
}

const TYPOS: ReadonlyArray<[string, (mcp: McpRouter) => unknown, string]> = [
  [
    'mcp.tool: inputschema (a tool without input validation)',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', inputschema: { type: 'object' }, handler } as never),
    "tool 'add': unknown option 'inputschema'. Did you mean 'inputSchema'?",
  ],
  [
    'mcp.tool: a top-level visibility (an app-only tool shown to the model)',
    (mcp) => mcp.tool({ name: 'quote', description: 'Quote', ui: 'form', visibility: ['app'], handler } as never),
    "tool 'quote': unknown option 'visibility'. Did you mean 'ui.visibility'?",
  ],
  [
    'mcp.tool: ui.visiblity',
    (mcp) =>
      mcp.tool({ name: 'quote', description: 'Quote', ui: { app: 'form', visiblity: ['app'] }, handler } as never),
    "tool 'quote': unknown option 'ui.visiblity'. Did you mean 'ui.visibility'?",
  ],
  [
    'mcp.tool: rateLimit.window',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', rateLimit: { limit: 1, window: 1000 }, handler } as never),
    "tool 'add': unknown option 'rateLimit.window'. Did you mean 'rateLimit.windowMs'?",
  ],
  [
    'mcp.tool: canaccess',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', canaccess: () => false, handler } as never),
    "tool 'add': unknown option 'canaccess'. Did you mean 'canAccess'?",
  ],
  [
    'mcp.tool: scope',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', scope: ['admin'], handler } as never),
    "tool 'add': unknown option 'scope'. Did you mean 'scopes'?",
  ],
  [
    'mcp.tool: a key far from any',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', owner: 'me', handler } as never),
    "tool 'add': unknown option 'owner'.",
  ],
  [
    'mcp.tool: nmae (the item has no name yet)',
    (mcp) => mcp.tool({ nmae: 'add', description: 'Add', handler } as never),
    "tool: unknown option 'nmae'. Did you mean 'name'?",
  ],
  [
    'mcp.resource: mimetype',
    (mcp) => mcp.resource({ uri: 'docs://readme', name: 'readme', mimetype: 'text/plain', read } as never),
    "resource 'docs://readme': unknown option 'mimetype'. Did you mean 'mimeType'?",
  ],
  [
    'mcp.resource: cache.ttl',
    (mcp) => mcp.resource({ uri: 'docs://readme', name: 'readme', cache: { ttl: 1000 }, read } as never),
    "resource 'docs://readme': unknown option 'cache.ttl'. Did you mean 'cache.ttlMs'?",
  ],
  [
    'mcp.resource: a top-level ttlMs',
    (mcp) => mcp.resource({ uri: 'docs://readme', name: 'readme', ttlMs: 1000, read } as never),
    "resource 'docs://readme': unknown option 'ttlMs'. Did you mean 'cache.ttlMs'?",
  ],
  [
    'mcp.resourceTemplate: completes',
    (mcp) => mcp.resourceTemplate({ uriTemplate: 'users://{id}', name: 'user', completes: {}, read } as never),
    "resource template 'users://{id}': unknown option 'completes'. Did you mean 'complete'?",
  ],
  [
    'mcp.resourceTemplate: guard',
    (mcp) => mcp.resourceTemplate({ uriTemplate: 'users://{id}', name: 'user', guard: [], read } as never),
    "resource template 'users://{id}': unknown option 'guard'. Did you mean 'guards'?",
  ],
  [
    'mcp.prompt: argument',
    (mcp) => mcp.prompt({ name: 'review', argument: [{ name: 'code' }], get } as never),
    "prompt 'review': unknown option 'argument'. Did you mean 'arguments'?",
  ],
  [
    'mcp.prompt: arguments[1].requried',
    (mcp) =>
      mcp.prompt({ name: 'review', arguments: [{ name: 'code' }, { name: 'style', requried: true }], get } as never),
    "prompt 'review': unknown option 'arguments[1].requried'. Did you mean 'arguments[1].required'?",
  ],
  [
    'mcp.app: htlm',
    (mcp) => mcp.app({ name: 'sheet', htlm: html } as never),
    "app 'sheet': unknown option 'htlm'. Did you mean 'html'?",
  ],
  [
    'mcp.app: csp.connectDomain',
    (mcp) => mcp.app({ name: 'sheet', html, csp: { connectDomain: ['https://api.example.com'] } } as never),
    "app 'sheet': unknown option 'csp.connectDomain'. Did you mean 'csp.connectDomains'?",
  ],
  [
    'mcp.app: a top-level connectDomains',
    (mcp) => mcp.app({ name: 'sheet', html, connectDomains: ['https://api.example.com'] } as never),
    "app 'sheet': unknown option 'connectDomains'. Did you mean 'csp.connectDomains'?",
  ],
  [
    'mcp.app: permissions.clipboard',
    (mcp) => mcp.app({ name: 'sheet', html, permissions: { clipboard: {} } } as never),
    "app 'sheet': unknown option 'permissions.clipboard'.",
  ],
  [
    "mcp.app: one of its tools' inputschema",
    (mcp) =>
      mcp.app({
        name: 'sheet',
        html,
        tools: [{ name: 'fill', description: 'Fill', inputschema: {}, handler }],
      } as never),
    "tool 'fill': unknown option 'inputschema'. Did you mean 'inputSchema'?",
  ],
  [
    'mcp.route (path learned later): pth',
    (mcp) => mcp.route({ description: 'Fetch a user', pth: '/users/:id' } as never, getUser),
    "route tool of handler 'getUser': unknown option 'pth'. Did you mean 'path'?",
  ],
  [
    'mcp.route: input.param',
    (mcp) =>
      mcp.route(
        { name: 'get_user', description: 'Fetch a user', path: '/users/:id', input: { param: {} } } as never,
        getUser,
      ),
    "route tool 'get_user': unknown option 'input.param'. Did you mean 'input.params'?",
  ],
  [
    'mcp.route (path learned later): ui.visiblity',
    (mcp) =>
      mcp.route({ name: 'get_user', description: 'Fetch', ui: { app: 'form', visiblity: ['app'] } } as never, getUser),
    "route tool 'get_user': unknown option 'ui.visiblity'. Did you mean 'ui.visibility'?",
  ],
  [
    'mcp.exposeRoutes: inputs',
    (mcp) =>
      mcp.exposeRoutes(express(), [
        { method: 'GET', path: '/users/:id', name: 'get_user', description: 'Fetch a user', inputs: {} } as never,
      ]),
    "route tool 'get_user': unknown option 'inputs'. Did you mean 'input'?",
  ],
  [
    'mcp.exposeRoutes: a top-level visibility',
    (mcp) =>
      mcp.exposeRoutes(express(), [
        { method: 'GET', path: '/users/:id', description: 'Fetch a user', ui: 'form', visibility: ['app'] } as never,
      ]),
    "route tool 'get_users_by_id': unknown option 'visibility'. Did you mean 'ui.visibility'?",
  ],
  [
    'mcp.exposeRoutes: rateLimit.limt',
    (mcp) =>
      mcp.exposeRoutes(express(), [
        { method: 'GET', path: '/u', name: 'u', description: 'U', rateLimit: { limt: 1, windowMs: 1 } } as never,
      ]),
    "route tool 'u': unknown option 'rateLimit.limt'. Did you mean 'rateLimit.limit'?",
  ],
  [
    'mcp.register (@tool): inputschema',
    (mcp) => {
      class Counter {
        @tool({ name: 'count', description: 'Count', inputschema: {} } as never)
        count(): number {
          return 1;
        }
      }
      return mcp.register(new Counter());
    },
    "tool 'count': unknown option 'inputschema'. Did you mean 'inputSchema'?",
  ],
  [
    'mcp.register (@tool on a route): timeout',
    (mcp) => {
      class Users {
        @tool({ name: 'get_user', description: 'Fetch', method: 'GET', path: '/users/:id', timeout: 5 } as never)
        get(): void {}
      }
      return mcp.register(new Users());
    },
    "route tool 'get_user': unknown option 'timeout'. Did you mean 'timeoutMs'?",
  ],
  [
    'mcp.upstream: timeout',
    (mcp) => mcp.upstream({ prefix: 'fs', url, timeout: 5 } as never),
    "upstream 'fs': unknown option 'timeout'. Did you mean 'timeoutMs'?",
  ],
  [
    'mcp.upstream: a top-level include',
    (mcp) => mcp.upstream({ prefix: 'fs', url, include: ['read'] } as never),
    "upstream 'fs': unknown option 'include'. Did you mean 'tools.include'?",
  ],
  [
    'mcp.upstream: limits.maxListByte',
    (mcp) => mcp.upstream({ prefix: 'fs', url, limits: { maxListByte: 1 } } as never),
    "upstream 'fs': unknown option 'limits.maxListByte'. Did you mean 'limits.maxListBytes'?",
  ],
  // Keys written for another that no edit distance finds: the alias table of config-error.ts.
  [
    'mcp.tool: execution (the 2025-11-25 wire field)',
    (mcp) => mcp.tool({ name: 'add', description: 'Add', execution: { taskSupport: 'optional' }, handler } as never),
    "tool 'add': unknown option 'execution'. Did you mean 'task'?",
  ],
  [
    'mcp.prompt: handler (a tool’s)',
    (mcp) => mcp.prompt({ name: 'review', handler: get } as never),
    "prompt 'review': unknown option 'handler'. Did you mean 'get'?",
  ],
  [
    'mcp.route: outputSchema (a tool’s)',
    (mcp) => mcp.route({ name: 'get_user', description: 'Fetch', outputSchema: {} } as never, getUser),
    "route tool 'get_user': unknown option 'outputSchema'. Did you mean 'output'?",
  ],
  [
    'mcp.exposeRoutes: inputSchema (a tool’s)',
    (mcp) =>
      mcp.exposeRoutes(express(), [
        { method: 'GET', path: '/u', name: 'u', description: 'U', inputSchema: { type: 'object' } } as never,
      ]),
    "route tool 'u': unknown option 'inputSchema'. Did you mean 'input'?",
  ],
  [
    'mcp.upstream: roots[0].url',
    (mcp) => mcp.upstream({ prefix: 'u4', url, roots: [{ url: 'file:///srv' }] } as never),
    "upstream 'u4': unknown option 'roots[0].url'. Did you mean 'roots[0].uri'?",
  ],
  [
    'mcp.upstream (stdio): arg',
    (mcp) => mcp.upstream({ name: 'git', command: 'uvx', arg: ['mcp-server-git'] } as never),
    "upstream 'git': unknown option 'arg'. Did you mean 'args'?",
  ],
];

describe('definitions refuse unknown keys at registration', () => {
  it.each(TYPOS)('%s', (_title, register, message) => {
    const error = refusal(register);
    expect(error.code).toBe('ERR_MCP_UNKNOWN_OPTION');
    expect(error.message).toBe(`mcpRouter: ${message}`);
  });

  it('registers nothing of a refused definition', async () => {
    const mcp = router();
    expect(() => mcp.tool({ name: 'add', description: 'Add', inputschema: {}, handler } as never)).toThrow(
      McpConfigError,
    );
    expect(() => mcp.tool({ name: 'add', description: 'Add', handler })).not.toThrow();
    await mcp.close();
  });

  it('refuses a key whose value is undefined too: the key itself is the mistake', () => {
    expect(
      refusal((mcp) => mcp.tool({ name: 'a', description: 'A', inputschema: undefined, handler } as never)).message,
    ).toBe("mcpRouter: tool 'a': unknown option 'inputschema'. Did you mean 'inputSchema'?");
  });
});

describe('a route’s meta carries the wire fields of a tool', () => {
  it.each<[string, (mcp: McpRouter, meta: object) => unknown]>([
    ['mcp.route', (mcp, meta) => mcp.route({ ...meta, path: '/users/:id' } as never, getUser)],
    [
      'mcp.exposeRoutes',
      (mcp, meta) => mcp.exposeRoutes(express(), [{ ...meta, method: 'GET', path: '/users/:id' } as never]),
    ],
  ])('%s: title, icons and _meta are listed as mcp.tool lists them', async (_title, register) => {
    const mcp = router();
    const icons = [{ src: 'https://example.com/user.png', mimeType: 'image/png' }];
    register(mcp, { name: 'get_user', title: 'User', description: 'Fetch', icons, _meta: { 'example.com/x': 1 } });
    const app = express();
    app.use('/mcp', mcp);
    const listed = await modern(app, 'tools/list');
    expect(listed.body.result.tools).toEqual([
      expect.objectContaining({ name: 'get_user', title: 'User', icons, _meta: { 'example.com/x': 1 } }),
    ]);
    await mcp.close();
  });
});

/** The property names of a schema definition (2026-07-28 JSON schema) or an SDK zod object (2025-11-25). */
function keysOf(definition: { properties?: object } | undefined): string[] {
  return Object.keys(definition?.properties ?? {}).sort();
}
function shapeOf(zodObject: unknown): string[] {
  return Object.keys((zodObject as { shape: object }).shape).sort();
}

describe('the MCP fields a definition passes through are the schema’s', () => {
  const defs = (schema2026 as unknown as { $defs: Record<string, { properties?: object }> }).$defs;
  // 2025-11-25 Tool.execution is set by the router's `task`, not given as is; the SDK's PromptArgument lacks the
  // `title` that 2025-11-25 schema.ts gives it (PromptArgument extends BaseMetadata).
  it.each<[string, Readonly<Record<string, true>>, unknown, string[], string[]]>([
    ['Tool', TOOL_WIRE_FIELDS, sdkTypes.ToolSchema, ['execution'], []],
    ['Resource', RESOURCE_WIRE_FIELDS, sdkTypes.ResourceSchema, [], []],
    ['ResourceTemplate', TEMPLATE_WIRE_FIELDS, sdkTypes.ResourceTemplateSchema, [], []],
    ['Prompt', PROMPT_WIRE_FIELDS, sdkTypes.PromptSchema, [], []],
    ['PromptArgument', PROMPT_ARGUMENT_WIRE_FIELDS, sdkTypes.PromptArgumentSchema, [], ['title']],
  ])('%s: every field of 2026-07-28 and of 2025-11-25', (kind, fields, zod, setByRouter, missingInSdk) => {
    const listed = Object.keys(fields).sort();
    expect(listed).toEqual(keysOf(defs[kind]));
    const sdk = shapeOf(zod).filter((key) => !setByRouter.includes(key));
    expect(listed).toEqual([...sdk, ...missingInSdk].sort());
  });
});
