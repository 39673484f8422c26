// Decides which jest project a test file belongs to: does it load Express (directly, or through what it imports)?
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/**
 * Package names whose loading means Express is loaded. supertest needs an app to drive; the SDK's express entry
 * builds one. A package missing here that pulls Express in is caught at run time: the `core` project maps these
 * names to express-in-core.js, which throws.
 */
const EXPRESS_PACKAGES = /^(express|express4|supertest)(\/|$)|^@modelcontextprotocol\/(sdk\/.*express|express)/;

// Value imports only: `import type` / `export type` are erased by the compiler and load nothing.
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?!type\s)[^'";]*?from\s*['"]([^'"]+)['"]|\b(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s*['"]([^'"]+)['"]/g;

/** The file a relative specifier names (TypeScript's `./x.js` → `./x.ts` included), or undefined. */
function resolveRelative(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((file) => /\.[cm]?[jt]s$/.test(file) && fs.existsSync(file) && fs.statSync(file).isFile());
}

const verdicts = new Map();

/**
 * The import chain by which `file` loads Express (e.g. `lib/index.ts > lib/router.ts > express`, or `EXPRESS_MAJOR`
 * for a file that reads the project's Express major), or undefined when it never does. Follows relative imports
 * through the repository; stops at packages.
 */
function expressChain(file, visiting = new Set()) {
  const absolute = path.resolve(file);
  if (verdicts.has(absolute)) return verdicts.get(absolute);
  if (visiting.has(absolute)) return undefined; // a cycle: the other path through it decides
  visiting.add(absolute);
  const text = fs.readFileSync(absolute, 'utf8');
  // A test that reads the Express major its project sets (e.g. to pass it to a child process) is Express-facing.
  let chain = /\bdeclare const EXPRESS_MAJOR\b/.test(text) ? 'EXPRESS_MAJOR' : undefined;
  for (const match of chain ? [] : text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (!specifier.startsWith('.')) {
      if (EXPRESS_PACKAGES.test(specifier)) chain = specifier;
    } else {
      const target = resolveRelative(absolute, specifier);
      const below = target && expressChain(target, visiting);
      if (below) chain = `${path.relative(process.cwd(), target)} > ${below}`;
    }
    if (chain) break;
  }
  visiting.delete(absolute);
  verdicts.set(absolute, chain);
  return chain;
}

/** Every `*.test.ts` below `dir`, split by whether it loads Express. */
function splitTests(dir) {
  const files = fs
    .readdirSync(dir, { recursive: true })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join(dir, name))
    .sort();
  return {
    express: files.filter((file) => expressChain(file) !== undefined),
    core: files.filter((file) => expressChain(file) === undefined),
  };
}

module.exports = { EXPRESS_PACKAGES, expressChain, splitTests };
