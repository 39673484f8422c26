// Hostile requests: headers — HEAD on the endpoint, and Origin and Host (DNS rebinding).

import { Host, rpc } from './host';
import { headThenPing } from './requests';
import { badInputRow, type BadInput } from './bad-input';
import { hostileTable, type Row } from './table';

const ROWS: Array<[string, Row]> = [
  // ---- 4. HEAD ----
  [
    'HEAD on the endpoint with a valid session: 200 and the response ends at once; a GET after it gets its stream (not 409)',
    {
      run: async (s) => {
        const session = await s.main.session('alice');
        const head = await headThenPing(s.main, session);
        expect(head.status).toBe(200);
        // The HEAD response ended: the same connection went on to answer the next request (or the server closed it).
        expect(head.after).toMatch(/^(answered|closed)$/);
        return (await s.main.stream('alice', session)).res;
      },
      status: 200,
      type: 'sse',
    },
  ],

  // ---- Origin and Host (DNS rebinding) ----
  [
    'a non-loopback Host on the loopback interface: 403',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: 'evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a non-loopback Host with a loopback-looking prefix: 403',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: '127.0.0.1.evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a Host with userinfo whose first part is loopback (127.0.0.1:45333@evil.example): 400 before any route',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: '127.0.0.1:45333@evil.example' } }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => expect(res.text).not.toContain('evil'),
    },
  ],
  [
    'a Host with a port and userinfo (mcp.example:443@evil): 400',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: 'mcp.example:443@evil' } }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a Host with a path (127.0.0.1/evil.example): 400',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Host: '127.0.0.1/evil.example' } }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'the protected-resource metadata asked with Host 127.0.0.1@evil.example: 400, no document naming evil.example',
    {
      run: (s) =>
        s.main.send('anon', {
          method: 'GET',
          path: '/mcp/.well-known/oauth-protected-resource',
          headers: { Host: '127.0.0.1@evil.example' },
        }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: (res) => {
        expect(res.text).not.toContain('evil');
        expect(res.headers['cache-control']).toBeUndefined();
      },
    },
  ],
  [
    'a hostile Origin: 403',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Origin: 'https://evil.example.com' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'Origin: null: 403',
    {
      run: (s) => s.main.post('alice', rpc('ping'), { session: s.alice, headers: { Origin: 'null' } }),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
    },
  ],
  [
    'a localhost Origin (control): served, with CORS headers',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'cors'), {
          session: s.alice,
          headers: { Origin: 'http://localhost:5173' },
        }),
      status: 200,
      type: 'json',
      result: { id: 'cors' },
      also: (res) => expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173'),
    },
  ],
];

/** Bad inputs anyone may send (stateless, no auth): the plain host's exact answers. */
const BAD_INPUTS: BadInput[] = [
  {
    name: 'Content-Type text/plain',
    body: rpc('ping'),
    headers: { 'Content-Type': 'text/plain' },
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'Content-Type missing',
    body: Buffer.from(JSON.stringify(rpc('ping'))),
    headers: { 'Content-Type': undefined },
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'Content-Type application/x-www-form-urlencoded',
    body: rpc('ping'),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: -32000,
    id: null,
  },
  {
    name: 'charset=latin1',
    body: rpc('ping'),
    headers: { 'Content-Type': 'application/json; charset=latin1' },
    status: 415,
    code: -32000,
    id: null,
    message: /latin1/,
  },
  {
    name: 'unsupported MCP-Protocol-Version',
    body: rpc('ping'),
    headers: { 'MCP-Protocol-Version': '2099-01-01' },
    status: 400,
    code: -32000,
    id: null,
    // Every revision the endpoint speaks, the 2026 one too.
    message: /'2099-01-01'; supported: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05$/,
  },
  {
    name: 'MCP-Protocol-Version that is not a date',
    body: rpc('ping'),
    headers: { 'MCP-Protocol-Version': 'latest' },
    status: 400,
    code: -32000,
    id: null,
  },
];

hostileTable('hostile requests: headers (issue 13)', [...ROWS, ...BAD_INPUTS.map(badInputRow)], 12);
