// What `npm run demo` prints: where everything is, the token (or, with AUTH=oauth and AUTH=enterprise, how to sign in), and how to connect real clients.

import type { UpstreamStatus } from '../lib';

/** A mounted upstream: where it runs (`at <url>`, `over stdio (…)`) and what it mounted. */
export interface UpstreamBanner {
  readonly where: string;
  readonly status: UpstreamStatus;
}

function upstreamLine({ where, status }: UpstreamBanner): string {
  const { tools, prompts, resources, resourceTemplates } = status.items;
  // Only the kinds it has: "2 tools, 1 resource", not "0 prompts" too.
  const counts = (
    [
      [tools, 'tool'],
      [prompts, 'prompt'],
      [resources, 'resource'],
      [resourceTemplates, 'template'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}${n === 1 ? '' : 's'}`);
  const mounted = `${counts.join(', ') || 'nothing'} as ${status.prefix}__<name> and ${status.prefix}+<uri>`;
  return `  Upstream       ${status.name} ${where} (${status.state}: ${status.error ?? mounted})\n`;
}

interface BannerOptions {
  readonly origin: string;
  readonly apiKey: string;
  readonly upstreams?: readonly UpstreamBanner[];
}

const upstreamLines = (upstreams: readonly UpstreamBanner[] = []): string => upstreams.map(upstreamLine).join('');

/**
 * How to start the Inspector on this Node: its releases need Node 22, and on older Node npx quietly installs an old
 * one whose CLI refuses `--header` with a misleading message, so there the command fetches Node 22 for itself.
 */
export function inspectorCommand(nodeVersion: string = process.versions.node): string {
  return Number(nodeVersion.split('.')[0]) >= 22
    ? 'npx @modelcontextprotocol/inspector'
    : 'npx -y -p node@22 -p @modelcontextprotocol/inspector@latest mcp-inspector';
}

const json = (value: unknown): string => `    ${JSON.stringify(value)}`;
const restLine = (origin: string, apiKey: string): string =>
  `  REST API       curl -H 'x-api-key: ${apiKey}' ${origin}/api/products\n`;

/** The banner of `npm run demo`: the static bearer token and client configurations that send it. */
export function connectionHelp({ origin, token, apiKey, upstreams }: BannerOptions & { token: string }): string {
  const url = `${origin}/mcp`;
  return `
Demo store is running.

  MCP endpoint   ${url}
  Bearer token   ${token}          (set MCP_TOKEN to choose it)
  Playground     ${origin}/playground/#token=${token}
${restLine(origin, apiKey)}${upstreamLines(upstreams)}
Inspector (CLI; it needs Node 22, which the command below fetches when this Node is older):
    ${inspectorCommand()} --cli ${url} --transport http --header "Authorization: Bearer ${token}" --method tools/list
Inspector (UI): ${inspectorCommand()}, then Streamable HTTP, ${url}, and the token under Authentication.

Cursor (~/.cursor/mcp.json):
${json({ mcpServers: { 'demo-store': { url, headers: { Authorization: `Bearer ${token}` } } } })}

Claude Desktop (claude_desktop_config.json, through mcp-remote):
${json({ mcpServers: { 'demo-store': { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'], env: { AUTH_HEADER: `Bearer ${token}` } } } })}

VS Code (.vscode/mcp.json):
${json({ servers: { 'demo-store': { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } })}
`;
}

/** The banner of `AUTH=oauth npm run demo`: no token to copy; clients register themselves and send the user to sign in. */
export function oauthConnectionHelp({ origin, apiKey, upstreams }: BannerOptions): string {
  const url = `${origin}/mcp`;
  return `
Demo store is running, with OAuth sign-in (AUTH=oauth).

  MCP endpoint   ${url}
  Sign-in        clients register themselves (Dynamic Client Registration, or a Client ID Metadata Document),
                 then send the browser to ${origin}/login (any user name, no password) and a consent page
  Issuer         ${url}   (${url}/.well-known/openid-configuration)
  Playground     ${origin}/playground/#signin
${restLine(origin, apiKey)}${upstreamLines(upstreams)}
Script (the SDK client's OAuth flow, docs/examples/oauth-client.mts: it prints the sign-in URL, waits for the browser):
    npx tsx docs/examples/oauth-client.mts ${url}
Inspector (UI): ${inspectorCommand()}, then Streamable HTTP, ${url}, and Connect (no token):
    it registers itself and opens the sign-in page.
Claude Code:
    claude mcp add --transport http demo-store ${url}     then /mcp in Claude Code to sign in

Claude Desktop (claude_desktop_config.json, through mcp-remote, which opens the sign-in page):
${json({ mcpServers: { 'demo-store': { command: 'npx', args: ['-y', 'mcp-remote', url] } } })}

VS Code (.vscode/mcp.json; it offers to sign in):
${json({ servers: { 'demo-store': { type: 'http', url } } })}
`;
}

/** The banner of `AUTH=enterprise npm run demo`: the OAuth sign-in, and an agent getting in with an ID-JAG from the demo IdP. */
export function enterpriseConnectionHelp(options: BannerOptions): string {
  const url = `${options.origin}/mcp`;
  const idp = `${options.origin}/idp`;
  return `${oauthConnectionHelp(options).replace('(AUTH=oauth)', '(AUTH=enterprise)')}
Enterprise sign-in (ID-JAG, SEP-990): the demo IdP at ${idp} (issuer https://idp.demo.example) gives any user an
ID token, exchanges it for an ID-JAG naming this server, and the pre-registered agent "demo-agent" redeems it here:
    npx tsx demo/enterprise-client.ts ${url} alice
By hand:
    ID=$(curl -s '${idp}/id-token?user=alice' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id_token')
    JAG=$(curl -s ${idp}/token -d client_id=demo-agent -d client_secret=demo-idp-secret \\
      -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange -d requested_token_type=urn:ietf:params:oauth:token-type:id-jag \\
      -d subject_token_type=urn:ietf:params:oauth:token-type:id_token -d subject_token=$ID \\
      -d audience=${url} -d resource=${url} -d scope=store:read | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')
    curl -s ${url}/oauth/token -u demo-agent:demo-agent-secret -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer -d assertion=$JAG
`;
}
