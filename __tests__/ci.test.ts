// CI runs exactly the test commands README gives, and README's quick start uses scripts that exist.

import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const ciScript = readFileSync(path.join(root, '.ci', 'run'), 'utf8');
const scripts = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The commands of the first ```sh block after `heading`, comments dropped. */
function commandsUnder(heading: string): string[] {
  const section = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

describe('README and CI', () => {
  it('runs in CI exactly the test commands README lists, after npm ci', () => {
    const readmeCommands = commandsUnder('## Running the tests');
    expect(readmeCommands).toEqual([
      'npm run format:check',
      'npm test',
      'npm run test:conformance',
      'npm run test:browser',
      'npm run test:redis',
      'npm run test:inspector',
    ]);
    const ciCommands = ciScript.split('\n').filter((line) => /^npm (ci|test|run)\b/.test(line));
    expect(ciCommands).toEqual(['npm ci --no-audit --no-fund', ...readmeCommands]);
  });

  it('names only npm scripts that exist', () => {
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(0);
    for (const script of new Set(named)) expect(scripts).toHaveProperty([script]);
  });

  it('starts with the two quick-start commands', () => {
    expect(commandsUnder('## Quick start')).toEqual(['npm install && npm run demo', 'npm test']);
  });
});
