// input_required results (MCP 2026-07-28 MRTR): ctx.elicit / sample / listRoots answered from a retry, else the call ends asking.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject, type JsonRpcRequest } from '../../jsonrpc/types';
import { isAnswerTo, type ClientRequestMethod, type ClientRequests } from '../client-requests';
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ResolvedInputRequired,
  type StateBinding,
} from './request-state';

/** MCP 2026-07-28 MRTR: the only methods that may answer `input_required` (never any other). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Most keys of one retry's `inputResponses`: more than any handler asks for, few enough to bound the work. */
export const MAX_INPUT_RESPONSES = 64;

/** The answers of a call that brings none (no `inputResponses`, no `requestState`): only read. */
const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Longest explicit key of an ask (`{ key }`). */
export const MAX_INPUT_KEY_LENGTH = 128;

/** The prefix of a key derived from call order: the first elicitation of a run is `elicitation-1`, and so on. */
const KEY_PREFIX: Readonly<Record<ClientRequestMethod, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
});

/** One request a handler made that the retry did not answer: an entry of `inputRequests`. */
export interface InputRequest {
  readonly method: ClientRequestMethod;
  readonly params: Record<string, unknown>;
}

const ENDED =
  'ctx: this call already ended with an input_required result; the handler runs again when the client retries with the answers';

function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/** An answer that is not a result of what was asked (a retry's or a `tasks/update`'s `inputResponses`): -32602. */
export function invalidAnswer(key: string, method: ClientRequestMethod): JsonRpcError {
  return invalidParams(`inputResponses.${key} is not a valid ${method} result`);
}

/**
 * One run of a handler on a 2026 request that may ask: the {@link ClientRequests} its `ctx` uses. An ask the retry
 * answered resolves at once; one it did not is gathered, and once the handler can go no further (the asks it made in
 * the same turn of the event loop, e.g. under one `Promise.all`) the call ends with them.
 */
export class InputRound implements ClientRequests {
  // Made at the first ask: most calls ask nothing, and every 2026 tools/call, prompts/get and resources/read has a round.
  private counts: Map<ClientRequestMethod, number> | undefined;
  private missing: Map<string, InputRequest> | undefined;
  /** The answers this run used: sealed into the next requestState, so a later round need not ask again. */
  private used: Record<string, unknown> | undefined;
  private waiting: ((reason: Error) => void)[] | undefined;
  private ended = false;
  /** Ends {@link settle} with the asks not answered; set by settle, cleared by end. */
  private stuck: ((requests: Map<string, InputRequest>) => void) | undefined;

  constructor(
    private readonly answers: Readonly<Record<string, unknown>>,
    private readonly binding: StateBinding,
    private readonly codec: RequestStateCodec,
  ) {}

  request(
    method: ClientRequestMethod,
    params: Record<string, unknown> | undefined,
    _timeoutMs: number,
    _signal: AbortSignal,
    key?: string,
  ): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new Error(ENDED));
    this.counts ??= new Map();
    const count = (this.counts.get(method) ?? 0) + 1;
    this.counts.set(method, count);
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > MAX_INPUT_KEY_LENGTH)) {
      return Promise.reject(
        new TypeError(
          `ctx: the key of an ask must be a non-empty string of at most ${MAX_INPUT_KEY_LENGTH} characters`,
        ),
      );
    }
    const name = key ?? `${KEY_PREFIX[method]}-${count}`;
    if (Object.hasOwn(this.answers, name)) {
      const answer = this.answers[name];
      // MCP 2026-07-28 MRTR: servers SHOULD validate InputResponses; a malformed one is a protocol error.
      if (!isAnswerTo(method, answer)) return Promise.reject(invalidAnswer(name, method));
      (this.used ??= {})[name] = answer;
      return Promise.resolve(answer);
    }
    const missing = (this.missing ??= new Map());
    missing.set(name, { method, params: params ?? {} });
    // The asks made in this turn of the event loop go out together.
    if (missing.size === 1) setImmediate(() => this.stuck?.(missing));
    return new Promise((_resolve, reject) => {
      (this.waiting ??= []).push(reject);
    });
  }

  /**
   * The handler's result, or the `input_required` result when it asked for what the retry did not answer first.
   * Every input_required result carries a fresh requestState (MCP 2026-07-28 MRTR: at least one of the two fields),
   * with the answers used so far; it carries neither `ttlMs` nor `cacheScope` (the caller does not add them).
   */
  settle(output: Promise<Record<string, unknown>> | Record<string, unknown>): Promise<Record<string, unknown>> {
    // Whichever comes first, the result or the asks left unanswered once the handler can go no further: one promise
    // settled by either (a Promise.race of two mapped promises cost three more promises per call).
    return new Promise((resolve, reject) => {
      this.stuck = (requests) =>
        resolve({
          resultType: 'input_required',
          inputRequests: Object.fromEntries(requests) as Record<string, InputRequest>,
          requestState: this.codec.seal(this.binding, this.used ?? {}),
        });
      Promise.resolve(output).then(resolve, reject);
    });
  }

  /**
   * Ends the run once the call is answered: asks still waiting reject (so the handler's `finally` blocks run), and
   * later asks fail at once. Their rejections go nowhere: the answer is out.
   */
  end(): void {
    this.ended = true;
    this.stuck = undefined;
    for (const reject of this.waiting?.splice(0) ?? []) reject(new Error(ENDED));
  }
}

/** Serves input_required for one router. */
export interface InputRequired {
  /**
   * The round of a 2026 request: undefined for a method that may not ask (its asks fail), a -32602 error for
   * malformed `inputResponses` or a requestState that fails verification (the handler does not run then).
   */
  begin(request: JsonRpcRequest, principal: string | undefined): InputRound | JsonRpcError | undefined;
}

/**
 * Creates the input_required service of one router.
 *
 * @example
 * ```ts
 * const inputRequired = createInputRequired(resolveInputRequired({ stateKey: process.env.MCP_STATE_KEY }));
 * const round = inputRequired.begin({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book' } }, undefined);
 * // an InputRound: ctx.elicit(…) in the handler ends the call with { resultType: 'input_required', inputRequests, requestState }
 * ```
 */
export function createInputRequired(options: ResolvedInputRequired): InputRequired {
  const codec = createRequestStateCodec(options);
  return {
    begin(request, principal) {
      if (!INPUT_REQUIRED_METHODS.has(request.method)) return undefined;
      const params = request.params ?? {};
      const item = request.method === 'resources/read' ? params.uri : params.name;
      const binding: StateBinding = {
        principal,
        method: request.method,
        item: typeof item === 'string' ? item : '',
        arguments: params.arguments,
      };
      const { inputResponses, requestState } = params;
      if (inputResponses !== undefined && !isObject(inputResponses))
        return invalidParams('inputResponses must be an object of answers by key');
      if (inputResponses !== undefined && Object.keys(inputResponses).length > MAX_INPUT_RESPONSES)
        return invalidParams(`inputResponses has more than ${MAX_INPUT_RESPONSES} keys`);
      // A first call (no answers, no state) shares one empty set of answers.
      if (inputResponses === undefined && requestState === undefined) return new InputRound(NO_ANSWERS, binding, codec);
      let earlier: Record<string, unknown> = {};
      if (requestState !== undefined) {
        try {
          earlier = codec.open(requestState, binding);
        } catch (err) {
          return err as JsonRpcError;
        }
      }
      // The answers of earlier rounds are sealed; a retry cannot change them. Keys nobody asks for are ignored.
      return new InputRound({ ...inputResponses, ...earlier }, binding, codec);
    },
  };
}
