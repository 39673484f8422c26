// A message as its observer is told of it, and the setting it is served in (revision, session, HTTP client, known names).

import type { JsonRpcId } from '../jsonrpc/types';

/** One JSON-RPC request or notification as its observer sees it. */
export interface ObservedMessage {
  readonly method: string;
  /** Absent for a notification. */
  readonly id?: JsonRpcId;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** What the dispatcher knows of the request around a message: its revision, session and HTTP client. */
export interface MessageSetting {
  readonly protocolVersion: string;
  readonly sessionId: string | undefined;
  /** The HTTP client's address; undefined without HTTP (then no network.* attributes either). */
  readonly clientAddress: () => string | undefined;
  /** The HTTP version (`'1.1'`, `'2.0'`); undefined without HTTP. */
  readonly networkProtocolVersion?: string | undefined;
  /**
   * Whether a tool (tools/call) or prompt (prompts/get) of that name is registered. Only those names go on the
   * histogram: a name the client made up would add an attribute set per name, so metrics memory would grow with what
   * clients send. Without it (no registry at hand), none do.
   */
  readonly registered?: (method: string, name: string) => boolean;
  /**
   * Whether the router knows a method (its method table, the notifications MCP lets a client send). Only those are
   * named, in `mcp.method.name` and span names; any other is `_OTHER`, its name kept on the span alone, cut short: a
   * client sending made-up methods must not add a series or a span name per method. Without it, none is named.
   */
  readonly knownMethod?: (method: string) => boolean;
}
