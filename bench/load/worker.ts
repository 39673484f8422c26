// The load child: runs one task at a time for the harness, on its own CPU, and answers over IPC.

import autocannon from 'autocannon';
import {
  closeSession,
  inParallel,
  keepAliveAgent,
  messagesOf,
  openSession,
  send,
  type OpenedSession,
} from './http-client';
import { closeStreams, openStreams } from './held-streams';
import { runMixedTraffic } from './mixed-traffic';
import { runSessionPerCall } from './session-per-call';
import { runSoakTraffic } from './soak-traffic';
import { runStdioDirect } from './stdio-direct';
import type { CannonResult } from './cannon-result';
import type { CannonTask, LoadResults, LoadTask, SessionsResult } from './tasks';
import { percentile } from '../stats';
import { dpopProofPool } from './dpop-proofs';

/** Distinct DPoP proofs a run sends round and round (server (fd)): more than the connections ever hold at once. */
const DPOP_POOL = 4_096;

async function cannon(task: CannonTask): Promise<CannonResult> {
  const latencies: number[] = [];
  let failed = 0;
  // autocannon cannot sign per request: proofs signed before the run, one put on each request as it is built.
  const proofs = task.target.dpop ? await dpopProofPool(task.target, DPOP_POOL) : undefined;
  let next = 0;
  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: task.target.url,
    method: 'POST',
    headers: { ...task.target.headers },
    body: task.body,
    idReplacement: true,
    connections: task.connections,
    duration: task.seconds,
    ...(proofs && {
      requests: [
        {
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            headers: { ...req.headers, dpop: proofs[next++ % proofs.length] as string },
          }),
        },
      ],
    }),
  });
  // autocannon 9 emits (client, statusCode, bytes, ms) with ms exact; @types/autocannon 7 leaves out the client.
  (instance as unknown as NodeJS.EventEmitter).on(
    'response',
    (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else failed++;
    },
  );
  const result = await instance;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    ok: latencies.length,
    failed: failed + result.errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

async function openSessions(task: Extract<LoadTask, { kind: 'open-sessions' }>): Promise<SessionsResult> {
  const agent = keepAliveAgent(task.connections);
  const sessions: OpenedSession[] = [];
  let failed = 0;
  const started = performance.now();
  await inParallel(task.count, task.connections, async () => {
    try {
      sessions.push(await openSession(task.target, agent));
    } catch {
      failed++;
    }
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { sessions, seconds, failed };
}

async function closeSessions(task: Extract<LoadTask, { kind: 'close-sessions' }>): Promise<SessionsResult> {
  const agent = keepAliveAgent(task.connections);
  let failed = 0;
  const started = performance.now();
  await inParallel(task.sessions.length, task.connections, async (index) => {
    if (!(await closeSession(task.target, task.sessions[index] as OpenedSession, agent).catch(() => false))) failed++;
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { sessions: [], seconds, failed };
}

async function run(task: LoadTask): Promise<LoadResults[LoadTask['kind']]> {
  switch (task.kind) {
    case 'probe': {
      const agent = keepAliveAgent(1);
      const reply = await send('POST', task.target, task.body, agent);
      agent.destroy();
      return { status: reply.status, contentType: String(reply.headers['content-type']), messages: messagesOf(reply) };
    }
    case 'open-session': {
      const agent = keepAliveAgent(1);
      const session = await openSession(task.target, agent);
      agent.destroy();
      return session;
    }
    case 'cannon':
      return cannon(task);
    case 'open-sessions':
      return openSessions(task);
    case 'close-sessions':
      return closeSessions(task);
    case 'soak':
      return runSoakTraffic(task);
    case 'mixed-traffic':
      return runMixedTraffic(task);
    case 'stdio-direct':
      return runStdioDirect(task);
    case 'open-streams':
      return openStreams(task);
    case 'close-streams':
      return closeStreams();
    case 'session-per-call':
      return runSessionPerCall(task);
  }
}

process.on('message', (message: LoadTask & { seq: number }) => {
  run(message).then(
    (result) => process.send?.({ ...result, seq: message.seq }),
    (err: unknown) => process.send?.({ seq: message.seq, error: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ kind: 'ready' });
