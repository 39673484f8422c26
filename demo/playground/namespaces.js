// Items a gateway mounted from another MCP server, told by their names: it calls them <prefix>__<name> (tools,
// prompts) and <prefix>+<uri> (resources, templates). The playground groups them under their prefix with a badge.

/** A gateway prefix (a letter, then letters, digits or -), then `__` and the upstream's own name. */
const NAME = /^([A-Za-z][A-Za-z0-9-]{0,31})__(.+)$/;
/** A gateway prefix, then `+` and the upstream's own URI (which has its own scheme and `:`). */
const URI = /^([A-Za-z][A-Za-z0-9-]{0,31})\+([A-Za-z][A-Za-z0-9+.-]*:.*)$/;

/** The prefix of a tool or prompt name, or undefined for a local item. */
export function upstreamOfName(name) {
  return typeof name === 'string' ? NAME.exec(name)?.[1] : undefined;
}

/**
 * The prefix of a resource URI or template, or undefined for a local one. Only prefixes also seen on tool or prompt
 * names count, so a local URI whose scheme merely contains `+` (`svn+ssh:`) is not taken for a mounted one.
 */
export function upstreamOfUri(uri, knownPrefixes) {
  const prefix = typeof uri === 'string' ? URI.exec(uri)?.[1] : undefined;
  return prefix !== undefined && knownPrefixes.has(prefix) ? prefix : undefined;
}

/**
 * List entries with local items first, then each upstream's under a heading; within a group, the server's order.
 *
 * @param {unknown[]} items - list entries as the server sent them
 * @param {(item: unknown) => string | undefined} prefixOf - the item's upstream prefix, or undefined
 * @param {(item: unknown, prefix: string | undefined) => HTMLElement} render - one list entry
 * @param {(prefix: string) => HTMLElement} heading - the heading above an upstream's group
 */
export function grouped(items, prefixOf, render, heading) {
  const groups = new Map([[undefined, []]]);
  for (const item of items) {
    const prefix = prefixOf(item);
    if (!groups.has(prefix)) groups.set(prefix, []);
    groups.get(prefix).push(item);
  }
  return [...groups].flatMap(([prefix, members]) =>
    members.length === 0
      ? []
      : [...(prefix === undefined ? [] : [heading(prefix)]), ...members.map((item) => render(item, prefix))],
  );
}
