// The demo in AUTH=enterprise mode: demo/enterprise-client.ts gets in with an ID-JAG from the demo's IdP (no browser),
// the banner says how, and the other modes name no ID-JAG grant.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createDemo, type Demo } from '../demo/server';
import { enterpriseConnectionHelp } from '../demo/connect';
import { createDemoIdp } from '../demo/enterprise-idp';
import { listenLocally, type Listening } from './helpers/ports';
import { scaled } from './helpers/time-scale';

const CLIENT = path.join(__dirname, '..', 'demo', 'enterprise-client.ts');
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let demo: Demo;
let app: Listening;
let url: string;

beforeAll(async () => {
  demo = createDemo({ oauth: true, enterprise: await createDemoIdp() });
  app = await listenLocally(demo.app);
  url = `http://127.0.0.1:${app.port}/mcp`;
});

afterAll(async () => {
  await demo?.mcp.close();
  await app?.close();
});

it('demo/enterprise-client.ts signs in with an ID-JAG and calls whoami as the user', async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLIENT, url, 'carol'], {
    timeout: scaled(30_000),
  });
  expect(stderr).toBe('');
  expect(stdout).toContain('whoami: {"user":"https://idp.demo.example#carol","scopes":["store:read","store:write"]}');
}, 40_000);

it('the demo IdP exchanges only its own ID tokens, for its own client', async () => {
  const form = {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    subject_token: 'not-an-id-token',
    audience: url,
    client_id: 'demo-agent',
  };
  await request(demo.app)
    .post('/idp/token')
    .type('form')
    .send({ ...form, client_secret: 'guess' })
    .expect(401);
  await request(demo.app)
    .post('/idp/token')
    .type('form')
    .send({ ...form, client_secret: 'demo-idp-secret' })
    .expect(400, { error: 'invalid_grant' });
  await request(demo.app).get('/idp/id-token').query({ user: '<script>' }).expect(400);
});

it('names the grant in the metadata in AUTH=enterprise only', async () => {
  const grants = async (target: Demo) =>
    (await request(target.app).get('/mcp/.well-known/oauth-authorization-server')).body.grant_types_supported;
  expect(await grants(demo)).toContain(JWT_BEARER);
  const oauth = createDemo({ oauth: true });
  try {
    expect(await grants(oauth)).toEqual(['authorization_code', 'refresh_token']);
  } finally {
    await oauth.mcp.close();
  }
});

it('AUTH=enterprise npm run demo prints the script and the requests by hand', () => {
  const help = enterpriseConnectionHelp({ origin: 'http://127.0.0.1:3000', apiKey: 'key' });
  expect(help).toContain('Demo store is running, with OAuth sign-in (AUTH=enterprise).');
  expect(help).toContain('npx tsx demo/enterprise-client.ts http://127.0.0.1:3000/mcp alice');
  expect(help).toContain(`-d grant_type=${JWT_BEARER} -d assertion=$JAG`);
});
