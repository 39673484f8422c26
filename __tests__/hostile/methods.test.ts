// Hostile requests: methods, tools and bridged routes — controls, unknown and refused methods, path parameters of a
// bridged route (dot segments refused, everything else literal).

import { auth, initialize, ORDERS_SECRET, REPORT_SECRET, rpc } from './host';
import { LITERALS, REFUSED_IDS, refusedId, resultOf, textOf } from './requests';
import { badInputRow, type BadInput } from './bad-input';
import { hostileTable, type Row } from './table';

const ROWS: Array<[string, Row]> = [
  // ---- controls ----
  [
    'control: alice initializes',
    {
      run: (s) => s.main.post('alice', initialize()),
      status: 200,
      type: 'json',
      result: { id: 'init' },
      also: (res) => expect(res.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/),
    },
  ],
  [
    'control: bob calls the scoped tools he holds the scopes of',
    {
      run: async (s) => {
        const orders = await s.main.call('bob', s.bob, 'all_orders', {}, 'orders');
        expect(resultOf(orders).structuredContent).toEqual({ orders: [ORDERS_SECRET] });
        return s.main.call('bob', s.bob, 'quarterly_report', {}, 'report');
      },
      status: 200,
      type: 'json',
      result: { id: 'report', check: (result) => expect(textOf(result)).toBe(REPORT_SECRET) },
    },
  ],

  // ---- 1. bridged path parameters: dot segments refused, everything else literal ----
  ...REFUSED_IDS.map((id): [string, Row] => [
    `bridged user_orders with id ${JSON.stringify(id)}: refused, naming the argument; /api/orders never runs`,
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', { id }, 'dots'),
      status: 200,
      type: 'json',
      result: { id: 'dots', check: refusedId },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ]),
  ...LITERALS.map((id): [string, Row] => [
    `bridged user_orders with id ${JSON.stringify(id)}: the route sees the literal value`,
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', { id }, 'literal'),
      status: 200,
      type: 'json',
      result: {
        id: 'literal',
        check: (result) =>
          expect(result).toEqual({
            content: [expect.any(Object)],
            structuredContent: { user: id, orders: [`order-of-${id}`] },
          }),
      },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ]),

  // ---- methods and tools ----
  [
    'an unknown method: -32601',
    {
      run: (s) => s.main.post('alice', rpc('tools/destroy', {}, 'm'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32601, id: 'm' },
    },
  ],
  [
    'a method named like an Object.prototype member: -32601',
    {
      run: (s) => s.main.post('alice', rpc('hasOwnProperty', {}, 'h'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32601, id: 'h' },
    },
  ],
  [
    'an unknown tool: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'no_such_tool', {}, 'u'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'u' },
    },
  ],
  [
    'a scoped bridged tool alice lacks the scope of: -32602, exactly like an unknown tool; /api/orders never runs',
    {
      run: (s) => s.main.call('alice', s.alice, 'all_orders', {}, 'scoped'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'scoped' },
      also: (_res, s) => expect(s.main.ordersCalls).toBe(0),
    },
  ],
  [
    'a scoped tool alice lacks the scope of: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'quarterly_report', {}, 'report'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'report' },
    },
  ],
  [
    'tools/call with arguments of the wrong types: an isError result naming them',
    {
      run: (s) => s.main.call('alice', s.alice, 'echo', { text: 42, times: 'many' }, 'types'),
      status: 200,
      type: 'json',
      result: {
        id: 'types',
        check: (result) => {
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/text|times/);
        },
      },
    },
  ],
  [
    'tools/call with arguments that are not an object: -32602',
    {
      run: (s) => s.main.call('alice', s.alice, 'echo', ['a'], 'arr'),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'arr' },
    },
  ],
  [
    'tools/call without a name: -32602',
    {
      run: (s) => s.main.post('alice', rpc('tools/call', { arguments: {} }, 'noname'), { session: s.alice }),
      status: 200,
      type: 'json',
      error: { code: -32602, id: 'noname' },
    },
  ],
  [
    'bridged user_orders without its id: an isError result',
    {
      run: (s) => s.main.call('alice', s.alice, 'user_orders', {}, 'noid'),
      status: 200,
      type: 'json',
      result: { id: 'noid', check: (result) => expect(result.isError).toBe(true) },
    },
  ],
  [
    'an unsupported MCP-Protocol-Version: 400, -32000',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, version: '1999-01-01' }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'PUT on the endpoint: 405 with Allow',
    {
      run: (s) => s.main.send('alice', { method: 'PUT', headers: auth('alice'), body: '{}' }),
      status: 405,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => expect(res.headers.allow).toMatch(/POST/),
    },
  ],
];

/** Bad inputs anyone may send (stateless, no auth): the plain host's exact answers. */
const BAD_INPUTS: BadInput[] = [
  {
    name: 'unknown method',
    body: rpc('tools/frobnicate', {}, 'm'),
    status: 200,
    code: -32601,
    id: 'm',
  },
  {
    name: 'unknown tool',
    body: rpc('tools/call', { name: 'nope', arguments: {} }, 8),
    status: 200,
    code: -32602,
    id: 8,
  },
  {
    name: 'tools/call without a name',
    body: rpc('tools/call', {}, 8),
    status: 200,
    code: -32602,
    id: 8,
  },
  {
    name: 'unknown prompt',
    body: rpc('prompts/get', { name: 'nope' }, 9),
    status: 200,
    code: -32602,
    id: 9,
  },
  {
    name: 'unknown resource',
    body: rpc('resources/read', { uri: 'docs://nope' }, 10),
    status: 200,
    code: -32002,
    id: 10,
    data: { uri: 'docs://nope' },
  },
  {
    name: 'bad cursor',
    body: rpc('tools/list', { cursor: 'not-a-cursor' }, 11),
    status: 200,
    code: -32602,
    id: 11,
  },
  {
    name: 'cursor of another list',
    body: rpc('prompts/list', { cursor: Buffer.from('tool:1').toString('base64url') }, 11),
    status: 200,
    code: -32602,
    id: 11,
  },
];

hostileTable(
  'hostile requests: methods, tools and bridged routes (issue 13)',
  [...ROWS, ...BAD_INPUTS.map(badInputRow)],
  39,
);
