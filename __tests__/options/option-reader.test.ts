// OptionReader: each getter's default, its refusal (one message style, the whole option path), unknown keys.

import { McpConfigError, type OptionKeys } from '../../lib/options/config-error';
import { listOf, MAX_TIMER_MS, OptionReader } from '../../lib/options/option-reader';

interface Sample {
  count?: number;
  timeoutMs?: number | false;
  limit?: number | string;
  on?: boolean;
  name?: string;
  mode?: 'a' | 'b';
  hook?: () => void;
  url?: string;
  tags?: string[];
  inner?: { depth?: number };
}
const KEYS: OptionKeys<Sample> = {
  count: true,
  timeoutMs: true,
  limit: true,
  on: true,
  name: true,
  mode: true,
  hook: true,
  url: true,
  tags: true,
  inner: true,
};
const read = (options: Sample | undefined): OptionReader<Sample> => OptionReader.of(options, 'sample', KEYS);
const fault = (run: () => unknown): McpConfigError => {
  try {
    run();
  } catch (err) {
    if (err instanceof McpConfigError) return err;
    throw err;
  }
  throw new Error('did not throw');
};

describe('OptionReader', () => {
  it('reads absent options as empty, and refuses what is not an object', () => {
    expect(read(undefined).positiveInteger('count', 3)).toBe(3);
    expect(fault(() => read([] as never)).message).toBe("mcpRouter: option 'sample' must be an object, got []");
    expect(fault(() => read('x' as never)).code).toBe('ERR_MCP_INVALID_OPTION');
  });

  it('refuses an unknown key with the nearest known one', () => {
    const error = fault(() => read({ cuont: 1 } as never));
    expect(error.code).toBe('ERR_MCP_UNKNOWN_OPTION');
    expect(error.message).toBe("mcpRouter: unknown option 'sample.cuont'. Did you mean 'sample.count'?");
  });

  it('names the whole path in every refusal', () => {
    expect(fault(() => read({ count: 0 }).positiveInteger('count', 1)).message).toBe(
      "mcpRouter: option 'sample.count' must be a positive integer, got 0",
    );
    expect(fault(() => read({ hook: 1 as never }).fn('hook')).message).toBe(
      "mcpRouter: option 'sample.hook' must be a function, got 1",
    );
    expect(
      fault(() =>
        read({ inner: { depth: -1 } })
          .nested('inner', { depth: true })
          .positiveInteger('depth'),
      ).message,
    ).toBe("mcpRouter: option 'sample.inner.depth' must be a positive integer, got -1");
    expect(fault(() => OptionReader.of({ count: 0 } as Sample, '', KEYS).positiveInteger('count', 1)).message).toBe(
      "mcpRouter: option 'count' must be a positive integer, got 0",
    );
  });

  it('reads milliseconds, with false only where it turns a timer off', () => {
    expect(read({ timeoutMs: false }).milliseconds('timeoutMs', 5, true)).toBe(false);
    expect(read({}).milliseconds('timeoutMs', 5, true)).toBe(5);
    expect(fault(() => read({ timeoutMs: false }).milliseconds('timeoutMs', 5)).message).toContain(
      'must be a positive number of milliseconds, got false',
    );
  });

  it("reads sizes as express.json's limit does", () => {
    expect(read({ limit: '4mb' }).size('limit', 1)).toBe(4 * 1024 * 1024);
    expect(read({ limit: '512 KB' }).size('limit', 1)).toBe(512 * 1024);
    expect(read({ limit: 100 }).size('limit', 1)).toBe(100);
    expect(read({}).size('limit', '1kb')).toBe(1024);
    expect(fault(() => read({ limit: 'lots' }).size('limit', 1)).message).toBe(
      "mcpRouter: option 'sample.limit' must be a positive number of bytes or text like '4mb', got \"lots\"",
    );
    expect(fault(() => read({ limit: 0 }).size('limit', 1)).code).toBe('ERR_MCP_INVALID_OPTION');
  });

  it('reads booleans, strings, choices, functions and arrays', () => {
    expect(read({ on: true }).boolean('on', false)).toBe(true);
    expect(fault(() => read({ on: 'yes' as never }).boolean('on', false)).message).toContain('must be true or false');
    expect(read({ name: 'x' }).string('name', { nonEmpty: true })).toBe('x');
    expect(fault(() => read({ name: ' ' }).string('name', { nonEmpty: true })).message).toContain('a non-empty string');
    expect(fault(() => read({}).string('name', { required: true })).message).toContain(
      "'sample.name' must be a string",
    );
    expect(read({ mode: 'b' }).oneOf('mode', ['a', 'b'], 'a')).toBe('b');
    expect(fault(() => read({ mode: 'c' as never }).oneOf('mode', ['a', 'b'], 'a')).message).toContain(
      "must be 'a' or 'b', got \"c\"",
    );
    const hook = (): void => undefined;
    expect(read({ hook }).fn('hook')).toBe(hook);
    expect(fault(() => read({}).fn('hook', { required: true })).message).toContain('must be a function, got undefined');
    const isString = (item: unknown): item is string => typeof item === 'string';
    expect(read({ tags: ['a'] }).array('tags', isString, 'an array of strings')).toEqual(['a']);
    expect(
      fault(() => read({ tags: [] }).array('tags', isString, 'a non-empty array', { nonEmpty: true })).message,
    ).toContain('must be a non-empty array, got []');
  });

  it('reads URLs, https-only but on loopback when asked', () => {
    expect(read({ url: 'https://a.example/x' }).url('url', { https: true })?.href).toBe('https://a.example/x');
    expect(read({ url: 'http://127.0.0.1:3000' }).url('url', { https: true })?.port).toBe('3000');
    expect(read({ url: 'http://a.example' }).url('url')?.protocol).toBe('http:');
    expect(fault(() => read({ url: 'http://a.example' }).url('url', { https: true })).message).toContain(
      'must be an https URL (http only on a loopback host)',
    );
    expect(fault(() => read({ url: 'ftp://a.example' }).url('url')).message).toContain('must be an http(s) URL');
    expect(fault(() => read({ url: 'not a url' }).url('url')).code).toBe('ERR_MCP_INVALID_OPTION');
  });

  it('lists choices the way messages do', () => {
    expect(listOf(['a'])).toBe("'a'");
    expect(listOf(['a', 'b', 3])).toBe("'a', 'b' or 3");
  });

  it('reads only a number and a unit as a size, and null as a bad value, not as absent', () => {
    for (const limit of ['12abc', '1e3', '10 bytes', '4mb extra', '', null])
      expect(fault(() => read({ limit: limit as never }).size('limit', 1)).message).toContain(
        `must be a positive number of bytes or text like '4mb', got ${JSON.stringify(limit)}`,
      );
    expect(read({ limit: ' 4 MB ' }).size('limit', 1)).toBe(4 * 1024 * 1024);
  });

  it('refuses a delay longer than Node keeps a timer (2^31 - 1 ms), which it would run after 1 ms', () => {
    expect(read({ timeoutMs: MAX_TIMER_MS }).milliseconds('timeoutMs', 5)).toBe(MAX_TIMER_MS);
    expect(fault(() => read({ timeoutMs: 3e9 }).milliseconds('timeoutMs', 5)).message).toBe(
      "mcpRouter: option 'sample.timeoutMs' must be a positive number of milliseconds, at most 2147483647, got 3000000000",
    );
  });

  it('shows a value JSON cannot write by its type, never throwing a TypeError', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(fault(() => read({ count: 10n as never }).positiveInteger('count', 1)).message).toBe(
      "mcpRouter: option 'sample.count' must be a positive integer, got bigint",
    );
    expect(fault(() => read({ count: circular as never }).positiveInteger('count', 1)).message).toContain('got object');
  });

  it('gives the fallback of raw() for an absent key only', () => {
    expect(read({}).raw('name', 'x')).toBe('x');
    expect(read({ name: null as never }).raw('name', 'x')).toBeNull();
  });
});
