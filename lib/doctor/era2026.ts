// The era2026 area: `server/discover` and a 2026-07-28 `tools/list` with the `_meta` envelope and headers that revision requires.

import type { Check } from './context';
import type { Finding } from './finding';
import { counted, errorOf, excerpt, isRecord, post2026, resultOf, VERSION_2026, type RpcReply } from './mcp';
import { forbiddenFinding } from './era2025';
import { META_KEYS } from '../core/protocol/era-2026/request-meta';

function unsupported(reply: RpcReply): Finding {
  const error = errorOf(reply);
  return {
    id: 'era2026.unsupported',
    severity: 'info',
    summary: `the server speaks only the 2025 era (server/discover: HTTP ${reply.http.status}${error ? `, ${String(error.code)}` : ''})`,
    detail: '2026-07-28 clients fall back to initialize; nothing to fix unless you want the 2026 era.',
    docs: 'doctor.md#era2026',
  };
}

function discoverFindings(reply: RpcReply): Finding[] {
  const result = resultOf(reply) as Record<string, unknown>;
  const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions.map(String) : [];
  const meta = isRecord(result._meta) ? result._meta : {};
  const info = meta[META_KEYS.serverInfo] as { name?: unknown; version?: unknown } | undefined;
  const findings: Finding[] = [];
  if (!versions.includes(VERSION_2026))
    return [
      {
        id: 'era2026.discover',
        severity: 'info',
        summary: `server/discover lists ${versions.join(', ') || 'no versions'}, not ${VERSION_2026}`,
      },
    ];
  findings.push({
    id: 'era2026.discover',
    severity: 'ok',
    summary:
      `server/discover: ${versions.join(', ')}${info ? `, ${String(info.name)} ${String(info.version ?? '')}` : ''}`.trim(),
  });
  if (result.resultType !== 'complete')
    findings.push({
      id: 'era2026.result-type',
      severity: 'warn',
      summary: `server/discover's result has resultType ${JSON.stringify(result.resultType)}, not "complete"`,
      fix: 'MCP 2026-07-28: every result carries resultType; 2026 clients reject results without it.',
      docs: 'doctor.md#era2026',
    });
  return findings;
}

async function listFinding(ctx: Parameters<Check>[0], discovered: Record<string, unknown>): Promise<Finding> {
  const capabilities = isRecord(discovered.capabilities) ? discovered.capabilities : {};
  if (capabilities.tools === undefined)
    return { id: 'era2026.tools-list', severity: 'info', summary: 'no tools capability: tools/list not asked' };
  const list = await post2026(ctx, 'tools/list', {}, 4);
  const result = resultOf(list);
  if (result && Array.isArray(result.tools))
    return {
      id: 'era2026.tools-list',
      severity: 'ok',
      summary: `tools/list (2026-07-28): ${counted(result.tools.length, 'tool')} (${list.format} reply)`,
    };
  const error = errorOf(list);
  return {
    id: 'era2026.tools-list',
    severity: 'fail',
    summary: `tools/list (2026-07-28) failed: HTTP ${list.http.status}${error ? `, ${String(error.code)} ${String(error.message)}` : ''}`,
    detail: excerpt(list.http.body),
    fix: 'A 2026 request carries MCP-Protocol-Version, Mcp-Method and params._meta; the server declared tools but refused the list.',
    docs: 'doctor.md#era2026',
  };
}

/**
 * The 2026-07-28 era: `server/discover`, then `tools/list` as a 2026 request. A server of the 2025 era only is
 * told as `info`: 2026 clients fall back to `initialize`.
 *
 * @example
 * ```ts
 * const findings = await checkEra2026(ctx);
 * ```
 */
export const checkEra2026: Check = async (ctx) => {
  const discover = await post2026(ctx, 'server/discover', {}, 3);
  if (discover.http.status === 401)
    return [{ id: 'era2026.needs-auth', severity: 'info', summary: 'server/discover needs a token (401)' }];
  if (discover.http.status === 403) return [forbiddenFinding('era2026.forbidden', discover)];
  const result = resultOf(discover);
  if (result === undefined) return [unsupported(discover)];
  const findings = discoverFindings(discover);
  if (findings[0]?.severity === 'ok') findings.push(await listFinding(ctx, result));
  return findings;
};
