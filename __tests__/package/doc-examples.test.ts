// How the documents' runnable examples are found: servers, clients against a server, pages, and the copies shipped in
// docs/examples; every mistake in a marker, a name or a copy is refused, never skipped.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docExamples } from './doc-examples';

const fence = (marker: string, lang: string, code: string): string =>
  `<!-- example: ${marker} -->\n\`\`\`${lang}\n${code}\`\`\`\n`;
const SERVER = fence('server.ts (runs as is)', 'ts', 'listen();\n');
const CLIENT = fence('client.mts (runs as is against server.ts)', 'ts', 'await call();\n');
const PAGE = fence('page.html (runs as is)', 'html', '<p>hi</p>\n');

let shipped: string;
beforeEach(() => {
  shipped = mkdtempSync(join(tmpdir(), 'emr-doc-examples-'));
});
afterEach(() => rmSync(shipped, { recursive: true, force: true }));

const found = (text: string) => docExamples([{ path: 'docs/x.md', text }], join(shipped, 'examples'));

it('finds servers, clients with their server, and pages, each with its code', () => {
  expect(found(`# X\n\n${SERVER}\ntext\n\n${CLIENT}\n${PAGE}`)).toEqual([
    { name: 'server.ts', file: 'docs/x.md', code: 'listen();\n' },
    { name: 'client.mts', file: 'docs/x.md', code: 'await call();\n', against: 'server.ts' },
    { name: 'page.html', file: 'docs/x.md', code: '<p>hi</p>\n' },
  ]);
});

it.each([
  [
    'a marker without a fence after it',
    `<!-- example: a.ts (runs as is) -->\n\ntext\n`,
    /1 "\(runs as is\)" markers but 0/,
  ],
  ['a marker before a js fence', fence('a.ts (runs as is)', 'js', 'x\n'), /1 "\(runs as is\)" markers but 0/],
  [
    'a client against no server',
    fence('c.mts (runs as is against nothing.ts)', 'ts', 'x\n'),
    /runs against nothing\.ts, which is no server/,
  ],
  [
    'a client named .ts',
    `${SERVER}${fence('c.ts (runs as is against server.ts)', 'ts', 'x\n')}`,
    /example c\.ts of docs\/x\.md: a server is/,
  ],
  ['a server named .mts', fence('s.mts (runs as is)', 'ts', 'x\n'), /example s\.mts of docs\/x\.md/],
  ['a page in a ts fence', fence('p.html (runs as is)', 'ts', 'x\n'), /example p\.html of docs\/x\.md/],
  ['two examples of one name', `${SERVER}${SERVER}`, /example server\.ts is in both docs\/x\.md and docs\/x\.md/],
])('refuses %s', (_what, text, message) => {
  expect(() => found(text)).toThrow(message);
});

it('refuses a file of docs/examples that is no example, or differs from its example by a byte', () => {
  mkdirSync(join(shipped, 'examples'));
  writeFileSync(join(shipped, 'examples', 'client.mts'), 'await call();\n');
  expect(found(`${SERVER}${CLIENT}`).map(({ name }) => name)).toEqual(['server.ts', 'client.mts']);
  writeFileSync(join(shipped, 'examples', 'client.mts'), 'await call(); \n');
  expect(() => found(`${SERVER}${CLIENT}`)).toThrow(
    'docs/examples/client.mts differs from the example of docs/x.md: they must be the same text',
  );
  writeFileSync(join(shipped, 'examples', 'other.mts'), 'x\n');
  expect(() => found(SERVER)).toThrow('docs/examples/other.mts is no example marked "(runs as is)" in the documents');
});

it("finds the documents' own, and docs/examples/oauth-client.mts is the recipe of docs/security.md", () => {
  const examples = docExamples();
  expect(examples.find(({ name }) => name === 'oauth-client.mts')).toMatchObject({
    file: 'docs/security.md',
    against: 'sign-in.ts',
  });
});
