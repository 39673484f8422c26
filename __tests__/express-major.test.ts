// Proves each jest project loads the Express major it claims to test (see the projects in jest.config.js).

declare const EXPRESS_MAJOR: number;

it(`loads Express ${EXPRESS_MAJOR} for the library and the tests`, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('express/package.json') as { version: string };
  expect(Number(version.split('.')[0])).toBe(EXPRESS_MAJOR);
});
