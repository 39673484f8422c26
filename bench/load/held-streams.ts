// Long-lived SSE streams held open by the load child on raw keep-alive sockets (scenario `streams`, issue 34 goal 5).

import { connect, type Socket } from 'node:net';

/**
 * Opens one socket per request text (a whole HTTP/1.1 request: GET stream or POST subscriptions/listen), at most
 * `parallel` opening at once, and keeps every stream whose reply is `200` and whose body so far contains `waitFor`
 * (the first event the server owes, e.g. the listen acknowledgment; '' for the headers alone).
 */
export interface OpenStreamsTask {
  readonly kind: 'open-streams';
  readonly port: number;
  readonly requests: readonly string[];
  readonly waitFor: string;
  readonly parallel: number;
}

/** Ends every stream the load child holds (the client hangs up). */
export interface CloseStreamsTask {
  readonly kind: 'close-streams';
}

export interface StreamsResult {
  /** Streams open and held now. */
  readonly held: number;
  readonly failed: number;
  readonly seconds: number;
  /** The first failure's reply, cut short, to say why. */
  readonly firstFailure?: string;
}

/** Every stream must have answered within this; longer is a failure, not a wait. */
const OPEN_TIMEOUT_MS = 30_000;

const held = new Set<Socket>();

function openOne(port: number, request: string, waitFor: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    let text = '';
    const timer = setTimeout(() => finish(`no reply in ${OPEN_TIMEOUT_MS} ms: ${text.slice(0, 200)}`), OPEN_TIMEOUT_MS);
    const finish = (failure: string | undefined): void => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      if (failure === undefined) {
        held.add(socket);
        // A stream the server ends while held is no longer open: it leaves the set, and its socket closes.
        socket.once('close', () => held.delete(socket));
        socket.resume();
      } else socket.destroy();
      resolve(failure);
    };
    socket.setEncoding('latin1');
    socket.on('error', (err) => finish(`socket: ${err.message}`));
    socket.on('data', (chunk: string) => {
      text += chunk;
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      if (!text.startsWith('HTTP/1.1 200')) finish(text.slice(0, 300));
      else if (text.includes(waitFor, headEnd)) finish(undefined);
    });
    socket.write(request);
  });
}

export async function openStreams(task: OpenStreamsTask): Promise<StreamsResult> {
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    for (let index = next++; index < task.requests.length; index = next++) {
      const failure = await openOne(task.port, task.requests[index] as string, task.waitFor);
      if (failure !== undefined) {
        failed++;
        firstFailure ??= failure;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(task.parallel, task.requests.length) }, lane));
  const seconds = (performance.now() - started) / 1000;
  return { held: held.size, failed, seconds, ...(firstFailure === undefined ? {} : { firstFailure }) };
}

export async function closeStreams(): Promise<StreamsResult> {
  const started = performance.now();
  const closing = [...held].map((socket) => new Promise((resolve) => socket.once('close', resolve).destroy()));
  await Promise.all(closing);
  return { held: held.size, failed: 0, seconds: (performance.now() - started) / 1000 };
}
