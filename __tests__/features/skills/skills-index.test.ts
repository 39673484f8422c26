// skill://index.json in both eras: listed, its Agent Skills discovery shape, and digests equal to the served bytes' and skills/list's.

import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import { createApp, post, rpc, silentLogger } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { digest, PDF_SKILL, sampleTree, writeTree } from './skill-tree';

const INDEX_URI = 'skill://index.json';
const SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string } };
type Ask = (app: Express, method: string, params?: Record<string, unknown>) => Promise<Answer>;

// 2025-11-25 (stateless, no envelope) and 2026-07-28 (the `_meta` envelope and standard headers).
const ERAS: [string, Ask][] = [
  ['2025-11-25', async (app, method, params = {}) => (await post(app, rpc(method, params)).expect(200)).body],
  ['2026-07-28', async (app, method, params = {}) => (await modern(app, method, params).expect(200)).body],
];

async function readText(ask: Ask, app: Express, uri: string): Promise<{ text: string; mimeType: string }> {
  const { result } = await ask(app, 'resources/read', { uri });
  const [contents] = result!.contents as { uri: string; text: string; mimeType: string }[];
  expect(contents!.uri).toBe(uri);
  return contents!;
}

describe.each(ERAS)('skill://index.json in MCP %s', (_era, ask) => {
  const root = writeTree(sampleTree());
  const app = createApp({}, (mcp) => mcp.skills(root));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is listed by resources/list as application/json, with the size of the bytes a read serves', async () => {
    const { result } = await ask(app, 'resources/list');
    const listed = (result!.resources as { uri: string }[]).find((resource) => resource.uri === INDEX_URI);
    const { text, mimeType } = await readText(ask, app, INDEX_URI);
    expect(mimeType).toBe('application/json');
    expect(listed).toEqual({
      uri: INDEX_URI,
      name: 'skills-index',
      description: expect.stringMatching(/digest/),
      mimeType: 'application/json',
      size: Buffer.byteLength(text),
    });
  });

  it('is the Agent Skills discovery document: $schema, and name, type, description, url, digest per skill', async () => {
    const index = JSON.parse((await readText(ask, app, INDEX_URI)).text) as unknown;
    expect(index).toEqual({
      $schema: SCHEMA,
      skills: [
        {
          name: 'pdf-processing',
          type: 'skill-md',
          description: 'Extract text and tables from PDF files',
          url: 'skill://pdf-processing/SKILL.md',
          digest: digest(PDF_SKILL),
        },
        {
          name: 'csv-cleanup',
          type: 'skill-md',
          description: 'Clean CSV files: trim, re-encode',
          url: 'skill://team/csv-cleanup/SKILL.md',
          digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        },
      ],
    });
  });

  it("lists each skill's digest as the sha256 of the SKILL.md bytes served, and as skills/list does", async () => {
    const { skills } = JSON.parse((await readText(ask, app, INDEX_URI)).text) as {
      skills: { url: string; digest: string }[];
    };
    const { result } = await ask(app, 'skills/list');
    const entries = result!.skills as { uri: string; resources: { uri: string; digest: string }[] }[];
    expect(skills.map((skill) => skill.url)).toEqual(entries.map((entry) => entry.uri));
    for (const skill of skills) {
      expect(digest((await readText(ask, app, skill.url)).text)).toBe(skill.digest);
      const entry = entries.find((candidate) => candidate.uri === skill.url)!;
      expect(entry.resources.find((file) => file.uri === skill.url)!.digest).toBe(skill.digest);
    }
  });
});

describe('skill://index.json is fixed at boot', () => {
  it('keeps the boot digest when a SKILL.md changes after boot, as skills/list does, while the read is refused', async () => {
    const root = writeTree(sampleTree());
    const warnings: unknown[] = [];
    const logger = { ...silentLogger(), warn: (err: unknown) => void warnings.push(err) };
    const app = createApp({ logger }, (mcp) => mcp.skills(root));
    const before = (await modern(app, 'resources/read', { uri: INDEX_URI })).body.result.contents[0].text as string;
    fs.appendFileSync(path.join(root, 'pdf-processing/SKILL.md'), 'injected\n');
    const after = (await modern(app, 'resources/read', { uri: INDEX_URI })).body.result.contents[0].text as string;
    expect(after).toBe(before);
    expect(after).toContain(digest(PDF_SKILL));
    const { body } = await modern(app, 'resources/read', { uri: 'skill://pdf-processing/SKILL.md' });
    expect(body.error).toMatchObject({ message: 'Resource changed since it was listed' });
    expect(warnings).toHaveLength(1);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('fails at boot, naming the URI, when the app has registered a resource at skill://index.json', () => {
    const root = writeTree(sampleTree());
    try {
      expect(() =>
        createApp({}, (mcp) => {
          mcp.resource({ uri: INDEX_URI, name: 'mine', read: () => '{}' });
          mcp.skills(root);
        }),
      ).toThrow(expect.objectContaining({ code: 'ERR_MCP_DUPLICATE', message: expect.stringContaining(INDEX_URI) }));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
