// Test helper, run as a child process by machine-clients-sdk.test.ts: the official SDK v2 client with its
// PrivateKeyJwtProvider (which loads jose with a dynamic import(), which Jest cannot run) gets a token from the
// router by client_credentials + private_key_jwt and calls `whoami`. argv[2] is
// {"endpoint", "issuer", "clientId", "privateJwk", "mode"} as JSON; it prints the tool's structuredContent as JSON.

import { Client, PrivateKeyJwtProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const { endpoint, issuer, clientId, privateJwk, mode } = JSON.parse(process.argv[2]);
const provider = new PrivateKeyJwtProvider({
  clientId,
  privateKey: privateJwk,
  algorithm: privateJwk.alg,
  expectedIssuer: issuer,
});
const client = new Client({ name: 'machine-v2', version: '2.0.0' }, { versionNegotiation: { mode } });
await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider }));
const result = await client.callTool({ name: 'whoami', arguments: {} });
process.stdout.write(`${JSON.stringify(result.structuredContent)}\n`);
await client.close();
