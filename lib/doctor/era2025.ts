// The era2025 area: initialize, initialized and tools/list as a 2025 client does, the session across fresh connections, and its end.

import type { Check, DoctorContext } from './context';
import type { Finding } from './finding';
import { headerOf } from './http';
import { counted, endSession, errorOf, excerpt, INITIALIZE_PARAMS, post, resultOf, type RpcReply } from './mcp';

/** How many requests, each on a fresh connection, try the session: enough to land on two instances of a round robin. */
export const SESSION_PROBES = 4;

/** The JSON-RPC errors a 2026-only server answers `initialize` with (MCP 2026-07-28: -32022, or -32601 for a removed method). */
const MODERN_ONLY_CODES = new Set([-32022, -32601]);

/** A 403 before any MCP: an Origin or Host check (DNS-rebinding protection, MCP transports › Security Warning). */
export function forbiddenFinding(id: string, reply: RpcReply): Finding {
  return {
    id,
    severity: 'fail',
    summary: 'the server refused the request with 403',
    detail: excerpt(reply.http.body),
    fix: "A Host or Origin check refused it. This router, on a loopback address behind a proxy: list the public host name in `allowedHosts`; a browser's origin goes in `origins`. Another server: its allowed hosts/origins setting.",
    docs: 'deployment.md#behind-a-tls-proxy',
  };
}

function initializeFindings(init: RpcReply): Finding[] | undefined {
  const status = init.http.status;
  if (status === 401)
    return [
      {
        id: 'era2025.needs-auth',
        severity: 'info',
        summary:
          'initialize needs a token (401): the auth area checks how a client gets one; --token checks as a principal',
      },
    ];
  if (status === 403) return [forbiddenFinding('era2025.forbidden', init)];
  const error = errorOf(init);
  if (resultOf(init) !== undefined) return undefined;
  if (error && MODERN_ONLY_CODES.has(Number(error.code)))
    return [
      {
        id: 'era2025.unsupported',
        severity: 'info',
        summary: `the server does not speak the 2025 era (initialize: ${String(error.code)} ${String(error.message)})`,
        detail: 'Clients of the 2025 era (most deployed ones) cannot connect; 2026-07-28 clients can.',
      },
    ];
  return [
    {
      id: 'era2025.initialize',
      severity: 'fail',
      summary: `initialize failed: HTTP ${status}${error ? `, ${String(error.code)} ${String(error.message)}` : ''}`,
      detail: excerpt(init.http.body),
      fix: 'The server must answer initialize with a result (MCP lifecycle › Initialization); check its logs.',
      docs: 'doctor.md#era2025',
    },
  ];
}

async function probeSession(ctx: DoctorContext, headers: Record<string, string>): Promise<Finding> {
  const statuses: number[] = [];
  for (let i = 0; i < SESSION_PROBES; i++) {
    const reply = await post(ctx, 'ping', {}, 10 + i, headers);
    statuses.push(resultOf(reply) === undefined ? reply.http.status || 0 : 200);
  }
  const lost = statuses.filter((s) => s === 404 || s === 400).length;
  const detail = `ping with the session id on ${SESSION_PROBES} fresh connections: ${statuses.join(', ')}`;
  if (lost === 0)
    return { id: 'era2025.session', severity: 'ok', summary: 'the session works on every fresh connection', detail };
  if (lost < SESSION_PROBES)
    return {
      id: 'era2025.sticky-sessions',
      severity: 'fail',
      summary: 'the session works on some connections only: sticky sessions required',
      detail,
      fix: 'Instances behind a load balancer each know their own sessions. Give every instance one shared store (this router: `store: redisStore(…)`), or make the balancer sticky on the Mcp-Session-Id header, or run stateless.',
      docs: 'deployment.md#several-instances-on-redis',
    };
  return {
    id: 'era2025.session-lost',
    severity: 'fail',
    summary: 'the session initialize made is unknown on the next connection',
    detail,
    fix: 'The server forgets the session at once, or each connection lands on another instance: a shared store, sticky sessions, or a stateless server (no Mcp-Session-Id).',
    docs: 'deployment.md#several-instances-on-redis',
  };
}

async function afterInitialize(ctx: DoctorContext, init: RpcReply): Promise<Finding[]> {
  const result = resultOf(init) as Record<string, unknown>;
  const version = String(result.protocolVersion);
  const info = result.serverInfo as { name?: unknown; version?: unknown } | undefined;
  const sessionId = headerOf(init.http, 'mcp-session-id');
  const headers = { 'mcp-protocol-version': version, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  const findings: Finding[] = [
    {
      id: 'era2025.initialize',
      severity: 'ok',
      summary:
        `initialize: ${version}, ${String(info?.name ?? '?')} ${String(info?.version ?? '')} (${init.format} reply)`.trim(),
    },
  ];
  const initialized = await post(ctx, 'notifications/initialized', undefined, undefined, headers);
  if (initialized.http.status !== 202 && initialized.http.status !== 200)
    findings.push({
      id: 'era2025.initialized',
      severity: 'warn',
      summary: `notifications/initialized got ${initialized.http.status}, not 202`,
      detail: excerpt(initialized.http.body),
      fix: 'MCP transports: a notification the server accepts is answered 202 Accepted with no body.',
      docs: 'doctor.md#era2025',
    });
  findings.push(await listFinding(ctx, result, headers));
  if (sessionId === undefined) {
    findings.push({ id: 'era2025.stateless', severity: 'info', summary: 'no Mcp-Session-Id: a stateless server' });
    return findings;
  }
  findings.push(await probeSession(ctx, headers));
  const end = await endSession(ctx, sessionId);
  findings.push({
    id: 'era2025.delete',
    severity: 'info',
    summary: `DELETE of the session: ${end ? end.status : 'no answer'}${end?.status === 405 ? ' (the server keeps sessions until they expire)' : ''}`,
  });
  return findings;
}

async function listFinding(
  ctx: DoctorContext,
  result: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Finding> {
  const capabilities = result.capabilities as Record<string, unknown> | undefined;
  if (capabilities?.tools === undefined)
    return { id: 'era2025.tools-list', severity: 'info', summary: 'no tools capability: tools/list not asked' };
  const list = await post(ctx, 'tools/list', {}, 3, headers);
  const tools = resultOf(list)?.tools;
  if (Array.isArray(tools))
    return {
      id: 'era2025.tools-list',
      severity: 'ok',
      summary: `tools/list: ${counted(tools.length, 'tool')} (${list.format} reply)`,
    };
  const error = errorOf(list);
  return {
    id: 'era2025.tools-list',
    severity: 'fail',
    summary: `tools/list with the session failed: HTTP ${list.http.status}${error ? `, ${String(error.message)}` : ''}`,
    detail: excerpt(list.http.body),
    fix: 'The server declared tools but does not list them in the session initialize made.',
    docs: 'doctor.md#era2025',
  };
}

/**
 * The 2025 era as a client of it connects: `initialize` at the newest 2025 revision, `notifications/initialized`,
 * `tools/list` in the session, the session tried on fresh connections, then ended.
 *
 * @example
 * ```ts
 * const findings = await checkEra2025(ctx);
 * ```
 */
export const checkEra2025: Check = async (ctx) => {
  const init = await post(ctx, 'initialize', { ...INITIALIZE_PARAMS }, 2);
  return initializeFindings(init) ?? afterInitialize(ctx, init);
};
