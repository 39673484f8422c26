// What the harness asks of the load child, and what it answers (shared by both sides of the IPC channel).

import type { CannonResult } from './cannon-result';
import type { OpenedSession, Target } from './http-client';
import type { CloseStreamsTask, OpenStreamsTask, StreamsResult } from './held-streams';
import type { MixedTrafficResult, MixedTrafficTask } from './mixed-traffic';
import type { SessionPerCallResult, SessionPerCallTask } from './session-per-call';
import type { SoakResult, SoakTask } from './soak-traffic';
import type { StdioDirectResult, StdioDirectTask } from './stdio-direct';

/** One request, answered whole (to check a server's reply before loading it). */
export interface ProbeTask {
  readonly kind: 'probe';
  readonly target: Target;
  readonly body: string;
}

/** Opens one session (initialize + notifications/initialized). */
export interface OpenSessionTask {
  readonly kind: 'open-session';
  readonly target: Target;
}

/** autocannon: `connections` fixed connections POSTing `body` for `seconds`; `[<id>]` in the body becomes a unique id. */
export interface CannonTask {
  readonly kind: 'cannon';
  readonly target: Target;
  readonly body: string;
  readonly connections: number;
  readonly seconds: number;
}

/** Opens `count` sessions over `connections` keep-alive connections. */
export interface OpenSessionsTask {
  readonly kind: 'open-sessions';
  readonly target: Target;
  readonly count: number;
  readonly connections: number;
}

/** Ends sessions with DELETE over `connections` keep-alive connections. */
export interface CloseSessionsTask {
  readonly kind: 'close-sessions';
  readonly target: Target;
  readonly sessions: readonly OpenedSession[];
  readonly connections: number;
}

export type LoadTask =
  | ProbeTask
  | OpenSessionTask
  | CannonTask
  | OpenSessionsTask
  | CloseSessionsTask
  | SoakTask
  | MixedTrafficTask
  | StdioDirectTask
  | OpenStreamsTask
  | CloseStreamsTask
  | SessionPerCallTask;

/** The outcome of an {@link OpenSessionsTask} or a {@link CloseSessionsTask}. */
export interface SessionsResult {
  readonly sessions: readonly OpenedSession[];
  readonly seconds: number;
  /** Sessions the server did not open (or did not know when deleted). */
  readonly failed: number;
}

/** What each task answers. */
export interface LoadResults {
  probe: { readonly status: number; readonly contentType: string; readonly messages: unknown[] };
  'open-session': OpenedSession;
  cannon: CannonResult;
  'open-sessions': SessionsResult;
  'close-sessions': SessionsResult;
  soak: SoakResult;
  'mixed-traffic': MixedTrafficResult;
  'stdio-direct': StdioDirectResult;
  'open-streams': StreamsResult;
  'close-streams': StreamsResult;
  'session-per-call': SessionPerCallResult;
}
