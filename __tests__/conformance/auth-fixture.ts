// The authorization-server fixture the conformance suite's `authorization` scenarios drive: a router signing in a fixed user.
// Run it with `PORT=3031 CALLBACK_PORT=3032 tsx __tests__/conformance/auth-fixture.ts`, or through
// `CONFORMANCE_PASSES=auth npm run test:conformance`. The issuer is http://127.0.0.1:<PORT>/mcp, reached with the one
// mount line (the suite finds the metadata at `<issuer>/.well-known/openid-configuration`, its third discovery URL).

import express from 'express';
import { mcpRouter } from '../../lib';

/** The client the suite is told to be (`--client-id`): pre-registered, public (PKCE only), no DCR needed. */
export const CONFORMANCE_CLIENT_ID = 'conformance-client';
/** The user every sign-in returns: the suite checks the server, not the app's login. */
export const CONFORMANCE_USER = 'conformance-user';

/**
 * The fixture app: MCP and its authorization server at /mcp. `callbackPort` is the suite's `--port`: its redirect URI
 * `http://127.0.0.1:<callbackPort>/callback` is the client's one registered redirect URI. Not first-party, so the
 * consent page is shown and answered by the browser driver (auth-browser.ts), as a user would.
 */
export function createAuthFixtureApp(callbackPort: number): express.Express {
  const mcp = mcpRouter({
    name: 'express-mcp-router-auth',
    version: '0.1.0',
    auth: {
      server: {
        signIn: () => ({ subject: CONFORMANCE_USER }),
        clients: [
          {
            clientId: CONFORMANCE_CLIENT_ID,
            name: 'MCP conformance suite',
            redirectUris: [`http://127.0.0.1:${callbackPort}/callback`],
          },
        ],
      },
    },
  });
  mcp.tool({
    name: 'whoami',
    description: 'The signed-in user',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
  const app = express();
  app.use('/mcp', mcp);
  return app;
}

if (require.main === module) {
  const port = Number(process.env.PORT ?? 3031);
  const callbackPort = Number(process.env.CALLBACK_PORT);
  const host = '127.0.0.1';
  const fail = (message: string): never => {
    console.error(`auth-fixture: ${message}`);
    process.exit(1);
  };
  if (!Number.isInteger(callbackPort) || callbackPort <= 0)
    fail(`CALLBACK_PORT must be the conformance suite's --port, got ${JSON.stringify(process.env.CALLBACK_PORT)}`);
  // Express 5 also calls the listen callback with the error (e.g. EADDRINUSE); Express 4 only emits it.
  const server = createAuthFixtureApp(callbackPort).listen(port, host, (err?: Error) => {
    if (err) fail(`cannot listen on ${host}:${port}: ${err.message}`);
    else
      console.log(
        `MCP authorization-server fixture: issuer http://${host}:${port}/mcp, client ${CONFORMANCE_CLIENT_ID}, redirect http://127.0.0.1:${callbackPort}/callback`,
      );
  });
  server.on('error', (err) => fail(`cannot listen on ${host}:${port}: ${err.message}`));
}
