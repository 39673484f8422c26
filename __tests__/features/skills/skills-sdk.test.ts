// mcp.skills() with the official SDK clients: v1 over a 2025 session, v2 pinned to MCP 2026-07-28.

import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import * as z from 'zod/v4';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { connectClient, type ConnectedClient } from '../../helpers/connect-client';
import { mcpRouter } from '../../../lib';
import { digest, PDF_SKILL, sampleTree, writeTree } from './skill-tree';

const SKILL_URI = 'skill://pdf-processing/SKILL.md';
const root = writeTree(sampleTree());
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function app(): express.Express {
  const mcp = mcpRouter({ name: 'skills-sdk', version: '1.0.0' });
  mcp.skills(root);
  const host = express();
  host.use('/mcp', mcp);
  return host;
}

const SkillsList = z.object({
  skills: z.array(
    z.object({ uri: z.string(), frontmatter: z.record(z.string(), z.unknown()), resources: z.unknown() }),
  ),
});
const DirectoryRead = z.object({ resources: z.array(z.object({ uri: z.string(), mimeType: z.string() })) });

describe('SDK v1 client, 2025-11-25 session', () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    connected = await connectClient(app());
  });
  afterAll(() => connected?.close());

  it('sees the extension in the initialize capabilities', () => {
    const capabilities = connected.client.getServerCapabilities() as Record<string, Record<string, unknown>>;
    expect(capabilities.extensions!['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
  });

  it('lists skills, reads a SKILL.md whose bytes match the listed digest, and reads a folder', async () => {
    const { skills } = await connected.client.request({ method: 'skills/list', params: {} }, SkillsList);
    expect(skills.map((skill) => skill.uri)).toEqual([SKILL_URI, 'skill://team/csv-cleanup/SKILL.md']);
    const read = await connected.client.readResource({ uri: SKILL_URI });
    const text = (read.contents[0] as { text: string }).text;
    expect(digest(text)).toBe(digest(PDF_SKILL));
    expect(JSON.stringify(skills[0]!.resources)).toContain(digest(text));
    const folder = await connected.client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://pdf-processing' } },
      DirectoryRead,
    );
    expect(folder.resources.filter((child) => child.mimeType === 'inode/directory')).toHaveLength(3);
  });

  it('reads skill://index.json as a discovering host does, and each SKILL.md it points to matches its digest', async () => {
    const { resources } = await connected.client.listResources();
    expect(resources[0]).toMatchObject({ uri: 'skill://index.json', mimeType: 'application/json' });
    const read = await connected.client.readResource({ uri: 'skill://index.json' });
    const index = JSON.parse((read.contents[0] as { text: string }).text) as {
      skills: { name: string; type: string; url: string; digest: string }[];
    };
    expect(index.skills.map((skill) => [skill.name, skill.type])).toEqual([
      ['pdf-processing', 'skill-md'],
      ['csv-cleanup', 'skill-md'],
    ]);
    for (const skill of index.skills) {
      const manifest = await connected.client.readResource({ uri: skill.url });
      expect(digest((manifest.contents[0] as { text: string }).text)).toBe(skill.digest);
    }
  });

  it('gets an error for an unknown skill', async () => {
    await expect(
      connected.client.request({ method: 'skills/get', params: { uri: 'skill://x/SKILL.md' } }, z.object({})),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe('SDK v2 client pinned to 2026-07-28', () => {
  let server: Server;
  let client: ClientV2;
  beforeAll(async () => {
    server = await new Promise((resolve) => {
      const listening = app().listen(0, '127.0.0.1', () => resolve(listening));
    });
    const { port } = server.address() as AddressInfo;
    client = new ClientV2({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL(`http://127.0.0.1:${port}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
  });

  it('lists the SKILL.md resources and skills, and gets and reads one', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => [resource.name, resource.mimeType])).toEqual([
      ['skills-index', 'application/json'],
      ['pdf-processing', 'text/markdown'],
      ['csv-cleanup', 'text/markdown'],
    ]);
    const { skills } = await client.request({ method: 'skills/list', params: {} }, SkillsList);
    expect(skills[0]!.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract text and tables from PDF files',
      metadata: { author: 'ada' },
    });
    const got = await client.request(
      { method: 'skills/get', params: { uri: SKILL_URI } },
      z.object({ skill: z.object({ uri: z.string() }) }),
    );
    expect(got.skill.uri).toBe(SKILL_URI);
    const read = await client.readResource({ uri: 'skill://pdf-processing/references/FORMS.md' });
    expect(read.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: '# Forms\n\nFill them by field name.\n',
    });
  });
});
