// CI runs exactly the test commands README gives (CONTRIBUTING.md lists the same, annotated), README's "From a clone" gives the two commands, and the
// documents name only npm scripts that exist.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allDocs } from './helpers/markdown';

const root = path.join(__dirname, '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const ciScript = read('.ci/run');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** The commands of the first ```sh block after `heading` in `file`, comments dropped. */
function commandsUnder(file: string, heading: string): string[] {
  const text = read(file);
  const at = text.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`${file} has no heading "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

describe('the documents and CI', () => {
  it('runs in CI exactly the test commands README\'s "Running the tests" lists (and CONTRIBUTING\'s), after npm ci', () => {
    const listed = commandsUnder('README.md', '## Running the tests');
    expect(commandsUnder('CONTRIBUTING.md', '## Running the tests')).toEqual(listed);
    expect(listed).toEqual([
      'npm run format:check',
      'npm test',
      'npm run docs',
      'npm run test:conformance',
      'npm run test:browser',
      'npm run test:redis',
      'npm run test:proxy',
      'npm run test:inspector',
    ]);
    const ciCommands = ciScript.split('\n').filter((line) => /^npm (ci|test|run)\b/.test(line));
    expect(ciCommands).toEqual(['npm ci --no-audit --no-fund', ...listed]);
  });

  it('names only npm scripts that exist, in README, CONTRIBUTING, bench/README and docs/', () => {
    const named = allDocs().flatMap(({ text }) => [...text.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!));
    expect(named.length).toBeGreaterThan(0);
    for (const script of new Set(named)) expect(scripts).toHaveProperty([script]);
  });

  it('gives README\'s two commands for a clone under "From a clone"', () => {
    expect(commandsUnder('README.md', '## From a clone')).toEqual(['npm install && npm run demo', 'npm test']);
  });
});
