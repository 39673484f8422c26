// x-mcp-header declarations (registry/header-params.ts): read from an inputSchema and refused at registration when invalid.

import { McpConfigError, mcpRouter } from '../../../lib';
import { headerParamsOf } from '../../../lib/core/registry/header-params';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const header = (type: string, name: unknown = 'Region') => ({ type, 'x-mcp-header': name });

describe('headerParamsOf', () => {
  it('finds the marked arguments, top-level and nested through properties', () => {
    expect(
      headerParamsOf(
        schema({
          region: header('string'),
          n: header('integer', 'N'),
          on: header('boolean', 'On'),
          q: { type: 'string' },
          deep: schema({ zone: header('string', 'Zone') }),
        }),
        "tool 't'",
      ),
    ).toEqual([
      { path: ['region'], header: 'Mcp-Param-Region', key: 'mcp-param-region', type: 'string' },
      { path: ['n'], header: 'Mcp-Param-N', key: 'mcp-param-n', type: 'integer' },
      { path: ['on'], header: 'Mcp-Param-On', key: 'mcp-param-on', type: 'boolean' },
      { path: ['deep', 'zone'], header: 'Mcp-Param-Zone', key: 'mcp-param-zone', type: 'string' },
    ]);
    expect(headerParamsOf(schema({ q: { type: 'string' } }), "tool 't'")).toEqual([]);
  });

  it.each([
    ['a number', schema({ region: header('string', 7) }), /must be a non-empty HTTP token/],
    ['an empty name', schema({ region: header('string', '') }), /must be a non-empty HTTP token/],
    ['a space', schema({ region: header('string', 'My Region') }), /must be a non-empty HTTP token/],
    ['a colon', schema({ region: header('string', 'Region:') }), /must be a non-empty HTTP token/],
    ['a line break', schema({ region: header('string', 'Re\r\ngion') }), /must be a non-empty HTTP token/],
    ['type number', schema({ region: header('number') }), /needs "type": "string", "integer" or "boolean"/],
    ['type object', schema({ region: header('object') }), /needs "type"/],
    ['no type', schema({ region: { 'x-mcp-header': 'Region' } }), /needs "type"/],
    ['a type list', schema({ region: { type: ['string', 'null'], 'x-mcp-header': 'Region' } }), /needs "type"/],
    [
      'a repeat ignoring case',
      schema({ a: header('string', 'Region'), b: header('string', 'REGION') }),
      /property 'b' repeats the header name of property 'a'/,
    ],
    ['the root', { type: 'object', 'x-mcp-header': 'Root' }, /on the inputSchema root is not allowed/],
    ['items', schema({ list: { type: 'array', items: header('string') } }), /property 'list.items' is not allowed/],
    ['anyOf', schema({}, { anyOf: [schema({ region: header('string') })] }), /property 'anyOf.region' is not allowed/],
    ['$defs', schema({}, { $defs: { r: header('string') } }), /is not allowed/],
    ['additionalProperties', schema({}, { additionalProperties: header('string') }), /is not allowed/],
    ['if/then', schema({}, { if: schema({}), then: schema({ region: header('string') }) }), /is not allowed/],
  ])('refuses %s', (_label, inputSchema, message) => {
    const attempt = () => headerParamsOf(inputSchema, "tool 'sql'");
    expect(attempt).toThrow(McpConfigError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(/^mcpRouter: tool 'sql' inputSchema: "x-mcp-header"/);
  });

  it('mcp.tool() refuses a tool whose x-mcp-header is invalid, naming it, and registers nothing', () => {
    const mcp = mcpRouter({ name: 't', version: '1' });
    let error: unknown;
    try {
      mcp.tool({
        name: 'sql',
        description: 'Runs SQL',
        inputSchema: schema({ region: header('number') }),
        handler: () => 'ok',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    expect(error).toMatchObject({
      code: 'ERR_MCP_INVALID_SCHEMA',
      message: expect.stringContaining("tool 'sql' inputSchema"),
    });
    expect(() =>
      mcp.tool({
        name: 'sql',
        description: 'Runs SQL',
        inputSchema: schema({ region: header('string') }),
        handler: () => 'ok',
      }),
    ).not.toThrow();
  });
});
