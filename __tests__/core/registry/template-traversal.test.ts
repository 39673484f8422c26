// Template variables arrive percent-decoded (RFC 6570): README's file example keeps them inside its root, and no
// template of the demo can be walked out of with `..`.

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import { ErrorCode, JsonRpcError } from '../../../lib';
import { createDemoApp } from '../../../demo/server';
import { createEverythingApp } from '../../../demo/everything';
import { createApp, post, rpc } from '../../helpers/create-app';

const SECRET = 'root:x:0:0:secret-outside-the-root';
const base = mkdtempSync(path.join(tmpdir(), 'mcp-traversal-'));
writeFileSync(path.join(base, 'secret.txt'), SECRET);
mkdirSync(path.join(base, 'docs'));
writeFileSync(path.join(base, 'docs', 'readme.md'), '# Hello');

/** README's example, as written there, with its root in a temporary folder. */
function readmeExample(): Express {
  const ROOT = path.resolve(base, 'docs');
  return createApp({}, (mcp) => {
    mcp.resourceTemplate({
      uriTemplate: 'docs://{name}',
      name: 'doc',
      mimeType: 'text/markdown',
      read: (uri, { name = '' }) => {
        const file = path.resolve(ROOT, name);
        if (!file.startsWith(ROOT + path.sep) || file.includes('\0'))
          throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
        return readFile(file, 'utf8');
      },
    });
  });
}

const TRAVERSALS = [
  '..%2Fsecret.txt',
  '%2E%2E%2Fsecret.txt',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  `%2F${encodeURIComponent(path.join(base, 'secret.txt').slice(1))}`,
  '..',
  '%2E%2E',
  'readme.md%00',
];

describe("README's resource template example", () => {
  const app = readmeExample();

  it('reads a file inside its root', async () => {
    const response = await post(app, rpc('resources/read', { uri: 'docs://readme.md' })).expect(200);
    expect(response.body.result.contents).toEqual([
      { uri: 'docs://readme.md', mimeType: 'text/markdown', text: '# Hello' },
    ]);
  });

  it.each(TRAVERSALS)(
    'answers docs://%s as an unknown resource (-32002), never with a file outside the root',
    async (name) => {
      const response = await post(app, rpc('resources/read', { uri: `docs://${name}` })).expect(200);
      expect(response.body.error).toMatchObject({ code: -32002, data: { uri: `docs://${name}` } });
      expect(response.text).not.toContain('secret-outside');
    },
  );
});

describe('the demo templates', () => {
  it.each([
    ['the store demo', () => createDemoApp({ token: 't' }), { Authorization: 'Bearer t' }],
    ['the everything demo', () => createEverythingApp(), {}],
  ])('%s: no template reads anything outside its data for a traversal', async (_name, make, auth) => {
    let headers: Record<string, string> = auth;
    const app = make();
    const init = await post(
      app,
      rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      headers,
    ).expect(200);
    headers = {
      ...headers,
      'Mcp-Session-Id': String(init.headers['mcp-session-id']),
      'MCP-Protocol-Version': '2025-11-25',
    };
    const listed = await post(app, rpc('resources/templates/list'), headers).expect(200);
    const templates = (listed.body.result.resourceTemplates as Array<{ uriTemplate: string }>).map(
      (template) => template.uriTemplate,
    );
    expect(templates.length).toBeGreaterThan(0);
    for (const template of templates) {
      for (const value of ['..%2F..%2F..%2Fetc%2Fpasswd', '%2E%2E%2F%2E%2E%2Fpackage.json']) {
        const uri = template.replace(/\{[^}]*\}/g, value);
        const response = await post(app, rpc('resources/read', { uri }), headers).expect(200);
        expect(response.body.result ?? response.body.error).toBeDefined();
        expect(response.text).not.toMatch(/root:x:0:0|"devDependencies"/);
      }
    }
  });
});
