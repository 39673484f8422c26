// mcp.skills() under attack, both eras: URIs that try to name other files, huge ones, and read/list methods misused.

import fs from 'node:fs';
import { createApp, post, rpc } from '../helpers/create-app';
import { modern } from '../helpers/modern';
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

describe.each([
  [
    '2026-07-28',
    // A URI no header can carry (a NUL) goes without the Mcp-Name header: the request is refused for that, never read.
    (method: string, params: Record<string, unknown>) =>
      modern(app, method, params, String(params.uri).includes('\u0000') ? { 'Mcp-Name': undefined } : {}),
  ],
  ['2025 (stateless POST)', (method: string, params: Record<string, unknown>) => post(app, rpc(method, params))],
])('%s', (_era, send) => {
  it.each(HOSTILE.map((uri) => [uri.slice(0, 80), uri]))(
    'resources/read %j is not found, and nothing crashes',
    async (_, uri) => {
      const res = await send('resources/read', { uri });
      expect(JSON.stringify(res.body)).not.toMatch(/\/tmp|Error:|at /);
      // 2026 puts the URI in the Mcp-Name header too: one too long for a header is refused by HTTP (431) first.
      if (res.status === 431) return;
      expect(res.status).toBe(_era.startsWith('2026') && uri.includes('\u0000') ? 400 : 200);
      if (res.status === 200) expect(res.body.error.code).toBe(_era.startsWith('2026') ? -32602 : -32002);
    },
  );

  it.each(HOSTILE.map((uri) => [uri.slice(0, 80), uri]))(
    'directory read and skills/get of %j are -32602',
    async (_, uri) => {
      for (const method of ['resources/directory/read', 'skills/get']) {
        const res = await send(method, { uri });
        expect(res.body.error.code).toBe(-32602);
      }
    },
  );

  it.each([
    { uri: 42 },
    { uri: null },
    { uri: ['skill://pdf-processing'] },
    {},
    { uri: 'skill://pdf-processing', cursor: {} },
  ])('directory read with params %j is -32602', async (params) => {
    const res = await send('resources/directory/read', params);
    expect(res.body.error.code).toBe(-32602);
  });
});
