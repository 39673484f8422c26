// One JSON-RPC request answered: its method found in the request's era, run with a handler context, its result shaped for the era or its error made a JSON-RPC error.

import { failure, success } from '../jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { JsonRpcRequest, JsonRpcResponse } from '../jsonrpc/types';
import type { McpLogger } from '../logger';
import type { CacheHint } from '../registry/cache-hint';
import type { Registry } from '../registry/registry';
import { eraError, eraPolicy, type EraPolicy } from '../era-policy';
import { LazyAbort } from './abort';
import { createInputRequired, type InputRequired, type InputRound } from './era-2026/input-required';
import { resolveInputRequired, type ResolvedInputRequired } from './era-2026/request-state';
import { createShaper2026, type ResultShaper2026 } from './era-2026/result-envelope';
import { ClientUpdate, HandlerContext, requestKey, type ClientView, type DispatchEnvironment } from './handler-context';
import type { ServerIdentity } from './methods/lifecycle-methods';
import type { MethodEntry } from './methods/method-spec';

/** Methods whose answer depends on which features are offered: their capabilities. */
const WAITS_FOR_FEATURES = new Set(['initialize', 'server/discover']);

/** What answering a request needs of the dispatcher's settings. */
export interface AnswerSettings {
  readonly identity: ServerIdentity;
  readonly logger: McpLogger;
  /** Default time limit of ctx.sample / elicit / listRoots. */
  readonly clientRequestTimeoutMs: number;
  /** The cache hint of 2026 results that may be cached (the router's `cache`). */
  readonly cache: CacheHint;
  /** The requestState key and lifetime of 2026 input_required results; unset: its defaults. */
  readonly inputRequired?: ResolvedInputRequired;
}

/** A request's own abort and its place among the session's requests in flight, until the request is over. */
interface TrackedRequest {
  readonly abort: LazyAbort;
  /** Lets go of the transport's signal and of the in-flight entry. */
  release(): void;
}

/**
 * The request's own abort (so it can be cancelled alone), aborted too when the transport gives up; registered in
 * flight so that `notifications/cancelled` finds it (MCP cancellation: initialize cannot be cancelled).
 */
function trackRequest(request: JsonRpcRequest, env: DispatchEnvironment): TrackedRequest {
  const abort = new LazyAbort();
  const onGone = (): void => abort.abort(env.signal.reason);
  if (env.signal.aborted) onGone();
  else env.signal.addEventListener('abort', onGone, { once: true });
  const key = env.inflight !== undefined && request.method !== 'initialize' ? requestKey(request.id) : undefined;
  if (key !== undefined) env.inflight?.set(key, abort);
  return {
    abort,
    release: () => {
      env.signal.removeEventListener('abort', onGone);
      if (key !== undefined && env.inflight?.get(key) === abort) env.inflight.delete(key);
    },
  };
}

/** Answers the requests of one router from its method table (the dispatcher's, which extensions may grow). */
export class RequestAnswerer {
  private readonly shape2026: ResultShaper2026;
  private readonly inputRequired: InputRequired;

  constructor(
    private readonly registry: Registry,
    private readonly methods: Readonly<Record<string, MethodEntry>>,
    private readonly settings: AnswerSettings,
  ) {
    this.shape2026 = createShaper2026(settings.identity.serverInfo, settings.cache);
    this.inputRequired = createInputRequired(settings.inputRequired ?? resolveInputRequired(undefined));
  }

  /** The response to `request`; null when none is to be sent (MCP cancellation: not for a cancelled request). */
  async answer(request: JsonRpcRequest, env: DispatchEnvironment, view: ClientView): Promise<JsonRpcResponse | null> {
    const entry = Object.hasOwn(this.methods, request.method) ? this.methods[request.method] : undefined;
    const loading = this.loadingFor(request.method, entry);
    if (loading !== undefined) await loading;
    // JSON-RPC: unknown method → -32601; MCP: so is a method its era does not have, or of a capability never declared.
    if (entry === undefined || !entry.eras.includes(env.era) || !this.offers(entry))
      return failure(request.id, new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`));
    const policy = eraPolicy(env.era);
    // MCP 2026-07-28 MRTR: a retry's answers and requestState, checked before the handler runs (input-required.ts).
    const round = policy.inputRequiredRounds ? this.inputRequired.begin(request, env.auth?.subject) : undefined;
    if (round instanceof JsonRpcError) return failure(request.id, round);
    const tracked = trackRequest(request, env);
    const { abort } = tracked;
    const ctx = new HandlerContext(request, env, view, abort, this.settings.clientRequestTimeoutMs, round);
    /** True once the call is answered with input_required while its handler still waits on an ask. */
    let asking = false;
    try {
      const result = await this.run(entry, request, ctx, view, round);
      asking = result.resultType === 'input_required';
      // MCP cancellation: no response is sent for a cancelled request.
      if (abort.aborted) return null;
      return success(request.id, this.shapeResult(entry, policy, result));
    } catch (err) {
      return abort.aborted ? null : failure(request.id, this.errorOf(request, env, err));
    } finally {
      ctx.finished = true;
      round?.end();
      // MCP 2026-07-28 MRTR: the run that asked is over (the retry runs the handler again): its signal aborts, so what
      // it started stops (a forwarded upstream call, a fetch) instead of running on beside the retry's run.
      if (asking) abort.abort(new Error('the call ended with input_required; the retry runs it again'));
      tracked.release();
    }
  }

  /**
   * The first loads to wait for: an upstream's first lists (bounded by its listTimeoutMs) may bring a feature, hence
   * a capability and its methods, so the handshake and a method of a feature not offered yet wait for them instead
   * of answering without.
   */
  private loadingFor(method: string, entry: MethodEntry | undefined): Promise<void> | undefined {
    const loading = this.registry.loaded();
    if (loading === undefined) return undefined;
    return WAITS_FOR_FEATURES.has(method) || !this.offers(entry) ? loading : undefined;
  }

  /** Whether the capability the method belongs to (if any) is offered. */
  private offers(entry: MethodEntry | undefined): boolean {
    return entry?.capability === undefined || this.registry.features[entry.capability];
  }

  /** Runs the method; a {@link ClientUpdate} is applied at once, as it returns: the next message of a batch sees it. */
  private async run(
    entry: MethodEntry,
    request: JsonRpcRequest,
    ctx: HandlerContext,
    view: ClientView,
    round: InputRound | undefined,
  ): Promise<Record<string, unknown>> {
    let output = entry.run(request.params ?? {}, ctx, view.client, ctx.line);
    if (output instanceof ClientUpdate) {
      view.client = { ...view.client, ...output.changes };
      output = output.result;
    }
    return round === undefined ? await output : await round.settle(output);
  }

  /** The result in the era's envelope; MCP 2026-07-28 caching: an input_required result carries no ttlMs or cacheScope. */
  private shapeResult(entry: MethodEntry, policy: EraPolicy, result: Record<string, unknown>): Record<string, unknown> {
    if (!policy.resultEnvelope) return result;
    return this.shape2026(result, entry.cacheable === true && result.resultType !== 'input_required');
  }

  /** What the method threw, as the request's JSON-RPC error: a {@link JsonRpcError} in the era's form; anything else -32603, logged. */
  private errorOf(request: JsonRpcRequest, env: DispatchEnvironment, err: unknown): JsonRpcError {
    if (err instanceof JsonRpcError) return eraError(env.era, err);
    this.settings.logger.error(err, `mcpRouter: ${request.method} failed`);
    return new JsonRpcError(ErrorCode.InternalError, 'Internal error');
  }
}
