// Handler arguments typed from inline schemas. The type assertions here are checked by `npm run typecheck`
// (tsc --noEmit over __tests__): a wrong inference fails the build, and each @ts-expect-error must stay an error.

import { mcpRouter, type InferSchema, type ToolDefinition } from '../../../lib';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

describe('InferSchema', () => {
  it('reads types, required keys, enums, consts and arrays', () => {
    type Schema = {
      type: 'object';
      properties: {
        id: { type: 'integer' };
        name: { type: 'string' };
        tags: { type: 'array'; items: { type: 'string' } };
        mode: { enum: ['fast', 'safe'] };
        kind: { const: 'user' };
        extra: { type: 'object' };
      };
      required: ['id', 'mode'];
    };
    assertType<
      Equal<
        InferSchema<Schema>,
        {
          id: number;
          mode: 'fast' | 'safe';
          name?: string;
          tags?: string[];
          kind?: 'user';
          extra?: Record<string, unknown>;
        }
      >
    >();
    assertType<Equal<InferSchema<{ oneOf: [] }>, unknown>>();
    expect(true).toBe(true);
  });

  it('types the handler of an inline schema and still accepts annotated and pre-typed definitions', () => {
    const mcp = mcpRouter({ name: 'infer', version: '1.0.0' });
    mcp.tool({
      name: 'add',
      description: 'Add',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' }, note: { type: 'string' } },
        required: ['a', 'b'],
      },
      handler: (args) => {
        assertType<Equal<typeof args, { a: number; b: number; note?: string }>>();
        return args.a + args.b;
      },
    });
    mcp.tool({
      name: 'no_args',
      description: 'No arguments',
      handler: (args) => {
        assertType<Equal<typeof args, Record<string, unknown>>>();
        return 'ok';
      },
    });
    const loose: Record<string, unknown> = { type: 'object' };
    mcp.tool({ name: 'annotated', description: 'Annotated', inputSchema: loose, handler: ({ z }: { z: number }) => z });
    const predefined: ToolDefinition<{ q: string }> = {
      name: 'predefined',
      description: 'Pre-typed',
      handler: ({ q }) => q.length,
    };
    mcp.tool(predefined);
    mcp.tool({
      name: 'wrong',
      description: 'A handler that misreads its schema does not compile',
      inputSchema: { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
      // @ts-expect-error b is a number, not a string
      handler: ({ b }): string => b,
    });
    expect(mcp).toEqual(expect.any(Function));
  });
});
