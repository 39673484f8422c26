import { McpConfigError } from '../../../lib/options/config-error';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import {
  MAX_COMPLETION_VALUES,
  toCompletionResult,
  type CompletionResult,
} from '../../../lib/core/registry/completion';
import type { RequestContext } from '../../../lib/core/registry/request-context';
import { definePrompt, getPrompt, type PromptDefinition } from '../../../lib/core/registry/prompts';
import {
  defineResource,
  defineTemplate,
  readResource,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type ResourceValue,
} from '../../../lib/core/registry/resources';
import { testContext } from '../../helpers/context';
import { configError, rejection } from '../../helpers/errors';

const CTX: RequestContext = testContext('2025-11-25', 'r1');

const read = (): string => 'x';
const get = (): string => 'x';

describe('defineResource: config errors', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'not an object',
      'docs://x',
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: a resource definition must be an object, got string$/,
    ],
    [
      'a missing uri',
      { name: 'n', read },
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: resource uri undefined must be an absolute URI with a scheme/,
    ],
    [
      'a uri without a scheme',
      { uri: 'readme.md', name: 'n', read },
      'ERR_MCP_INVALID_DEFINITION',
      /resource uri "readme.md" must be an absolute URI/,
    ],
    [
      'a uri starting with a digit',
      { uri: '1docs://x', name: 'n', read },
      'ERR_MCP_INVALID_DEFINITION',
      /resource uri "1docs:\/\/x" must be/,
    ],
    [
      'a uri with a space',
      { uri: 'docs://read me', name: 'n', read },
      'ERR_MCP_INVALID_DEFINITION',
      /resource uri "docs:\/\/read me" must be/,
    ],
    ['an empty uri', { uri: '', name: 'n', read }, 'ERR_MCP_INVALID_DEFINITION', /resource uri "" must be/],
    [
      'a missing name',
      { uri: 'docs://x', read },
      'ERR_MCP_INVALID_NAME',
      /^mcpRouter: a resource 'docs:\/\/x' needs a non-empty string 'name', got undefined$/,
    ],
    [
      'a blank name',
      { uri: 'docs://x', name: '  ', read },
      'ERR_MCP_INVALID_NAME',
      /needs a non-empty string 'name', got "  "/,
    ],
    [
      'a missing read',
      { uri: 'docs://x', name: 'n' },
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: resource 'docs:\/\/x' needs a 'read' function$/,
    ],
    [
      'a read that is not a function',
      { uri: 'docs://x', name: 'n', read: 'text' },
      'ERR_MCP_INVALID_DEFINITION',
      /needs a 'read' function/,
    ],
  ])('rejects %s', (_label, definition, code, message) => {
    const err = configError(() => defineResource(definition as ResourceDefinition));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toMatch(message);
  });

  it.each([
    ['docs://readme'],
    ['file:///etc/motd'],
    ['https://example.com/a?b=c'],
    ['urn:isbn:0451450523'],
    ['x-my.app+v1:thing'],
  ])('accepts the uri %s', (uri) => {
    expect(defineResource({ uri, name: 'n', read }).uri).toBe(uri);
  });

  it('lists exactly the given fields, copied', () => {
    const annotations = { audience: ['user' as const], priority: 0.5 };
    const resource = defineResource({
      uri: 'docs://readme',
      name: 'readme',
      title: 'Read me',
      description: 'The readme',
      mimeType: 'text/markdown',
      size: 12,
      annotations,
      icons: [{ src: 'https://example.com/i.svg' }],
      read,
    });
    annotations.priority = 1;
    expect(resource.descriptor).toStrictEqual({
      uri: 'docs://readme',
      name: 'readme',
      title: 'Read me',
      description: 'The readme',
      mimeType: 'text/markdown',
      annotations: { audience: ['user'], priority: 0.5 },
      icons: [{ src: 'https://example.com/i.svg' }],
      size: 12,
    });
    expect(defineResource({ uri: 'a://b', name: 'b', read }).descriptor).toStrictEqual({ uri: 'a://b', name: 'b' });
  });
});

describe('defineTemplate: config errors', () => {
  const complete = { id: (): string[] => [] };

  it.each<[string, unknown, string, RegExp]>([
    [
      'not an object',
      42,
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: a resource template definition must be an object, got number$/,
    ],
    [
      'an unclosed brace',
      { uriTemplate: 'users://{id', name: 'n', read },
      'ERR_MCP_INVALID_URI_TEMPLATE',
      /invalid URI template 'users:\/\/\{id': unclosed/,
    ],
    ['a missing template', { name: 'n', read }, 'ERR_MCP_INVALID_URI_TEMPLATE', /^mcpRouter: /],
    [
      'a missing name',
      { uriTemplate: 'users://{id}', read },
      'ERR_MCP_INVALID_NAME',
      /a resource template 'users:\/\/\{id\}' needs a non-empty string 'name'/,
    ],
    [
      'a missing read',
      { uriTemplate: 'users://{id}', name: 'n' },
      'ERR_MCP_INVALID_DEFINITION',
      /resource template 'users:\/\/\{id\}' needs a 'read' function$/,
    ],
    [
      'a completer for an unknown variable',
      { uriTemplate: 'users://{id}', name: 'n', read, complete: { ...complete, nope: () => [] } },
      'ERR_MCP_INVALID_DEFINITION',
      /has a completer for 'nope', which is not one of its variables \(id\)$/,
    ],
    [
      'a completer that is not a function',
      { uriTemplate: 'users://{id}', name: 'n', read, complete: { id: ['a'] } },
      'ERR_MCP_INVALID_DEFINITION',
      /resource template 'users:\/\/\{id\}' variable 'id' completer must be a function$/,
    ],
  ])('rejects %s', (_label, definition, code, message) => {
    const err = configError(() => defineTemplate(definition as ResourceTemplateDefinition<never>));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toMatch(message);
  });

  it('lists uriTemplate (not uri) and keeps its completers', () => {
    const completer = (): string[] => ['1'];
    const template = defineTemplate({
      uriTemplate: 'users://{id}/profile',
      name: 'profile',
      mimeType: 'application/json',
      read,
      complete: { id: completer },
    });
    expect(template.descriptor).toStrictEqual({
      uriTemplate: 'users://{id}/profile',
      name: 'profile',
      mimeType: 'application/json',
    });
    expect(template.uri).toBe('users://{id}/profile');
    expect(template.template.variableNames).toEqual(['id']);
    expect([...template.completers]).toEqual([['id', completer]]);
  });
});

describe('definePrompt: config errors', () => {
  it.each<[string, unknown, string, RegExp]>([
    [
      'not an object',
      undefined,
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: a prompt definition must be an object, got undefined$/,
    ],
    [
      'a missing name',
      { get },
      'ERR_MCP_INVALID_NAME',
      /^mcpRouter: a prompt needs a non-empty string 'name', got undefined$/,
    ],
    ['an empty name', { name: '', get }, 'ERR_MCP_INVALID_NAME', /a prompt needs a non-empty string 'name', got ""$/],
    ['a missing get', { name: 'p' }, 'ERR_MCP_INVALID_DEFINITION', /^mcpRouter: prompt 'p' needs a 'get' function$/],
    [
      'arguments that are not an array',
      { name: 'p', get, arguments: { a: {} } },
      'ERR_MCP_INVALID_DEFINITION',
      /prompt 'p' arguments must be an array$/,
    ],
    [
      'an argument that is not an object',
      { name: 'p', get, arguments: ['a'] },
      'ERR_MCP_INVALID_DEFINITION',
      /a prompt 'p' argument definition must be an object, got string$/,
    ],
    [
      'an argument without a name',
      { name: 'p', get, arguments: [{ required: true }] },
      'ERR_MCP_INVALID_NAME',
      /a prompt 'p' argument needs a non-empty string 'name'/,
    ],
    [
      'a duplicate argument',
      { name: 'p', get, arguments: [{ name: 'a' }, { name: 'a' }] },
      'ERR_MCP_DUPLICATE',
      /^mcpRouter: prompt 'p' declares argument 'a' twice$/,
    ],
    [
      'a completer that is not a function',
      { name: 'p', get, arguments: [{ name: 'a', complete: 'x' }] },
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: prompt 'p' argument 'a' completer must be a function$/,
    ],
  ])('rejects %s', (_label, definition, code, message) => {
    const err = configError(() => definePrompt(definition as PromptDefinition<never>));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toMatch(message);
  });

  it('lists the arguments without their completers, and no arguments key when there are none', () => {
    const complete = (): string[] => [];
    const prompt = definePrompt({
      name: 'review',
      title: 'Review',
      description: 'Reviews code',
      arguments: [{ name: 'code', description: 'the code', required: true, complete }, { name: 'style' }],
      get,
    });
    expect(prompt.descriptor).toStrictEqual({
      name: 'review',
      title: 'Review',
      description: 'Reviews code',
      arguments: [{ name: 'code', description: 'the code', required: true }, { name: 'style' }],
    });
    expect([...prompt.completers]).toEqual([['code', complete]]);
    expect(definePrompt({ name: 'plain', get }).descriptor).toStrictEqual({ name: 'plain' });
  });
});

describe('readResource: what read() returns', () => {
  // Buffer.from on short strings uses the shared pool: byteOffset is not 0.
  const pooled = Buffer.from('héllo');
  const view = new Uint8Array([0, 1, 2, 250, 255, 9]).subarray(2, 5);

  it.each<[string, unknown, unknown[]]>([
    ['a string → text', 'hello', [{ uri: 'docs://a', text: 'hello' }]],
    ['an empty string → empty text', '', [{ uri: 'docs://a', text: '' }]],
    ['a Buffer → base64 blob', pooled, [{ uri: 'docs://a', blob: Buffer.from('héllo').toString('base64') }]],
    [
      'a Uint8Array view → base64 of just its bytes',
      view,
      [{ uri: 'docs://a', blob: Buffer.from([2, 250, 255]).toString('base64') }],
    ],
    ['{ text }', { text: 'hi' }, [{ uri: 'docs://a', text: 'hi' }]],
    [
      '{ text, mimeType }',
      { text: '{}', mimeType: 'application/json' },
      [{ uri: 'docs://a', text: '{}', mimeType: 'application/json' }],
    ],
    ['{ blob: base64 text } → as is', { blob: 'AAEC' }, [{ uri: 'docs://a', blob: 'AAEC' }]],
    ['{ blob: bytes } → base64', { blob: Buffer.from([0, 1, 2]) }, [{ uri: 'docs://a', blob: 'AAEC' }]],
    ['{ uri, text } → its own uri', { uri: 'docs://a#part', text: 't' }, [{ uri: 'docs://a#part', text: 't' }]],
    ['{ text, _meta }', { text: 't', _meta: { k: 1 } }, [{ uri: 'docs://a', _meta: { k: 1 }, text: 't' }]],
    [
      'an array of contents',
      ['one', { blob: 'AA==' }, Buffer.from('z')],
      [
        { uri: 'docs://a', text: 'one' },
        { uri: 'docs://a', blob: 'AA==' },
        { uri: 'docs://a', blob: 'eg==' },
      ],
    ],
    ['an empty array', [], []],
    [
      '{ contents }',
      { contents: [{ text: 'a' }, { uri: 'docs://b', blob: 'AA==', mimeType: 'image/png' }] },
      [
        { uri: 'docs://a', text: 'a' },
        { uri: 'docs://b', blob: 'AA==', mimeType: 'image/png' },
      ],
    ],
  ])('%s', async (_label, value, contents) => {
    const resource = defineResource({ uri: 'docs://a', name: 'a', read: () => value as string });
    expect(await readResource(resource, 'docs://a', {}, CTX)).toStrictEqual({ contents });
  });

  it('defaults mimeType to the resource’s, and a content’s own mimeType wins', async () => {
    const resource = defineResource({
      uri: 'docs://a',
      name: 'a',
      mimeType: 'text/markdown',
      // Arrays may also hold bare strings and bytes at runtime (the type lists only content objects).
      read: () =>
        [
          '# one',
          { text: '{}', mimeType: 'application/json' },
          { blob: 'AA==' },
          Buffer.from('x'),
        ] as unknown as ResourceValue,
    });
    expect(await readResource(resource, 'docs://a', {}, CTX)).toStrictEqual({
      contents: [
        { uri: 'docs://a', text: '# one', mimeType: 'text/markdown' },
        { uri: 'docs://a', text: '{}', mimeType: 'application/json' },
        { uri: 'docs://a', blob: 'AA==', mimeType: 'text/markdown' },
        { uri: 'docs://a', blob: 'eA==', mimeType: 'text/markdown' },
      ],
    });
  });

  it('awaits an async read and passes the uri and context', async () => {
    const readFn = jest.fn(async () => 'later');
    const resource = defineResource({ uri: 'docs://a', name: 'a', read: readFn });
    expect(await readResource(resource, 'docs://a', {}, CTX)).toStrictEqual({
      contents: [{ uri: 'docs://a', text: 'later' }],
    });
    expect(readFn).toHaveBeenCalledWith('docs://a', CTX);
  });

  it('passes a template’s variables, and contents default to the requested uri', async () => {
    const readFn = jest.fn((_uri: string, vars: Record<string, string>) => ({ text: `user ${vars.id}` }));
    const template = defineTemplate({
      uriTemplate: 'users://{id}/profile',
      name: 'p',
      mimeType: 'text/plain',
      read: readFn,
    });
    expect(await readResource(template, 'users://42/profile', { id: '42' }, CTX)).toStrictEqual({
      contents: [{ uri: 'users://42/profile', text: 'user 42', mimeType: 'text/plain' }],
    });
    expect(readFn).toHaveBeenCalledWith('users://42/profile', { id: '42' }, CTX);
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['an object without text or blob', { data: 'x' }],
    ['{ text: number }', { text: 5 }],
    ['an array with a bad item', ['ok', 7]],
  ])('throws a TypeError (a bug → -32603) for %s', async (_label, value) => {
    const resource = defineResource({ uri: 'docs://a', name: 'a', read: () => value as string });
    const err = await rejection(readResource(resource, 'docs://a', {}, CTX));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe(
      "resource 'docs://a' read() returned something that is neither text, bytes nor { text } / { blob }",
    );
  });
});

describe('getPrompt', () => {
  const args = [
    { name: 'code', required: true },
    { name: 'style', required: false },
  ];

  function prompt(value: unknown, description?: string) {
    return definePrompt({ name: 'review', description, arguments: args, get: () => value as string });
  }

  it.each<[string, unknown]>([
    ['no arguments', undefined],
    ['an empty object', {}],
    ['only the optional one', { style: 'terse' }],
    ['the required one as null', { code: null }],
  ])('rejects a missing required argument (%s) with -32602', async (_label, given) => {
    const getFn = jest.fn(() => 'x');
    const p = definePrompt({ name: 'review', arguments: args, get: getFn });
    const err = await rejection(getPrompt(p, given, CTX));
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).code).toBe(-32602);
    expect((err as JsonRpcError).message).toBe("Missing required argument 'code' for prompt 'review'");
    expect(getFn).not.toHaveBeenCalled();
  });

  it.each<[string, unknown, string]>([
    ['a number', { code: 5 }, 'code'],
    ['an object', { code: 'x', style: { a: 1 } }, 'style'],
    ['a boolean', { code: true }, 'code'],
    ['an array', { code: ['x'] }, 'code'],
  ])('rejects a non-string argument (%s) with -32602', async (_label, given, name) => {
    const err = await rejection(getPrompt(prompt('x'), given, CTX));
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).code).toBe(-32602);
    expect((err as JsonRpcError).message).toBe(`Argument '${name}' of prompt 'review' must be a string`);
  });

  it.each<[string, unknown]>([
    ['a string', 'code=x'],
    ['an array', ['x']],
    ['null', null],
  ])('rejects arguments that are %s with -32602', async (_label, given) => {
    const err = await rejection(getPrompt(prompt('x'), given, CTX));
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).code).toBe(-32602);
    expect((err as JsonRpcError).message).toBe(
      "Invalid params: arguments of prompt 'review' must be an object of strings",
    );
  });

  it('passes only the declared string arguments, and the context', async () => {
    const getFn = jest.fn(() => 'x');
    const p = definePrompt({ name: 'review', arguments: args, get: getFn });
    await getPrompt(p, { code: 'let a', extra: 'dropped' }, CTX);
    expect(getFn).toHaveBeenCalledWith({ code: 'let a' }, CTX);
  });

  it.each<[string, unknown, string | undefined, unknown]>([
    [
      'a string → one user text message',
      'Review this',
      undefined,
      { messages: [{ role: 'user', content: { type: 'text', text: 'Review this' } }] },
    ],
    [
      'a string, with the prompt description',
      'Review this',
      'Reviews code',
      { messages: [{ role: 'user', content: { type: 'text', text: 'Review this' } }], description: 'Reviews code' },
    ],
    [
      'an array of messages (string and block content)',
      [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
      ],
      undefined,
      {
        messages: [
          { role: 'user', content: { type: 'text', text: 'Hi' } },
          { role: 'assistant', content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
        ],
      },
    ],
    [
      '{ description, messages }: its description wins',
      { description: 'Specific', messages: [{ role: 'user', content: 'x' }] },
      'General',
      { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], description: 'Specific' },
    ],
    [
      '{ messages } without description: the prompt’s',
      { messages: [{ role: 'assistant', content: 'y' }] },
      'General',
      { messages: [{ role: 'assistant', content: { type: 'text', text: 'y' } }], description: 'General' },
    ],
    [
      'an embedded resource block',
      [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'docs://a', text: 't', mimeType: 'text/plain' } },
        },
      ],
      undefined,
      {
        messages: [
          {
            role: 'user',
            content: { type: 'resource', resource: { uri: 'docs://a', text: 't', mimeType: 'text/plain' } },
          },
        ],
      },
    ],
    ['an empty array', [], undefined, { messages: [] }],
  ])('turns %s into a GetPromptResult', async (_label, value, description, expected) => {
    expect(await getPrompt(prompt(value, description), { code: 'c' }, CTX)).toStrictEqual(expected);
  });

  it('awaits an async get', async () => {
    const p = definePrompt({ name: 'later', get: async () => 'done' });
    expect(await getPrompt(p, undefined, CTX)).toStrictEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'done' } }],
    });
  });

  it.each<[string, unknown]>([
    ['a bad role', [{ role: 'system', content: 'x' }]],
    ['content that is not a block', [{ role: 'user', content: { kind: 'text' } }]],
  ])('throws a TypeError (a bug → -32603) for %s', async (_label, value) => {
    const err = await rejection(getPrompt(prompt(value), { code: 'c' }, CTX));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe(
      'a prompt message needs role "user" or "assistant" and a content block or string',
    );
  });
});

describe('toCompletionResult', () => {
  const many = (n: number): string[] => Array.from({ length: n }, (_, i) => `v${i}`);

  it('is capped at 100 values', () => {
    expect(MAX_COMPLETION_VALUES).toBe(100);
  });

  it.each<[string, readonly string[] | CompletionResult, CompletionResult]>([
    ['a short array', ['a', 'b'], { values: ['a', 'b'] }],
    ['an empty array', [], { values: [] }],
    ['exactly 100', many(100), { values: many(100) }],
    ['101 values', many(101), { values: many(100), total: 101, hasMore: true }],
    ['250 values', many(250), { values: many(100), total: 250, hasMore: true }],
    ['{ values } only', { values: ['a'] }, { values: ['a'] }],
    [
      '{ values, total, hasMore } under the cap',
      { values: ['a', 'b'], total: 40, hasMore: true },
      { values: ['a', 'b'], total: 40, hasMore: true },
    ],
    ['{ values, hasMore: false }', { values: ['a'], hasMore: false }, { values: ['a'], hasMore: false }],
    [
      '{ 150 values, total: 1000 } keeps the larger total',
      { values: many(150), total: 1000 },
      { values: many(100), total: 1000, hasMore: true },
    ],
    [
      '{ 150 values, total: 10 } corrects the total',
      { values: many(150), total: 10 },
      { values: many(100), total: 150, hasMore: true },
    ],
    [
      '{ 150 values, hasMore: false } corrects hasMore',
      { values: many(150), hasMore: false },
      { values: many(100), total: 150, hasMore: true },
    ],
  ])('%s', (_label, output, expected) => {
    expect(toCompletionResult(output)).toStrictEqual(expected);
  });

  it('drops values that are not strings', () => {
    expect(toCompletionResult(['a', 1, null, 'b'] as unknown as string[])).toStrictEqual({ values: ['a', 'b'] });
  });

  it('does not change the array it was given', () => {
    const input = Object.freeze(many(120));
    toCompletionResult(input);
    expect(input).toHaveLength(120);
  });
});
