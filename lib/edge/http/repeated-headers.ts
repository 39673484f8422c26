// Repeated request headers: which of the headers a router acts on came more than once (read from the raw header lines).

/**
 * The first header of `rawHeaders` (Node's `req.rawHeaders`: name, value, name, value…) that comes more than once and
 * that `watched` cares about, by its name as sent; undefined when none does. Node joins most repeated headers with
 * ", " into one value, so a repeated header can pass for one whose value holds a comma — while a proxy that reads
 * only the first (or the last) line acts on another value than this router (request smuggling by header repetition).
 *
 * @param watched - whether a header name, in any case, is one the caller acts on (cheap: it sees every name)
 * @example
 * ```ts
 * repeatedHeader(['Mcp-Param-Region', 'eu', 'mcp-param-region', 'us'], isMcpHeader); // 'mcp-param-region'
 * ```
 */
export function repeatedHeader(rawHeaders: readonly string[], watched: (name: string) => boolean): string | undefined {
  let seen: Set<string> | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (!watched(name)) continue;
    const lower = name.toLowerCase();
    seen ??= new Set();
    if (seen.has(lower)) return name;
    seen.add(lower);
  }
  return undefined;
}

/**
 * Whether any header of `headers` that `watched` cares about may be repeated: Node joined it into a value holding a
 * comma. A cheap first look, so that the raw lines are read only for a request that may repeat one.
 */
export function mayRepeat(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  watched: (name: string) => boolean,
): boolean {
  for (const name in headers) {
    if (!watched(name)) continue;
    const value = headers[name];
    if (typeof value !== 'string' || value.includes(',')) return true;
  }
  return false;
}

/** Whether a header name, in any case, is one of MCP's own (`MCP-Protocol-Version`, `Mcp-Session-Id`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`). */
export function isMcpHeader(name: string): boolean {
  // m, c, p in either case, then '-': no string is made for the many headers that are not MCP's.
  return (
    name.length > 4 &&
    (name.charCodeAt(0) | 0x20) === 0x6d &&
    (name.charCodeAt(1) | 0x20) === 0x63 &&
    (name.charCodeAt(2) | 0x20) === 0x70 &&
    name.charCodeAt(3) === 0x2d
  );
}
