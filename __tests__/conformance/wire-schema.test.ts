// Every answer the conformance fixture (demo/everything.ts) gives an MCP 2026-07-28 request validates against the
// official 2026-07-28 JSON schema, as the conformance runner's `wire-schema-valid` check does for what it sees.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { createEverythingApp } from '../../demo/everything';
import { post } from '../helpers/create-app';

const VERSION = '2026-07-28';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const ASKING_CAPABILITIES = { sampling: {}, elicitation: {}, roots: {} };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(readFileSync(path.join(__dirname, 'schema-2026-07-28.json'), 'utf8')) as object, 'mcp');

/** What `value` breaks of `$defs[definition]`, one line per problem: [] when it is valid. */
function violations(definition: string, value: unknown): string[] {
  const validate = ajv.getSchema(`mcp#/$defs/${definition}`);
  if (validate === undefined) throw new Error(`the 2026-07-28 schema has no $defs/${definition}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${definition}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

type Message = Record<string, any>;

/** One answer: its HTTP status, the response to the request, and the notifications that came before it (SSE). */
interface Answer {
  readonly status: number;
  readonly response: Message;
  readonly notifications: Message[];
}

interface SendOptions {
  /** The request's `_meta` client capabilities. Defaults to `{}`. */
  readonly capabilities?: Record<string, unknown>;
  /** More `_meta` keys (logLevel, progressToken). */
  readonly meta?: Record<string, unknown>;
  /** Headers over the standard ones (SEP-2243: MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
  readonly headers?: Record<string, string | undefined>;
  /** The protocol version in `_meta` and in `MCP-Protocol-Version`. Defaults to 2026-07-28. */
  readonly version?: string;
}

const ID = 42;

/** POSTs one 2026 request as the conformance runner does: raw, with the envelope and the standard headers. */
async function send(
  app: Express,
  method: string,
  params: Record<string, unknown> = {},
  options: SendOptions = {},
): Promise<Answer> {
  const version = options.version ?? VERSION;
  const _meta = { [PROTOCOL_VERSION]: version, [CLIENT_CAPABILITIES]: options.capabilities ?? {}, ...options.meta };
  const name = params.name ?? params.uri;
  const headers = {
    'MCP-Protocol-Version': version,
    'Mcp-Method': method,
    ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
    ...options.headers,
  };
  const res = await post(app, { jsonrpc: '2.0', id: ID, method, params: { ...params, _meta } }, headers);
  const messages: Message[] = String(res.headers['content-type']).startsWith('text/event-stream')
    ? res.text
        .split(/\r?\n\r?\n/)
        .map((event) =>
          event
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n'),
        )
        .filter((data) => data !== '')
        .map((data) => JSON.parse(data) as Message)
    : [res.body as Message];
  const response = messages.find((message) => message.id === ID && !('method' in message));
  if (response === undefined) throw new Error(`no response to ${method} (HTTP ${res.status}): ${res.text}`);
  return { status: res.status, response, notifications: messages.filter((message) => message !== response) };
}

/** Checks a successful answer: 200, a JSON-RPC result response whose result is a complete `definition`. */
function expectResult(answer: Answer, definition: string): Message {
  expect({ status: answer.status, error: answer.response.error }).toEqual({ status: 200, error: undefined });
  expect(violations('JSONRPCResultResponse', answer.response)).toEqual([]);
  expect(violations(definition, answer.response.result)).toEqual([]);
  expect(answer.response.result.resultType).toBe('complete');
  return answer.response.result as Message;
}

/** The errors the 2026-07-28 schema defines as a whole response; the JSON-RPC ones it defines as the error object. */
const RESPONSE_ERRORS = new Set([
  'HeaderMismatchError',
  'MissingRequiredClientCapabilityError',
  'UnsupportedProtocolVersionError',
]);

/** Checks an error answer: the HTTP status, the echoed id, the code, and the schema's definition of that error. */
function expectError(answer: Answer, status: number, code: number, definition: string): Message {
  expect({ status: answer.status, id: answer.response.id, code: answer.response.error?.code }).toEqual({
    status,
    id: ID,
    code,
  });
  expect(violations('JSONRPCErrorResponse', answer.response)).toEqual([]);
  expect(violations(definition, RESPONSE_ERRORS.has(definition) ? answer.response : answer.response.error)).toEqual([]);
  return answer.response.error as Message;
}

/**
 * Every fixture tool, its arguments, and what a 2026 request without client capabilities gets: a result; `asks`:
 * -32021 for a tool that asks the client (MCP 2026-07-28 M3), and with the capabilities an `input_required` result
 * (MRTR); `task-only`: -32021 naming the tasks extension (SEP-2663); `error`: a JSON-RPC error in-band.
 */
type ToolOutcome = 'result' | 'asks' | 'task-only' | 'error';
const TOOLS: ReadonlyArray<readonly [name: string, args: Record<string, unknown>, withoutCapabilities: ToolOutcome]> = [
  ['test_simple_text', {}, 'result'],
  ['test_image_content', {}, 'result'],
  ['test_audio_content', {}, 'result'],
  ['test_embedded_resource', {}, 'result'],
  ['test_multiple_content_types', {}, 'result'],
  ['test_tool_with_logging', {}, 'result'],
  ['test_tool_with_progress', {}, 'result'],
  ['test_error_handling', {}, 'result'],
  ['test_sampling', { prompt: 'Say hi' }, 'asks'],
  ['test_elicitation', { message: 'Who are you?' }, 'asks'],
  ['test_elicitation_sep1034_defaults', {}, 'asks'],
  ['test_elicitation_sep1330_enums', {}, 'asks'],
  ['json_schema_2020_12_tool', { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' }, 'result'],
  ['test_reconnection', {}, 'result'],
  ['test_missing_capability', {}, 'asks'],
  ['test_streaming_elicitation', {}, 'result'],
  ['test_logging_tool', {}, 'result'],
  ['test_x_mcp_header', { region: 'eu-west', level: 3 }, 'result'],
  ['test_trigger_tool_change', {}, 'result'],
  ['test_trigger_prompt_change', {}, 'result'],
  ['test_input_required_result_elicitation', {}, 'asks'],
  ['test_input_required_result_sampling', {}, 'asks'],
  ['test_input_required_result_list_roots', {}, 'asks'],
  ['test_input_required_result_request_state', {}, 'asks'],
  ['test_input_required_result_multiple_inputs', {}, 'asks'],
  ['test_input_required_result_multi_round', {}, 'asks'],
  ['test_input_required_result_tampered_state', {}, 'asks'],
  ['test_input_required_result_capabilities', {}, 'result'],
  ['greet', { name: 'Ada' }, 'result'],
  ['slow_compute', { seconds: 0 }, 'result'],
  ['failing_job', {}, 'task-only'],
  ['test_tool_with_task', {}, 'task-only'],
  ['protocol_error_job', {}, 'error'],
  ['confirm_delete', { filename: 'a.txt' }, 'asks'],
  ['multi_input', {}, 'asks'],
];

/** SEP-2243: an argument marked `x-mcp-header` travels in `Mcp-Param-{Name}` too. */
function paramHeaders(name: string, args: Record<string, unknown>): Record<string, string> {
  return name === 'test_x_mcp_header' && typeof args.region === 'string' ? { 'Mcp-Param-Region': args.region } : {};
}

const PROMPTS: ReadonlyArray<readonly [name: string, args: Record<string, string>]> = [
  ['test_simple_prompt', {}],
  ['test_prompt_with_arguments', { arg1: 'testValue1', arg2: 'testValue2' }],
  ['test_prompt_with_embedded_resource', { resourceUri: 'test://example-resource' }],
  ['test_prompt_with_image', {}],
];

const RESOURCES = [
  'test://static-text',
  'test://static-binary',
  'test://template/123/data',
  'test://watched-resource',
  'test://example-resource',
];

let app: Express;
beforeAll(() => {
  app = createEverythingApp();
});

describe('the 2026-07-28 schema check', () => {
  it('is not vacuous: it finds a result without resultType, a bad content block and a wrong error code', () => {
    expect(violations('JSONRPCResultResponse', { jsonrpc: '2.0', id: 1, result: {} })).not.toEqual([]);
    expect(violations('CallToolResult', { resultType: 'complete', content: [{ type: 'text' }] })).not.toEqual([]);
    expect(
      violations('MissingRequiredClientCapabilityError', {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: 'x', data: { requiredCapabilities: {} } },
      }),
    ).not.toEqual([]);
  });
});

describe('the fixture over MCP 2026-07-28: results validate against the 2026-07-28 schema', () => {
  it('server/discover is a DiscoverResult', async () => {
    const result = expectResult(await send(app, 'server/discover'), 'DiscoverResult');
    expect(result.supportedVersions).toContain(VERSION);
  });

  it('tools/list is a ListToolsResult, and the table here names every listed tool', async () => {
    const result = expectResult(await send(app, 'tools/list'), 'ListToolsResult');
    const listed = (result.tools as Message[]).map((tool) => tool.name as string);
    expect([...listed].sort()).toEqual(TOOLS.map(([name]) => name).sort());
    // conformance http-header-validation calls the first listed tool with `arguments: {}`.
    expect((result.tools as Message[])[0]?.inputSchema.required ?? []).toEqual([]);
  });

  it.each(TOOLS.filter(([, , outcome]) => outcome === 'result'))(
    'tools/call %s is a CallToolResult',
    async (name, args) => {
      expectResult(
        await send(app, 'tools/call', { name, arguments: args }, { headers: paramHeaders(name, args) }),
        'CallToolResult',
      );
    },
  );

  it.each(TOOLS.filter(([, , outcome]) => outcome === 'asks'))(
    'tools/call %s without the capability it asks for is 400 MissingRequiredClientCapabilityError; with it, an InputRequiredResult',
    async (name, args) => {
      const error = expectError(
        await send(app, 'tools/call', { name, arguments: args }),
        400,
        -32021,
        'MissingRequiredClientCapabilityError',
      );
      expect(Object.keys(error.data.requiredCapabilities as object).length).toBeGreaterThan(0);
      const answer = await send(app, 'tools/call', { name, arguments: args }, { capabilities: ASKING_CAPABILITIES });
      expect({ status: answer.status, error: answer.response.error }).toEqual({ status: 200, error: undefined });
      expect(violations('JSONRPCResultResponse', answer.response)).toEqual([]);
      expect(violations('InputRequiredResult', answer.response.result)).toEqual([]);
      expect(answer.response.result.resultType).toBe('input_required');
    },
  );

  it.each(TOOLS.filter(([, , outcome]) => outcome === 'task-only'))(
    'tools/call %s (task-only) without the tasks extension is 400 MissingRequiredClientCapabilityError',
    async (name, args) => {
      expectError(
        await send(app, 'tools/call', { name, arguments: args }),
        400,
        -32021,
        'MissingRequiredClientCapabilityError',
      );
    },
  );

  it('tools/call of a tool that throws a JSON-RPC error is that error, in-band', async () => {
    expectError(
      await send(app, 'tools/call', { name: 'protocol_error_job', arguments: {} }),
      200,
      -32603,
      'InternalError',
    );
  });

  it.each([
    ['test_tool_with_logging', 'LoggingMessageNotification', { 'io.modelcontextprotocol/logLevel': 'debug' }],
    ['test_logging_tool', 'LoggingMessageNotification', { 'io.modelcontextprotocol/logLevel': 'debug' }],
    ['test_tool_with_progress', 'ProgressNotification', { progressToken: 'p-1' }],
  ])('tools/call %s streams valid %s messages before its CallToolResult', async (name, definition, meta) => {
    const answer = await send(app, 'tools/call', { name, arguments: {} }, { meta });
    expectResult(answer, 'CallToolResult');
    expect(answer.notifications.length).toBeGreaterThanOrEqual(1);
    for (const notification of answer.notifications) expect(violations(definition, notification)).toEqual([]);
  });

  it('resources/list is a ListResourcesResult', async () => {
    expectResult(await send(app, 'resources/list'), 'ListResourcesResult');
  });

  it('resources/templates/list is a ListResourceTemplatesResult', async () => {
    expectResult(await send(app, 'resources/templates/list'), 'ListResourceTemplatesResult');
  });

  it.each(RESOURCES)('resources/read %s is a ReadResourceResult', async (uri) => {
    expectResult(await send(app, 'resources/read', { uri }), 'ReadResourceResult');
  });

  it('prompts/list is a ListPromptsResult', async () => {
    expectResult(await send(app, 'prompts/list'), 'ListPromptsResult');
  });

  it.each(PROMPTS)('prompts/get %s is a GetPromptResult', async (name, args) => {
    expectResult(await send(app, 'prompts/get', { name, arguments: args }), 'GetPromptResult');
  });

  it('completion/complete is a CompleteResult', async () => {
    const params = {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    };
    const result = expectResult(await send(app, 'completion/complete', params), 'CompleteResult');
    expect(result.completion.values).toContain('testValue1');
  });
});

describe('the fixture over MCP 2026-07-28: errors validate against the 2026-07-28 schema and echo the id', () => {
  it.each(['unknown/method', 'ping', 'initialize', 'logging/setLevel', 'resources/subscribe'])(
    '%s is 404 MethodNotFoundError',
    async (method) => {
      expectError(await send(app, method), 404, -32601, 'MethodNotFoundError');
    },
  );

  it('tools/call of an unknown tool is InvalidParamsError, in-band on 200', async () => {
    expectError(
      await send(app, 'tools/call', { name: 'no_such_tool', arguments: {} }),
      200,
      -32602,
      'InvalidParamsError',
    );
  });

  it('resources/read of an unknown resource is InvalidParamsError naming the uri (SEP-2164)', async () => {
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    const error = expectError(await send(app, 'resources/read', { uri }), 200, -32602, 'InvalidParamsError');
    expect(error.data).toMatchObject({ uri });
  });

  it('a request whose _meta lacks the client capabilities is 400 InvalidParamsError', async () => {
    const answer = await post(
      app,
      { jsonrpc: '2.0', id: ID, method: 'tools/list', params: { _meta: { [PROTOCOL_VERSION]: VERSION } } },
      { 'MCP-Protocol-Version': VERSION, 'Mcp-Method': 'tools/list' },
    );
    expectError(
      { status: answer.status, response: answer.body as Message, notifications: [] },
      400,
      -32602,
      'InvalidParamsError',
    );
  });

  it('an unsupported protocol version is 400 UnsupportedProtocolVersionError', async () => {
    const error = expectError(
      await send(app, 'tools/list', {}, { version: '2099-01-01' }),
      400,
      -32022,
      'UnsupportedProtocolVersionError',
    );
    expect(error.data).toMatchObject({ requested: '2099-01-01', supported: expect.arrayContaining([VERSION]) });
  });

  it('Mcp-Method unlike the body is 400 HeaderMismatchError', async () => {
    expectError(
      await send(app, 'tools/list', {}, { headers: { 'Mcp-Method': 'prompts/list' } }),
      400,
      -32020,
      'HeaderMismatchError',
    );
  });
});
