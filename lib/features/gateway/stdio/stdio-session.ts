// One life of a stdio upstream's process: its requests in flight, and each line it writes routed (a response, a server request, a notification).

import type { JsonRpcError } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import type { McpLogger } from '../../../core/logger';
import type { UpstreamMessage, UpstreamRequestOptions, UpstreamRoot } from '../shared/upstream-client';
import { replyTo, resultOrThrow, serverRequestAnswer, upstreamError } from '../shared/upstream-wire';
import { LineSplitter } from './stdio-lines';
import { boundedLog, type BoundedLog } from './stdio-log';
import { MAX_UNREAD_INPUT_BYTES, startStdioProcess, type StdioProcess, type StdioProgram } from './child-process';

/** The server requests the gateway relays to a caller (MCP client features); any other but `ping` gets -32601. */
const RELAYED_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create', 'roots/list']);
/** The longest stderr line held: a longer one is dropped (what is logged of a line is cut shorter still). */
const MAX_STDERR_LINE_BYTES = 64 * 1024;

/** A request of ours waiting for its response. */
interface Pending {
  readonly options: UpstreamRequestOptions;
  /** The caller's progress token, which the upstream saw replaced by ours (`progressKey`). */
  readonly callerToken: unknown;
  readonly progressKey: string | undefined;
  settle(outcome: { readonly result: unknown } | { readonly error: JsonRpcError }): void;
}

/** What a session needs from its client. */
export interface StdioSessionOptions {
  readonly program: StdioProgram;
  readonly label: string;
  readonly timeoutMs: number;
  readonly maxMessageBytes: number;
  readonly logger: McpLogger;
  /** The answer to a `roots/list` asked with no call in flight to relay it to. */
  readonly roots: readonly UpstreamRoot[];
  /** Server notifications no request claims: list_changed, resources/updated… */
  onNotification(message: UpstreamMessage): void;
  /** The process ended (or never started): `why` is a phrase such as "exited (code 1)". */
  onEnd(why: string): void;
}

/**
 * One spawned process and the JSON-RPC exchanged with it. MCP transports › stdio has one stream each way, so what
 * the upstream sends is matched to a request by id (responses) or progress token (progress); what carries neither
 * (a log message, a sampling / elicitation / roots request) is given to the OLDEST request in flight that can take
 * it: the protocol says no more, and with `processes: 'per-principal'` every request in flight is the same caller's.
 */
export class StdioSession {
  readonly #options: StdioSessionOptions;
  readonly #process: StdioProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #stderr: BoundedLog;
  readonly #faults: BoundedLog;
  #nextId = 1;
  #ended: string | undefined;
  /** Why the session itself stopped the process (a handshake that timed out), told instead of the exit status. */
  #stopReason: string | undefined;

  constructor(options: StdioSessionOptions) {
    this.#options = options;
    this.#stderr = boundedLog(options.logger, `mcpRouter: upstream '${options.label}' stderr`);
    this.#faults = boundedLog(options.logger, `mcpRouter: upstream '${options.label}'`);
    const stdout = new LineSplitter(options.maxMessageBytes, {
      line: (text) => this.#onLine(text),
      oversized: () =>
        this.#faults.write(
          `wrote a stdout line over ${options.maxMessageBytes} bytes (maxMessageBytes); it was dropped`,
        ),
    });
    const stderr = new LineSplitter(MAX_STDERR_LINE_BYTES, {
      line: (text) => this.#stderr.write(text),
      oversized: () => this.#stderr.write(`(a stderr line over ${MAX_STDERR_LINE_BYTES} bytes was dropped)`),
    });
    this.#process = startStdioProcess(options.program, {
      onStdout: (chunk) => stdout.push(chunk),
      onStderr: (chunk) => stderr.push(chunk),
      onEnd: (why) => this.#end(this.#stopReason ?? why),
    });
  }

  /** Resolves once the process runs; rejects with the upstream's -32603 (naming the errno) when it cannot start. */
  started(): Promise<void> {
    return this.#process.started.catch((error: unknown) => {
      throw upstreamError(this.#options.label, error instanceof Error ? error.message : 'could not be started');
    });
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** Undefined while the process lives; then why it ended. */
  get ended(): string | undefined {
    return this.#ended;
  }

  /**
   * Sends a request and resolves with its result, or rejects with a JsonRpcError: the upstream's own, or -32603 on
   * timeout, cancellation or the process's end. A timeout or the caller's abort sends `notifications/cancelled`
   * (MCP 2025-11-25 › Cancellation), but for `initialize`, which MUST NOT be cancelled.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: UpstreamRequestOptions = {},
  ): Promise<unknown> {
    const { label, timeoutMs } = this.#options;
    const gone = this.#ended ?? this.#stopReason;
    if (gone !== undefined) return Promise.reject(upstreamError(label, gone));
    if (options.signal?.aborted) return Promise.reject(upstreamError(label, 'request was cancelled'));
    const id = this.#nextId++;
    const callerToken = isObject(params?._meta) ? params._meta.progressToken : undefined;
    // Callers choose their tokens and may choose the same one: the upstream gets one of ours, unique per request.
    const progressKey = callerToken === undefined ? undefined : `gateway-progress-${id}`;
    const sent =
      progressKey === undefined
        ? params
        : { ...params, _meta: { ...(params?._meta as Record<string, unknown>), progressToken: progressKey } };
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(id);
      };
      const giveUp = (phrase: string, reason: string): void => {
        finish();
        if (method !== 'initialize') this.notify('notifications/cancelled', { requestId: id, reason });
        reject(upstreamError(label, phrase));
      };
      const timer = setTimeout(() => giveUp(`did not answer within ${timeoutMs} ms`, 'timed out'), timeoutMs);
      const onAbort = (): void => giveUp('request was cancelled', 'cancelled');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        options,
        callerToken,
        progressKey,
        settle: (outcome) => {
          finish();
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.result);
        },
      });
      const body = sent === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sent };
      const written = this.#process.writeLine(JSON.stringify(body));
      if (written === 'full')
        giveUp(`is not reading its input (over ${MAX_UNREAD_INPUT_BYTES} bytes unread)`, 'input full');
      else if (written === 'gone') giveUp(this.#ended ?? 'is not running', 'not running');
    });
  }

  /** Writes a notification; false when it could not be (the process is gone, or not reading its input). */
  notify(method: string, params?: Record<string, unknown>): boolean {
    return (
      'written' ===
      this.#process.writeLine(
        JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
      )
    );
  }

  /** Stops the process (SIGTERM, then SIGKILL); `reason` replaces the exit status in what requests and `onEnd` are told. */
  stop(reason?: string): Promise<void> {
    this.#stopReason ??= reason;
    return this.#process.stop();
  }

  #end(why: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    this.#stderr.flush();
    this.#faults.flush();
    const error = upstreamError(this.#options.label, why);
    for (const pending of [...this.#pending.values()]) pending.settle({ error });
    this.#options.onEnd(why);
  }

  #onLine(text: string): void {
    if (text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#faults.write(
        'wrote a stdout line that is not JSON; it was dropped (stdout is for MCP messages only, logs go to stderr)',
      );
      return;
    }
    if (!isObject(message) || message.jsonrpc !== '2.0') {
      this.#faults.write('wrote a stdout line that is not a JSON-RPC message; it was dropped');
      return;
    }
    if (typeof message.method === 'string') {
      if (message.id === undefined || message.id === null) this.#onNotification(message);
      else this.#answerServerRequest(message.method, message);
      return;
    }
    const pending = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
    if (pending === undefined || !('result' in message || 'error' in message)) {
      // A late answer to a request that timed out or was cancelled lands here too: nothing waits for it.
      return;
    }
    try {
      pending.settle({ result: resultOrThrow(message, this.#options.label) });
    } catch (error) {
      pending.settle({ error: error as JsonRpcError });
    }
  }

  /** The oldest request in flight that takes `what` (Map keeps insertion order: oldest first). */
  #oldest(takes: (pending: Pending) => boolean): Pending | undefined {
    for (const pending of this.#pending.values()) if (takes(pending)) return pending;
    return undefined;
  }

  #onNotification(message: UpstreamMessage): void {
    const params = isObject(message.params) ? message.params : undefined;
    if (message.method === 'notifications/progress') {
      const pending =
        params === undefined
          ? undefined
          : this.#oldest(
              (candidate) => candidate.progressKey !== undefined && candidate.progressKey === params.progressToken,
            );
      // The caller sees its own token again.
      pending?.options.onMessage?.({ ...message, params: { ...params, progressToken: pending.callerToken } });
    } else if (message.method === 'notifications/message') {
      this.#oldest((candidate) => candidate.options.onMessage !== undefined)?.options.onMessage?.(message);
    } else if (message.method !== 'notifications/cancelled') {
      this.#options.onNotification(message);
    }
  }

  /**
   * `ping` is answered `{}`; sampling, elicitation and roots go to the oldest request in flight with an `onRequest`
   * (the class comment says why); with no call in flight roots/list is answered with the upstream's `roots`, and
   * anything else gets -32601 (MCP 2025-11-25 lifecycle › Capability Negotiation), so the upstream never waits for an
   * answer that will not come.
   */
  #answerServerRequest(method: string, message: UpstreamMessage): void {
    const params = isObject(message.params) ? message.params : undefined;
    const target = RELAYED_METHODS.has(method)
      ? this.#oldest((candidate) => candidate.options.onRequest !== undefined)
      : undefined;
    target?.options.onMessage?.(message);
    const answer = serverRequestAnswer(
      method,
      params,
      target?.options.onRequest,
      this.#options.roots,
      RELAYED_METHODS.has(method) ? `no call in flight to relay ${method} to` : undefined,
    );
    void replyTo(message.id, answer)
      .then((reply) => this.#process.writeLine(JSON.stringify(reply)))
      .catch(() => undefined);
  }
}
