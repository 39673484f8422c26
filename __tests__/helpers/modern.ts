// Test helpers for MCP 2026-07-28 requests over HTTP: the `_meta` envelope and a POST carrying the standard headers.

import type { Express } from 'express';
import type request from 'supertest';
import { post, rpc } from './create-app';

export const MODERN = '2026-07-28';

/** The `_meta` envelope every modern request carries (MCP 2026-07-28 per-request metadata). */
export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** The `Mcp-Name` header a method carries (MCP 2026-07-28 transports, SEP-2243). */
export function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return params.name as string;
  if (method === 'resources/read') return params.uri as string;
  return undefined;
}

/** POSTs a modern request (id 7) with its envelope and standard headers; `headers` override or (undefined) remove them. */
export function modern(
  app: Express,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
  meta: Record<string, unknown> = {},
): request.Test {
  const body = rpc(method, { ...params, _meta: envelope(meta) }, 7);
  return post(app, body, {
    'MCP-Protocol-Version': MODERN,
    'Mcp-Method': method,
    'Mcp-Name': nameOf(method, params),
    ...headers,
  });
}
