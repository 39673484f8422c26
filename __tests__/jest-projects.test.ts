// Proves the split of jest.config.js: a test file that loads Express runs on both majors, one that never does runs
// once, in the `core` project, which refuses Express.

import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { expressChain, splitTests } = require('./support/loads-express.js') as {
  expressChain: (file: string) => string | undefined;
  splitTests: (dir: string) => { core: string[]; express: string[] };
};

const here = (file: string): string => path.join(__dirname, file);

it('runs in the core project, where loading Express or supertest throws, naming the rule', () => {
  for (const name of ['express', 'express/package.json', 'supertest']) {
    // A name in a variable, as a dynamic import would have it: the import scan cannot see it, the project can.
    expect(() => require(name)).toThrow(/`core` jest project/);
  }
});

it('sorts a file by what it loads, through helpers and lib', () => {
  expect(expressChain(here('core/versions.test.ts'))).toBeUndefined();
  expect(expressChain(here('core/protocol/dispatcher.test.ts'))).toBeUndefined();
  expect(expressChain(here('edge/express-host.test.ts'))).toBeDefined();
  expect(expressChain(here('demo.test.ts'))).toBe('supertest');
  // Through a helper that builds an app, then through lib's index.
  expect(expressChain(here('features/telemetry/spans.test.ts'))).toMatch(
    /^__tests__\/helpers\/create-app\.ts > .*express$/,
  );
  // A child process that loads the project's Express major: the file reads EXPRESS_MAJOR.
  expect(expressChain(here('hostile/session-memory.test.ts'))).toBe('EXPRESS_MAJOR');
});

it('puts every test file in exactly one of the two sets, this one in core', () => {
  const { core, express } = splitTests(__dirname);
  expect(core).toContain(__filename);
  expect(express).toContain(here('express-major.test.ts'));
  expect(core.filter((file) => express.includes(file))).toEqual([]);
  expect(core.length).toBeGreaterThan(20);
});
