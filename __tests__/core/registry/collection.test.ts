import { McpConfigError } from '../../../lib/options/config-error';
import { JsonRpcError } from '../../../lib/core/jsonrpc/errors';
import { Collection, type Page } from '../../../lib/core/registry/collection';

function filled(kind: string, names: string[]): Collection<string> {
  const collection = new Collection<string>(kind);
  for (const name of names) collection.add(name, name);
  return collection;
}

/** Follows nextCursor until the end, calling `between` before each following page. */
function walk(
  collection: Collection<string>,
  pageSize: number,
  between: (pageIndex: number) => void = () => {},
): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page: Page<string> = collection.page(cursor, pageSize);
    pages.push([...page.items]);
    if (page.nextCursor === undefined) return pages;
    between(pages.length);
    cursor = page.nextCursor;
    if (pages.length > 100) throw new Error('pagination does not end');
  }
}

function cursorError(fn: () => unknown): JsonRpcError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(JsonRpcError);
    return err as JsonRpcError;
  }
  throw new Error('expected a JsonRpcError');
}

describe('Collection: pagination', () => {
  const ten = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

  it.each<[number, string[][]]>([
    [1, ten.map((x) => [x])],
    [3, [['a', 'b', 'c'], ['d', 'e', 'f'], ['g', 'h', 'i'], ['j']]],
    [
      5,
      [
        ['a', 'b', 'c', 'd', 'e'],
        ['f', 'g', 'h', 'i', 'j'],
      ],
    ],
    [10, [ten]],
    [100, [ten]],
  ])('pageSize %i gives pages %j in registration order', (pageSize, pages) => {
    expect(walk(filled('tool', ten), pageSize)).toEqual(pages);
  });

  it('sets nextCursor only when more items remain', () => {
    const collection = filled('tool', ['a', 'b', 'c', 'd']);
    const first = collection.page(undefined, 2);
    expect(first.items).toEqual(['a', 'b']);
    expect(typeof first.nextCursor).toBe('string');
    const second = collection.page(first.nextCursor, 2);
    expect(second).toStrictEqual({ items: ['c', 'd'] });
    expect('nextCursor' in second).toBe(false);
  });

  it('gives one empty page for an empty collection', () => {
    expect(new Collection<string>('tool').page(undefined, 5)).toStrictEqual({ items: [] });
  });

  it('issues cursors that do not reveal an offset in plain text', () => {
    const { nextCursor } = filled('tool', ['a', 'b', 'c']).page(undefined, 1);
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(nextCursor).not.toMatch(/tool|:|1/);
  });

  it('returns the same page for the same cursor (stable cursors)', () => {
    const collection = filled('tool', ten);
    const { nextCursor } = collection.page(undefined, 4);
    expect(collection.page(nextCursor, 4)).toStrictEqual(collection.page(nextCursor, 4));
    expect(collection.page(nextCursor, 4).items).toEqual(['e', 'f', 'g', 'h']);
  });

  it('neither repeats nor skips items that stayed when items before the cursor are removed', () => {
    const collection = filled('tool', ten);
    const pages = walk(collection, 3, (index) => {
      if (index === 1) {
        collection.remove('a', 'a');
        collection.remove('b', 'b');
      }
    });
    expect(pages).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g', 'h', 'i'], ['j']]);
  });

  it('still works when the last item of the previous page is removed', () => {
    const collection = filled('tool', ten);
    const pages = walk(collection, 3, (index) => {
      if (index === 1) collection.remove('c', 'c');
    });
    expect(pages).toEqual([['a', 'b', 'c'], ['d', 'e', 'f'], ['g', 'h', 'i'], ['j']]);
  });

  it('skips only the removed items when items after the cursor are removed', () => {
    const collection = filled('tool', ten);
    const pages = walk(collection, 3, (index) => {
      if (index === 1) {
        collection.remove('d', 'd');
        collection.remove('h', 'h');
      }
    });
    expect(pages).toEqual([
      ['a', 'b', 'c'],
      ['e', 'f', 'g'],
      ['i', 'j'],
    ]);
  });

  it('shows items added between pages at the end, without repeating any', () => {
    const collection = filled('tool', ['a', 'b', 'c', 'd']);
    const pages = walk(collection, 2, (index) => {
      if (index === 1) {
        collection.add('new1', 'new1');
        collection.remove('a', 'a');
        collection.add('a', 'a'); // re-added: now at the end
      }
    });
    expect(pages).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['new1', 'a'],
    ]);
  });

  it('a cursor past the last item gives an empty page after everything after it was removed', () => {
    const collection = filled('tool', ['a', 'b', 'c']);
    const { nextCursor } = collection.page(undefined, 2);
    collection.remove('c', 'c');
    expect(collection.page(nextCursor, 2)).toStrictEqual({ items: [] });
  });
});

describe('Collection: bad cursors', () => {
  const tools = filled('tool', ['a', 'b', 'c', 'd']);
  const issued = tools.page(undefined, 2).nextCursor as string;
  const promptCursor = filled('prompt', ['a', 'b', 'c']).page(undefined, 1).nextCursor as string;
  const templateCursor = filled('resource template', ['a', 'b']).page(undefined, 1).nextCursor as string;
  const b64 = (text: string): string => Buffer.from(text).toString('base64url');

  it.each<[string, unknown]>([
    ['garbage text', 'not-a-cursor!!'],
    ['an empty string', ''],
    ['a plain number string', '2'],
    ["another kind's cursor (prompt)", promptCursor],
    ["another kind's cursor (resource template)", templateCursor],
    ['a number', 2],
    ['null', null],
    ['an object', { seq: 2 }],
    ['an array', [issued]],
    ['a boolean', true],
    ['a cursor with a character appended', `${issued}A`],
    ['a cursor with base64 padding added', `${issued}=`],
    ['a cursor with whitespace', ` ${issued}`],
    ['the encoding of seq 0', b64('tool:0')],
    ['the encoding of a negative seq', b64('tool:-1')],
    ['the encoding of a seq with a leading zero', b64('tool:02')],
    ['the encoding of a non-numeric seq', b64('tool:x')],
    ['the encoding of a seq with a fraction', b64('tool:1.5')],
    ['the encoding of an upper-case kind', b64('TOOL:2')],
    ['the encoding with trailing text', b64('tool:2\n')],
    ['the encoding of a 17-digit seq', b64('tool:12345678901234567')],
  ])('rejects %s with -32602', (_label, cursor) => {
    const err = cursorError(() => tools.page(cursor, 2));
    expect(err.code).toBe(-32602);
    expect(err.message).toBe('Invalid cursor: use the nextCursor of a previous tool list');
    expect(err.data).toBeUndefined();
  });

  // The cursor is opaque: one this collection never issued is invalid (MCP pagination N3), even if it decodes.
  it('rejects a well-formed cursor for a position this collection never reached', () => {
    const err = cursorError(() => tools.page(b64('tool:999'), 2));
    expect(err.code).toBe(-32602);
  });

  it('accepts its own cursor, and a tampered-then-restored one', () => {
    expect(tools.page(issued, 2).items).toEqual(['c', 'd']);
    expect(tools.page(b64('tool:2'), 2).items).toEqual(['c', 'd']);
  });

  it("names the collection's kind in the message", () => {
    const prompts = filled('prompt', ['a']);
    expect(cursorError(() => prompts.page(issued, 2)).message).toBe(
      'Invalid cursor: use the nextCursor of a previous prompt list',
    );
  });
});

describe('Collection: add, get, remove', () => {
  it('throws ERR_MCP_DUPLICATE for a key that is taken, keeping the first item', () => {
    const collection = new Collection<{ n: number }>('tool');
    const first = { n: 1 };
    collection.add('echo', first);
    let caught: unknown;
    try {
      collection.add('echo', { n: 2 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(McpConfigError);
    expect((caught as McpConfigError).code).toBe('ERR_MCP_DUPLICATE');
    expect((caught as McpConfigError).message).toBe(
      "mcpRouter: a tool named 'echo' is already registered; remove it first or pick another name",
    );
    expect(collection.get('echo')).toBe(first);
    expect(collection.size).toBe(1);
  });

  it('keys are case-sensitive', () => {
    const collection = filled('tool', ['echo', 'Echo', 'ECHO']);
    expect(collection.size).toBe(3);
    expect([...collection.values()]).toEqual(['echo', 'Echo', 'ECHO']);
  });

  it('does not confuse keys with Object.prototype members', () => {
    const collection = new Collection<string>('tool');
    expect(collection.get('constructor')).toBeUndefined();
    expect(collection.get('__proto__')).toBeUndefined();
    collection.add('__proto__', 'p');
    collection.add('constructor', 'c');
    expect(collection.get('__proto__')).toBe('p');
    expect(collection.get('constructor')).toBe('c');
  });

  it('remove() returns true once, then false', () => {
    const collection = filled('tool', ['a', 'b']);
    expect(collection.remove('a', 'a')).toBe(true);
    expect(collection.remove('a', 'a')).toBe(false);
    expect(collection.get('a')).toBeUndefined();
    expect(collection.size).toBe(1);
    expect([...collection.values()]).toEqual(['b']);
  });

  it('remove() leaves a newer item registered under the same key alone', () => {
    const collection = new Collection<{ v: number }>('tool');
    const old = { v: 1 };
    const replacement = { v: 2 };
    collection.add('k', old);
    expect(collection.remove('k', old)).toBe(true);
    collection.add('k', replacement);
    expect(collection.remove('k', old)).toBe(false);
    expect(collection.get('k')).toBe(replacement);
  });

  it('remove() of an unknown key returns false', () => {
    expect(filled('tool', ['a']).remove('zzz', 'zzz')).toBe(false);
  });

  it('a key can be added again after remove()', () => {
    const collection = filled('tool', ['a']);
    collection.remove('a', 'a');
    expect(() => collection.add('a', 'a')).not.toThrow();
    expect(collection.get('a')).toBe('a');
  });

  it('values() iterates in registration order', () => {
    expect([...filled('tool', ['z', 'a', 'm']).values()]).toEqual(['z', 'a', 'm']);
  });
});

describe('Collection: onChange', () => {
  it('calls every listener after each add and each effective remove, and not for failed ones', () => {
    const collection = new Collection<string>('tool');
    const seen: number[] = [];
    const first = jest.fn(() => seen.push(collection.size));
    const second = jest.fn();
    collection.onChange(first);
    collection.onChange(second);

    collection.add('a', 'a');
    collection.add('b', 'b');
    expect(() => collection.add('a', 'x')).toThrow(McpConfigError);
    collection.remove('a', 'a');
    collection.remove('a', 'a');
    collection.remove('b', 'not-b');

    expect(first).toHaveBeenCalledTimes(3);
    expect(second).toHaveBeenCalledTimes(3);
    // After the change: the listener sees the new state.
    expect(seen).toEqual([1, 2, 1]);
  });

  it('calls listeners with no arguments', () => {
    const collection = new Collection<string>('prompt');
    const listener = jest.fn();
    collection.onChange(listener);
    collection.add('p', 'p');
    expect(listener).toHaveBeenCalledWith();
  });
});

describe('Collection: groups (a gateway upstream’s items after the router’s own, in mount order)', () => {
  function grouped(): Collection<string> {
    const collection = new Collection<string>('tool');
    collection.add('b1', 'b1', 2);
    collection.add('a1', 'a1', 1);
    collection.add('l1', 'l1');
    collection.add('b2', 'b2', 2);
    collection.add('l2', 'l2');
    collection.add('a2', 'a2', 1);
    return collection;
  }

  it('lists group 0 first, then each group in order, each in registration order, whatever order they came in', () => {
    expect(walk(grouped(), 100)).toEqual([['l1', 'l2', 'a1', 'a2', 'b1', 'b2']]);
    expect(walk(grouped(), 2)).toEqual([
      ['l1', 'l2'],
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
  });

  it('neither repeats nor skips items across groups when items are added and removed between pages', () => {
    const collection = grouped();
    const pages = walk(collection, 3, (page) => {
      if (page !== 1) return;
      collection.remove('l1', 'l1'); // before the cursor
      collection.add('l3', 'l3'); // group 0, before the cursor's group: not shown in this walk
      collection.add('a3', 'a3', 1); // after the cursor: shown
      collection.remove('b1', 'b1'); // after the cursor: gone
    });
    expect(pages).toEqual([
      ['l1', 'l2', 'a1'],
      ['a2', 'a3', 'b2'],
    ]);
  });

  it('keeps a replaced item in its place, and its group', () => {
    const collection = grouped();
    collection.replace('a1', 'a1', 'A1');
    expect(walk(collection, 100)).toEqual([['l1', 'l2', 'A1', 'a2', 'b1', 'b2']]);
  });

  it('refuses a grouped cursor of another kind or past the last sequence number', () => {
    const collection = grouped();
    const cursor = collection.page(undefined, 3).nextCursor!;
    expect(Buffer.from(cursor, 'base64url').toString()).toBe('tool:1:2');
    expect(cursorError(() => new Collection<string>('prompt').page(cursor, 3)).code).toBe(-32602);
    expect(cursorError(() => collection.page(Buffer.from('tool:1:99').toString('base64url'), 3)).code).toBe(-32602);
  });

  it("gives a key to the lowest group whichever was added first: a higher group's item there is displaced and its group told", () => {
    const collection = new Collection<string>('tool');
    const displaced: number[] = [];
    collection.onDisplaced((group) => displaced.push(group));
    collection.add('x', 'x of 2', 2);
    collection.add('x', 'x of 1', 1);
    expect(displaced).toEqual([2]);
    expect(collection.get('x')).toBe('x of 1');
    expect(() => collection.add('x', 'x of 2', 2)).toThrow(/already registered/);
    expect(() => collection.add('x', 'x of 1 again', 1)).toThrow(/already registered/);
    collection.add('x', 'local x');
    expect(displaced).toEqual([2, 1]);
    expect(collection.groupOf('x')).toBe(0);
    expect(collection.size).toBe(1);
  });

  it('gives values() in list order, not arrival order (templates are tried in it)', () => {
    expect([...grouped().values()]).toEqual(['l1', 'l2', 'a1', 'a2', 'b1', 'b2']);
  });
});
