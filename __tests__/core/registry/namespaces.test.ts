// Namespaces: a claim owns its names and URIs (without case), refuses the router's own items and overlapping claims, and takes its keys back from other groups.

import { McpConfigError } from '../../../lib/options/config-error';
import { Collection } from '../../../lib/core/registry/collection';
import { Namespaces, type NamespaceClaim } from '../../../lib/core/registry/namespaces';
import { namespaceOf, PREFIX } from '../../../lib/features/gateway/mount/prefixed-names';

function registry(namespaces: Namespaces) {
  const collection = (kind: string, keys: 'name' | 'uri') =>
    new Collection<string>(kind, (key, group) => namespaces.refuseTaken(keys, kind, key, group));
  return {
    tools: collection('tool', 'name'),
    prompts: collection('prompt', 'name'),
    resources: collection('resource', 'uri'),
    templates: collection('resource template', 'uri'),
  };
}

function claimOf(prefix: string, group: number): NamespaceClaim {
  return { owner: `upstream '${prefix}' (prefix '${prefix}')`, group, ...namespaceOf(prefix) };
}

describe('Namespaces', () => {
  it('a claim owns `<prefix>__…`, `<prefix>+…` and `ui://<prefix>+…`, compared without case', () => {
    const namespaces = new Namespaces();
    namespaces.claim(claimOf('fs', 1), registry(namespaces));
    for (const name of ['fs__read', 'FS__read', 'fs__'])
      expect(namespaces.ownerOf('name', name)?.owner).toBe("upstream 'fs' (prefix 'fs')");
    for (const uri of ['fs+file:///x', 'FS+file:///x', 'ui://fs+app/v', 'UI://Fs+app/v'])
      expect(namespaces.ownerOf('uri', uri)?.group).toBe(1);
    for (const name of ['fs_read', 'fsx__read', 'fs-x__read', 'x__fs__read'])
      expect(namespaces.ownerOf('name', name)).toBe(undefined);
    for (const uri of ['file:///fs+x', 'fsx+file:///x', 'ui://fsx+app', 'ui://app/fs+x'])
      expect(namespaces.ownerOf('uri', uri)).toBe(undefined);
    // A name is not a URI: `fs+x` as a tool name is no one's.
    expect(namespaces.ownerOf('name', 'fs+x')).toBe(undefined);
  });

  it("the owner's group may add keys in it; another group, or the router's own (0), is refused naming both", () => {
    const namespaces = new Namespaces();
    const lists = registry(namespaces);
    namespaces.claim(claimOf('fs', 2), lists);
    lists.tools.add('fs__read', 'mine', 2);
    expect(() => lists.tools.add('fs__write', 'theirs', 1)).toThrow(
      "mcpRouter: tool 'fs__write' is in the namespace of upstream 'fs' (prefix 'fs'), which only its items may use; pick another name",
    );
    expect(() => lists.templates.add('FS+x://{id}', 'local')).toThrow(McpConfigError);
    expect(lists.tools.size + lists.templates.size).toBe(1);
  });

  it("claiming refuses a namespace holding one of the router's own items, and removes other groups' items", () => {
    const namespaces = new Namespaces();
    const lists = registry(namespaces);
    lists.resources.add('ui://fs+app', 'local');
    expect(() => namespaces.claim(claimOf('fs', 2), lists)).toThrow(
      "upstream 'fs' (prefix 'fs') cannot be mounted: the router's own resource 'ui://fs+app' is in its namespace",
    );
    // A refused claim holds nothing.
    expect(namespaces.ownerOf('name', 'fs__x')).toBe(undefined);
    lists.resources.remove('ui://fs+app', 'local');
    lists.tools.add('fs__read', 'listed first', 1);
    lists.prompts.add('other', 'kept', 1);
    const hold = namespaces.claim(claimOf('fs', 2), lists);
    expect([...hold.evicted]).toEqual([1]);
    expect([...lists.tools.values()]).toEqual([]);
    expect([...lists.prompts.values()]).toEqual(['kept']);
    hold.release();
    lists.tools.add('fs__read', 'free again', 1);
  });

  it('overlapping claims are refused: no key may have two owners', () => {
    const namespaces = new Namespaces();
    const lists = registry(namespaces);
    namespaces.claim(claimOf('a', 1), lists);
    const overlapping = { owner: 'upstream x', group: 2, names: ['a__b__'], uris: [] };
    expect(() => namespaces.claim(overlapping, lists)).toThrow(
      "mcpRouter: upstream x overlaps the namespace of upstream 'a' (prefix 'a')",
    );
    expect(() => namespaces.claim({ ...overlapping, names: ['A_'] }, lists)).toThrow(/overlaps/);
    expect(() => namespaces.claim({ ...overlapping, names: [], uris: ['ui://a+x'] }, lists)).toThrow(/overlaps/);
    expect(namespaces.claim(claimOf('a-b', 3), lists).evicted.size).toBe(0);
  });

  it('two prefixes the gateway accepts never overlap (a prefix holds no `_`, `+`, `:` or `/`)', () => {
    const prefixes = ['a', 'A', 'a-b', 'ab', 'ui', 'u', 'fs', 'fs-1', 'x'.repeat(32)].filter((prefix) =>
      PREFIX.test(prefix),
    );
    const pairs = prefixes.flatMap((first) =>
      prefixes.filter((second) => second.toLowerCase() !== first.toLowerCase()).map((second) => [first, second]),
    );
    expect(pairs.length).toBeGreaterThan(50);
    for (const [first, second] of pairs) {
      const namespaces = new Namespaces();
      const lists = registry(namespaces);
      namespaces.claim(claimOf(first!, 1), lists);
      expect(() => namespaces.claim(claimOf(second!, 2), lists)).not.toThrow();
    }
    expect(PREFIX.test('a__b')).toBe(false);
    expect(PREFIX.test('a+b')).toBe(false);
  });
});
