// The stream area: an SSE stream held open (the 2025 GET stream or a 2026 listen), watched for a proxy's buffering, keep-alives and idle cuts.

import { DEFAULT_KEEP_ALIVE_MS } from '../options';
import type { Check, DoctorContext } from './context';
import type { Finding } from './finding';
import { exchange, headerOf, type HttpHead, type HttpRequest } from './http';
import { ACCEPT_BOTH, baseHeaders, converse, counted, envelope2026, VERSION_2026, type Conversation } from './mcp';

/** How long the stream area watches and waits. */
export interface StreamSettings {
  /** How long a stream is held open and watched, in ms. Defaults to {@link DEFAULT_STREAM_WATCH_MS}. */
  readonly watchMs: number;
  /** A stream whose head has not come after this long is held back by something between (buffering), in ms. Defaults to {@link DEFAULT_HEAD_WAIT_MS}. */
  readonly headWaitMs: number;
  /**
   * The keep-alive interval a healthy server may use, in ms: a watch shorter than this that sees no keep-alive says
   * nothing (info), a longer one warns. Defaults to this router's `keepAliveMs` default, 15 s.
   */
  readonly keepAliveMs?: number;
}

/** Long enough to see one keep-alive of a server sending one every 15 s (this router's default), and a little more. */
export const DEFAULT_STREAM_WATCH_MS = DEFAULT_KEEP_ALIVE_MS + 5_000;

/** A server sends an SSE stream's head at once; a proxy that buffers holds it back until the stream ends. */
export const DEFAULT_HEAD_WAIT_MS = 5_000;

/** What was seen of a stream: when its head came, its status, when each piece of body came, and whether it ended. */
interface Watched {
  readonly head?: HttpHead;
  readonly headAtMs?: number;
  readonly chunks: { readonly atMs: number; readonly text: string }[];
  /** ms after sending at which the stream ended by itself; undefined when it was still open at the end of the watch. */
  readonly endedAtMs?: number;
}

async function watch(ctx: DoctorContext, request: HttpRequest, settings: StreamSettings): Promise<Watched> {
  const stop = new AbortController();
  const started = performance.now();
  let head: HttpHead | undefined;
  let headAtMs: number | undefined;
  const chunks: { atMs: number; text: string }[] = [];
  const headTimer = setTimeout(() => head === undefined && stop.abort(), settings.headWaitMs);
  const watchTimer = setTimeout(() => stop.abort(), settings.watchMs);
  try {
    const http = { ...ctx.http, timeoutMs: settings.watchMs + settings.headWaitMs };
    await exchange(
      http,
      request,
      (h) => ((head = h), (headAtMs = performance.now() - started)),
      (text, atMs) => chunks.push({ atMs, text }),
      stop.signal,
    );
  } finally {
    clearTimeout(headTimer);
    clearTimeout(watchTimer);
  }
  const endedAtMs = stop.signal.aborted ? undefined : performance.now() - started;
  return { ...(head ? { head, headAtMs } : {}), chunks, ...(endedAtMs === undefined ? {} : { endedAtMs }) };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function keepAliveFinding(watched: Watched, settings: StreamSettings): Finding {
  const times = watched.chunks.filter((c) => /(^|\n):/.test(c.text)).map((c) => c.atMs);
  const interval = settings.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (times.length === 0 && settings.watchMs < interval)
    return {
      id: 'stream.no-keepalive',
      severity: 'info',
      summary: `no keep-alive comment in the ${seconds(settings.watchMs)} watched, shorter than the ${seconds(interval)} a server may wait between two: watch longer (--stream-seconds ${Math.ceil(interval / 1000) + 5}) to see them`,
    };
  if (times.length === 0)
    return {
      id: 'stream.no-keepalive',
      severity: 'warn',
      summary: `no keep-alive comment in the ${seconds(settings.watchMs)} watched`,
      detail:
        'A proxy or load balancer cuts a stream idle longer than its timeout (nginx 60 s, AWS ALB 60 s by default).',
      fix: 'Send an SSE comment (`:`) more often than the shortest idle timeout on the way (this router: `keepAliveMs`, 15 s by default).',
      docs: 'deployment.md#idle-timeouts-of-load-balancers',
    };
  const gaps = times.map((t, i) => t - (i === 0 ? (watched.headAtMs ?? 0) : (times[i - 1] as number)));
  const longest = Math.max(...gaps);
  return {
    id: 'stream.keepalive',
    severity: 'ok',
    summary: `${counted(times.length, 'keep-alive comment')}, at most ${seconds(longest)} apart`,
  };
}

function watchedFindings(kind: string, watched: Watched, settings: StreamSettings): Finding[] {
  if (watched.head === undefined)
    return [
      {
        id: 'stream.buffered',
        severity: 'fail',
        summary: `the ${kind}'s head did not arrive within ${seconds(settings.headWaitMs)}, while plain requests are answered`,
        detail:
          'A proxy that buffers responses holds an SSE stream back until it ends: progress, notifications and keep-alives never arrive in time.',
        fix: 'Turn buffering off for the MCP path (nginx: `proxy_buffering off;`, and do not ignore X-Accel-Buffering), or on the load balancer / CDN in front.',
        docs: 'deployment.md#behind-a-tls-proxy',
      },
    ];
  const findings: Finding[] = [
    {
      id: 'stream.open',
      severity: 'ok',
      summary: `the ${kind} opened: head after ${Math.round(watched.headAtMs ?? 0)} ms`,
    },
  ];
  if (watched.endedAtMs !== undefined)
    findings.push({
      id: 'stream.cut',
      severity: 'warn',
      summary: `the ${kind} was closed after ${seconds(watched.endedAtMs)}`,
      detail:
        watched.chunks.length === 0 ? 'no bytes before the close' : `${watched.chunks.length} pieces before the close`,
      fix: "An idle timeout on the way is shorter than the stream's life: raise it (nginx `proxy_read_timeout 1h;`, a load balancer's idle timeout), and keep keep-alives under it.",
      docs: 'deployment.md#idle-timeouts-of-load-balancers',
    });
  else findings.push(keepAliveFinding(watched, settings));
  return findings;
}

async function getStream(ctx: DoctorContext, conversation: Conversation, settings: StreamSettings): Promise<Finding[]> {
  const watched = await watch(
    ctx,
    {
      method: 'GET',
      url: ctx.target.url,
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': conversation.sessionId as string,
        'mcp-protocol-version': conversation.version,
        ...baseHeaders(ctx),
      },
    },
    settings,
  );
  const status = watched.head?.status;
  if (status !== undefined && (status !== 200 || !isSse(watched.head as HttpHead)))
    return [{ id: 'stream.no-get', severity: 'info', summary: `the 2025 GET stream is not offered (${status})` }];
  return watchedFindings('GET stream', watched, settings);
}

async function listenStream(ctx: DoctorContext, settings: StreamSettings): Promise<Finding[]> {
  const body = {
    jsonrpc: '2.0',
    id: 9,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: envelope2026() },
  };
  const watched = await watch(
    ctx,
    {
      method: 'POST',
      url: ctx.target.url,
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
        'mcp-protocol-version': VERSION_2026,
        'mcp-method': 'subscriptions/listen',
        ...baseHeaders(ctx),
      },
      body: JSON.stringify(body),
    },
    settings,
  );
  const status = watched.head?.status;
  if (status !== undefined && (status !== 200 || !isSse(watched.head as HttpHead)))
    return [{ id: 'stream.no-listen', severity: 'info', summary: `subscriptions/listen is not offered (${status})` }];
  return watchedFindings('listen stream', watched, settings);
}

function isSse(head: HttpHead): boolean {
  return (headerOf(head, 'content-type') ?? '').includes('text/event-stream');
}

/**
 * The stream area: opens the 2025 GET stream of a session (or, without one, a 2026 `subscriptions/listen`) and
 * watches it for `settings.watchMs`: a head held back is buffering; the comments give the keep-alive interval; a
 * close before the end is an idle cut.
 *
 * @example
 * ```ts
 * const check = checkStream({ watchMs: 20_000, headWaitMs: 5_000 });
 * ```
 */
export function checkStream(settings: StreamSettings): Check {
  return async (ctx) => {
    const conversation = await converse(ctx);
    if (!('era' in conversation))
      return [
        {
          id: 'stream.skipped',
          severity: 'info',
          summary: conversation.needsAuth
            ? 'not checked: the server needs a token (--token)'
            : 'not checked: no era answered',
        },
      ];
    try {
      if (conversation.era === '2025' && conversation.sessionId !== undefined) {
        const found = await getStream(ctx, conversation, settings);
        if (found[0]?.id !== 'stream.no-get') return found;
        const listened = await listenStream(ctx, settings);
        return listened[0]?.id === 'stream.no-listen' ? [...found, ...listened] : listened;
      }
      return await listenStream(ctx, settings);
    } finally {
      await conversation.close();
    }
  };
}
