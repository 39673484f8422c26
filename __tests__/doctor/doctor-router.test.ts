// The doctor against this router in good and broken setups (hosts, keep-alives, sessions behind a round robin, CORS, buffering and cutting proxies, TLS), and against nothing.

import express from 'express';
import { createServer, type Socket } from 'node:net';
import { runDoctor } from '../../lib/doctor/run';
import { freePort } from '../helpers/ports';
import {
  badToolsApp,
  closeAll,
  endpointOf,
  noSuchName,
  proxy,
  routerApp,
  serve,
  serveTls,
  severities,
  started,
  testSettings,
  TLS,
  toLoopback,
} from './servers';

afterAll(closeAll);

const failsOf = (report: Awaited<ReturnType<typeof runDoctor>>): string[] =>
  report.findings.filter((f) => f.severity === 'fail' || f.severity === 'warn').map((f) => f.id);

describe('a healthy router', () => {
  it('passes every area, calls only the tool --call names, once', async () => {
    const write = jest.fn();
    const listening = await serve(routerApp({}, write));
    const report = await runDoctor(
      { url: endpointOf(listening), calls: ['add'], args: { add: { a: 2, b: 3 } }, origin: 'http://localhost:3000' },
      testSettings(),
    );
    expect(failsOf(report)).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(severities(report)).toMatchObject({
      'reach.ok': 'ok',
      'tls.plain-http': 'info',
      'era2025.initialize': 'ok',
      'era2025.tools-list': 'ok',
      'era2025.session': 'ok',
      'era2026.discover': 'ok',
      'era2026.tools-list': 'ok',
      'stream.open': 'ok',
      'stream.keepalive': 'ok',
      'cors.preflight': 'ok',
      'cors.post': 'ok',
      'tools.hygiene': 'ok',
      'tools.call': 'ok',
      'card.absent': 'info',
    });
    expect(write).not.toHaveBeenCalled();
  });

  it('as a principal: without a token the eras say it needs one; with it, tools are listed and called', async () => {
    const listening = await serve(routerApp({ auth: { tokens: ['secret-token'] } }));
    const without = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
    expect(severities(without)).toMatchObject({
      'era2025.needs-auth': 'info',
      'tools.skipped': 'info',
      'stream.skipped': 'info',
    });
    const withToken = await runDoctor(
      { url: endpointOf(listening), calls: ['add'], token: 'secret-token' },
      testSettings(),
    );
    expect(severities(withToken)).toMatchObject({
      'era2025.tools-list': 'ok',
      'tools.hygiene': 'ok',
      'tools.call': 'ok',
    });
    expect(withToken.exitCode).toBe(0);
  });
});

describe('broken setups', () => {
  it('a Host the router does not allow (a public name on a loopback server): 403 explained, plain http warned', async () => {
    const listening = await serve(routerApp());
    const url = endpointOf(listening, 'mcp.example.test');
    const report = await runDoctor({ url, calls: [] }, testSettings({ lookup: toLoopback }));
    expect(severities(report)).toMatchObject({ 'era2025.forbidden': 'fail', 'tls.plain-http': 'warn' });
    expect(report.findings.find((f) => f.id === 'era2025.forbidden')?.fix).toMatch(/allowedHosts/);
    expect(report.exitCode).toBe(1);

    const allowed = await serve(routerApp({ allowedHosts: ['mcp.example.test'] }));
    const fixed = await runDoctor(
      { url: endpointOf(allowed, 'mcp.example.test'), calls: [] },
      testSettings({ lookup: toLoopback }),
    );
    expect(fixed.exitCode).toBe(0);
  });

  it('no keep-alive comments: the stream is open but would be cut by an idle timeout', async () => {
    const listening = await serve(routerApp({ keepAliveMs: false }));
    const report = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
    expect(severities(report)).toMatchObject({ 'stream.open': 'ok', 'stream.no-keepalive': 'warn' });
    expect(report.exitCode).toBe(0);
  });

  it('two instances without a shared store behind a round robin: sticky sessions required', async () => {
    const [a, b] = [await serve(routerApp()), await serve(routerApp())];
    const front = await proxy([a.port, b.port]);
    const report = await runDoctor({ url: endpointOf(front), calls: [] }, testSettings());
    expect(severities(report)['era2025.sticky-sessions']).toBe('fail');
    expect(report.exitCode).toBe(1);
  });

  it('a proxy that buffers: the GET stream never arrives, while requests are answered', async () => {
    const app = await serve(routerApp());
    const front = await proxy([app.port], { kind: 'buffer' });
    const report = await runDoctor({ url: endpointOf(front), calls: [] }, testSettings());
    expect(severities(report)).toMatchObject({ 'era2025.initialize': 'ok', 'stream.buffered': 'fail' });
    expect(report.exitCode).toBe(1);
  });

  it('a tool that streams progress: its events spread over the call directly, all at the end through a buffering proxy', async () => {
    const app = await serve(routerApp());
    const direct = await runDoctor({ url: endpointOf(app), calls: ['slow'] }, testSettings());
    expect(severities(direct)).toMatchObject({ 'tools.call': 'ok', 'stream.call-spread': 'ok' });
    const front = await proxy([app.port], { kind: 'buffer' });
    const buffered = await runDoctor({ url: endpointOf(front), calls: ['slow'] }, testSettings());
    expect(severities(buffered)).toMatchObject({ 'tools.call': 'ok', 'stream.call-buffered': 'warn' });
  });

  it('a proxy that cuts streams: the cut is reported with its time', async () => {
    const app = await serve(routerApp());
    const front = await proxy([app.port], { kind: 'cut', cutMs: 200 });
    const report = await runDoctor({ url: endpointOf(front), calls: [] }, testSettings({}, 3_000));
    expect(severities(report)).toMatchObject({ 'stream.open': 'ok', 'stream.cut': 'warn' });
  });

  it('a browser origin the router does not allow: preflight and POST refused, `origins` named', async () => {
    const listening = await serve(routerApp());
    const report = await runDoctor(
      { url: endpointOf(listening), calls: [], origin: 'https://app.example.com' },
      testSettings(),
    );
    expect(severities(report)).toMatchObject({ 'cors.preflight': 'fail', 'cors.origin-refused': 'fail' });
    expect(report.findings.find((f) => f.id === 'cors.origin-refused')?.fix).toMatch(/origins/);
  });

  it('a tools list that breaks the rules: duplicates, invalid schema, bad name, no description, big schema', async () => {
    const listening = await serve(badToolsApp());
    const report = await runDoctor({ url: endpointOf(listening), calls: ['nothere'] }, testSettings());
    expect(severities(report)).toMatchObject({
      'tools.duplicate': 'fail',
      'tools.schema': 'fail',
      'tools.name': 'warn',
      'tools.description': 'warn',
      'tools.schema-size': 'warn',
      'tools.call': 'fail',
      'era2026.unsupported': 'info',
      'era2025.stateless': 'info',
    });
    expect(report.findings.find((f) => f.id === 'tools.schema')?.detail).toMatch(/badschema/);
  });

  it('a redirect on the endpoint: reported with where it points, nothing else checked', async () => {
    const app = express();
    app.all('/mcp', (_req, res) => res.redirect(308, '/mcp/'));
    const listening = await serve(app);
    const report = await runDoctor({ url: endpointOf(listening), calls: [] }, testSettings());
    expect(report.findings.find((f) => f.id === 'reach.redirect')?.summary).toMatch(/308.*\/mcp\//);
    expect(report.findings.some((f) => f.id.startsWith('era2025'))).toBe(false);
    expect(report.exitCode).toBe(1);
  });
});

describe('the server card', () => {
  /** The router, with `card(url)` served as its card at /mcp/server-card (a stand-in for any server's). */
  async function withCard(type: string, card: (url: string) => string): Promise<URL> {
    const app = express();
    let url = '';
    app.get('/mcp/server-card', (_req, res) => void res.type(type).send(card(url)));
    app.use(routerApp());
    const listening = await serve(app);
    url = endpointOf(listening).href;
    return endpointOf(listening);
  }
  const remotes = (url: string): string => JSON.stringify({ name: 'x', remotes: [{ type: 'streamable-http', url }] });

  it('names the URL used: ok; names another: warned; not JSON: failed; wrong media type: warned', async () => {
    const named = await runDoctor(
      { url: await withCard('application/mcp-server-card+json', remotes), calls: [] },
      testSettings(),
    );
    expect(severities(named)['card.remotes']).toBe('ok');
    const other = await runDoctor(
      { url: await withCard('application/json', () => remotes('http://127.0.0.1:1/mcp')), calls: [] },
      testSettings(),
    );
    expect(severities(other)).toMatchObject({ 'card.remotes': 'warn', 'card.media-type': 'warn' });
    const broken = await runDoctor(
      { url: await withCard('application/json', () => '<html>'), calls: [] },
      testSettings(),
    );
    expect(severities(broken)['card.json']).toBe('fail');
  });
});

describe('bounds', () => {
  it('an area not done by the deadline is reported, and the later ones are not run', async () => {
    const listening = await serve(routerApp());
    const report = await runDoctor({ url: endpointOf(listening), calls: [] }, { ...testSettings(), deadlineMs: 1 });
    expect(report.findings.filter((f) => f.id.endsWith('.deadline')).map((f) => f.id)).toEqual([
      'reach.deadline',
      'era2025.deadline',
      'era2026.deadline',
      'auth.deadline',
      'stream.deadline',
      'cors.deadline',
      'tools.deadline',
      'card.deadline',
    ]);
  });
});

describe('TLS', () => {
  it('trusted by --ca: certificate, expiry and HTTP version told', async () => {
    const listening = await serveTls(routerApp());
    const report = await runDoctor(
      { url: endpointOf(listening, '127.0.0.1', 'https'), calls: [] },
      testSettings({ ca: TLS.cert }),
    );
    expect(severities(report)).toMatchObject({
      'tls.certificate': 'ok',
      'tls.expiry': 'ok',
      'reach.http-version': 'info',
    });
    expect(report.exitCode).toBe(0);
  });

  it('untrusted, or for another name: a failure that stops the run', async () => {
    const listening = await serveTls(routerApp());
    const untrusted = await runDoctor({ url: endpointOf(listening, '127.0.0.1', 'https'), calls: [] }, testSettings());
    expect(severities(untrusted)).toMatchObject({ 'tls.untrusted': 'fail', 'reach.stopped': 'info' });
    expect(untrusted.exitCode).toBe(1);
    const named = await runDoctor(
      { url: endpointOf(listening, 'mcp.example.test', 'https'), calls: [] },
      testSettings({ ca: TLS.cert, lookup: toLoopback }),
    );
    expect(severities(named)['tls.name']).toBe('fail');
  });
});

describe('unreachable (exit 2)', () => {
  it('refused', async () => {
    const report = await runDoctor(
      { url: new URL(`http://127.0.0.1:${await freePort()}/mcp`), calls: [] },
      testSettings(),
    );
    expect(report.exitCode).toBe(2);
    expect(report.findings.map((f) => f.id)).toEqual(['reach.refused', 'reach.stopped']);
  });

  it('a name that does not resolve', async () => {
    const report = await runDoctor(
      { url: new URL('https://mcp.example.invalid/mcp'), calls: [] },
      testSettings({ lookup: noSuchName }),
    );
    expect(severities(report)['reach.dns']).toBe('fail');
    expect(report.exitCode).toBe(2);
  });

  it('a server that accepts but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    started.push({
      close: () => {
        for (const socket of sockets) socket.destroy();
        return new Promise<void>((resolve) => silent.close(() => resolve()));
      },
    });
    const port = (silent.address() as { port: number }).port;
    const report = await runDoctor(
      { url: new URL(`http://127.0.0.1:${port}/mcp`), calls: [] },
      testSettings({ timeoutMs: 300 }),
    );
    expect(severities(report)['reach.timeout']).toBe('fail');
    expect(report.exitCode).toBe(2);
  });
});
