// An ordered, named collection of registrations with stable, opaque cursors for paginated lists.

import { McpConfigError } from '../../options/config-error';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';

/** One page of a list. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Present when more items remain (MCP pagination: `nextCursor`). */
  readonly nextCursor?: string;
}

interface Slot<T> {
  readonly seq: number;
  /** Lists show group 0 (the router's own items) first, then each higher group (a gateway's upstreams, in mount order). */
  readonly group: number;
  readonly value: T;
}

/** Where a page ends: the last item's group and sequence number. */
interface Position {
  readonly group: number;
  readonly seq: number;
}

function isAfter(slot: Slot<unknown>, position: Position): boolean {
  return slot.group > position.group || (slot.group === position.group && slot.seq > position.seq);
}

/**
 * Keeps registrations in registration order, by group (see {@link Slot.group}). A cursor names the position after
 * the last item of a page (a group and a sequence number, not an offset), so removing or adding items between two
 * page requests neither repeats nor skips the items that stayed.
 */
export class Collection<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private nextSeq = 1;
  private readonly listeners: Array<() => void> = [];
  private readonly displacedListeners: Array<(group: number) => void> = [];
  /** The slots in list order, while any item is in a group other than 0; rebuilt after a change. */
  private ordered: Slot<T>[] | undefined;
  private grouped = 0;

  /**
   * @param kind - what is kept, for messages and cursors ("tool", "prompt", …)
   * @param admit - checks a key before it is added (a namespace claimed by another group throws)
   */
  constructor(
    readonly kind: string,
    private readonly admit: (key: string, group: number) => void = () => undefined,
  ) {}

  /** Number of items. */
  get size(): number {
    return this.slots.size;
  }

  /**
   * Adds an item. A key belongs to the lowest group that has an item for it, whichever was added first: an item of a
   * higher group under `key` is removed (and {@link Collection.onDisplaced} told), so the router's own items come
   * before any upstream's, and an upstream mounted earlier before one mounted later, whatever order lists came in.
   *
   * @param group - where lists show it: 0, the default, for the router's own items
   * @throws {McpConfigError} `ERR_MCP_DUPLICATE` when `key` is taken by an item of this group or a lower one, or is
   *   not `admit`ted
   */
  add(key: string, value: T, group = 0): void {
    this.admit(key, group);
    const held = this.slots.get(key);
    if (held !== undefined && held.group > group) {
      this.remove(key, held.value);
      for (const listener of this.displacedListeners) listener(held.group);
    } else if (held !== undefined) {
      throw new McpConfigError(
        'ERR_MCP_DUPLICATE',
        `a ${this.kind} named '${key}' is already registered; remove it first or pick another name`,
      );
    }
    this.slots.set(key, { seq: this.nextSeq++, group, value });
    if (group !== 0) this.grouped++;
    this.announceChange();
  }

  /** Removes `key`'s item if it is still the one given; returns whether anything was removed. */
  remove(key: string, value: T): boolean {
    const slot = this.slots.get(key);
    if (slot?.value !== value) return false;
    this.slots.delete(key);
    if (slot.group !== 0) this.grouped--;
    this.announceChange();
    return true;
  }

  /**
   * Puts `next` in the place of `key`'s item if it is still `previous`: same position, so a list's order and the
   * cursors already issued stay valid (a refreshed upstream item). Returns whether anything was replaced.
   */
  replace(key: string, previous: T, next: T): boolean {
    const slot = this.slots.get(key);
    if (slot?.value !== previous) return false;
    this.slots.set(key, { ...slot, value: next });
    this.announceChange();
    return true;
  }

  get(key: string): T | undefined {
    return this.slots.get(key)?.value;
  }

  /** The group of `key`'s item; undefined for none. */
  groupOf(key: string): number | undefined {
    return this.slots.get(key)?.group;
  }

  /** Every item with its key and group, in registration order. */
  *entries(): IterableIterator<{ readonly key: string; readonly value: T; readonly group: number }> {
    for (const [key, slot] of this.slots) yield { key, value: slot.value, group: slot.group };
  }

  /** Every item in list order (by group, then registration order), never arrival order: templates are tried in it. */
  values(): IterableIterator<T> {
    return (function* (slots) {
      for (const slot of slots) yield slot.value;
    })(this.inListOrder());
  }

  /** Calls `listener` after every add or remove (the GET stream turns this into `list_changed`). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` with the group of an item that an add of a lower group removed (see {@link Collection.add}). */
  onDisplaced(listener: (group: number) => void): void {
    this.displacedListeners.push(listener);
  }

  /**
   * One page of at most `pageSize` items after `cursor`.
   *
   * @throws {JsonRpcError} -32602 for a cursor this collection did not issue (MCP pagination: SHOULD)
   */
  page(cursor: unknown, pageSize: number): Page<T> {
    const after = cursor === undefined ? { group: 0, seq: 0 } : this.decodeCursor(cursor);
    const items: T[] = [];
    let last: Slot<T> | undefined;
    for (const slot of this.inListOrder()) {
      if (!isAfter(slot, after)) continue;
      if (items.length === pageSize) return { items, nextCursor: this.encodeCursor(last!) };
      items.push(slot.value);
      last = slot;
    }
    return { items };
  }

  /** The slots as lists show them: registration order (the map's) while every item is in group 0. */
  private inListOrder(): Iterable<Slot<T>> {
    if (this.grouped === 0) return this.slots.values();
    this.ordered ??= [...this.slots.values()].sort((a, b) => a.group - b.group || a.seq - b.seq);
    return this.ordered;
  }

  private encodeCursor(slot: Slot<T>): string {
    return Buffer.from(
      slot.group === 0 ? `${this.kind}:${slot.seq}` : `${this.kind}:${slot.group}:${slot.seq}`,
    ).toString('base64url');
  }

  private decodeCursor(cursor: unknown): Position {
    const text = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString() : '';
    const match = /^([a-z ]+):(?:([1-9][0-9]{0,5}):)?([1-9][0-9]{0,15})$/.exec(text);
    const seq = match === null ? 0 : Number(match[3]);
    // A cursor names a position this collection has reached; anything else was not issued here.
    if (
      match === null ||
      match[1] !== this.kind ||
      seq >= this.nextSeq ||
      Buffer.from(text).toString('base64url') !== cursor
    ) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid cursor: use the nextCursor of a previous ${this.kind} list`,
      );
    }
    return { group: match[2] === undefined ? 0 : Number(match[2]), seq };
  }

  private announceChange(): void {
    this.ordered = undefined;
    for (const listener of this.listeners) listener();
  }
}
