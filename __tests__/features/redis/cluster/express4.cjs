// Loaded with --require in the instance processes of the redis4 project: every require('express') gets Express 4 (the express4 alias), as jest's moduleNameMapper does in-process.
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveExpress4(request, ...rest) {
  if (request === 'express') return resolve.call(this, 'express4', ...rest);
  if (request === 'express/package.json') return resolve.call(this, 'express4/package.json', ...rest);
  return resolve.call(this, request, ...rest);
};
