// What `npm run demo` prints: where everything is, the token, and how to connect real clients.

import type { UpstreamStatus } from '../lib';

/** The mounted upstream: where it runs and what it mounted. */
export interface UpstreamBanner {
  readonly url: string;
  readonly status: UpstreamStatus;
}

function upstreamLine({ url, status }: UpstreamBanner): string {
  const { tools, prompts, resources, resourceTemplates } = status.items;
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const mounted = `${count(tools, 'tool')}, ${count(prompts, 'prompt')}, ${count(resources, 'resource')}, ${count(resourceTemplates, 'template')} as ${status.prefix}__<name> and ${status.prefix}+<uri>`;
  return `  Upstream       ${status.name} at ${url} (${status.state}: ${status.error ?? mounted})\n`;
}

export function connectionHelp({ origin, token, apiKey, upstream }: { origin: string; token: string; apiKey: string; upstream?: UpstreamBanner }): string {
  const url = `${origin}/mcp`;
  const json = (value: unknown): string => `    ${JSON.stringify(value)}`;
  return `
Demo store is running.

  MCP endpoint   ${url}
  Bearer token   ${token}          (set MCP_TOKEN to choose it)
  Playground     ${origin}/playground/#token=${token}
  REST API       curl -H 'x-api-key: ${apiKey}' ${origin}/api/products
${upstream ? upstreamLine(upstream) : ''}
Inspector (CLI, Node >= 22):
    npx @modelcontextprotocol/inspector --cli ${url} --transport http --header "Authorization: Bearer ${token}" --method tools/list
Inspector (UI): npx @modelcontextprotocol/inspector, then Streamable HTTP, ${url}, and the token under Authentication.

Cursor (~/.cursor/mcp.json):
${json({ mcpServers: { 'demo-store': { url, headers: { Authorization: `Bearer ${token}` } } } })}

Claude Desktop (claude_desktop_config.json, through mcp-remote):
${json({ mcpServers: { 'demo-store': { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'], env: { AUTH_HEADER: `Bearer ${token}` } } } })}

VS Code (.vscode/mcp.json):
${json({ servers: { 'demo-store': { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } })}
`;
}
