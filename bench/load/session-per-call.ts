// Scenario `session-per-call` in the load child: virtual users each doing whole sessions (initialize,
// notifications/initialized, one tools/call, DELETE) in a loop, or single stateless calls, for a fixed time.

import { performance } from 'node:perf_hooks';
import type { Agent } from 'node:http';
import { INITIALIZE_BODY, keepAliveAgent, messagesOf, send, type HttpReply, type Target } from './http-client';
import { percentile } from '../stats';

/** The request kinds of one session, in order. */
export const SESSION_STEPS = ['initialize', 'initialized', 'call', 'delete'] as const;
export type SessionStep = (typeof SESSION_STEPS)[number];

/**
 * `users` virtual users for `seconds`: each repeats a whole session (`mode: 'session'`) or one `tools/call` with no
 * session (`mode: 'call'`, a stateless server). `callBody(i)` is the call's body for the user's i-th call, `expect(i)`
 * a text its result must contain.
 */
export interface SessionPerCallTask {
  readonly kind: 'session-per-call';
  readonly target: Target;
  readonly mode: 'session' | 'call';
  readonly users: number;
  readonly seconds: number;
  /** Distinct keys the calls cycle through (`k0` … `k<keys-1>`). */
  readonly keys: number;
}

export interface SessionPerCallResult {
  /** Whole sessions completed (mode `session`) or calls (mode `call`). */
  readonly completed: number;
  /** HTTP requests answered as expected. */
  readonly requests: number;
  readonly failed: number;
  /** The first failure's description, for the harness's error. */
  readonly firstFailure?: string;
  readonly seconds: number;
  /** p50/p99 in ms of a whole session (or call). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** p50/p99 in ms per request kind (mode `session`). */
  readonly steps: Readonly<Partial<Record<SessionStep, { p50Ms: number; p99Ms: number }>>>;
}

const INITIALIZED_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

function callBody(id: number, key: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'lookup', arguments: { key } } });
}

/** The text of the tools/call result in `reply`, or an error naming what came back. */
function callText(reply: HttpReply): string {
  if (reply.status !== 200) throw new Error(`tools/call answered ${reply.status}: ${reply.body.slice(0, 200)}`);
  const message = messagesOf(reply).find((entry) => (entry as { id?: unknown }).id !== undefined) as
    { result?: { content?: Array<{ text?: string }>; isError?: boolean } } | undefined;
  const text = message?.result?.content?.[0]?.text;
  if (text === undefined || message?.result?.isError) throw new Error(`tools/call failed: ${reply.body.slice(0, 200)}`);
  return text;
}

class Recorder {
  readonly times: Record<SessionStep | 'whole', number[]> = {
    initialize: [],
    initialized: [],
    call: [],
    delete: [],
    whole: [],
  };
  requests = 0;

  async timed<T>(step: SessionStep, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const value = await work();
    this.times[step].push(performance.now() - started);
    this.requests++;
    return value;
  }
}

/**
 * One whole session: the server's `Mcp-Session-Id` (if it gives one) and the revision it answered on every later
 * request; DELETE must answer 200/204, or 405 from a server that gave no session (the SDK's stateless example).
 */
async function oneSession(task: SessionPerCallTask, agent: Agent, rec: Recorder, n: number): Promise<void> {
  const key = `k${n % task.keys}`;
  const init = await rec.timed('initialize', () => send('POST', task.target, INITIALIZE_BODY, agent));
  const [message] = messagesOf(init) as Array<{ result?: { protocolVersion?: string } }>;
  const version = message?.result?.protocolVersion;
  if (init.status !== 200 || version === undefined)
    throw new Error(`initialize answered ${init.status}: ${init.body.slice(0, 200)}`);
  const sessionId = init.headers['mcp-session-id'];
  const headers: Record<string, string> = { 'mcp-protocol-version': version };
  if (typeof sessionId === 'string') headers['mcp-session-id'] = sessionId;
  const initialized = await rec.timed('initialized', () => send('POST', task.target, INITIALIZED_BODY, agent, headers));
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
  const call = await rec.timed('call', () => send('POST', task.target, callBody(1, key), agent, headers));
  if (!callText(call).startsWith(`${key}=`)) throw new Error(`tools/call: wrong result ${call.body.slice(0, 200)}`);
  const ended = await rec.timed('delete', () => send('DELETE', task.target, undefined, agent, headers));
  const expected = typeof sessionId === 'string' ? ended.status === 200 || ended.status === 204 : ended.status === 405;
  if (!expected) throw new Error(`DELETE answered ${ended.status}`);
}

async function oneCall(task: SessionPerCallTask, agent: Agent, rec: Recorder, n: number): Promise<void> {
  const key = `k${n % task.keys}`;
  const call = await rec.timed('call', () => send('POST', task.target, callBody(n, key), agent));
  if (!callText(call).startsWith(`${key}=`)) throw new Error(`tools/call: wrong result ${call.body.slice(0, 200)}`);
}

/** Runs the task: every user loops until the time is up, each on the shared keep-alive agent of `users` sockets. */
export async function runSessionPerCall(task: SessionPerCallTask): Promise<SessionPerCallResult> {
  const agent = keepAliveAgent(task.users);
  const rec = new Recorder();
  let failed = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  const deadline = started + task.seconds * 1000;
  const user = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const n = next++;
      const begun = performance.now();
      try {
        await (task.mode === 'session' ? oneSession : oneCall)(task, agent, rec, n);
        rec.times.whole.push(performance.now() - begun);
      } catch (err) {
        failed++;
        firstFailure ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: task.users }, user));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const stats = (values: number[]) => ({ p50Ms: percentile(values, 50), p99Ms: percentile(values, 99) });
  const steps: Partial<Record<SessionStep, { p50Ms: number; p99Ms: number }>> = {};
  if (task.mode === 'session') for (const step of SESSION_STEPS) steps[step] = stats(rec.times[step]);
  return {
    completed: rec.times.whole.length,
    requests: rec.requests,
    failed,
    ...(firstFailure !== undefined && { firstFailure }),
    seconds,
    ...stats(rec.times.whole),
    steps,
  };
}
