// The doctor's words match the cause: a short watch is no missing keep-alive, a card naming another URL leads with
// the option that sets it, and proxy findings link the proxy section of the deployment docs.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { checkCard } from '../../lib/doctor/card';
import { runDoctor } from '../../lib/doctor/run';
import { closeAll, endpointOf, routerApp, serve, serveTls, severities, testSettings, TLS } from './servers';

afterAll(closeAll);

it('a watch shorter than the keep-alive interval a server may use: no keep-alive seen is info, not a warning', async () => {
  const listening = await serve(routerApp({ keepAliveMs: false }));
  const settings = testSettings();
  const { keepAliveMs: _testInterval, ...stream } = settings.stream;
  const report = await runDoctor({ url: endpointOf(listening), calls: [] }, { ...settings, stream });
  const finding = report.findings.find((f) => f.id === 'stream.no-keepalive');
  expect(finding).toMatchObject({ severity: 'info', summary: expect.stringMatching(/watch longer/) });
  expect(report.exitCode).toBe(0);
});

describe('card.remotes names the fix for its cause', () => {
  const cardApp = (remote: (endpoint: string) => string): express.Express => {
    const app = express();
    app.get('/mcp/server-card', (req, res) => {
      const endpoint = `${req.protocol}://${req.get('host') ?? ''}/mcp`;
      res.type('application/mcp-server-card+json').send({ name: 'x', remotes: [{ url: remote(endpoint) }] });
    });
    return app;
  };

  it('another host: `publicUrl` first', async () => {
    const listening = await serve(cardApp(() => 'https://internal.test/mcp'));
    const findings = await checkCard({ target: { url: endpointOf(listening), calls: [] }, http: testSettings().http });
    const remotes = findings.find((f) => f.id === 'card.remotes');
    expect(remotes).toMatchObject({ severity: 'warn', docs: 'deployment.md#behind-a-tls-proxy' });
    expect(remotes?.fix).toMatch(/^Set the router's `publicUrl`/);
  });

  it('plain http behind https: `trust proxy` first', async () => {
    const listening = await serveTls(cardApp((endpoint) => endpoint.replace(/^https:/, 'http:')));
    const findings = await checkCard({
      target: { url: endpointOf(listening, '127.0.0.1', 'https'), calls: [] },
      http: testSettings({ ca: TLS.cert }).http,
    });
    expect(findings.find((f) => f.id === 'card.remotes')?.fix).toMatch(/^The card names plain http.*trust proxy/);
  });
});

it('no finding links the deployment page as a whole: proxy findings link its proxy sections', () => {
  const lib = join(__dirname, '../../lib/doctor');
  const sources = readdirSync(lib, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(join(lib, name), 'utf8'))
    .join('\n');
  expect(sources).not.toContain("'deployment.md#deployment'");
  expect(sources).toContain("docs: 'deployment.md#behind-a-tls-proxy'");
});

it('a run the deadline stopped before anything was checked never exits 0', async () => {
  const listening = await serve(routerApp());
  const report = await runDoctor({ url: endpointOf(listening), calls: [] }, { ...testSettings(), deadlineMs: 1 });
  expect(severities(report)['reach.deadline']).toBe('fail');
  expect(report.exitCode).toBe(1);
});
