// The hostile suites' bad-input rows (once their own suite): a request anyone may send to the plain host (stateless,
// no auth), and what its answer must be: a JSON-RPC body of exactly jsonrpc, id and error (or result), never an HTML
// page, a stack or a parser's error name, and nothing in the host's error log. badInputRow makes a table row of one.

import type { OutgoingHttpHeaders } from 'node:http';
import type { Row, Suite } from './table';
import type { WireResponse } from './wire';

/** One bad input: what is sent, and the exact answer. */
export interface BadInput {
  name: string;
  /** POSTed to the plain host with the MCP headers (an object as JSON; a string or Buffer byte for byte). */
  body?: unknown;
  /** Over the MCP headers; undefined removes one. */
  headers?: OutgoingHttpHeaders;
  /** Sends something else than `body` to the plain host (another host, a chunked body): the response under test. */
  run?: (s: Suite) => Promise<WireResponse>;
  status: number;
  /** The JSON-RPC error code; undefined for a row that must succeed. */
  code?: number;
  id: string | number | null;
  /** The error's data: exactly this (undefined: none). */
  data?: unknown;
  /** Where the cause is ambiguous from the code alone: what the message must say. */
  message?: RegExp;
  also?: (body: Record<string, unknown>, s: Suite) => void;
}

/** The table row of `input`, named `<name> → HTTP <status>`. */
export function badInputRow(input: BadInput): [string, Row] {
  const expected: Pick<Row, 'error' | 'result'> =
    input.code === undefined
      ? { result: { id: input.id as string | number } }
      : { error: { code: input.code, id: input.id } };
  return [
    `${input.name} → HTTP ${input.status}`,
    {
      run: input.run ?? ((s) => s.plain.post('anon', input.body, { headers: input.headers })),
      status: input.status,
      type: 'json',
      ...expected,
      also: (res, s) => expectBadInputAnswer(input, res, s),
    },
  ];
}

function expectBadInputAnswer(input: BadInput, res: WireResponse, s: Suite): void {
  expect(res.headers['content-type']).toMatch(/^application\/json(; *charset=utf-8)?$/i);
  // Never an HTML error page, never a stack trace or a file path.
  expect(res.text).not.toMatch(/<html|<!doctype/i);
  expect(res.text).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+|SyntaxError|TypeError|RangeError/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body.jsonrpc).toBe('2.0');
  expect(body).toHaveProperty('id', input.id);
  if (input.code === undefined) {
    expect(body).not.toHaveProperty('error');
  } else {
    expect(body).not.toHaveProperty('result');
    const error = body.error as Record<string, unknown>;
    expect(error.code).toBe(input.code);
    expect(typeof error.message).toBe('string');
    expect((error.message as string).length).toBeGreaterThan(0);
    expect(error.data).toEqual(input.data);
    if (input.message) expect(error.message).toMatch(input.message);
    expect(Object.keys(body).sort()).toEqual(['error', 'id', 'jsonrpc']);
  }
  input.also?.(body, s);
  // Bad inputs are the client's mistakes, not the server's: nothing logged.
  expect(s.plain.logger.error).not.toHaveBeenCalled();
}
