// The published package: `npm pack` gives a tarball that a plain JavaScript app can require and a TypeScript app can import with types.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function packageJson(dir: string): { dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
}

/** The `@types/*` packages among `names` and, transitively, among their dependencies. */
function typePackagesFrom(names: readonly string[]): Set<string> {
  const found = new Set<string>();
  const visit = (name: string): void => {
    if (!name.startsWith('@types/') || found.has(name)) return;
    found.add(name);
    for (const dep of Object.keys(packageJson(join(ROOT, 'node_modules', name)).dependencies ?? {})) visit(dep);
  };
  names.forEach(visit);
  return found;
}

describe('the packed package', () => {
  let project: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'emr-pack-'));
    // `npm pack` runs `prepack` (the build) and writes the tarball that `npm publish` would upload.
    const packed = execFileSync(NPM, ['pack', '--silent', '--pack-destination', project], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop() as string;
    const installed = join(project, 'node_modules', 'express-mcp-router');
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(project, packed), '-C', installed, '--strip-components=1']);
    // The package's own dependencies and express come from this repository's node_modules (no network). Of the
    // type packages, only what a user has: @types/express, and what it and the package's dependencies pull in.
    for (const dep of ['ajv', 'ajv-formats', 'cors', 'express-rate-limit', 'light-my-request', 'express', 'typescript']) {
      symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
    }
    mkdirSync(join(project, 'node_modules', '@types'));
    for (const dep of typePackagesFrom(['@types/express', ...Object.keys(packageJson(ROOT).dependencies ?? {})])) {
      symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
    }
  }, 120_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('ships only the build output and the package files', () => {
    const files = readdirSync(join(project, 'node_modules', 'express-mcp-router')).sort();
    expect(files).toEqual(['README.md', 'dist', 'package.json']);
    expect(readdirSync(join(project, 'node_modules', 'express-mcp-router', 'dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'router.js']));
  });

  it('serves MCP from a plain JavaScript Express app that requires it', () => {
    writeFileSync(
      join(project, 'app.js'),
      `const express = require('express');
const { mcpRouter } = require('express-mcp-router');
const mcp = mcpRouter({ name: 'js-app', version: '1.0.0', sessions: false });
mcp.tool({ name: 'add', description: 'Add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, handler: ({ a, b }) => a + b });
const app = express();
app.use('/mcp', mcp);
const server = app.listen(0, '127.0.0.1', async () => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }),
  });
  console.log(res.status, await res.text());
  server.close();
});
`,
    );
    const output = execFileSync(process.execPath, ['app.js'], { cwd: project, encoding: 'utf8' });
    expect(output.trim()).toBe('200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"5"}]}}');
  });

  it('type-checks a TypeScript app that imports it', () => {
    writeFileSync(
      join(project, 'app.ts'),
      `import express from 'express';
import { mcpRouter, textContent, McpConfigError, type RequestContext, type ToolDefinition } from 'express-mcp-router';
const tool: ToolDefinition<{ a: number }> = { name: 'twice', description: 'Twice', handler: ({ a }, ctx: RequestContext) => textContent(String(a * 2) + ctx.protocolVersion) };
const mcp = mcpRouter({ name: 'ts-app', version: '1.0.0' });
mcp.tool(tool);
const app = express();
app.use('/mcp', mcp);
export const isConfigError = (err: unknown): boolean => err instanceof McpConfigError;
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      // skipLibCheck off: every published declaration must resolve with what a user has installed.
      JSON.stringify({ compilerOptions: { strict: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', esModuleInterop: true, noEmit: true, skipLibCheck: false, types: ['node'] }, files: ['app.ts'] }),
    );
    // Throws (and fails the test) with the compiler's output if the types do not resolve.
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: project, encoding: 'utf8' });
  });
});
