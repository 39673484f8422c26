// The soak's traffic, run in the load child: session after session (open, calls, a streamed call, DELETE), paced.

import { setTimeout as sleep } from 'node:timers/promises';
import { closeSession, keepAliveAgent, openSession, send, sessionHeaders, type Target } from './http-client';

/** Moderate, steady traffic against one server for `seconds`. */
export interface SoakTask {
  readonly kind: 'soak';
  readonly target: Target;
  readonly seconds: number;
  /** Concurrent clients, each on its own keep-alive connection. */
  readonly connections: number;
  /** Requests per second across all clients, at most. */
  readonly ratePerSecond: number;
  /** `tools/call add` requests in each session between its initialize and its DELETE. */
  readonly callsPerSession: number;
}

export interface SoakResult {
  readonly requests: number;
  readonly sessions: number;
  readonly failed: number;
  readonly seconds: number;
}

const ADD = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: 1, b: 2 } },
});
const COUNT = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'count', arguments: {}, _meta: { progressToken: 'soak' } },
});

/**
 * Each client loops: initialize + notifications/initialized, `callsPerSession` calls of `add`, one call of
 * `count` (100 progress notifications on an SSE stream), DELETE. Requests are paced to `ratePerSecond` in
 * total; a request that fails counts and the client carries on with a new session.
 */
export async function runSoakTraffic(task: SoakTask): Promise<SoakResult> {
  const started = performance.now();
  const end = started + task.seconds * 1000;
  let issued = 0;
  let failed = 0;
  let sessions = 0;
  /** Waits until the next request is due: request n is due n / rate seconds after the start. */
  const pace = async (): Promise<void> => {
    const wait = started + (issued++ * 1000) / task.ratePerSecond - performance.now();
    if (wait > 0) await sleep(wait);
  };
  const client = async (): Promise<void> => {
    const agent = keepAliveAgent(1);
    while (performance.now() < end) {
      try {
        await pace();
        await pace(); // initialize and notifications/initialized
        const session = await openSession(task.target, agent);
        sessions++;
        for (let call = 0; call <= task.callsPerSession; call++) {
          await pace();
          const reply = await send(
            'POST',
            task.target,
            call < task.callsPerSession ? ADD : COUNT,
            agent,
            sessionHeaders(session),
          );
          if (reply.status !== 200) failed++;
        }
        await pace();
        if (!(await closeSession(task.target, session, agent))) failed++;
      } catch {
        failed++;
      }
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: task.connections }, client));
  return { requests: issued, sessions, failed, seconds: (performance.now() - started) / 1000 };
}
