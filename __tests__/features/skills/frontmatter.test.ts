// The SKILL.md frontmatter reader: what it accepts reads exactly as YAML 1.2 and 1.1 parsers read it; the rest is refused by line.

import YAML from 'yaml';
import { readFrontmatter } from '../../../lib/features/skills/frontmatter';

const doc = (...lines: string[]): string => ['---', ...lines, '---', '', '# Body', ''].join('\n');
// Read as YAML 1.2 (core schema) and as YAML 1.1, which many hosts' parsers still follow (yes/no booleans, dates).
const yamlOf = (text: string, version: '1.1' | '1.2'): unknown =>
  YAML.parse(text.split('\n---')[0]!.replace(/^---\n/, ''), { version });

describe('readFrontmatter', () => {
  const accepted: [string, string][] = [
    ['plain values', doc('name: pdf-processing', 'description: Extract text, tables and forms from PDFs')],
    ['quoted values', doc(`name: 'it''s'`, 'description: "a \\"quoted\\" one, with \\u00e9 and: colon"')],
    ['a URL and a colon not followed by a space', doc('name: x', 'description: see https://example.com/a:b')],
    ['a nested metadata map', doc('name: x', 'description: z', 'metadata:', '  author: ada', "  version: '1.0'")],
    ['comments and blank lines', doc('# a comment', 'name: x', '', 'description: z  ', 'license: Apache-2.0')],
    ['quoted number, boolean and date', doc('name: "123"', "description: 'true'", 'license: "2024-01-01"')],
    ['allowed-tools and compatibility', doc('name: x', 'description: z', 'allowed-tools: Bash(git:*) Read')],
  ];

  it.each(accepted)('reads %s as YAML does', (_label, text) => {
    const result = readFrontmatter(text);
    expect(result).toEqual({ ok: true, frontmatter: yamlOf(text, '1.2') });
    expect(result).toEqual({ ok: true, frontmatter: yamlOf(text, '1.1') });
  });

  it.each(['42', 'yes', 'off', 'y', 'N', '2024-01-01', '~', '.inf'])(
    'refuses the plain value %s, which YAML 1.2 or 1.1 reads as no string',
    (value) => {
      const text = doc('name: x', `description: ${value}`);
      const read = [yamlOf(text, '1.2'), yamlOf(text, '1.1')] as { description: unknown }[];
      expect(read.some(({ description }) => typeof description !== 'string')).toBe(true);
      expect(readFrontmatter(text).ok).toBe(false);
    },
  );

  it('reads CRLF line ends and a byte-order mark', () => {
    const text = `\uFEFF${doc('name: x', 'description: z').replace(/\n/g, '\r\n')}`;
    expect(readFrontmatter(text)).toEqual({ ok: true, frontmatter: { name: 'x', description: 'z' } });
  });

  const refused: [string, string, RegExp][] = [
    ['no opening line', 'name: x\n', /does not start with a --- line/],
    ['no closing line', '---\nname: x\n', /no closing --- line/],
    ['a number', doc('name: x', 'description: 42'), /line 3: .*"42" is not a string to YAML/],
    ['a boolean', doc('name: x', 'description: yes'), /line 3: .*quote it/],
    ['a date', doc('name: x', 'description: 2024-01-01'), /line 3: .*quote it/],
    ['null', doc('name: x', 'description: ~'), /quote it/],
    ['a block scalar', doc('name: x', 'description: >', '  folded'), /line 3: .*needs quotes/],
    ['a list', doc('name: x', 'tags:', '  - a'), /line 4: .*expected "key: value"/],
    ['a flow map', doc('name: x', 'description: {a: 1}'), /line 3: .*needs quotes/],
    ['an anchor', doc('name: &a x'), /line 2: .*needs quotes/],
    ['a trailing comment', doc('name: x # the name'), /line 2: .*needs quotes/],
    ['a mapping in a plain value', doc('description: a: b'), /needs quotes/],
    ['a duplicate key', doc('name: x', 'name: y'), /line 3: 'name' appears twice/],
    ['tabs', doc('name: x', 'metadata:', '\tauthor: a'), /line 4: tabs/],
    ['two levels of nesting', doc('metadata:', '  a:', '    b: c'), /only one level of nesting/],
    ['an indented line under a value', doc('name: x', '  b: c'), /belongs under a key with no value/],
    ['an empty map', doc('metadata:', 'name: x'), /'metadata' has no value/],
    ['a key without a space after the colon', doc('name:x'), /expected "key: value"/],
    ['an unterminated quote', doc(`name: 'x`), /unterminated single-quoted/],
    ['a YAML-only escape', doc('name: "\\x41"'), /escapes other than JSON ones/],
    ['text after a quoted value', doc(`name: 'a' b`), /unterminated single-quoted/],
    // A plain object's prototype setter would take these: the key would vanish from the entry (and a nested map
    // under it would become the prototype, lending `name` to the checks while the wire entry has none).
    [
      'a __proto__ map',
      doc('__proto__:', '  name: x', 'description: z'),
      /line 2: the key "__proto__" is not supported/,
    ],
    ['a __proto__ value', doc('name: x', '__proto__: y'), /line 3: the key "__proto__" is not supported/],
    ['a nested __proto__', doc('metadata:', '  __proto__: y'), /line 3: the key "__proto__" is not supported/],
  ];

  it.each(refused)('refuses %s, naming the line', (_label, text, reason) => {
    const result = readFrontmatter(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });
});
