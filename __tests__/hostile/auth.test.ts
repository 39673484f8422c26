// Hostile requests: auth — where the token is (header, query, body, twice), and the challenge each answer carries.

import { initialize, rpc, TOKENS } from './host';
import { challenge, expectChallenge } from './requests';
import { hostileTable, type Row } from './table';

const ROWS: Array<[string, Row]> = [
  // ---- where the token is ----
  [
    'no token: 401 with the challenge',
    {
      run: (s) => s.main.post('anon', initialize()),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'an unknown token: 401 invalid_token',
    {
      run: (s) => s.main.post('anon', initialize(), { headers: { Authorization: `Bearer ${TOKENS.wrong}` } }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_token'),
    },
  ],
  [
    'a token without the required scope: 403 insufficient_scope',
    {
      run: (s) => s.main.post('carol', initialize()),
      status: 403,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('insufficient_scope'),
    },
  ],
  [
    'the token in the query string (?access_token=): 400 invalid_request',
    {
      run: (s) => s.main.post('anon', initialize(), { path: `/mcp?access_token=${TOKENS.alice}` }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'the token in the query string and the header: 400 invalid_request',
    {
      run: (s) => s.main.post('alice', initialize(), { path: `/mcp?a=1&access_token=${TOKENS.alice}` }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'lowercase "bearer": served',
    {
      run: (s) =>
        s.main.post('alice', rpc('ping', undefined, 'lc'), {
          session: s.alice,
          headers: { Authorization: `bearer ${TOKENS.alice}` },
        }),
      status: 200,
      type: 'json',
      result: { id: 'lc' },
    },
  ],
  // RFC 6750 §3.1: a request that "repeats the same parameter" or "uses more than one method" is invalid_request (400).
  [
    'two Authorization headers (alice, then bob): 400 invalid_request, served as neither',
    {
      run: (s) =>
        s.main.post('alice', rpc('tools/list', undefined, 'two'), {
          session: s.alice,
          headers: { Authorization: [`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`] },
        }),
      status: 400,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_request'),
    },
  ],
  [
    'the token in a cookie only: 401, no error code',
    {
      run: (s) =>
        s.main.post('anon', initialize(), {
          headers: { Cookie: `access_token=${TOKENS.alice}; token=${TOKENS.alice}` },
        }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'the Basic scheme: 401, no error code',
    {
      run: (s) =>
        s.main.post('anon', initialize(), {
          headers: { Authorization: `Basic ${Buffer.from(`alice:${TOKENS.alice}`).toString('base64')}` },
        }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge(),
    },
  ],
  [
    'an empty bearer token: 401 invalid_token',
    {
      run: (s) => s.main.post('anon', initialize(), { headers: { Authorization: 'Bearer ' } }),
      status: 401,
      type: 'json',
      error: { code: -32000, id: null },
      also: expectChallenge('invalid_token'),
    },
  ],
];

hostileTable('hostile requests: auth (issue 13)', ROWS, 10);
