// A tool as users define it (mcp.tool), and the one table of its keys: the MCP wire fields and the router's own.

import type { OptionKeys } from '../../options/config-error';
import type { AccessRule } from './access';
import { CALL_LIMIT_KEYS, type CallLimitOptions } from './call-limit';
import type { Icon } from './definition';
import type { ToolGuard } from './guards';
import type { RequestContext } from './request-context';
import type { JsonSchema } from './tool-schemas';
import { UI_LINK_KEYS, type ToolUiLink } from './ui-link';

/** Hints about a tool's behaviour (MCP 2025-03-26 and later); clients must not trust them for security. */
export interface ToolAnnotations {
  /** A display name for people (the tool's own `title` wins). */
  title?: string;
  /** The tool changes nothing. A hint for the client, not a guarantee. Defaults to `false`. */
  readOnlyHint?: boolean;
  /** The tool may delete or overwrite (meaningful when not read-only). A hint for the client. Defaults to `true`. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. A hint for the client. Defaults to `false`. */
  idempotentHint?: boolean;
  /** The tool reaches outside systems (the web, other services), not only its own data. Defaults to `true`. */
  openWorldHint?: boolean;
}

/** A tool as registered with `mcp.tool()`. */
export interface ToolDefinition<Args = Record<string, unknown>> extends AccessRule {
  /** 1–128 characters of `A-Z a-z 0-9 _ . -`, unique in the router (MCP 2025-11-25 tool names). */
  name: string;
  /** A human-readable name for UIs. */
  title?: string;
  /** What the tool does, for the model: required, since a model cannot use a tool it cannot read about. */
  description: string;
  /** JSON Schema of the arguments (`type: 'object'`). Defaults to `{ type: 'object', additionalProperties: false }`. */
  inputSchema?: JsonSchema;
  /** JSON Schema of `structuredContent`; when given, every successful result is checked against it. */
  outputSchema?: JsonSchema;
  /** Hints for the client about what the tool does (read-only, destructive, …). Defaults to none. */
  annotations?: ToolAnnotations;
  /** Icons a client may show beside it (MCP 2025-11-25). Defaults to none. */
  icons?: Icon[];
  /** Extra data listed with it, for clients that know its keys. Defaults to none. */
  _meta?: Record<string, unknown>;
  /**
   * The MCP App (registered with `mcp.app()` before this tool) that shows its results: the app's name or `ui://`
   * URI, or `{ app, visibility }`; `visibility: ['app']` keeps the tool from clients that do not render apps.
   * Listed as `_meta.ui` (SEP-1865). Defaults to none.
   */
  ui?: ToolUiLink;
  /** Longest a call may run: then its signal aborts and the caller gets an `isError` result. Defaults to no limit. */
  timeoutMs?: number;
  /** At most `limit` calls per `windowMs` per caller (principal, else session); more get an `isError` result. Defaults to none. */
  rateLimit?: CallLimitOptions;
  /**
   * Guards around each call, after the router's `guards` and before the handler (see {@link Guard} for the
   * whole order): they may let a call through, end it with a result or a JSON-RPC error, or change its result.
   * Defaults to none.
   */
  guards?: ReadonlyArray<ToolGuard>;
  /**
   * Whether a call may run as a long-running task (MCP tasks: the 2025-11-25 `execution.taskSupport`; the 2026
   * `io.modelcontextprotocol/tasks` extension): `'optional'` runs as a task when the client asks for one (2025: the
   * call's `task` param) or supports them (2026: the extension in its capabilities), else as a plain call;
   * `'required'` refuses a call that cannot run as a task. The call then answers at once with a task handle and
   * the handler runs on, past the HTTP request, until done or `tasks/cancel` aborts `ctx.signal`. Defaults to none.
   */
  task?: TaskSupport;
  /**
   * When a call that runs as a task becomes one: `'call'` (the default) at once, the whole handler running as the
   * task; `'handler'` when the handler calls `await ctx.continueAsTask()`, so that it can ask first (`ctx.elicit`…,
   * in 2026 through `input_required` retries of the call) and hand the long part to the task. Needs `task`.
   */
  taskStart?: 'call' | 'handler';
  /**
   * Runs the tool. Return a string (→ text), a plain object (→ `structuredContent` plus its JSON as text),
   * a content block, or a whole {@link CallToolResult}. A throw becomes an `isError` result with the message.
   */
  handler(args: Args, ctx: RequestContext): unknown;
}

/** How a tool runs as a task: see {@link ToolDefinition.task}. */
export type TaskSupport = 'optional' | 'required';

/**
 * The fields of an MCP Tool (schema 2025-11-25 and 2026-07-28 › Tool) a definition gives as they go on the wire:
 * `tools/list` shows them (the schemas and `_meta` once checked), and a gateway takes them from an upstream's entry.
 * `execution` (2025-11-25) is not one: `task` sets it.
 */
export const TOOL_WIRE_FIELDS = {
  name: true,
  title: true,
  description: true,
  inputSchema: true,
  outputSchema: true,
  annotations: true,
  icons: true,
  _meta: true,
} as const satisfies Partial<OptionKeys<ToolDefinition>>;
/** Every key of a tool definition: the wire fields and this router's own. */
export const TOOL_KEYS: OptionKeys<ToolDefinition> = {
  ...TOOL_WIRE_FIELDS,
  scopes: true,
  canAccess: true,
  ui: true,
  timeoutMs: true,
  rateLimit: true,
  guards: true,
  task: true,
  taskStart: true,
  handler: true,
};
/** The nested options of a tool that are this router's: their keys are checked too. */
export const TOOL_NESTED_KEYS = { ui: UI_LINK_KEYS, rateLimit: CALL_LIMIT_KEYS };
