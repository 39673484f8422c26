// docs/api.md's `mcpRouter(options)` table has a row for every option mcpRouter accepts, and none for an option it does not.

import { KNOWN_OPTIONS } from '../lib/resolved-config';
import { userDocs } from './helpers/markdown';

const HEADING = /^(#{2,3}) `mcpRouter\(options\)`\s*$/m;

/** The first cell's option of each row of the first table under the heading: `name`, or `inputRequired` for `inputRequired.stateKey`. */
function documentedOptions(api: string): string[] {
  const heading = HEADING.exec(api);
  if (heading === null) throw new Error('docs/api.md has no heading "## `mcpRouter(options)`"');
  const level = (heading[1] as string).length;
  const section = api.slice(heading.index + heading[0].length).split('\n');
  const end = section.findIndex((line) => new RegExp(`^#{1,${level}} `).test(line));
  const lines = section.slice(0, end === -1 ? undefined : end);
  const start = lines.findIndex((line) => line.startsWith('|'));
  const table = lines
    .slice(start)
    .filter((line, index, rows) => rows.slice(0, index + 1).every((row) => row.startsWith('|')));
  // Skip the header row and the |---| delimiter row.
  return table.slice(2).map((row) => {
    const option = /^\|\s*`([\w.]+)`/.exec(row)?.[1];
    if (option === undefined) throw new Error(`docs/api.md: an options row whose first cell is not \`name\`: ${row}`);
    return option.split('.')[0] as string;
  });
}

const api = userDocs().find(({ path }) => path === 'docs/api.md')?.text ?? '';

it("docs/api.md's options table has a row for every option mcpRouter accepts, and no other", () => {
  const documented = new Set(documentedOptions(api));
  const known = Object.keys(KNOWN_OPTIONS);
  expect(known.filter((option) => !documented.has(option))).toEqual([]);
  expect([...documented].filter((option) => !known.includes(option))).toEqual([]);
});

it('reads the options table only: rows with extra words, the first table under the heading, up to the next heading', () => {
  const page = [
    '## `mcpRouter(options)`',
    '',
    'Intro with `name`.',
    '',
    '| option | type |',
    '|---|---|',
    '| `name` | string |',
    '| `inputRequired.stateKey` (type `InputRequiredOptions`) | string |',
    '',
    '`sessions` settings:',
    '',
    '| option | default |',
    '|---|---|',
    '| `max` | 1 |',
    '### `mcp.tool(definition)`',
  ].join('\n');
  expect(documentedOptions(page)).toEqual(['name', 'inputRequired']);
  expect(() => documentedOptions('## API\n')).toThrow(/no heading/);
});
