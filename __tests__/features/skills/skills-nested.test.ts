// A skill whose files sit in nested folders (two levels, and an empty one), over HTTP in both eras: every SEP-2640
// rule for them — the skills/list entry, directory reads at each level, reads and their digests, pagination.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import type request from 'supertest';
import { createApp, post, rpc } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { digest, PNG, writeTree } from './skill-tree';

const MANIFEST =
  '---\nname: review\ndescription: Review a change with the checklists under references/\n---\n\n# Review\n';
const NOTES = '# Notes\n\nComment on the change, not the author.\n';
const SECURITY = '# Security\n\n- Bound what the network sends.\n';
const RUN = '#!/bin/sh\necho review\n';

/** review/{SKILL.md, references/{notes.md, checklists/{security.md, logo.png}, empty/}, scripts/run.sh} */
function nestedTree(): string {
  const root = writeTree({
    'review/SKILL.md': MANIFEST,
    'review/references/notes.md': NOTES,
    'review/references/checklists/security.md': SECURITY,
    'review/references/checklists/logo.png': PNG,
    'review/scripts/run.sh': RUN,
  });
  fs.mkdirSync(path.join(root, 'review/references/empty'));
  return root;
}

const BASE = 'skill://review';
const dir = (name: string) => ({ uri: `${BASE}/${name}`, name: name.split('/').pop(), mimeType: 'inode/directory' });
const file = (name: string, mimeType: string, content: string | Buffer) => ({
  uri: `${BASE}/${name}`,
  name: name.split('/').pop(),
  mimeType,
  size: Buffer.byteLength(content),
});

/** Each folder of the skill and its direct children, in name order: subfolders as inode/directory, without size. */
const FOLDERS: Record<string, unknown[]> = {
  [BASE]: [file('SKILL.md', 'text/markdown', MANIFEST), dir('references'), dir('scripts')],
  [`${BASE}/references`]: [
    dir('references/checklists'),
    dir('references/empty'),
    file('references/notes.md', 'text/markdown', NOTES),
  ],
  [`${BASE}/references/checklists`]: [
    file('references/checklists/logo.png', 'image/png', PNG),
    file('references/checklists/security.md', 'text/markdown', SECURITY),
  ],
  [`${BASE}/references/empty`]: [],
  [`${BASE}/scripts`]: [file('scripts/run.sh', 'text/x-shellscript', RUN)],
};

/** Every file, as skills/list lists it: SKILL.md first, then depth first in name order; folders are not resources. */
const RESOURCES = [
  { uri: `${BASE}/SKILL.md`, digest: digest(MANIFEST), size: Buffer.byteLength(MANIFEST) },
  { uri: `${BASE}/references/checklists/logo.png`, digest: digest(PNG), size: PNG.length },
  { uri: `${BASE}/references/checklists/security.md`, digest: digest(SECURITY), size: Buffer.byteLength(SECURITY) },
  { uri: `${BASE}/references/notes.md`, digest: digest(NOTES), size: Buffer.byteLength(NOTES) },
  { uri: `${BASE}/scripts/run.sh`, digest: digest(RUN), size: Buffer.byteLength(RUN) },
];

type Send = (app: Express, method: string, params: Record<string, unknown>) => request.Test;
const ERAS: Array<[string, Send]> = [
  ['2026-07-28', (app, method, params) => modern(app, method, params)],
  [
    '2025-11-25 (stateless POST)',
    (app, method, params) => post(app, rpc(method, params), { 'MCP-Protocol-Version': '2025-11-25' }),
  ],
];

describe.each(ERAS)('nested skill folders, %s', (_era, send) => {
  const root = nestedTree();
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const app = createApp({}, (mcp) => mcp.skills({ dir: root }));
  const small = createApp({ pageSize: 1 }, (mcp) => mcp.skills({ dir: root }));

  async function resultOf(target: Express, method: string, params: Record<string, unknown>) {
    const res = await send(target, method, params).expect(200);
    expect(res.body.error).toBeUndefined();
    return res.body.result as Record<string, unknown>;
  }

  async function errorOf(method: string, params: Record<string, unknown>) {
    const res = await send(app, method, params).expect(200);
    return res.body.error as { code: number; message: string; data?: unknown };
  }

  it('lists every nested file in the skill’s entry, with its digest and size, and no folder', async () => {
    const { skills } = await resultOf(app, 'skills/list', {});
    expect(skills).toEqual([
      {
        uri: `${BASE}/SKILL.md`,
        frontmatter: { name: 'review', description: 'Review a change with the checklists under references/' },
        resources: RESOURCES,
      },
    ]);
    const { skill } = await resultOf(app, 'skills/get', { uri: `${BASE}/SKILL.md` });
    expect(skill).toEqual((skills as unknown[])[0]);
  });

  it.each(Object.keys(FOLDERS))(
    'directory read of %s: its direct children, subfolders as inode/directory',
    async (uri) => {
      const result = await resultOf(app, 'resources/directory/read', { uri });
      expect(result.resources).toEqual(FOLDERS[uri]);
      expect(result.nextCursor).toBeUndefined();
    },
  );

  it('reaches every file by descending from the skill root through the inode/directory children', async () => {
    const found: string[] = [];
    const walk = async (uri: string): Promise<void> => {
      const { resources } = await resultOf(app, 'resources/directory/read', { uri });
      for (const child of resources as Array<{ uri: string; mimeType: string }>)
        if (child.mimeType === 'inode/directory') await walk(child.uri);
        else found.push(child.uri);
    };
    await walk(BASE);
    expect(found.sort()).toEqual(RESOURCES.map((resource) => resource.uri).sort());
  });

  it.each(RESOURCES.map((resource) => [resource.uri, resource]))(
    'reads %s with the bytes its listed digest covers',
    async (uri, listed) => {
      const { contents } = await resultOf(app, 'resources/read', { uri });
      const [content] = contents as Array<{ uri: string; mimeType: string; text?: string; blob?: string }>;
      const bytes =
        content?.text === undefined ? Buffer.from(content?.blob ?? '', 'base64') : Buffer.from(content.text);
      expect(content?.uri).toBe(uri);
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(listed.digest);
      expect(bytes.length).toBe(listed.size);
    },
  );

  it.each([
    `${BASE}/references/notes.md`,
    `${BASE}/references/checklists/security.md`,
    `${BASE}/references/`,
    `${BASE}/references/checklists/`,
    `${BASE}//references`,
    `${BASE}/references/./checklists`,
    `${BASE}/references/checklists/..`,
    `${BASE}/References`,
    `${BASE}/references/missing`,
  ])('directory read of %s (a file, or no folder the skill has) is -32602 naming it', async (uri) => {
    expect(await errorOf('resources/directory/read', { uri })).toEqual({
      code: -32602,
      message: `Invalid params: not a skill folder: ${uri}`,
      data: { uri },
    });
  });

  it.each([`${BASE}/references`, `${BASE}/references/checklists`, `${BASE}/references/empty`])(
    'a folder is no resource: reading %s is not found',
    async (uri) => {
      const error = await errorOf('resources/read', { uri });
      expect(error.message).toBe('Resource not found');
      expect(error.data).toEqual({ uri });
    },
  );

  it.each(Object.keys(FOLDERS))('pages %s one child at a time, each exactly once and whole', async (uri) => {
    const children: unknown[] = [];
    let cursor: unknown;
    let pages = 0;
    do {
      const page = await resultOf(small, 'resources/directory/read', cursor === undefined ? { uri } : { uri, cursor });
      expect((page.resources as unknown[]).length).toBeLessThanOrEqual(1);
      children.push(...(page.resources as unknown[]));
      cursor = page.nextCursor;
      expect(++pages).toBeLessThanOrEqual(Math.max(1, FOLDERS[uri]!.length));
    } while (cursor !== undefined);
    expect(children).toEqual(FOLDERS[uri]);
  });

  it('refuses one folder’s cursor at another level', async () => {
    const first = await resultOf(small, 'resources/directory/read', { uri: `${BASE}/references` });
    const cursor = first.nextCursor as string;
    for (const uri of [BASE, `${BASE}/references/checklists`]) {
      const res = await send(small, 'resources/directory/read', { uri, cursor }).expect(200);
      expect(res.body.error).toEqual({
        code: -32602,
        message: 'Invalid cursor: use the nextCursor of a previous read of this list',
      });
    }
  });
});
