/**
 * `npm test` runs three projects: `core`, the test files that never load Express (pure layers: jsonrpc, schema,
 * registry, protocol…), once; and the files that do, on Express 5 (`express5`, the `express` dev dependency) and on
 * Express 4 (`express4`, an npm alias of express@4, which every `require('express')` resolves to). Which files load
 * Express is read from their imports, followed through helpers and lib (__tests__/support/loads-express.js), so a new
 * test lands in the right project by itself; one that loads Express in `core` anyway fails (express-in-core.js).
 * `npm run test:browser` runs the third, `browser`: the playground, and the MCP Inspector's web UI signing in,
 * in headless Chromium (needs /usr/bin/chromium or CHROMIUM_PATH; the Inspector and Node 22 are installed into
 * node_modules/.cache on first use, __tests__/inspector/setup.sh), kept apart so `npm test` needs no browser. `npm run test:redis` runs
 * `redis5` and `redis4`: the shared store against a real redis-server (Debian's `redis-server`, started by the
 * tests), on each Express major, kept apart so `npm test` needs no Redis. `npm run test:proxy` runs `proxy`: the router
 * behind Debian's `nginx` and `caddy` with TLS termination, configured as docs/deployment.md shows (a redis-server
 * too, for two instances), kept apart so `npm test` needs no proxy.
 */
const { EXPRESS_PACKAGES, splitTests } = require('./__tests__/support/loads-express.js');
const { timeScale } = require('./__tests__/support/time-scale.js');

// Decided once for the run, from the load when it starts, and read by the workers (they inherit the environment):
// every test and hook timeout, until()'s deadlines and scaled() (helpers/time-scale.ts) are multiplied by it.
process.env.TEST_TIME_SCALE = String(timeScale());

const tests = splitTests(`${__dirname}/__tests__`);
/** Jest path patterns (regular expressions) that match exactly these files. */
const only = (files) => files.map((file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

const shared = {
  preset: 'ts-jest',
  // Node's, with every test and hook timeout multiplied by TEST_TIME_SCALE.
  testEnvironment: '<rootDir>/__tests__/support/environment.js',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  // Type errors are caught once by `npm run typecheck`; ts-jest only transpiles.
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // jose (sign-in's JWTs) is ESM only: Node loads it with require(esm), Jest's module loader cannot, so its files
    // are transpiled to CommonJS here, and only its.
    '/node_modules/jose/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  // Jest's default is one worker less than the cores: 1 on a 2-core machine, and most files wait on sockets, timers
  // and child processes more than they compute, so one worker more than the cores keeps both busy. Measured on 2 cores:
  // gateway + integration, express5, load ~5 from other runs: 1 worker 54 s wall / 32.7 s CPU, 2 workers 45.5 s / 34.5 s;
  // gateway + integration + transport, express5, quiet: 2 workers 25.2-26.0 s, 3 workers 23.3-23.6 s, 4 workers 25.1 s;
  // `npm test`'s jest (core express5 express4), quiet: 2 workers 190 s before the faster files of this change (main),
  // 3 workers 134 s with them (those files alone account for ~35 s of summed file time, ~18 s of wall).
  maxWorkers: 3,
  // A run's processes: the groups tests start are recorded (helpers/child.ts); whatever the run left running is
  // killed, listed and fails the run (support/leftovers.js).
  globalSetup: '<rootDir>/__tests__/support/global-setup.js',
  globalTeardown: '<rootDir>/__tests__/support/global-teardown.js',
  projects: [
    {
      ...shared,
      displayName: 'core',
      testPathIgnorePatterns: only(tests.express),
      moduleNameMapper: { [EXPRESS_PACKAGES.source]: '<rootDir>/__tests__/support/express-in-core.js' },
    },
    // EXPRESS_MAJOR: which Express this project must load (checked by __tests__/express-major.test.ts).
    { ...shared, displayName: 'express5', globals: { EXPRESS_MAJOR: 5 }, testPathIgnorePatterns: only(tests.core) },
    {
      ...shared,
      displayName: 'express4',
      globals: { EXPRESS_MAJOR: 4 },
      moduleNameMapper: { '^express$': 'express4', '^express/package\\.json$': 'express4/package.json' },
      // Checked once, in the express5 project, as they do not depend on the Express major: the packed tarball; the
      // heap 2,000 sessions hold (what a session keeps is the router's record: Express's req and res are gone once
      // each request is answered, on either major); and the HTTP fuzzing, whose inputs (bodies, headers) only the
      // router's own readers see on Node's request, while the hostile tables pin the same refusals on both majors.
      testPathIgnorePatterns: [
        ...only(tests.core),
        '/__tests__/package/',
        '/__tests__/hostile/session-memory\\.test\\.ts$',
        '/__tests__/hostile/fuzz\\.test\\.ts$',
        // The stdio process pool (50 callers against 10 processes, idle ends, crash loops: ~45 s of each run): what it
        // pins is how the router runs its child processes, which no Express code touches; Express only carries the
        // requests, as in the stdio gateway tests that run on both majors.
        '/__tests__/features/gateway/process-pool\\.test\\.ts$',
      ],
    },
    { ...shared, displayName: 'browser', testMatch: ['**/*.e2e.ts'], globals: { EXPRESS_MAJOR: 5 } },
    { ...shared, displayName: 'redis5', testMatch: ['**/*.redis.ts'], globals: { EXPRESS_MAJOR: 5 } },
    // Behind a real nginx with TLS termination (__tests__/proxy/behind-proxy.ts), on Express 5: what it checks is
    // what crosses the proxy, the same on either major.
    { ...shared, displayName: 'proxy', testMatch: ['**/*.proxy.ts'], globals: { EXPRESS_MAJOR: 5 } },
    {
      ...shared,
      displayName: 'redis4',
      testMatch: ['**/*.redis.ts'],
      globals: { EXPRESS_MAJOR: 4 },
      moduleNameMapper: { '^express$': 'express4', '^express/package\\.json$': 'express4/package.json' },
    },
  ],
};
