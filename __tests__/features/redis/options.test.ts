// redisStore()'s options: checked when the store is made, like every other option, before any connection is tried.

import { McpConfigError } from '../../../lib';
import { redisStore } from '../../../lib/redis';

describe('redisStore options', () => {
  it.each([
    ['an unknown key', { zz: 1 }, "unknown option 'redisStore.zz'"],
    ['a prefix that is not a string', { prefix: 5 }, "option 'redisStore.prefix' must be a string, got 5"],
    ['a url that is not a string', { url: 5 }, "option 'redisStore.url' must be a non-empty string, got 5"],
    [
      'a negative command timeout',
      { commandTimeoutMs: -1 },
      "option 'redisStore.commandTimeoutMs' must be a positive number of milliseconds, got -1",
    ],
    ['a client that is none', { client: {} }, "option 'redisStore.client' must be a node-redis client"],
    ['options that are not an object', null, "option 'redisStore' must be an object, got null"],
  ])('refuses %s', (_label, options, message) => {
    const make = (): unknown => redisStore(options as never);
    expect(make).toThrow(McpConfigError);
    expect(make).toThrow(message);
  });
});
