// An enterprise agent against `AUTH=enterprise npm run demo`: the user's ID token from the demo IdP, the SDK v2
// CrossAppAccessProvider exchanging it for an ID-JAG and that for the router's token, then `whoami` as the user.
//
//   npx tsx demo/enterprise-client.ts [MCP URL (http://127.0.0.1:3000/mcp)] [user (alice)]

import {
  Client,
  CrossAppAccessProvider,
  requestJwtAuthorizationGrant,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { DEMO_AGENT } from './enterprise-idp';

async function main(): Promise<void> {
  const url = new URL(process.argv[2] ?? 'http://127.0.0.1:3000/mcp');
  const user = process.argv[3] ?? 'alice';
  const idp = `${url.origin}/idp`;
  // What the client's single sign-on with the company IdP gave it.
  const { id_token: idToken } = (await (await fetch(`${idp}/id-token?user=${encodeURIComponent(user)}`)).json()) as {
    id_token: string;
  };
  const authProvider = new CrossAppAccessProvider({
    assertion: async (ctx) =>
      (
        await requestJwtAuthorizationGrant({
          tokenEndpoint: `${idp}/token`,
          audience: ctx.authorizationServerUrl,
          resource: ctx.resourceUrl,
          idToken,
          clientId: DEMO_AGENT.clientId,
          clientSecret: DEMO_AGENT.idpSecret,
          scope: ctx.scope,
          fetchFn: ctx.fetchFn,
        })
      ).jwtAuthGrant,
    clientId: DEMO_AGENT.clientId,
    clientSecret: DEMO_AGENT.routerSecret,
    expectedIssuer: url.href.replace(/\/$/, ''),
  });
  const client = new Client({ name: 'demo-enterprise-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider }));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  console.log(`Signed in with an ID-JAG, no browser. whoami: ${JSON.stringify(result.structuredContent)}`);
  await client.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
