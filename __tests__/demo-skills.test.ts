// The demo's skills (demo/skills/, served with mcp.skills()): declared, listed by skills/list with their frontmatter,
// their SKILL.md and reference files readable and their folders listed, over both eras (SDK v1 in a 2025 session,
// SDK v2 pinned to 2026-07-28). The playground's Skills tab shows them: __tests__/e2e/playground-skills.e2e.ts.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod/v4';
import { createDemoApp, SKILLS_DIR } from '../demo/server';
import { connectClient, type ConnectedClient } from './helpers/connect-client';
import { connectClientV2 } from './helpers/connect-client-v2';

const token = 'demo-skills-token';
const bearer = { Authorization: `Bearer ${token}` };

const SkillsList = z.object({
  skills: z.array(
    z.object({
      uri: z.string(),
      frontmatter: z.object({ name: z.string(), description: z.string() }).passthrough(),
      resources: z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
    }),
  ),
  nextCursor: z.string().optional(),
});
const DirectoryRead = z.object({
  resources: z.array(z.object({ uri: z.string(), name: z.string(), mimeType: z.string() })),
});

const sha256 = (bytes: Buffer | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const onDisk = (...segments: string[]): Buffer => fs.readFileSync(path.join(SKILLS_DIR, ...segments));

describe("the demo's skills (2025-11-25, SDK v1 client)", () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    connected = await connectClient(createDemoApp({ token }), '/mcp', bearer);
  });
  afterAll(() => connected?.close());

  it('declares the skills extension with directoryRead', () => {
    const capabilities = connected.client.getServerCapabilities() as { extensions?: Record<string, unknown> };
    expect(capabilities.extensions).toMatchObject({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
  });

  it('lists order-handling and restocking with their descriptions, every file with the digest of its bytes', async () => {
    const { skills, nextCursor } = await connected.client.request({ method: 'skills/list', params: {} }, SkillsList);
    expect(nextCursor).toBeUndefined();
    expect(skills.map((skill) => [skill.uri, skill.frontmatter.name])).toEqual([
      ['skill://order-handling/SKILL.md', 'order-handling'],
      ['skill://restocking/SKILL.md', 'restocking'],
    ]);
    expect(skills[0]!.frontmatter.description).toMatch(/^Take, check and cancel orders in the demo coffee store/);
    expect(skills[1]!.frontmatter.description).toMatch(/^Decide which products of the demo coffee store to restock/);
    expect(skills[0]!.resources).toEqual([
      {
        uri: 'skill://order-handling/SKILL.md',
        digest: sha256(onDisk('order-handling', 'SKILL.md')),
        size: onDisk('order-handling', 'SKILL.md').length,
      },
      {
        uri: 'skill://order-handling/references/errors.md',
        digest: sha256(onDisk('order-handling', 'references', 'errors.md')),
        size: onDisk('order-handling', 'references', 'errors.md').length,
      },
    ]);
    expect(skills[1]!.resources.map((file) => file.uri)).toEqual([
      'skill://restocking/SKILL.md',
      'skill://restocking/references/policy.md',
    ]);
  });

  it('serves a SKILL.md and a reference file as markdown, and lists a skill folder', async () => {
    const manifest = await connected.client.readResource({ uri: 'skill://order-handling/SKILL.md' });
    expect(manifest.contents).toEqual([
      {
        uri: 'skill://order-handling/SKILL.md',
        mimeType: 'text/markdown',
        text: onDisk('order-handling', 'SKILL.md').toString('utf8'),
      },
    ]);
    const policy = await connected.client.readResource({ uri: 'skill://restocking/references/policy.md' });
    expect((policy.contents[0] as { text: string }).text).toMatch(/^# Restocking policy\n/);
    const folder = await connected.client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://order-handling' } },
      DirectoryRead,
    );
    expect(folder.resources.map((child) => [child.name, child.mimeType])).toEqual([
      ['SKILL.md', 'text/markdown'],
      ['references', 'inode/directory'],
    ]);
  });
});

describe("the demo's skills (2026-07-28, SDK v2 client)", () => {
  it('lists the skills, gets one and reads its reference file', async () => {
    const { client, close } = await connectClientV2(createDemoApp({ token }), '/mcp', bearer);
    try {
      const { skills } = await client.request({ method: 'skills/list', params: {} }, SkillsList);
      expect(skills.map((skill) => skill.frontmatter.name)).toEqual(['order-handling', 'restocking']);
      const got = await client.request(
        { method: 'skills/get', params: { uri: 'skill://restocking/SKILL.md' } },
        z.object({ skill: z.object({ uri: z.string(), frontmatter: z.record(z.string(), z.unknown()) }) }),
      );
      expect(got.skill.frontmatter).toMatchObject({ name: 'restocking', metadata: { store: 'demo-store' } });
      const errors = await client.readResource({ uri: 'skill://order-handling/references/errors.md' });
      expect(errors.contents[0]).toMatchObject({
        mimeType: 'text/markdown',
        text: onDisk('order-handling', 'references', 'errors.md').toString('utf8'),
      });
    } finally {
      await close();
    }
  });
});
