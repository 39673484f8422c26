// afterAll and afterEach hooks run when the beforeAll or beforeEach that sets their variables failed part way (a
// timeout on a busy machine): a hook that then reads a property of such a variable throws a TypeError that hides the
// real failure and leaves what it should have closed open. Each one reads them with `?.`.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file under __tests__. */
function testSources(dir = __dirname): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testSources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The argument list of each `afterAll(` / `afterEach(` call in `source`. */
function afterHooks(source: string): { line: number; body: string }[] {
  const hooks: { line: number; body: string }[] = [];
  for (const match of source.matchAll(/\bafter(?:All|Each)\(/g)) {
    const start = match.index + match[0].length;
    let depth = 1;
    let end = start;
    for (; depth > 0 && end < source.length; end += 1) depth += source[end] === '(' ? 1 : source[end] === ')' ? -1 : 0;
    hooks.push({ line: source.slice(0, start).split('\n').length, body: source.slice(start, end) });
  }
  return hooks;
}

/** `file:line name.` for each hook that reads a property of a variable declared without a value (`let x: T;`). */
function unguardedReads(file: string, source: string): string[] {
  const unset = [...source.matchAll(/\blet\s+([A-Za-z_$][\w$]*)\s*:[^=;]*;/g)].map((match) => match[1]!);
  return afterHooks(source).flatMap(({ line, body }) =>
    unset
      .filter((name) => new RegExp(`(?<![\\w$.?])${name.replace('$', '\\$')}\\.`).test(body))
      .map((name) => `${path.relative(__dirname, file)}:${line} ${name}.`),
  );
}

describe('after hooks', () => {
  it('read what their before hook set with ?. (it may have failed before setting it)', () => {
    const files = testSources().filter((file) => file !== __filename);
    expect(files.flatMap((file) => unguardedReads(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('the check finds an unguarded read, and accepts a guarded one', () => {
    const source = 'let provider: TestProvider;\nbeforeAll(start);\nafterAll(() => provider.close());\n';
    expect(unguardedReads(__filename, source)).toEqual(['hooks.test.ts:3 provider.']);
    expect(unguardedReads(__filename, source.replace('provider.close', 'provider?.close'))).toEqual([]);
  });
});
