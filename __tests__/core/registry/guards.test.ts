// The guard chain by direct calls: its order (built-ins, router-wide, item), each outcome a guard may choose, and its checks at registration.

import { McpConfigError } from '../../../lib/options/config-error';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import { HandlerContext } from '../../../lib/core/protocol/handler-context';
import {
  guardFor,
  type Guard,
  type GuardCall,
  type PromptGuard,
  type ResourceGuard,
  type ToolGuard,
  type ToolGuardCall,
} from '../../../lib/core/registry/guards';
import { composeChain, type Step } from '../../../lib/core/registry/item-pipeline';
import { definePrompt, type PromptDefinition } from '../../../lib/core/registry/prompts';
import type { AuthInfo, RequestContext } from '../../../lib/core/registry/request-context';
import { defineResource, defineTemplate } from '../../../lib/core/registry/resources';
import { defineTool, type CallToolResult, type ToolDefinition } from '../../../lib/core/registry/tools';
import { createSchemaValidator } from '../../../lib/core/schema/validator';
import type { ProtocolVersion } from '../../../lib/core/versions';
import { testEnv } from '../../helpers/context';
import { configError, rejection } from '../../helpers/errors';

/** A context as the dispatcher makes it, with the request's `_meta` and the caller. */
function ctx(
  options: { meta?: Record<string, unknown>; auth?: AuthInfo; version?: ProtocolVersion } = {},
): RequestContext {
  const version = options.version ?? '2025-11-25';
  const params = options.meta === undefined ? {} : { _meta: options.meta };
  const env = testEnv(version, { auth: options.auth });
  return new HandlerContext(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    env,
    { client: env.client },
    new AbortController(),
    1_000,
  );
}

function tool(definition: Partial<ToolDefinition<never>>, routerGuards: Guard[] = []) {
  return defineTool(
    { name: 't', description: 'a test tool', handler: () => 'ok', ...definition } as ToolDefinition<never>,
    createSchemaValidator(),
    routerGuards,
  );
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const failed = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }], isError: true });

/** A guard that writes `name>` before and `<name` after the rest of the chain into `log`. */
function tracer(log: string[], name: string): Guard {
  return async (_call, next) => {
    log.push(`${name}>`);
    const result = await next();
    log.push(`<${name}`);
    return result;
  };
}

describe('the order of a call', () => {
  it('tool: access → validation → rate limit → router guards → item guards → timeout → handler, after steps in reverse', async () => {
    const log: string[] = [];
    const routerGuards = [tracer(log, 'router1'), tracer(log, 'router2')];
    let guardSignal: AbortSignal | undefined;
    let handlerSignal: AbortSignal | undefined;
    const registered = tool(
      {
        inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
        canAccess: () => {
          log.push('access');
          return true;
        },
        rateLimit: { limit: 5, windowMs: 60_000 },
        timeoutMs: 60_000,
        guards: [
          tracer(log, 'item1'),
          (call, next) => {
            guardSignal = call.ctx.signal;
            return tracer(log, 'item2')(call, next);
          },
        ],
        handler: (_args: unknown, context: RequestContext) => {
          handlerSignal = context.signal;
          log.push('handler');
          return 'done';
        },
      },
      routerGuards,
    );
    const context = ctx();
    expect(await registered.run({ a: 1 }, context)).toStrictEqual(text('done'));
    expect(log).toEqual([
      'access',
      'router1>',
      'router2>',
      'item1>',
      'item2>',
      'handler',
      '<item2',
      '<item1',
      '<router2',
      '<router1',
    ]);
    // The timeout is innermost: guards see the request's signal, the handler its own, which the timeout aborts.
    expect(guardSignal).toBe(context.signal);
    expect(handlerSignal).not.toBe(context.signal);
  });

  it('tool: a caller access denies gets the unknown-tool error, and no guard runs', async () => {
    const guard = jest.fn<ReturnType<ToolGuard>, Parameters<ToolGuard>>((_call, next) => next());
    const registered = tool({ name: 'secret', scopes: ['admin'], guards: [guard] }, [guard as unknown as Guard]);
    const err = await rejection(registered.run({}, ctx({ auth: { subject: 'u', scopes: ['read'] } })));
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).toObject()).toEqual({ code: -32602, message: 'Unknown tool: secret' });
    expect(guard).not.toHaveBeenCalled();
  });

  it.each<[ProtocolVersion, 'result' | 'error']>([
    ['2025-11-25', 'result'],
    ['2025-06-18', 'error'],
  ])('tool: arguments that fail the schema end the call before any guard (%s)', async (version, outcome) => {
    const guard = jest.fn<ReturnType<ToolGuard>, Parameters<ToolGuard>>((_call, next) => next());
    const registered = tool({
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      guards: [guard],
    });
    const run = registered.run({ a: 'x' }, ctx({ version }));
    if (outcome === 'result')
      expect(await run).toStrictEqual(failed("Invalid arguments for tool 'add': a: must be number"));
    else
      expect(await rejection(run)).toMatchObject({
        code: -32602,
        message: "Invalid arguments for tool 'add': a: must be number",
      });
    expect(guard).not.toHaveBeenCalled();
  });

  it('tool: a call over the rate limit ends before any guard', async () => {
    const guard = jest.fn<ReturnType<ToolGuard>, Parameters<ToolGuard>>((_call, next) => next());
    const registered = tool({ name: 'export', rateLimit: { limit: 1, windowMs: 60_000 }, guards: [guard] });
    expect(await registered.run({}, ctx())).toStrictEqual(text('ok'));
    expect(await registered.run({}, ctx())).toStrictEqual(
      failed("Tool 'export' is over its rate limit; try again in 60 s"),
    );
    expect(guard).toHaveBeenCalledTimes(1);
  });

  it('tool: an after step sees the timeout as an isError result, and the handler is told to stop', async () => {
    jest.useFakeTimers();
    try {
      const seen: CallToolResult[] = [];
      let reason: unknown;
      const registered = tool({
        name: 'slow',
        timeoutMs: 100,
        guards: [
          async (_call, next) => {
            const result = await next();
            seen.push(result);
            return result;
          },
        ],
        handler: (_args: unknown, context: RequestContext) =>
          new Promise((resolve) =>
            context.signal.addEventListener('abort', () => resolve((reason = context.signal.reason))),
          ),
      });
      const run = registered.run({}, ctx());
      await jest.advanceTimersByTimeAsync(100);
      expect(await run).toStrictEqual(failed("Tool 'slow' timed out after 100 ms"));
      expect(seen).toEqual([failed("Tool 'slow' timed out after 100 ms")]);
      expect(String(reason)).toBe("Error: Tool 'slow' timed out after 100 ms");
    } finally {
      jest.useRealTimers();
    }
  });

  it.each<[string, Partial<ToolDefinition<never>>, CallToolResult]>([
    [
      'a throwing handler',
      {
        handler: () => {
          throw new Error('warehouse closed');
        },
      },
      failed('warehouse closed'),
    ],
    [
      'output that fails the outputSchema',
      {
        outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        handler: () => ({ n: 'x' }),
      },
      failed("Tool 't' returned output that does not match its outputSchema: n: must be number"),
    ],
    [
      'a plain object',
      { handler: () => ({ n: 1 }) },
      { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } },
    ],
  ])('tool: an after step sees the converted, checked result (%s)', async (_label, definition, expected) => {
    const seen: CallToolResult[] = [];
    const registered = tool({
      ...definition,
      guards: [
        async (_call, next) => {
          const result = await next();
          seen.push(result);
          return result;
        },
      ],
    });
    expect(await registered.run({}, ctx())).toStrictEqual(expected);
    expect(seen).toStrictEqual([expected]);
  });

  it('resource and template: access → router guards → item guards → read', async () => {
    const log: string[] = [];
    const canAccess = (): boolean => {
      log.push('access');
      return true;
    };
    const read = (): string => {
      log.push('read');
      return 'body';
    };
    const router = [tracer(log, 'router')];
    const resource = defineResource(
      { uri: 'docs://a', name: 'a', canAccess, guards: [tracer(log, 'item')], read },
      router,
    );
    expect(await resource.run('docs://a', {}, ctx())).toStrictEqual({ contents: [{ uri: 'docs://a', text: 'body' }] });
    const template = defineTemplate(
      { uriTemplate: 'users://{id}', name: 'user', canAccess, guards: [tracer(log, 'item')], read },
      router,
    );
    expect(await template.run('users://7', { id: '7' }, ctx())).toStrictEqual({
      contents: [{ uri: 'users://7', text: 'body' }],
    });
    const once = ['access', 'router>', 'item>', 'read', '<item', '<router'];
    expect(log).toEqual([...once, ...once]);
  });

  it('prompt: access → argument checks → router guards → item guards → get', async () => {
    const log: string[] = [];
    const prompt = definePrompt(
      {
        name: 'review',
        arguments: [{ name: 'code', required: true }],
        canAccess: () => {
          log.push('access');
          return true;
        },
        guards: [tracer(log, 'item')],
        get: ({ code }) => {
          log.push('get');
          return `Review ${code}`;
        },
      },
      [tracer(log, 'router')],
    );
    expect(await prompt.run({ code: 'x' }, ctx())).toStrictEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Review x' } }],
    });
    expect(log).toEqual(['access', 'router>', 'item>', 'get', '<item', '<router']);
    log.length = 0;
    expect(await rejection(prompt.run({}, ctx()))).toMatchObject({
      code: -32602,
      message: "Missing required argument 'code' for prompt 'review'",
    });
    expect(log).toEqual(['access']);
  });
});

describe('what a guard sees', () => {
  it('tool: kind, name, the checked arguments, the request _meta, the frozen descriptor and ctx', async () => {
    const calls: GuardCall[] = [];
    const registered = tool({
      name: 'add',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
      _meta: { 'example/price': '0.01' },
      guards: [(call, next) => (calls.push(call), next())],
    });
    const context = ctx({ meta: { 'x402/payment': { sig: 'ok' } } });
    await registered.run({ a: 1 }, context);
    expect(calls).toEqual([
      {
        kind: 'tool',
        name: 'add',
        arguments: { a: 1 },
        meta: { 'x402/payment': { sig: 'ok' } },
        descriptor: registered.descriptor,
        ctx: context,
      },
    ]);
    expect(Object.isFrozen(calls[0]?.descriptor)).toBe(true);
    expect(calls[0]?.descriptor).toMatchObject({ name: 'add', _meta: { 'example/price': '0.01' } });
  });

  it('resource template: the requested uri, the resource name, and the variables as arguments', async () => {
    const calls: GuardCall[] = [];
    const template = defineTemplate({
      uriTemplate: 'users://{id}',
      name: 'user',
      guards: [(call, next) => (calls.push(call), next())],
      read: () => 'x',
    });
    const context = ctx();
    await template.run('users://7', { id: '7' }, context);
    expect(calls).toEqual([
      {
        kind: 'resource',
        name: 'user',
        uri: 'users://7',
        arguments: { id: '7' },
        meta: undefined,
        descriptor: template.descriptor,
        ctx: context,
      },
    ]);
  });

  it('prompt: only the declared arguments, checked', async () => {
    const calls: GuardCall[] = [];
    const prompt = definePrompt({
      name: 'p',
      arguments: [{ name: 'a' }],
      guards: [(call, next) => (calls.push(call), next())],
      get: () => 'x',
    });
    await prompt.run({ a: 'A', extra: 'ignored' }, ctx());
    expect(calls[0]).toMatchObject({ kind: 'prompt', name: 'p', arguments: { a: 'A' } });
    expect(calls[0]?.arguments).not.toHaveProperty('extra');
  });
});

describe('what a guard may do', () => {
  it('let the call through', async () => {
    const registered = tool({ guards: [(_call, next) => next()], handler: () => 'ran' });
    expect(await registered.run({}, ctx())).toStrictEqual(text('ran'));
  });

  it('end the call with a result of its own: the handler and later guards do not run', async () => {
    const handler = jest.fn(() => 'ran');
    const later = jest.fn<ReturnType<ToolGuard>, Parameters<ToolGuard>>((_call, next) => next());
    const registered = tool({ guards: [() => failed('Payment required'), later], handler });
    expect(await registered.run({}, ctx())).toStrictEqual(failed('Payment required'));
    expect(handler).not.toHaveBeenCalled();
    expect(later).not.toHaveBeenCalled();
  });

  it.each<[string, () => Promise<unknown>]>([
    ['tool', () => tool({ guards: [blocker()] }).run({}, ctx())],
    [
      'resource',
      () =>
        defineResource({ uri: 'docs://a', name: 'a', guards: [blocker()], read: () => 'x' }).run('docs://a', {}, ctx()),
    ],
    ['prompt', () => definePrompt({ name: 'p', guards: [blocker()], get: () => 'x' }).run({}, ctx())],
  ])('end the call with a JSON-RPC error (%s)', async (_kind, run) => {
    const err = await rejection(run());
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).toObject()).toEqual({ code: -32600, message: 'Blocked', data: { why: 'test' } });
  });

  it('wrap the result in an after step', async () => {
    const stamp: ToolGuard = async (_call, next) => {
      const result = await next();
      return { ...result, _meta: { ...result._meta, 'example/stamp': 1 } };
    };
    const registered = tool({ guards: [stamp], handler: () => 'ran' });
    expect(await registered.run({}, ctx())).toStrictEqual({ ...text('ran'), _meta: { 'example/stamp': 1 } });
  });

  it('wait before and after next() (async guards)', async () => {
    const log: string[] = [];
    const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const slow: ToolGuard = async (_call, next) => {
      await pause();
      log.push('before');
      const result = await next();
      await pause();
      log.push('after');
      return result;
    };
    const registered = tool({ guards: [slow, slow], handler: () => (log.push('handler'), 'ran') });
    expect(await registered.run({}, ctx())).toStrictEqual(text('ran'));
    expect(log).toEqual(['before', 'before', 'handler', 'after', 'after']);
  });

  it('tool: a guard that throws gives an isError result, as a throwing handler does; outer guards see that result', async () => {
    const seen: CallToolResult[] = [];
    const outer: ToolGuard = async (_call, next) => {
      const result = await next();
      seen.push(result);
      return result;
    };
    const throwing: ToolGuard = () => {
      throw new Error('quota service down');
    };
    const handler = jest.fn();
    expect(await tool({ guards: [outer, throwing], handler }).run({}, ctx())).toStrictEqual(
      failed('quota service down'),
    );
    expect(seen).toStrictEqual([failed('quota service down')]);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each<[string, () => Promise<unknown>]>([
    [
      'resource',
      () =>
        defineResource({ uri: 'docs://a', name: 'a', guards: [thrower()], read: () => 'x' }).run('docs://a', {}, ctx()),
    ],
    ['prompt', () => definePrompt({ name: 'p', guards: [thrower()], get: () => 'x' }).run({}, ctx())],
  ])('%s: a guard that throws rejects like a throwing read/get (the dispatcher answers -32603)', async (_kind, run) => {
    const err = await rejection(run());
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(JsonRpcError);
    expect((err as Error).message).toBe('guard bug');
  });

  it('refuses a second next(): the rest of the chain runs once', async () => {
    const handler = jest.fn(() => 'ran');
    let second: unknown;
    const twice: ToolGuard = async (_call, next) => {
      const first = await next();
      second = await rejection(next());
      return first;
    };
    expect(await tool({ name: 'once', guards: [twice], handler }).run({}, ctx())).toStrictEqual(text('ran'));
    expect(handler).toHaveBeenCalledTimes(1);
    expect((second as Error).message).toBe(
      "a guard of tool 'once' called next() twice; the rest of the chain runs once",
    );
  });

  it('tool: a second next() left uncaught ends the call with an isError result', async () => {
    const handler = jest.fn(() => 'ran');
    const twice: ToolGuard = async (_call, next) => {
      await next();
      return next();
    };
    expect(await tool({ name: 'once', guards: [twice], handler }).run({}, ctx())).toStrictEqual(
      failed("a guard of tool 'once' called next() twice; the rest of the chain runs once"),
    );
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a guard that returns no result is a bug it is told about', async () => {
    const forgetful = (async (_call: unknown, next: () => Promise<unknown>) => {
      await next();
    }) as unknown as Guard;
    expect(await tool({ name: 'f', guards: [forgetful] }).run({}, ctx())).toStrictEqual(
      failed("a guard of tool 'f' returned undefined, not a result: return next() or a result of its own"),
    );
    const resource = defineResource({ uri: 'docs://a', name: 'a', guards: [forgetful], read: () => 'x' });
    expect(await rejection(resource.run('docs://a', {}, ctx()))).toBeInstanceOf(TypeError);
  });
});

describe('guardFor', () => {
  it('runs a guard for calls of its kind only', async () => {
    const onTools = jest.fn<ReturnType<ToolGuard>, Parameters<ToolGuard>>(async (_call, next) => ({
      ...(await next()),
      _meta: { seen: true },
    }));
    const router = [guardFor('tool', onTools)];
    expect(await tool({ handler: () => 'ran' }, router).run({}, ctx())).toStrictEqual({
      ...text('ran'),
      _meta: { seen: true },
    });
    const resource = defineResource({ uri: 'docs://a', name: 'a', read: () => 'x' }, router);
    expect(await resource.run('docs://a', {}, ctx())).toStrictEqual({ contents: [{ uri: 'docs://a', text: 'x' }] });
    expect(onTools).toHaveBeenCalledTimes(1);
  });

  it('refuses something that is not a guard', () => {
    expect(configError(() => guardFor('tool', 'pay' as never)).message).toBe(
      "mcpRouter: guardFor('tool', …) needs a guard function",
    );
  });
});

describe('composition', () => {
  it('costs nothing per call for links an item does not use: with none, the chain is the terminal step itself', () => {
    const terminal: Step<ToolGuardCall> = async () => text('x');
    expect(composeChain<ToolGuardCall>([undefined, undefined], terminal)).toBe(terminal);
  });

  it('reads the guards once, at registration: later changes to the array do not change the chain', async () => {
    const guards: ToolGuard[] = [];
    const registered = tool({ guards, handler: () => 'ran' });
    guards.push(() => failed('added later'));
    expect(await registered.run({}, ctx())).toStrictEqual(text('ran'));
  });
});

describe('guards: config errors at registration', () => {
  it.each<[string, () => unknown, RegExp]>([
    [
      'a tool with guards not an array',
      () => tool({ name: 'pay', guards: 'x' as never }),
      /^mcpRouter: tool 'pay' guards must be an array of guard functions/,
    ],
    [
      'a tool with a guard that is not a function',
      () => tool({ name: 'pay', guards: [{}] as never }),
      /^mcpRouter: tool 'pay' guards must be an array/,
    ],
    [
      'a resource',
      () => defineResource({ uri: 'docs://a', name: 'a', guards: [1] as never, read: () => '' }),
      /^mcpRouter: resource 'docs:\/\/a' guards must be an array/,
    ],
    [
      'a template',
      () => defineTemplate({ uriTemplate: 'u://{id}', name: 'u', guards: null as never, read: () => '' }),
      /^mcpRouter: resource template 'u:\/\/\{id\}' guards must be an array/,
    ],
    [
      'a prompt',
      () => definePrompt({ name: 'p', guards: [undefined] as never, get: () => '' } as PromptDefinition<never>),
      /^mcpRouter: prompt 'p' guards must be an array/,
    ],
  ])('%s → ERR_MCP_INVALID_DEFINITION naming the item', (_label, register, message) => {
    const err = configError(register);
    expect(err).toBeInstanceOf(McpConfigError);
    expect(err.code).toBe('ERR_MCP_INVALID_DEFINITION');
    expect(err.message).toMatch(message);
  });
});

function blocker(): Guard {
  return () => {
    throw new JsonRpcError(-32600, 'Blocked', { why: 'test' });
  };
}

function thrower(): ResourceGuard & PromptGuard {
  return () => {
    throw new Error('guard bug');
  };
}

describe('types (checked by tsc: npm run typecheck)', () => {
  it('fit without casts: a Guard anywhere, a ToolGuard on tools or through guardFor, and refuse the rest', () => {
    // The README's examples, in short.
    const policy: Guard = async (call, next) => {
      if (call.ctx.auth?.subject === 'blocked') throw new JsonRpcError(-32600, 'Blocked');
      const result = await next();
      void [call.kind, call.name, call.meta];
      return result;
    };
    const quota: ToolGuard = async (call, next) => {
      if (call.meta?.paid !== true) return failed('Out of credits');
      const result = await next();
      return result.isError ? result : { ...result, _meta: { ...result._meta, 'example/credits': 1 } };
    };
    const widened: Guard = (call, next) => {
      const seen: GuardCall = call;
      if (seen.kind === 'resource') void seen.uri;
      return next();
    };
    const routerGuards: Guard[] = [policy, widened, guardFor('tool', quota)];
    tool({ guards: [policy, quota, (call, next) => (void call.arguments, next())] }, routerGuards);
    defineResource({ uri: 'docs://a', name: 'a', guards: [policy], read: () => 'x' }, routerGuards);
    definePrompt(
      {
        name: 'p',
        guards: [policy, async (call, next) => ({ ...(await next()), description: call.name })],
        get: () => 'x',
      },
      routerGuards,
    );
    // @ts-expect-error a tool guard is not a router-wide guard: it would get resource reads and prompt gets
    const notRouterWide: Guard[] = [quota];
    // @ts-expect-error a guard for every kind cannot end a call with a tool result: the call may be a resource read
    const notEveryKind: Guard = () => failed('x');
    // @ts-expect-error a tool guard does not go on a resource
    defineResource({ uri: 'docs://b', name: 'b', guards: [quota], read: () => 'x' });
    expect([notRouterWide, notEveryKind]).toHaveLength(2);
  });
});
