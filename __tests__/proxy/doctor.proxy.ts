// The doctor against this router behind nginx with TLS, as a hosted client meets it: the documented setup is healthy,
// and each broken setup users deploy (no trust proxy, buffering on, no allowedHosts, a wrong resource, an
// authorization server without S256) fails with the finding that names it.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { runDoctor, type Report } from '../../lib/doctor/run';
import { formatText } from '../../lib/doctor/report';
import type { McpRouter } from '../../lib';
import { freePort } from '../helpers/ports';
import { scaled } from '../helpers/time-scale';
import { PUBLIC_HOST, startBehindProxy, type BehindProxy, type BehindProxyOptions } from './behind-proxy';

const proxies: BehindProxy[] = [];
afterAll(async () => {
  await Promise.allSettled(proxies.splice(0).map((proxy) => proxy.stop()));
});

/** A tool that reports progress over its run, for the stream area's `--call`. */
function addTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    handler: ({ a = 0, b = 0 }: { a?: number; b?: number }) => ({ sum: a + b }),
  });
}

/** Runs the doctor against a router behind nginx set up as `options` say, with short stream waits. */
async function doctorBehind(options: BehindProxyOptions, name: string, token?: string): Promise<Report> {
  const proxy = await startBehindProxy({ setup: addTools, ...options });
  proxies.push(proxy);
  const report = await runDoctor(
    { url: new URL(proxy.url), calls: ['add'], origin: 'http://localhost:3000', ...(token && { token }) },
    {
      http: { timeoutMs: scaled(5_000), maxBytes: 4 * 1024 * 1024, ca: proxy.ca, lookup: proxy.lookup },
      stream: { watchMs: scaled(1_500), headWaitMs: scaled(1_000) },
      deadlineMs: scaled(60_000),
    },
  );
  // The reports a reader of this suite may want to see: DOCTOR_REPORTS=<dir> keeps each as text.
  if (process.env.DOCTOR_REPORTS)
    writeFileSync(
      join(process.env.DOCTOR_REPORTS, `${name}.txt`),
      formatText(report, (page) => `docs/${page}`),
    );
  return report;
}

const failed = (report: Report): string[] =>
  report.findings.filter((finding) => finding.severity === 'fail').map((finding) => finding.id);

/** An identity provider the doctor cannot reach (its lookup resolves only the test's public host). */
const PUBLIC_IDP = 'https://idp.example.com';

const SIGN_IN = { server: { signIn: () => ({ subject: 'user-1' }) } };

const okIds = (report: Report): string[] =>
  report.findings.filter((finding) => finding.severity === 'ok').map((finding) => finding.id);

it('finds nothing wrong with the documented setup and sign-in: trust proxy, allowedHosts, the nginx block', async () => {
  const report = await doctorBehind({ router: { auth: SIGN_IN } }, 'healthy-sign-in');
  expect(failed(report)).toEqual([]);
  expect(report.exitCode).toBe(0);
  expect(okIds(report)).toEqual(
    expect.arrayContaining([
      'tls.certificate',
      'auth.challenge-url',
      'auth.prm-resource',
      'auth.as-issuer',
      'auth.as-pkce',
    ]),
  );
});

it('finds nothing wrong as a principal with a token: both eras, the stream, CORS, the tool call', async () => {
  const report = await doctorBehind({ router: { auth: { tokens: ['t0ken'] } } }, 'healthy-token', 't0ken');
  expect(failed(report)).toEqual([]);
  expect(report.exitCode).toBe(0);
  expect(okIds(report)).toEqual(
    expect.arrayContaining([
      'era2025.session',
      'era2026.tools-list',
      'auth.token',
      'stream.open',
      'cors.post',
      'tools.call',
    ]),
  );
});

it('names the TLS proxy Express does not trust: the challenge names http:// where clients use https', async () => {
  const report = await doctorBehind({ router: { auth: SIGN_IN }, trustProxy: false }, 'no-trust-proxy');
  expect(report.exitCode).toBe(1);
  expect(failed(report)).toEqual(expect.arrayContaining(['auth.challenge-url', 'auth.prm']));
  const challenge = report.findings.find((finding) => finding.id === 'auth.challenge-url');
  expect(`${challenge?.summary} ${challenge?.fix}`).toMatch(/plain http[\s\S]*trust proxy[\s\S]*publicUrl/);
});

it('catches a proxy that buffers SSE: the stream head does not come until the stream ends', async () => {
  const report = await doctorBehind({ nginx: { buffering: 'on' } }, 'buffering-on');
  expect(failed(report)).toEqual(expect.arrayContaining(['stream.buffered']));
  expect(report.exitCode).toBe(1);
});

it('reports the 403 of a router that does not list its public name in allowedHosts', async () => {
  const report = await doctorBehind({ router: { allowedHosts: undefined } }, 'no-allowed-hosts');
  expect(failed(report)).toEqual(['era2025.forbidden', 'era2026.forbidden']);
  expect(report.findings.find((finding) => finding.id === 'cors.host-refused')?.severity).toBe('info');
  expect(report.exitCode).toBe(1);
});

it('fails a resource that is not the URL clients use', async () => {
  const report = await doctorBehind(
    {
      router: {
        auth: {
          verify: () => undefined,
          resourceMetadata: { resource: 'https://internal.example.com/mcp', authorizationServers: [PUBLIC_IDP] },
        },
      },
    },
    'wrong-resource',
  );
  expect(failed(report)).toEqual(expect.arrayContaining(['auth.prm-resource']));
  expect(report.exitCode).toBe(1);
});

it('fails an authorization server that does not advertise S256', async () => {
  const port = await freePort();
  const idp = `https://${PUBLIC_HOST}:${port}/idp`;
  // The IdP the router sends clients to, as users configure one (auth.verify + resourceMetadata), without PKCE S256.
  const metadata = (_req: Request, res: Response): void => {
    res.json({
      issuer: idp,
      authorization_endpoint: `${idp}/authorize`,
      token_endpoint: `${idp}/token`,
      registration_endpoint: `${idp}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code'],
      code_challenge_methods_supported: ['plain'],
    });
  };
  const report = await doctorBehind(
    {
      port,
      router: {
        auth: {
          verify: () => undefined,
          resourceMetadata: { authorizationServers: [idp], resource: `https://${PUBLIC_HOST}:${port}/mcp` },
        },
      },
      app: (app) => app.get('/.well-known/oauth-authorization-server/idp', metadata),
    },
    'no-s256',
  );
  expect(failed(report)).toEqual(['auth.as-pkce']);
  expect(report.exitCode).toBe(1);
});
