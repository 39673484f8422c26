// mcp.skills() over HTTP in MCP 2026-07-28: the extension, skills/list and skills/get, reads, folders, pagination, and hostile URIs and cursors.

import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import { createApp, silentLogger } from '../../helpers/create-app';
import { modern } from '../../helpers/modern';
import { digest, PDF_SKILL, PNG, sampleTree, writeTree } from './skill-tree';

interface Served {
  app: Express;
  root: string;
  warnings: unknown[];
}

function serve(pageSize = 100): Served {
  const root = writeTree(sampleTree());
  const warnings: unknown[] = [];
  const logger = { ...silentLogger(), warn: (err: unknown) => void warnings.push(err) };
  const app = createApp({ pageSize, logger }, (mcp) => mcp.skills({ dir: root }));
  return { app, root, warnings };
}

async function result(app: Express, method: string, params: Record<string, unknown> = {}) {
  const response = await modern(app, method, params);
  return response.body as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

const SKILL_URI = 'skill://pdf-processing/SKILL.md';

describe('mcp.skills() in MCP 2026-07-28', () => {
  const { app, root, warnings } = serve();
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('declares the extension inline, with directoryRead, beside the resources capability', async () => {
    const { result: discovered } = await result(app, 'server/discover');
    const capabilities = discovered!.capabilities as Record<string, Record<string, unknown>>;
    expect(capabilities.extensions!['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
    expect(capabilities.resources).toBeDefined();
  });

  it('lists every skill with its frontmatter and every file with its sha256 digest and size, cacheable', async () => {
    const { result: list } = await result(app, 'skills/list');
    expect(list).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: expect.any(String) });
    const forms = '# Forms\n\nFill them by field name.\n';
    expect(list!.skills).toEqual([
      {
        uri: SKILL_URI,
        frontmatter: {
          name: 'pdf-processing',
          description: 'Extract text and tables from PDF files',
          metadata: { author: 'ada' },
        },
        resources: [
          { uri: SKILL_URI, digest: digest(PDF_SKILL), size: Buffer.byteLength(PDF_SKILL) },
          { uri: 'skill://pdf-processing/assets/logo.png', digest: digest(PNG), size: PNG.length },
          { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest(forms), size: Buffer.byteLength(forms) },
          { uri: 'skill://pdf-processing/scripts/extract.py', digest: digest('print("extract")\n'), size: 17 },
        ],
      },
      {
        uri: 'skill://team/csv-cleanup/SKILL.md',
        frontmatter: { name: 'csv-cleanup', description: 'Clean CSV files: trim, re-encode' },
        resources: [expect.objectContaining({ uri: 'skill://team/csv-cleanup/SKILL.md' })],
      },
    ]);
    expect(list!.nextCursor).toBeUndefined();
  });

  it('gets one skill by its URI, and answers -32602 for a URI it does not serve', async () => {
    const { result: got } = await result(app, 'skills/get', { uri: SKILL_URI });
    expect(got).toMatchObject({
      skill: { uri: SKILL_URI, frontmatter: { name: 'pdf-processing' } },
      ttlMs: expect.any(Number),
    });
    expect(got!.nextCursor).toBeUndefined();
    const { error } = await result(app, 'skills/get', { uri: 'skill://nope/SKILL.md' });
    expect(error).toMatchObject({ code: -32602, message: 'Unknown skill: skill://nope/SKILL.md' });
  });

  it('lists the index and each SKILL.md as a resource named and described by its frontmatter, and the files as a template', async () => {
    const { result: list } = await result(app, 'resources/list');
    expect(list!.resources).toEqual([
      expect.objectContaining({ uri: 'skill://index.json', mimeType: 'application/json' }),
      {
        uri: SKILL_URI,
        name: 'pdf-processing',
        description: 'Extract text and tables from PDF files',
        mimeType: 'text/markdown',
        size: Buffer.byteLength(PDF_SKILL),
      },
      expect.objectContaining({ uri: 'skill://team/csv-cleanup/SKILL.md', name: 'csv-cleanup' }),
    ]);
    const { result: templates } = await result(app, 'resources/templates/list');
    expect(templates!.resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'skill://{+path}' })]);
  });

  it.each([
    [SKILL_URI, 'text/markdown', PDF_SKILL],
    ['skill://pdf-processing/references/FORMS.md', 'text/markdown', '# Forms\n\nFill them by field name.\n'],
    ['skill://pdf-processing/scripts/extract.py', 'text/x-python', 'print("extract")\n'],
  ])('reads %s as %s text, the bytes the digest covers', async (uri, mimeType, text) => {
    const { result: read } = await result(app, 'resources/read', { uri });
    expect(read!.contents).toEqual([{ uri, mimeType, text }]);
  });

  it('reads a binary file as a base64 blob', async () => {
    const uri = 'skill://pdf-processing/assets/logo.png';
    const { result: read } = await result(app, 'resources/read', { uri });
    expect(read!.contents).toEqual([{ uri, mimeType: 'image/png', blob: PNG.toString('base64') }]);
  });

  it('lists a folder: files with their type and size, subfolders as inode/directory', async () => {
    const { result: dir } = await result(app, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(dir!.resources).toEqual([
      { uri: SKILL_URI, name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(PDF_SKILL) },
      { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/scripts', name: 'scripts', mimeType: 'inode/directory' },
    ]);
    const { result: sub } = await result(app, 'resources/directory/read', { uri: 'skill://pdf-processing/references' });
    expect(sub!.resources).toEqual([expect.objectContaining({ uri: 'skill://pdf-processing/references/FORMS.md' })]);
  });

  it.each([SKILL_URI, 'skill://team', 'skill://nope', 'skill://pdf-processing/'])(
    'answers a directory read of %s (not a skill folder) with -32602',
    async (uri) => {
      const { error } = await result(app, 'resources/directory/read', { uri });
      expect(error).toMatchObject({ code: -32602, data: { uri } });
    },
  );

  it.each([
    'skill://pdf-processing/../team/csv-cleanup/SKILL.md',
    'skill://pdf-processing/references/../SKILL.md',
    'skill://pdf-processing/%2e%2e/team/csv-cleanup/SKILL.md',
    'skill://pdf-processing%2fSKILL.md',
    'skill://pdf-processing/references%2FFORMS.md',
    'skill://pdf-processing/.hidden',
    'skill://README.md',
    'skill://pdf-processing/../../../../etc/passwd',
  ])('serves nothing for %s (only the URIs it listed, exactly)', async (uri) => {
    const { error } = await result(app, 'resources/read', { uri });
    expect(error).toMatchObject({ code: -32602, message: 'Resource not found', data: { uri } });
  });

  it('refuses a file changed after boot (its digest would lie), logging it once; the listing keeps the boot state', async () => {
    const uri = 'skill://pdf-processing/references/FORMS.md';
    fs.appendFileSync(path.join(root, 'pdf-processing/references/FORMS.md'), 'injected\n');
    for (let attempt = 0; attempt < 2; attempt++) {
      const { error } = await result(app, 'resources/read', { uri });
      expect(error).toMatchObject({ code: -32602, message: 'Resource changed since it was listed', data: { uri } });
    }
    expect(warnings).toHaveLength(1);
    const { result: list } = await result(app, 'skills/list');
    expect(JSON.stringify(list!.skills)).toContain(digest('# Forms\n\nFill them by field name.\n'));
  });

  it('refuses a file replaced by a symlink after boot, and one whose folder became a link to elsewhere', async () => {
    const script = path.join(root, 'pdf-processing/scripts/extract.py');
    fs.rmSync(script);
    fs.symlinkSync('/etc/hostname', script);
    const { error } = await result(app, 'resources/read', { uri: 'skill://pdf-processing/scripts/extract.py' });
    expect(error).toMatchObject({ message: 'Resource changed since it was listed' });
    const assets = path.join(root, 'pdf-processing/assets');
    const elsewhere = writeTree({ 'logo.png': PNG });
    fs.rmSync(assets, { recursive: true });
    fs.symlinkSync(elsewhere, assets);
    const { error: swapped } = await result(app, 'resources/read', { uri: 'skill://pdf-processing/assets/logo.png' });
    expect(swapped).toMatchObject({ message: 'Resource changed since it was listed' });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });
});

describe('mcp.skills() pagination', () => {
  const { app, root } = serve(2);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  async function all(method: string, params: Record<string, unknown>, key: string): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor: unknown;
    do {
      const { result: page } = await result(app, method, cursor === undefined ? params : { ...params, cursor });
      items.push(...(page![key] as unknown[]));
      cursor = page!.nextCursor;
    } while (cursor !== undefined);
    return items;
  }

  it('pages a folder and skills/list by the router pageSize, each entry whole on one page', async () => {
    const children = await all('resources/directory/read', { uri: 'skill://pdf-processing' }, 'resources');
    expect(children).toHaveLength(4);
    expect(new Set(children.map((child) => (child as { uri: string }).uri)).size).toBe(4);
    expect(await all('skills/list', {}, 'skills')).toHaveLength(2);
  });

  it('refuses a forged cursor, and the cursor of another listing', async () => {
    const { result: first } = await result(app, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    const cursor = first!.nextCursor as string;
    const forged = [
      'garbage',
      Buffer.from('skill://pdf-processing\n99').toString('base64url'),
      Buffer.from('skill://pdf-processing\n-1').toString('base64url'),
      `${cursor}=`,
      42,
    ];
    for (const bad of forged) {
      const { error } = await result(app, 'resources/directory/read', { uri: 'skill://pdf-processing', cursor: bad });
      expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid cursor/) });
    }
    const other = await result(app, 'resources/directory/read', { uri: 'skill://pdf-processing/references', cursor });
    expect(other.error).toMatchObject({ code: -32602 });
    const list = await result(app, 'skills/list', { cursor });
    expect(list.error).toMatchObject({ code: -32602 });
  });
});
