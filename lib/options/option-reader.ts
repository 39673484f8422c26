// The one option checker: reads one options object key by key, each value checked and defaulted, every fault one message style.

import bytes from 'bytes';
import {
  invalidOption,
  isPositiveInteger,
  McpConfigError,
  rejectUnknownKeys,
  type OptionKeys,
  type UnknownKeyContext,
} from './config-error';

type Key<T> = Extract<keyof T, string>;

/** The longest delay Node's timers keep (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** What `size()` reads as text: a number, then optionally a unit (the units of `bytes`). */
const SIZE = /^\s*\d+(\.\d+)?\s*(b|kb|mb|gb|tb|pb)?\s*$/i;

/**
 * Reads an options object whose keys are known: unknown keys are refused when it is made (with the nearest known key
 * as a hint), and each getter checks one key's value, fills in its default, and throws `ERR_MCP_INVALID_OPTION`
 * naming the whole option path: `option 'upstream.limits.maxTools' must be a positive integer, got 0`.
 *
 * @example
 * ```ts
 * const read = OptionReader.of(options.listen, 'listen', LISTEN_KEYS);
 * const maxStreams = read.positiveInteger('maxStreams', 1_000);
 * ```
 */
export class OptionReader<T extends object> {
  private constructor(
    /** The options, as given (never written). */
    readonly options: Partial<T>,
    /** Where they sit, ending in a dot (`'listen.'`), or empty for the router's own. */
    private readonly prefix: string,
    /** The item the options define (`app 'form'`), named before every message; absent for the router's own. */
    private readonly item?: string,
  ) {}

  /**
   * Checks that `options` is an object (or absent: read as `{}`) with only `known` keys.
   *
   * @param path - the option that holds them (`'auth.server'`), or `''` for the router's own
   * @param context - the item they define (named in every message), and the keys of its nested options
   * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` for a value that is not a plain object, `ERR_MCP_UNKNOWN_OPTION`
   */
  static of<T extends object>(
    options: T | undefined,
    path: string,
    known: OptionKeys<T>,
    context?: UnknownKeyContext,
  ): OptionReader<T> {
    const prefix = path === '' ? '' : `${path}.`;
    if (options === undefined) return new OptionReader<T>({}, prefix, context?.item);
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      throw invalidOption(path, 'an object', options, context?.item);
    rejectUnknownKeys(options, known, prefix, context);
    return new OptionReader<T>(options, prefix, context?.item);
  }

  /** The full path of one key, as messages name it: `listen.maxStreams`. */
  pathOf(key: Key<T>): string {
    return `${this.prefix}${key}`;
  }

  /** The error of a bad value of `key`, for checks no getter here makes. */
  invalid(key: Key<T>, expected: string, value: unknown = this.options[key]): McpConfigError {
    return invalidOption(this.pathOf(key), expected, value, this.item);
  }

  /** The value as given, unchecked, for a value a dedicated resolver checks; `fallback` only when it is absent (not null). */
  raw<K extends Key<T>>(key: K): T[K] | undefined;
  raw<K extends Key<T>, F>(key: K, fallback: F): Exclude<T[K], undefined> | F;
  raw<K extends Key<T>, F>(key: K, fallback?: F): T[K] | F | undefined {
    const value = this.options[key];
    return value === undefined ? fallback : value;
  }

  /** A positive safe integer (a count, a limit). */
  positiveInteger<K extends Key<T>>(key: K, fallback: number, expected?: string): number;
  positiveInteger<K extends Key<T>>(key: K, fallback?: undefined, expected?: string): number | undefined;
  positiveInteger<K extends Key<T>>(key: K, fallback?: number, expected = 'a positive integer'): number | undefined {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (!isPositiveInteger(value)) throw this.invalid(key, expected);
    return value;
  }

  /** A positive number of milliseconds; with `orFalse`, `false` turns the timer off. */
  milliseconds<K extends Key<T>>(key: K, fallback: number, orFalse?: false): number;
  milliseconds<K extends Key<T>>(key: K, fallback: number | false, orFalse: true): number | false;
  milliseconds<K extends Key<T>>(key: K, fallback: number | false, orFalse = false): number | false {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (orFalse && value === false) return false;
    const expected = `a positive number of milliseconds${orFalse ? ' or false' : ''}`;
    if (!isPositiveInteger(value)) throw this.invalid(key, expected);
    // Node runs a timer longer than 2^31 - 1 ms after 1 ms: such a value would do the opposite of what it says.
    if (value > MAX_TIMER_MS) throw this.invalid(key, `${expected}, at most ${MAX_TIMER_MS}`);
    return value;
  }

  /** A number of bytes, or text in the units `express.json({ limit })` reads (`'4mb'`, `'512kb'`), read by `bytes`. */
  size<K extends Key<T>>(key: K, fallback: number | string): number {
    const given = this.options[key];
    const value = given === undefined ? fallback : given;
    // Only a number and a unit: `bytes` would read the leading digits of anything else ('12abc', '1e3').
    const parsed =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && SIZE.test(value)
          ? bytes.parse(value.trim())
          : NaN;
    if (!isPositiveInteger(parsed)) throw this.invalid(key, "a positive number of bytes or text like '4mb'", given);
    return Math.floor(parsed);
  }

  /** `true` or `false`. */
  boolean<K extends Key<T>>(key: K, fallback: boolean): boolean {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw this.invalid(key, 'true or false');
    return value;
  }

  /** A string; `nonEmpty` refuses `''` and whitespace. */
  string<K extends Key<T>>(key: K, options: { readonly nonEmpty?: boolean; readonly required: true }): string;
  string<K extends Key<T>>(
    key: K,
    options?: { readonly nonEmpty?: boolean; readonly required?: boolean },
  ): string | undefined;
  string<K extends Key<T>>(
    key: K,
    { nonEmpty = false, required = false }: { readonly nonEmpty?: boolean; readonly required?: boolean } = {},
  ): string | undefined {
    const value = this.options[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || (nonEmpty && value.trim() === ''))
      throw this.invalid(key, nonEmpty ? 'a non-empty string' : 'a string');
    return value;
  }

  /** One of a fixed set of values. */
  oneOf<K extends Key<T>, V extends string | number | boolean>(key: K, choices: readonly V[], fallback: V): V {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (!choices.includes(value as V)) throw this.invalid(key, listOf(choices));
    return value as V;
  }

  /** A function (a callback, a hook). */
  fn<K extends Key<T>>(key: K, options: { readonly required: true }): NonNullable<T[K]>;
  fn<K extends Key<T>>(key: K, options?: { readonly required?: boolean }): T[K] | undefined;
  fn<K extends Key<T>>(key: K, { required = false }: { readonly required?: boolean } = {}): T[K] | undefined {
    const value = this.options[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'function') throw this.invalid(key, 'a function');
    return value as T[K];
  }

  /** An absolute http(s) URL; `https` refuses plain http but on loopback hosts. */
  url<K extends Key<T>>(key: K, options: { readonly https?: boolean; readonly required: true }): URL;
  url<K extends Key<T>>(key: K, options?: { readonly https?: boolean; readonly required?: boolean }): URL | undefined;
  url<K extends Key<T>>(
    key: K,
    { https = false, required = false }: { readonly https?: boolean; readonly required?: boolean } = {},
  ): URL | undefined {
    const value = this.options[key];
    if (value === undefined && !required) return undefined;
    const url = typeof value === 'string' || value instanceof URL ? parseUrl(String(value)) : null;
    const secure =
      url?.protocol === 'https:' || (url?.protocol === 'http:' && !https) || (url !== null && isLoopback(url));
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || !secure)
      throw this.invalid(key, https ? 'an https URL (http only on a loopback host)' : 'an http(s) URL');
    return url;
  }

  /** An array whose every item passes `each` (a type guard), as a frozen copy; `nonEmpty` refuses `[]`. */
  array<K extends Key<T>, I>(
    key: K,
    each: (item: unknown) => item is I,
    expected: string,
    { nonEmpty = false }: { readonly nonEmpty?: boolean } = {},
  ): readonly I[] | undefined {
    const value = this.options[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || (nonEmpty && value.length === 0) || !value.every(each))
      throw this.invalid(key, expected);
    return Object.freeze([...value]);
  }

  /**
   * The options one level down (`limits` of `upstream`), read the same way, for the same item. Without `known`, a
   * record whose keys are the caller's own names (`env`, a guard list per tool): none of them is unknown.
   */
  nested<K extends Key<T>>(
    key: K,
    known?: OptionKeys<NonNullable<T[K]> & object>,
  ): OptionReader<NonNullable<T[K]> & object> {
    const value = this.options[key] as (NonNullable<T[K]> & object) | undefined;
    const keys = known ?? Object.fromEntries(Object.keys(value ?? {}).map((name) => [name, true]));
    return OptionReader.of(value, this.pathOf(key), keys as OptionKeys<NonNullable<T[K]> & object>, {
      item: this.item,
    });
  }
}

/** `'a', 'b' or 'c'`: how a message lists the allowed values. */
export function listOf(choices: readonly unknown[]): string {
  const quoted = choices.map((choice) => (typeof choice === 'string' ? `'${choice}'` : String(choice)));
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}
