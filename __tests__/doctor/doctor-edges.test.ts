// The doctor's findings that need a setup of their own: a certificate about to expire, a server that forgets its
// sessions at once, and CORS that lets 2025 browser clients through but not 2026 ones.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { runDoctor } from '../../lib/doctor/run';
import { makeCertificates } from '../proxy/tls';
import { closeAll, endpointOf, routerApp, serve, serveTls, severities, testSettings, toLoopback } from './servers';

const dirs: string[] = [];
afterAll(async () => {
  await closeAll();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('warns of a certificate that expires within 14 days, naming the date', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'doctor-expiry-'));
  dirs.push(dir);
  const certs = await makeCertificates(dir, ['mcp.doctor.test'], 5);
  const listening = await serveTls(routerApp(), {
    cert: readFileSync(certs.certPath),
    key: readFileSync(certs.keyPath),
  });
  const report = await runDoctor(
    { url: endpointOf(listening, 'mcp.doctor.test', 'https'), calls: [] },
    testSettings({ ca: certs.ca, lookup: toLoopback }),
  );
  expect(severities(report)).toMatchObject({ 'tls.certificate': 'ok', 'tls.expiry': 'warn' });
  expect(report.findings.find((finding) => finding.id === 'tls.expiry')?.summary).toMatch(/expires in [45] days/);
});

it('fails a session that no later connection knows: session-lost, not sticky sessions', async () => {
  // A server that answers initialize with a session, then knows it on no request: it forgets it at once.
  const app = express();
  app.use(express.json());
  app.post('/mcp', (req, res) => {
    if (req.headers['mcp-session-id'] !== undefined)
      return void res
        .status(404)
        .json({ jsonrpc: '2.0', id: req.body?.id ?? null, error: { code: -32001, message: 'Session not found' } });
    if (req.body?.method !== 'initialize')
      return void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no session' } });
    res.setHeader('Mcp-Session-Id', `s-${Math.random().toString(36).slice(2)}`).json({
      jsonrpc: '2.0',
      id: req.body.id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'forgetful', version: '1' },
      },
    });
  });
  const listening = await serve(app);
  const report = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
  expect(severities(report)).toMatchObject({ 'era2025.initialize': 'ok', 'era2025.session-lost': 'fail' });
  expect(severities(report)['era2025.sticky-sessions']).toBeUndefined();
  expect(report.exitCode).toBe(1);
});

it('warns when the preflight allows the 2025 headers but not the 2026 ones (Mcp-Method, Mcp-Name)', async () => {
  const listening = await serve(
    routerApp({
      cors: {
        allowedHeaders: ['Content-Type', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID'],
      },
    }),
  );
  const report = await runDoctor(
    { url: endpointOf(listening), calls: [], origin: 'http://localhost:3000' },
    testSettings(),
  );
  expect(severities(report)).toMatchObject({ 'cors.preflight': 'ok', 'cors.preflight-2026': 'warn' });
  const healthy = await runDoctor(
    { url: endpointOf(await serve(routerApp())), calls: [], origin: 'http://localhost:3000' },
    testSettings(),
  );
  expect(severities(healthy)['cors.preflight-2026']).toBeUndefined();
});
