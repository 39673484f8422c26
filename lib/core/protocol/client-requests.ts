// The one channel of server→client requests (sampling, elicitation, roots): how a request asks its client, and the 2025 strategy that sends the asks on the request's SSE stream.

import {
  isObject,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../jsonrpc/types';

/** The requests a server may send its client, each with the client capability it needs (MCP 2025-06-18 lifecycle). */
export const CLIENT_REQUEST_CAPABILITY = Object.freeze({
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
} as const);

/** One of the requests in {@link CLIENT_REQUEST_CAPABILITY}. */
export type ClientRequestMethod = keyof typeof CLIENT_REQUEST_CAPABILITY;

/** An elicitation's `content` (MCP 2025-06-18 elicitation: ElicitResult): a flat object of strings, numbers, booleans and string arrays. */
function isElicitContent(content: unknown): boolean {
  if (content === undefined) return true;
  if (!isObject(content)) return false;
  return Object.values(content).every(
    (value) =>
      ['string', 'number', 'boolean'].includes(typeof value) ||
      (Array.isArray(value) && value.every((item) => typeof item === 'string')),
  );
}

/** Whether an answer has the shape of its method's result (MCP schema: ElicitResult, CreateMessageResult, ListRootsResult). */
const IS_RESULT_OF: Readonly<Record<ClientRequestMethod, (answer: Record<string, unknown>) => boolean>> = Object.freeze(
  {
    'elicitation/create': (answer) =>
      (answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel') &&
      isElicitContent(answer.content),
    'sampling/createMessage': (answer) =>
      (answer.role === 'user' || answer.role === 'assistant') &&
      (isObject(answer.content) || Array.isArray(answer.content)),
    'roots/list': (answer) =>
      Array.isArray(answer.roots) && answer.roots.every((root) => isObject(root) && typeof root.uri === 'string'),
  },
);

/**
 * Whether the client's answer to an ask is a result of that ask's method: the one check of answers, whichever way
 * they arrive (a 2025 POSTed response, a 2026 retry's `inputResponses`, a `tasks/update`), so a handler never gets
 * `{ action: 'banana' }` from `ctx.elicit` (MCP 2026-07-28 MRTR: servers SHOULD validate InputResponses).
 */
export function isAnswerTo(method: ClientRequestMethod, answer: unknown): answer is Record<string, unknown> {
  return isObject(answer) && IS_RESULT_OF[method](answer);
}

/**
 * How `ctx.sample`, `ctx.elicit` and `ctx.listRoots` reach the client and get its answer. The handler context checks
 * what is era-neutral (the client declared the capability); a strategy does the rest. In a 2025 request it is
 * {@link StreamedClientRequests}; a 2026 request (no server→client requests: an `input_required` result and a retry)
 * plugs in its own.
 */
export interface ClientRequests {
  /**
   * Asks the client and resolves with its result; rejects with an Error saying why it could not (no stream, the time
   * limit, the request was cancelled, the client answered with an error).
   *
   * @param key - the ask's key in a 2026 `input_required` result (`ctx.elicit(params, { key })`); a 2025 request ignores it
   */
  request(
    method: ClientRequestMethod,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    signal: AbortSignal,
    key?: string,
  ): Promise<Record<string, unknown>>;
}

/** How messages reach the client while a request runs, and how its answers come back: provided by the transport. */
export interface ClientChannel {
  /** Whether anything can reach the client during this request (its reply can be an SSE stream). */
  readonly canStream: boolean;
  /** Sends a notification or a request on the stream of the request being served. */
  send(message: JsonRpcNotification | JsonRpcRequest): Promise<void>;
  /** A fresh id for a server→client request, never reused in the session (JSON-RPC: ids unique per sender). */
  nextRequestId(): JsonRpcId;
  /** Starts waiting for the client's answer to the server→client request `id`; `stop()` gives up waiting. */
  awaitAnswer(id: JsonRpcId): Promise<{ readonly answer: Promise<JsonRpcResponse>; stop(): void }>;
  /** Hands a response the client POSTed to whoever waits for it. */
  deliver(response: JsonRpcResponse): Promise<void>;
  /** Ends the connection of this request's stream, keeping the stream resumable. */
  closeStream(): void;
}

/** A channel for requests that cannot stream (JSON replies, stateless mode): nothing reaches the client mid-request. */
export const NO_STREAM: ClientChannel = Object.freeze({
  canStream: false,
  send: async () => undefined,
  nextRequestId: () => 0,
  awaitAnswer: async () => ({ answer: new Promise<JsonRpcResponse>(() => undefined), stop: () => undefined }),
  deliver: async () => undefined,
  closeStream: () => undefined,
});

/**
 * The 2026 strategy of methods that may not ask. MCP 2026-07-28 has no server→client requests (never on a 2026
 * request's stream): tools/call, prompts/get and resources/read ask through an `input_required` result and the
 * client's retry (input-required.ts); any other method may not answer `input_required` (MRTR), so its asks fail.
 */
export const NO_CLIENT_REQUESTS: ClientRequests = Object.freeze({
  request: (method: ClientRequestMethod) =>
    Promise.reject(
      new Error(
        `ctx: ${method} cannot be asked here: an MCP 2026-07-28 request asks only from tools/call, prompts/get and resources/read (through an input_required result)`,
      ),
    ),
});

/** The 2025 strategy: a real JSON-RPC request on the caller's SSE stream, answered by a POSTed response. */
export class StreamedClientRequests implements ClientRequests {
  constructor(private readonly channel: ClientChannel) {}

  async request(
    method: ClientRequestMethod,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const { channel } = this;
    if (!channel.canStream) {
      throw new Error(
        `ctx: ${method} needs a streamed reply: the client must accept text/event-stream, the router must keep sessions, and responseMode must not be 'json'`,
      );
    }
    if (signal.aborted) throw new Error(`ctx: ${method} not sent, the request was cancelled`);
    const id = channel.nextRequestId();
    const waiting = await channel.awaitAnswer(id);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let givenUpWhy: string | undefined;
    const givenUp = new Promise<never>((_resolve, reject) => {
      const giveUp = (why: string): void => {
        givenUpWhy = why;
        reject(new Error(`ctx: ${why}`));
      };
      timer = setTimeout(() => giveUp(`the client did not answer ${method} within ${timeoutMs} ms`), timeoutMs);
      onAbort = () => giveUp(`${method} abandoned, the request was cancelled`);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await channel.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      const response = await Promise.race([waiting.answer, givenUp]);
      if ('error' in response)
        throw new Error(
          `ctx: the client answered ${method} with error ${response.error.code}: ${response.error.message}`,
        );
      if (!isAnswerTo(method, response.result))
        throw new Error(`ctx: the client's answer to ${method} is not a valid ${method} result`);
      return response.result;
    } catch (err) {
      // MCP lifecycle › Timeouts: on giving up, the server SHOULD send notifications/cancelled.
      if (givenUpWhy !== undefined) {
        await channel
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: givenUpWhy } })
          .catch(() => undefined);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      waiting.stop();
    }
  }
}
