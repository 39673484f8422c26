// express-mcp-router/redis without its optional peers installed: the error names what to install, not a bare
// "Cannot find module" from inside dist/.

/** An error as Node's require throws it for a package that is not installed. */
function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
}

afterEach(() => {
  jest.resetModules();
  jest.dontMock('redis');
  jest.dontMock('rate-limit-redis');
});

it.each(['redis', 'rate-limit-redis'])('without %s: says to install both peers, and names the one missing', (name) => {
  jest.doMock(name, () => {
    throw notInstalled(name);
  });
  let thrown: unknown;
  jest.isolateModules(() => {
    try {
      require('../../../lib/redis');
    } catch (err) {
      thrown = err;
    }
  });
  expect(thrown).toBeInstanceOf(Error);
  expect((thrown as Error).message).toBe(
    `express-mcp-router/redis needs its optional peer dependencies redis and rate-limit-redis: npm install redis rate-limit-redis (cannot find '${name}')`,
  );
  expect((thrown as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
});

it('lets a missing package of a peer through as its own error (a broken install, not a missing peer)', () => {
  jest.doMock('redis', () => {
    throw notInstalled('@redis/client');
  });
  jest.isolateModules(() => {
    expect(() => require('../../../lib/redis')).toThrow("Cannot find module '@redis/client'");
  });
});

it('lets any other failure of a peer through as it is', () => {
  jest.doMock('redis', () => {
    throw new SyntaxError('broken install');
  });
  jest.isolateModules(() => {
    expect(() => require('../../../lib/redis')).toThrow(new SyntaxError('broken install'));
  });
});

it('loads when both are installed', () => {
  jest.isolateModules(() => {
    expect(typeof (require('../../../lib/redis') as typeof import('../../../lib/redis')).redisStore).toBe('function');
  });
});
