// Stands in for Express (and supertest) in the `core` jest project, which runs once and must not load Express.
'use strict';

throw new Error(
  'This test loads Express (or supertest), but runs in the `core` jest project, which runs once, not on each ' +
    'Express major. jest.config.js sorts test files by their imports (__tests__/support/loads-express.js): if the ' +
    'import is dynamic or goes through a package, add that package to EXPRESS_PACKAGES there.',
);
