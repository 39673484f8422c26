// docs/deployment.md's nginx configuration and Caddyfile, read as `npm run test:proxy` reads them: they hold what SSE
// and public URLs need and the lines the proxy tests fill in or vary, and nothing else is changed (checked in
// `npm test`, without nginx or Caddy).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caddySiteConfig, documentedCaddyfile } from './caddy';
import { documentedNginxConfig, nginxServerConfig, type NginxSetup } from './nginx';

const setup: NginxSetup = {
  port: 8443,
  upstreams: [3001, 3002],
  certificates: { caPath: '/t/ca.pem', ca: '', certPath: '/t/server.pem', keyPath: '/t/server.key' },
};

it('holds the directives SSE and public URLs need, in its location', () => {
  const location = /location \/ \{([\s\S]*?)\n {4}\}/.exec(documentedNginxConfig())?.[1] ?? '';
  for (const line of [
    'proxy_http_version 1.1;',
    "proxy_set_header Connection '';",
    'proxy_set_header X-Forwarded-Proto $scheme;',
    'proxy_set_header X-Forwarded-Host $http_host;',
    'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    'proxy_buffering off;',
    'proxy_read_timeout 1h;',
  ])
    expect([line, location.includes(line)]).toEqual([line, true]);
});

it('is filled in with the port, certificates, name and upstreams only', () => {
  const documented = documentedNginxConfig();
  const filled = nginxServerConfig(setup);
  expect(filled).toContain('listen 127.0.0.1:8443 ssl;');
  expect(filled).toContain('server_name mcp.proxy.test;');
  expect(filled).toContain('ssl_certificate /t/server.pem;');
  expect(filled).toContain('ssl_certificate_key /t/server.key;');
  expect(filled).toContain('    server 127.0.0.1:3001;\n    server 127.0.0.1:3002;\n');
  // Every other line is the document's.
  const lines = new Set(documented.split('\n'));
  const changed = filled.split('\n').filter((line) => !lines.has(line));
  expect(changed).toEqual([
    '    server 127.0.0.1:3001;',
    '    server 127.0.0.1:3002;',
    '    listen 127.0.0.1:8443 ssl;',
    '    server_name mcp.proxy.test;',
    '    ssl_certificate /t/server.pem;',
    '    ssl_certificate_key /t/server.key;',
  ]);
});

it.each([
  [{ buffering: 'on' as const }, ['        proxy_buffering on;', '        proxy_ignore_headers X-Accel-Buffering;']],
  [{ buffering: 'on-honouring-app' as const }, ['        proxy_buffering on;']],
  [{ readTimeoutS: 2 }, ['        proxy_read_timeout 2s;']],
])('the variant %j changes only its lines', (variant, added) => {
  const plain = new Set(nginxServerConfig(setup).split('\n'));
  const varied = nginxServerConfig({ ...setup, variant });
  expect(varied.split('\n').filter((line) => !plain.has(line))).toEqual(added);
});

it('forwardedHostOnly drops the Host line: nginx then sends its upstream name', () => {
  const varied = nginxServerConfig({ ...setup, variant: { forwardedHostOnly: true } });
  expect(varied).not.toMatch(/proxy_set_header Host /);
  expect(varied).toContain('proxy_set_header X-Forwarded-Host $http_host;');
});

it('fails, naming the line, when the document no longer holds one the tests fill in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-doc-'));
  try {
    const doc = join(dir, 'deployment.md');
    writeFileSync(
      doc,
      '```nginx\n' + documentedNginxConfig().replace('listen 443 ssl;', 'listen 443 ssl http2;') + '```\n',
    );
    expect(() => nginxServerConfig(setup, doc)).toThrow(/must hold exactly once: listen 443 ssl;/);
    writeFileSync(doc, 'no configuration here\n');
    expect(() => nginxServerConfig(setup, doc)).toThrow(/has no ```nginx block/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the Caddyfile is filled in with the address, certificates and upstreams only', () => {
  const documented = new Set(documentedCaddyfile().split('\n'));
  const filled = caddySiteConfig(setup);
  expect(filled.split('\n').filter((line) => !documented.has(line))).toEqual([
    'https://mcp.proxy.test:8443 {',
    '\ttls /t/server.pem /t/server.key',
    '\treverse_proxy 127.0.0.1:3001 127.0.0.1:3002',
  ]);
});
