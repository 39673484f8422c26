// The demo in AUTH=oauth mode: its login page, docs/examples/oauth-client.mts (the OAuth client recipe) signing in
// through it with a browser, and `AUTH=oauth npm run demo` printing how to connect an OAuth client.

import request from 'supertest';
import { createDemo, type Demo } from '../demo/server';
import { inspectorCommand, oauthConnectionHelp } from '../demo/connect';
import { listenLocally, type Listening } from './helpers/ports';
import { followFlow, type FlowPage, type PageAction } from './helpers/browser-driver';
import { startOAuthClientScript } from './helpers/oauth-client-script';
import { authorizeUrl, pkce, registerClient } from './helpers/sign-in-server';

let demo: Demo;
let app: Listening;
let url: string;

beforeAll(async () => {
  demo = createDemo({ oauth: true });
  app = await listenLocally(demo.app);
  url = `http://127.0.0.1:${app.port}/mcp`;
});

afterAll(async () => {
  await demo?.mcp.close();
  await app?.close();
});

describe('the demo login page', () => {
  const authorize = '/mcp/oauth/authorize?client_id=c&state=s%201';

  it('is a form posting the user name, with returnTo escaped in a hidden field', async () => {
    const page = await request(demo.app)
      .get('/login')
      .query({ returnTo: `http://127.0.0.1/mcp/oauth/authorize?x="><script>` })
      .expect(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<form method="post" action="/login">');
    expect(page.text).toContain('value="/mcp/oauth/authorize?x=%22%3E%3Cscript%3E"');
    expect(page.text).not.toContain('<script>');
  });

  it('sets an HttpOnly session cookie and goes back to the authorization endpoint, on this origin only', async () => {
    const signedIn = await request(demo.app)
      .post('/login')
      .type('form')
      .send({ user: 'alice', returnTo: `https://evil.example${authorize}` })
      .expect(303);
    expect(signedIn.headers.location).toBe(authorize);
    expect(signedIn.headers['set-cookie']?.[0]).toMatch(/^demo_session=[\w-]{32}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('refuses a returnTo that is not the authorization endpoint, and a user name it cannot show', async () => {
    await request(demo.app).get('/login').query({ returnTo: 'https://evil.example/' }).expect(400);
    await request(demo.app)
      .post('/login')
      .type('form')
      .send({ user: 'alice', returnTo: '//evil.example/mcp/oauth/authorize' })
      .expect(303)
      .expect('Location', '/mcp/oauth/authorize');
    await request(demo.app).post('/login').type('form').send({ user: 'alice', returnTo: '/api/orders' }).expect(400);
    const bad = await request(demo.app)
      .post('/login')
      .type('form')
      .send({ user: '<b>x</b>', returnTo: authorize })
      .expect(400);
    expect(bad.text).toContain('A user name is 1 to 32 letters');
    expect(bad.text).not.toContain('<b>x</b>');
  });

  it('is where the authorization endpoint sends a browser without a session, and returnTo brings it back', async () => {
    const redirectUri = 'http://127.0.0.1:1/callback';
    const { client_id } = await registerClient(url, [redirectUri]);
    const start = authorizeUrl(url, { client_id, redirect_uri: redirectUri, code_challenge: pkce().challenge });
    const toLogin = await fetch(start, { redirect: 'manual' });
    expect(toLogin.status).toBe(302);
    const login = new URL(toLogin.headers.get('location') as string, url);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('returnTo')).toBe(start);
  });
});

describe('docs/examples/oauth-client.mts against the demo', () => {
  it('waits for a browser to open the printed URL, then calls whoami as whoever signed in there', async () => {
    const script = startOAuthClientScript(url);
    try {
      // The "browser": the login page as bob, then Allow; it ends at the script's redirect URI, which takes the code.
      const answer = (page: FlowPage): PageAction => ({
        fields: 'csrf' in (page.forms[0]?.fields ?? {}) ? { decision: 'allow' } : { user: 'bob' },
      });
      const end = await followFlow(await script.signInUrl, { onForm: answer });
      expect(end.url.pathname).toBe('/callback');
      expect(end.body).toContain('Signed in: you can close this tab');
      const { code, stdout, stderr } = await script.ended();
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain('whoami: {"user":"bob",');
    } finally {
      await script.kill();
    }
  }, 40_000);
});

describe('AUTH=oauth npm run demo', () => {
  it('prints how to connect an OAuth client: the endpoint, self-registration, the script, the Inspector, the playground', () => {
    const help = oauthConnectionHelp({ origin: 'http://127.0.0.1:3000', apiKey: 'key' });
    expect(help).toContain('MCP endpoint   http://127.0.0.1:3000/mcp');
    expect(help).toContain('clients register themselves (Dynamic Client Registration');
    expect(help).toContain('npx tsx docs/examples/oauth-client.mts http://127.0.0.1:3000/mcp');
    expect(help).toContain(`Inspector (UI): ${inspectorCommand()}, then Streamable HTTP, http://127.0.0.1:3000/mcp`);
    expect(help).toContain('Playground     http://127.0.0.1:3000/playground/#signin');
    expect(help).not.toMatch(/Bearer/);
  });
});
