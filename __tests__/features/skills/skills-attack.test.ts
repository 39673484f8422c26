// mcp.skills() under attack, both eras: URIs that try to name other files, huge ones, and read/list methods misused.

import fs from 'node:fs';
import type request from 'supertest';
import { createApp, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { sampleTree, writeTree } from './skill-tree';

const root = writeTree(sampleTree());
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const app = createApp({}, (mcp) => mcp.skills({ dir: root }));

const HOSTILE = [
  'skill://pdf-processing/references/FORMS.md\u0000',
  'skill://pdf-processing\\..\\team\\csv-cleanup\\SKILL.md',
  'skill://pdf-processing/references\\FORMS.md',
  'SKILL://pdf-processing/SKILL.md',
  'skill://PDF-processing/SKILL.md',
  'skill:///pdf-processing/SKILL.md',
  'skill://pdf-processing//SKILL.md',
  'skill://pdf-processing/./SKILL.md',
  'skill://pdf-processing/SKILL.md?x=1',
  'skill://pdf-processing/SKILL.md#x',
  'skill://pdf-processing/%53KILL.md',
  `skill://pdf-processing/${'a/'.repeat(50_000)}SKILL.md`,
  'skill://',
  'skill://.',
  'skill://..',
  'skill://index.json/..',
];

/** The Mcp-Name header's limit, as Node enforces it: the whole head must fit in `--max-http-header-size` (16 KB). */
const TOO_LONG_FOR_A_HEADER = (uri: string): boolean => uri.length > 16 * 1024;

type Send = (method: string, params: Record<string, unknown>) => request.Test;

/** What each era answers: the id its requests carry, and resources/read's exact answer for a URI nothing serves. */
const ERAS: Array<[string, Send, { id: number; read: (uri: string) => { status: number; body: unknown } }]> = [
  [
    '2026-07-28',
    // A URI no header can carry (a NUL) goes without the Mcp-Name header: the request is refused for that, never read.
    (method, params) =>
      modern(app, method, params, String(params.uri).includes('\u0000') ? { 'Mcp-Name': undefined } : {}),
    {
      id: 7,
      read: (uri) =>
        uri.includes('\u0000')
          ? {
              status: 400,
              body: {
                jsonrpc: '2.0',
                id: 7,
                error: {
                  code: -32020,
                  message: 'Bad Request: the Mcp-Name header is required on resources/read: it mirrors params.uri',
                  data: { header: 'Mcp-Name' },
                },
              },
            }
          : // 2026 puts the URI in the Mcp-Name header too: one too long for a header is Node's 431, with no body.
            TOO_LONG_FOR_A_HEADER(uri)
            ? { status: 431, body: {} }
            : {
                status: 200,
                body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Resource not found', data: { uri } } },
              },
    },
  ],
  [
    '2025 (stateless POST)',
    (method, params) => post(app, rpc(method, params)),
    {
      id: 1,
      read: (uri) => ({
        status: 200,
        body: { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Resource not found', data: { uri } } },
      }),
    },
  ],
];

describe.each(ERAS)('%s', (_era, send, expected) => {
  it.each(HOSTILE.map((uri) => [uri.slice(0, 80), uri]))(
    'resources/read %j is not found, and nothing crashes',
    async (_, uri) => {
      const res = await send('resources/read', { uri });
      const answer = expected.read(uri);
      expect(res.status).toBe(answer.status);
      expect(res.body).toEqual(answer.body);
      expect(res.text).toBe(answer.status === 431 ? '' : JSON.stringify(answer.body));
    },
  );

  it.each(HOSTILE.map((uri) => [uri.slice(0, 80), uri]))(
    'directory read and skills/get of %j are -32602 naming the URI',
    async (_, uri) => {
      const { id } = expected;
      const folder = await send('resources/directory/read', { uri });
      expect(folder.status).toBe(200);
      expect(folder.body).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32602, message: `Invalid params: not a skill folder: ${uri}`, data: { uri } },
      });
      const skill = await send('skills/get', { uri });
      expect(skill.status).toBe(200);
      expect(skill.body).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32602, message: `Unknown skill: ${uri}`, data: { uri } },
      });
    },
  );

  it.each([
    [{ uri: 42 }, "Invalid params: 'uri' must be a non-empty string"],
    [{ uri: null }, "Invalid params: 'uri' must be a non-empty string"],
    [{ uri: ['skill://pdf-processing'] }, "Invalid params: 'uri' must be a non-empty string"],
    [{}, "Invalid params: 'uri' must be a non-empty string"],
    [{ uri: '' }, "Invalid params: 'uri' must be a non-empty string"],
    [
      { uri: 'skill://pdf-processing', cursor: {} },
      'Invalid cursor: use the nextCursor of a previous read of this list',
    ],
    [
      { uri: 'skill://pdf-processing', cursor: 'bm90IGEgY3Vyc29y' },
      'Invalid cursor: use the nextCursor of a previous read of this list',
    ],
  ])('directory read with params %j is -32602: %s', async (params, message) => {
    const res = await send('resources/directory/read', params);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: expected.id, error: { code: -32602, message } });
  });
});
