// How an upstream's items are named downstream: `<prefix>__<name>` for tools and prompts, `<prefix>+<uri>` for resources (`ui://<prefix>+…` for apps), and the rewriting of URIs inside results.

import { isObject } from '../../../core/jsonrpc/types';
import { UI_SCHEME } from '../../../core/registry/ui-link';

/** Between a prefix and a tool or prompt name: `fs__read_file`. */
export const NAME_SEPARATOR = '__';
/** Between a prefix and a resource URI: `fs+file:///etc/motd` (RFC 3986 §3.1: `+` may follow the first letter of a scheme). */
export const URI_SEPARATOR = '+';

/**
 * A prefix: a letter, then letters, digits and `-`. It must fit both a tool name (MCP 2025-11-25 tools › Tool Names:
 * `[A-Za-z0-9_.-]`) and the start of a URI scheme (RFC 3986 §3.1), and may not hold `_` or `.`, so `fs__x` and
 * `fs+x:` can only have been made from prefix `fs`.
 */
export const PREFIX = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;

/** MCP 2025-11-25 tools › Tool Names: 1–128 characters of `A-Z a-z 0-9 _ - .`. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Most clients (Claude, OpenAI) refuse tool names above this: a longer name is registered with a warning. */
export const PORTABLE_NAME_LENGTH = 64;

/** An upstream's names as the gateway shows them, and back. */
export interface Naming {
  /** The downstream name of an upstream tool or prompt (a `rename` applied first). */
  name(original: string): string;
  /** The downstream URI (or URI template) of an upstream's resource. */
  uri(original: string): string;
  /** The upstream URI of a downstream one; undefined for a URI that is not this upstream's. */
  originalUri(exposed: string): string | undefined;
}

/**
 * The naming of one upstream; without a prefix (a plain proxy) names and URIs are untouched. An app's `ui://` URI
 * keeps its scheme, which hosts require (SEP-1865 UI Resource Format), the prefix joining its authority
 * (`+` is allowed in an RFC 3986 §3.2.2 reg-name, and a prefix holds none, so it ends at the first `+`).
 *
 * @example
 * ```ts
 * const naming = namingFor('fs', { very_long_tool_name: 'short' });
 * naming.name('read_file');                 // 'fs__read_file'
 * naming.uri('file:///etc/motd');           // 'fs+file:///etc/motd'
 * naming.uri('ui://files/viewer');          // 'ui://fs+files/viewer'
 * naming.originalUri('fs+file:///x');       // 'file:///x'
 * naming.originalUri('ui://fs+files/view'); // 'ui://files/view'
 * ```
 */
export function namingFor(prefix: string | undefined, rename: Readonly<Record<string, string>> = {}): Naming {
  const renamed = (original: string): string => (Object.hasOwn(rename, original) ? rename[original]! : original);
  if (prefix === undefined) return { name: renamed, uri: (uri) => uri, originalUri: (uri) => uri };
  const uriStart = `${prefix}${URI_SEPARATOR}`;
  const uiStart = `${UI_SCHEME}${uriStart}`;
  return {
    name: (original) => `${prefix}${NAME_SEPARATOR}${renamed(original)}`,
    uri: (original) =>
      original.startsWith(UI_SCHEME) ? `${uiStart}${original.slice(UI_SCHEME.length)}` : `${uriStart}${original}`,
    originalUri: (exposed) =>
      exposed.startsWith(uiStart)
        ? `${UI_SCHEME}${exposed.slice(uiStart.length)}`
        : exposed.startsWith(uriStart)
          ? exposed.slice(uriStart.length)
          : undefined,
  };
}

/**
 * What a prefix owns from its mount on (see registry/namespaces.ts): tool and prompt names `<prefix>__…`, resource
 * URIs `<prefix>+…` and apps' `ui://<prefix>+…`. A prefix holds no `_`, `+`, `:` or `/`, so no two prefixes' starts
 * overlap: the prefix of a name or URI is read one way only.
 */
export function namespaceOf(prefix: string): { readonly names: readonly string[]; readonly uris: readonly string[] } {
  const uriStart = `${prefix}${URI_SEPARATOR}`;
  return { names: [`${prefix}${NAME_SEPARATOR}`], uris: [uriStart, `${UI_SCHEME}${uriStart}`] };
}

/** Why a downstream tool or prompt name cannot be used, or undefined when it can. */
export function badName(name: string): string | undefined {
  return TOOL_NAME.test(name) ? undefined : `'${name.slice(0, 140)}' is not 1–128 characters of A-Z a-z 0-9 _ . -`;
}

/** A content block with its resource URI (a link or an embedded resource) rewritten; anything else as it is. */
function rewriteBlock(block: unknown, uri: (original: string) => string): unknown {
  if (!isObject(block)) return block;
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: uri(block.uri) };
  if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.uri === 'string') {
    return { ...block, resource: { ...block.resource, uri: uri(block.resource.uri) } };
  }
  return block;
}

/** A tool result with the URIs of its resource links and embedded resources rewritten (`content` only: structuredContent is the tool's own data). */
export function rewriteToolResult(result: Record<string, unknown>, naming: Naming): Record<string, unknown> {
  if (!Array.isArray(result.content)) return result;
  return { ...result, content: result.content.map((block) => rewriteBlock(block, naming.uri)) };
}

/** A prompt result with the URIs of its messages' resources rewritten. */
export function rewritePromptResult(result: Record<string, unknown>, naming: Naming): Record<string, unknown> {
  if (!Array.isArray(result.messages)) return result;
  const messages = result.messages.map((message) =>
    isObject(message) ? { ...message, content: rewriteBlock(message.content, naming.uri) } : message,
  );
  return { ...result, messages };
}

/** A read result with each content's URI rewritten. */
export function rewriteReadResult(result: Record<string, unknown>, naming: Naming): Record<string, unknown> {
  if (!Array.isArray(result.contents)) return result;
  const contents = result.contents.map((content) =>
    isObject(content) && typeof content.uri === 'string' ? { ...content, uri: naming.uri(content.uri) } : content,
  );
  return { ...result, contents };
}
