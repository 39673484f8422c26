import { McpConfigError } from '../../../lib/options/config-error';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import type { RequestContext } from '../../../lib/core/registry/request-context';
import type { ProtocolVersion } from '../../../lib/core/versions';
import { callTool, defineTool, toCallToolResult, type ToolDefinition } from '../../../lib/core/registry/tools';
import { createSchemaValidator } from '../../../lib/core/schema/validator';
import { testContext } from '../../helpers/context';
import { configError, rejection } from '../../helpers/errors';

function ctx(protocolVersion: ProtocolVersion = '2025-11-25'): RequestContext {
  return testContext(protocolVersion);
}

function tool(definition: Partial<ToolDefinition<never>> & { handler?: unknown }) {
  return defineTool(
    { name: 't', description: 'a test tool', handler: () => 'ok', ...definition } as ToolDefinition<never>,
    createSchemaValidator(),
  );
}

describe('defineTool: config errors', () => {
  const handler = (): string => 'ok';

  it.each<[string, unknown, string, RegExp]>([
    [
      'an empty name',
      { name: '', description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /tool name "" is invalid: use 1–128 characters/,
    ],
    [
      'a name with a space',
      { name: 'get user', description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /tool name "get user" is invalid/,
    ],
    [
      'a name of 129 characters',
      { name: 'a'.repeat(129), description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /is invalid: use 1–128 characters/,
    ],
    [
      'a name with a slash',
      { name: 'a/b', description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /tool name "a\/b" is invalid/,
    ],
    [
      'a name with a non-ASCII letter',
      { name: 'café', description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /tool name "café" is invalid/,
    ],
    [
      'a name with a trailing newline',
      { name: 'echo\n', description: 'd', handler },
      'ERR_MCP_INVALID_NAME',
      /tool name "echo\\n" is invalid/,
    ],
    ['a numeric name', { name: 42, description: 'd', handler }, 'ERR_MCP_INVALID_NAME', /tool name 42 is invalid/],
    ['a missing name', { description: 'd', handler }, 'ERR_MCP_INVALID_NAME', /tool name undefined is invalid/],
    [
      'a missing description',
      { name: 'echo', handler },
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: tool 'echo' needs a description/,
    ],
    [
      'a blank description',
      { name: 'echo', description: '   ', handler },
      'ERR_MCP_INVALID_DEFINITION',
      /tool 'echo' needs a description/,
    ],
    [
      'a non-string description',
      { name: 'echo', description: 5, handler },
      'ERR_MCP_INVALID_DEFINITION',
      /tool 'echo' needs a description/,
    ],
    [
      'a missing handler',
      { name: 'echo', description: 'd' },
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: tool 'echo' needs a 'handler' function$/,
    ],
    [
      'a handler that is not a function',
      { name: 'echo', description: 'd', handler: 'x' },
      'ERR_MCP_INVALID_DEFINITION',
      /needs a 'handler' function/,
    ],
    [
      'an inputSchema of type string',
      { name: 'echo', description: 'd', handler, inputSchema: { type: 'string' } },
      'ERR_MCP_INVALID_SCHEMA',
      /^mcpRouter: tool 'echo' inputSchema must be a JSON Schema object with type: 'object'$/,
    ],
    [
      'an inputSchema without type',
      { name: 'echo', description: 'd', handler, inputSchema: { properties: {} } },
      'ERR_MCP_INVALID_SCHEMA',
      /tool 'echo' inputSchema must be a JSON Schema object/,
    ],
    [
      'an inputSchema that is a string',
      { name: 'echo', description: 'd', handler, inputSchema: 'object' },
      'ERR_MCP_INVALID_SCHEMA',
      /tool 'echo' inputSchema must be a JSON Schema object/,
    ],
    [
      'an inputSchema that is an array',
      { name: 'echo', description: 'd', handler, inputSchema: [] },
      'ERR_MCP_INVALID_SCHEMA',
      /tool 'echo' inputSchema must be/,
    ],
    [
      'an outputSchema that is not an object',
      { name: 'echo', description: 'd', handler, outputSchema: 'array' },
      'ERR_MCP_INVALID_SCHEMA',
      /tool 'echo' outputSchema must be a JSON Schema object/,
    ],
    [
      'an outputSchema with object keywords but no type',
      { name: 'echo', description: 'd', handler, outputSchema: { properties: { a: {} } } },
      'ERR_MCP_INVALID_SCHEMA',
      /tool 'echo' outputSchema lists object keywords without type: 'object'/,
    ],
    [
      'an inputSchema that does not compile',
      { name: 'echo', description: 'd', handler, inputSchema: { type: 'object', properties: { a: { type: 'nope' } } } },
      'ERR_MCP_INVALID_SCHEMA',
      /^mcpRouter: tool 'echo' inputSchema is not a valid JSON Schema: /,
    ],
    [
      'an outputSchema that does not compile',
      { name: 'echo', description: 'd', handler, outputSchema: { type: 'object', $ref: '#/$defs/none' } },
      'ERR_MCP_INVALID_SCHEMA',
      /^mcpRouter: tool 'echo' outputSchema is not a valid JSON Schema: /,
    ],
    [
      'an inputSchema that passes the meta-schema but not the compile (a pattern Ajv reads with the u flag)',
      {
        name: 'echo',
        description: 'd',
        handler,
        inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '\\q' } } },
      },
      'ERR_MCP_INVALID_SCHEMA',
      /^mcpRouter: tool 'echo' inputSchema is not a valid JSON Schema: .*Invalid escape/,
    ],
    [
      'an outputSchema that passes the meta-schema but not the compile (an empty enum)',
      { name: 'echo', description: 'd', handler, outputSchema: { type: 'object', properties: { a: { enum: [] } } } },
      'ERR_MCP_INVALID_SCHEMA',
      /^mcpRouter: tool 'echo' outputSchema is not a valid JSON Schema: enum must have non-empty array/,
    ],
    [
      'a definition that is not an object',
      'echo',
      'ERR_MCP_INVALID_DEFINITION',
      /^mcpRouter: a tool definition must be an object, got string$/,
    ],
    ['a null definition', null, 'ERR_MCP_INVALID_DEFINITION', /a tool definition must be an object, got null$/],
  ])('rejects %s', (_label, definition, code, message) => {
    const err = configError(() => defineTool(definition as ToolDefinition<never>, createSchemaValidator()));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toMatch(message);
  });

  it.each([['a'], ['A-z_0.9'], ['a'.repeat(128)], ['get_user'], ['admin.tools.list'], ['DATA-export']])(
    'accepts the name %s',
    (name) => {
      expect(tool({ name }).name).toBe(name);
    },
  );
});

describe('defineTool: descriptor', () => {
  it('defaults inputSchema to an object schema without properties', () => {
    const registered = tool({ name: 'noargs' });
    expect(registered.descriptor).toStrictEqual({
      name: 'noargs',
      description: 'a test tool',
      inputSchema: { type: 'object', additionalProperties: false },
    });
    expect(registered.validateInput({})).toStrictEqual({ ok: true });
    expect(registered.validateInput({ x: 1 })).toStrictEqual({
      ok: false,
      message: "(root): must NOT have additional properties 'x'",
    });
  });

  it('treats inputSchema: null like an absent one (MCP 2025-11-25: never null on the wire)', () => {
    expect(tool({ name: 'n', inputSchema: null as never }).descriptor.inputSchema).toStrictEqual({
      type: 'object',
      additionalProperties: false,
    });
  });

  it('lists every given field and leaves out the undefined ones', () => {
    const registered = tool({
      name: 'full',
      title: 'Full tool',
      description: 'does it all',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { b: { type: 'number' } } },
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png' }],
      _meta: { 'example.com/x': 1 },
    });
    expect(registered.descriptor).toStrictEqual({
      name: 'full',
      title: 'Full tool',
      description: 'does it all',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      outputSchema: { type: 'object', properties: { b: { type: 'number' } } },
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png' }],
      _meta: { 'example.com/x': 1 },
    });
    expect(Object.isFrozen(registered.descriptor)).toBe(true);
    expect(Object.isFrozen(registered)).toBe(true);
    expect(tool({ name: 'plain', title: undefined }).descriptor).not.toHaveProperty('title');
  });

  it('keeps a 2020-12 inputSchema verbatim ($schema, $defs, additionalProperties)', () => {
    const inputSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { id: { type: 'string', pattern: '^[0-9]+$' } },
      properties: { id: { $ref: '#/$defs/id' } },
      additionalProperties: false,
      example: { id: '1' },
    };
    expect(tool({ inputSchema }).descriptor.inputSchema).toStrictEqual(inputSchema);
  });

  it("copies the schemas: changing the caller's objects afterwards changes neither the list entry nor validation", () => {
    const inputSchema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    const annotations = { readOnlyHint: true };
    const registered = tool({ inputSchema, annotations });
    inputSchema.properties.a.type = 'string';
    inputSchema.required.push('b');
    annotations.readOnlyHint = false;
    expect(registered.descriptor.inputSchema).toStrictEqual({
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    });
    expect(registered.descriptor.annotations).toStrictEqual({ readOnlyHint: true });
    expect(registered.validateInput({ a: 1 })).toStrictEqual({ ok: true });
    expect(registered.validateInput({ a: 'x' })).toStrictEqual({ ok: false, message: 'a: must be number' });
  });

  it('the descriptor schema is not the caller’s object', () => {
    const inputSchema = { type: 'object' };
    expect(tool({ inputSchema }).descriptor.inputSchema).not.toBe(inputSchema);
  });

  it('a schema object changed and then registered for a second tool validates as it is listed', () => {
    const validator = createSchemaValidator();
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    const first = defineTool({ name: 'first', description: 'd', inputSchema: schema, handler: () => 1 }, validator);
    schema.properties.a.type = 'string';
    const second = defineTool({ name: 'second', description: 'd', inputSchema: schema, handler: () => 1 }, validator);
    expect(first.validateInput({ a: 1 })).toStrictEqual({ ok: true });
    expect(second.descriptor.inputSchema).toStrictEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(second.validateInput({ a: 'x' })).toStrictEqual({ ok: true });
    expect(second.validateInput({ a: 1 })).toStrictEqual({ ok: false, message: 'a: must be string' });
  });

  it('does not change the caller’s definition', () => {
    const definition = Object.freeze({
      name: 'frozen',
      description: 'd',
      inputSchema: Object.freeze({ type: 'object', properties: Object.freeze({}) }),
      handler: () => 'ok',
    });
    expect(() => defineTool(definition as ToolDefinition<never>, createSchemaValidator())).not.toThrow();
  });

  it('calls the handler with the definition as this (a class instance: its helpers on the prototype)', async () => {
    class SelfTool {
      name = 'self';
      description = 'd';
      greeting(): string {
        return 'hello ';
      }
      handler(): string {
        return `${this.greeting()}world`;
      }
    }
    const registered = defineTool(new SelfTool() as unknown as ToolDefinition<never>, createSchemaValidator());
    expect(await callTool(registered, {}, ctx())).toStrictEqual({ content: [{ type: 'text', text: 'hello world' }] });
  });
});

describe('callTool: results', () => {
  it.each<[string, unknown, unknown]>([
    ['a string → one text block', 'hello', { content: [{ type: 'text', text: 'hello' }] }],
    ['an empty string → one empty text block', '', { content: [{ type: 'text', text: '' }] }],
    [
      'a plain object → structuredContent plus its JSON as text',
      { sum: 3, parts: [1, 2] },
      { content: [{ type: 'text', text: '{"sum":3,"parts":[1,2]}' }], structuredContent: { sum: 3, parts: [1, 2] } },
    ],
    ['a text block → content of that block', { type: 'text', text: 'hi' }, { content: [{ type: 'text', text: 'hi' }] }],
    [
      'an image block',
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] },
    ],
    [
      'a resource_link block',
      { type: 'resource_link', uri: 'x://y', name: 'y' },
      { content: [{ type: 'resource_link', uri: 'x://y', name: 'y' }] },
    ],
    [
      'a full CallToolResult → as is',
      { content: [{ type: 'text', text: 'a' }], structuredContent: { a: 1 }, _meta: { m: 1 } },
      { content: [{ type: 'text', text: 'a' }], structuredContent: { a: 1 }, _meta: { m: 1 } },
    ],
    [
      'a CallToolResult with isError → as is',
      { content: [{ type: 'text', text: 'no' }], isError: true },
      { content: [{ type: 'text', text: 'no' }], isError: true },
    ],
    ['a CallToolResult with empty content', { content: [] }, { content: [] }],
    ['undefined → empty content', undefined, { content: [] }],
    // MCP: structuredContent is an object, so other JSON values are sent as { result: value }.
    [
      'a number → its text, and { result }',
      42,
      { content: [{ type: 'text', text: '42' }], structuredContent: { result: 42 } },
    ],
    ['zero → "0"', 0, { content: [{ type: 'text', text: '0' }], structuredContent: { result: 0 } }],
    ['true → "true"', true, { content: [{ type: 'text', text: 'true' }], structuredContent: { result: true } }],
    ['null → "null"', null, { content: [{ type: 'text', text: 'null' }], structuredContent: { result: null } }],
    [
      'an array → its JSON as text, and { result }',
      [1, 'a'],
      { content: [{ type: 'text', text: '[1,"a"]' }], structuredContent: { result: [1, 'a'] } },
    ],
    ['NaN → its text only (not JSON)', Number.NaN, { content: [{ type: 'text', text: 'NaN' }] }],
    ['a bigint → its text only (not JSON)', 10n, { content: [{ type: 'text', text: '10' }] }],
    [
      'an object whose content is not blocks → structured',
      { content: 'text' },
      { content: [{ type: 'text', text: '{"content":"text"}' }], structuredContent: { content: 'text' } },
    ],
  ])('%s', async (_label, returned, expected) => {
    const registered = tool({ inputSchema: { type: 'object' }, handler: () => returned });
    expect(await callTool(registered, {}, ctx())).toStrictEqual(expected);
    expect(toCallToolResult(returned)).toStrictEqual(expected);
  });

  it('awaits an async handler', async () => {
    const registered = tool({ handler: async () => 'later' });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({ content: [{ type: 'text', text: 'later' }] });
  });

  it('passes the arguments and the context to the handler', async () => {
    const handler = jest.fn(() => 'ok');
    const registered = tool({ inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, handler });
    const context = ctx('2025-06-18');
    const args = { a: 1 };
    await callTool(registered, args, context);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler).toHaveBeenCalledWith(args, context);
  });
});

describe('callTool: invalid arguments', () => {
  const schema = {
    type: 'object',
    properties: { a: { type: 'number' } },
    required: ['a'],
    additionalProperties: false,
  };

  it('on 2025-11-25: an isError result, and the handler is not called', async () => {
    const handler = jest.fn();
    const registered = tool({ name: 'add', inputSchema: schema, handler });
    expect(await callTool(registered, { a: 'x' }, ctx('2025-11-25'))).toStrictEqual({
      content: [{ type: 'text', text: "Invalid arguments for tool 'add': a: must be number" }],
      isError: true,
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it.each<[ProtocolVersion]>([['2025-06-18'], ['2025-03-26'], ['2024-11-05']])(
    'on %s: a -32602 JsonRpcError',
    async (version) => {
      const handler = jest.fn();
      const registered = tool({ name: 'add', inputSchema: schema, handler });
      const err = await rejection(callTool(registered, { b: 1 }, ctx(version)));
      expect(err).toBeInstanceOf(JsonRpcError);
      expect((err as JsonRpcError).code).toBe(-32602);
      expect((err as JsonRpcError).message).toBe(
        "Invalid arguments for tool 'add': (root): must have required property 'a'; (root): must NOT have additional properties 'b'",
      );
      expect(handler).not.toHaveBeenCalled();
    },
  );
});

describe('callTool: handler failures', () => {
  it('a throwing handler gives an isError result with the message and no stack', async () => {
    const registered = tool({
      handler: () => {
        throw new Error('upstream API said 503');
      },
    });
    const result = await callTool(registered, {}, ctx());
    expect(result).toStrictEqual({ content: [{ type: 'text', text: 'upstream API said 503' }], isError: true });
    expect(JSON.stringify(result)).not.toMatch(/at |\.ts:/);
  });

  it('a rejecting async handler gives an isError result', async () => {
    const registered = tool({ handler: async () => Promise.reject(new TypeError('bad thing')) });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [{ type: 'text', text: 'bad thing' }],
      isError: true,
    });
  });

  it('a thrown non-Error value becomes its string form', async () => {
    const registered = tool({
      handler: () => {
        throw 'plain string';
      },
    });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [{ type: 'text', text: 'plain string' }],
      isError: true,
    });
  });

  it.each<[ProtocolVersion]>([['2025-11-25'], ['2024-11-05']])(
    'a JsonRpcError thrown by the handler propagates (%s)',
    async (version) => {
      const thrown = new JsonRpcError(-32602, 'Unknown city', { city: 'Atlantis' });
      const registered = tool({
        handler: () => {
          throw thrown;
        },
      });
      expect(await rejection(callTool(registered, {}, ctx(version)))).toBe(thrown);
    },
  );
});

describe('callTool: outputSchema', () => {
  const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

  it('passes a result that matches', async () => {
    const registered = tool({ name: 'add', outputSchema, handler: () => ({ sum: 3 }) });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [{ type: 'text', text: '{"sum":3}' }],
      structuredContent: { sum: 3 },
    });
  });

  it('passes a full CallToolResult whose structuredContent matches', async () => {
    const returned = { content: [{ type: 'text', text: 'three' }], structuredContent: { sum: 3 } };
    const registered = tool({ name: 'add', outputSchema, handler: () => returned });
    expect(await callTool(registered, {}, ctx())).toStrictEqual(returned);
  });

  it('turns a result that does not match into isError', async () => {
    const registered = tool({ name: 'add', outputSchema, handler: () => ({ sum: 'three' }) });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [
        { type: 'text', text: "Tool 'add' returned output that does not match its outputSchema: sum: must be number" },
      ],
      isError: true,
    });
  });

  it.each<[string, unknown]>([
    ['a string', 'just text'],
    ['undefined', undefined],
    ['a CallToolResult without structuredContent', { content: [{ type: 'text', text: '3' }] }],
  ])('turns a result without structuredContent (%s) into isError', async (_label, returned) => {
    const registered = tool({ name: 'add', outputSchema, handler: () => returned });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [
        { type: 'text', text: "Tool 'add' returned output that does not match its outputSchema: no structured result" },
      ],
      isError: true,
    });
  });

  it('leaves an isError result from the handler unchecked', async () => {
    const returned = { content: [{ type: 'text', text: 'failed' }], isError: true };
    const registered = tool({ name: 'add', outputSchema, handler: () => returned });
    expect(await callTool(registered, {}, ctx())).toStrictEqual(returned);
  });

  it('a throwing handler with outputSchema gives the handler’s message', async () => {
    const registered = tool({
      name: 'add',
      outputSchema,
      handler: () => {
        throw new Error('nope');
      },
    });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [{ type: 'text', text: 'nope' }],
      isError: true,
    });
  });
});

describe('callTool: an outputSchema that is not an object schema', () => {
  const items = { type: 'array', items: { type: 'integer' } };
  const wrappedItems = { type: 'object', properties: { result: items }, required: ['result'] };

  it('is listed wrapped, as { result: <schema> }, and its results are sent as { result: value }', async () => {
    const registered = tool({ name: 'ids', outputSchema: items, handler: () => [1, 2] });
    expect(registered.descriptor.outputSchema).toStrictEqual(wrappedItems);
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [{ type: 'text', text: '[1,2]' }],
      structuredContent: { result: [1, 2] },
    });
  });

  it('checks the wrapped value: an array of strings fails an array of integers', async () => {
    const registered = tool({ name: 'ids', outputSchema: items, handler: () => ['a'] });
    expect(await callTool(registered, {}, ctx())).toStrictEqual({
      content: [
        {
          type: 'text',
          text: "Tool 'ids' returned output that does not match its outputSchema: result.0: must be integer",
        },
      ],
      isError: true,
    });
  });

  it('wraps a string and an object too, since the schema says what the value is', async () => {
    expect(
      await callTool(tool({ name: 'greet', outputSchema: { type: 'string' }, handler: () => 'hi' }), {}, ctx()),
    ).toStrictEqual({
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { result: 'hi' },
    });
    const anyOf = { anyOf: [{ type: 'object' }, { type: 'null' }] };
    expect(
      await callTool(tool({ name: 'maybe', outputSchema: anyOf, handler: () => ({ a: 1 }) }), {}, ctx()),
    ).toStrictEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { result: { a: 1 } },
    });
  });
});

describe('callTool: hostile argument keys', () => {
  afterEach(() => {
    // In case a failing run did pollute the prototype, keep the other tests clean.
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it('__proto__ and constructor keys reach the handler as data, and Object.prototype stays clean', async () => {
    const seen: Record<string, unknown>[] = [];
    const registered = tool({
      inputSchema: { type: 'object', properties: { constructor: { type: 'object' } } },
      handler: (args: Record<string, unknown>) => {
        seen.push(args);
        const copy: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(args)) copy[key] = value;
        return 'ok';
      },
    });
    const args = JSON.parse(
      '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "x": 1}',
    ) as Record<string, unknown>;

    expect(await callTool(registered, args, ctx())).toStrictEqual({ content: [{ type: 'text', text: 'ok' }] });

    expect(seen).toHaveLength(1);
    const received = seen[0] as Record<string, unknown>;
    expect(Object.keys(received)).toEqual(['__proto__', 'constructor', 'x']);
    expect(Object.getOwnPropertyDescriptor(received, '__proto__')?.value).toEqual({ polluted: 'yes' });
    expect(Object.getOwnPropertyDescriptor(received, 'constructor')?.value).toEqual({ prototype: { polluted: 'yes' } });
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a constructor key that fails the schema is an isError result', async () => {
    const registered = tool({
      name: 'c',
      inputSchema: { type: 'object', properties: { constructor: { type: 'string' } } },
      handler: () => 'ok',
    });
    expect(await callTool(registered, { constructor: 5 }, ctx())).toStrictEqual({
      content: [{ type: 'text', text: "Invalid arguments for tool 'c': constructor: must be string" }],
      isError: true,
    });
  });

  it('a handler returning an object with a __proto__ key keeps it as data in structuredContent', async () => {
    const returned = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}') as Record<string, unknown>;
    const registered = tool({ handler: () => returned });
    const result = await callTool(registered, {}, ctx());
    expect(result.content).toStrictEqual([{ type: 'text', text: '{"__proto__":{"polluted":"yes"},"a":1}' }]);
    expect(Object.keys(result.structuredContent ?? {})).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
