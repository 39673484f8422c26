// Every relative link and image in the Markdown documents points at a file that exists, and every #anchor at a heading of its target.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { allDocs, headingSlugs, proseLines, ROOT, type MarkdownFile } from './helpers/markdown';

/** A link found in a document: where it is and what it points at. */
interface Link {
  file: string;
  line: number;
  target: string;
}

// Inline links and images `[text](target "title")` (the text may hold one level of brackets and wrap lines), and
// reference definitions `[label]: target`.
const INLINE = /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm;
const EXTERNAL = /^(?:[a-z][a-z\d+.-]*:|\/\/)/i;

/** The document with fenced code blanked and inline code spans turned to `x`s, line breaks kept for line numbers. */
function withoutCode(text: string): string {
  const lines = text.split('\n').map(() => '');
  for (const { line, text: prose } of proseLines(text)) lines[line - 1] = prose;
  return lines.join('\n').replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, 'x'));
}

function linksOf({ path, text }: MarkdownFile): Link[] {
  const prose = withoutCode(text);
  const lineAt = (index: number): number => prose.slice(0, index).split('\n').length;
  return [...prose.matchAll(INLINE), ...prose.matchAll(DEFINITION)]
    .map((match) => ({ file: path, line: lineAt(match.index), target: (match[1] as string).replace(/^<|>$/g, '') }))
    .filter(({ target }) => !EXTERNAL.test(target))
    .sort((a, b) => a.line - b.line);
}

const slugsOf = new Map<string, Set<string>>();
function slugs(file: string): Set<string> {
  let found = slugsOf.get(file);
  if (found === undefined) slugsOf.set(file, (found = headingSlugs(readFileSync(join(ROOT, file), 'utf8'))));
  return found;
}

/** Why `link` is broken, or undefined when its file exists and its anchor (in a .md target) is a heading there. */
function problemWith(link: Link): string | undefined {
  const hash = link.target.indexOf('#');
  const pathPart = decodeURI(hash === -1 ? link.target : link.target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
  const file =
    pathPart === ''
      ? link.file
      : normalize(join(dirname(link.file), pathPart))
          .split('\\')
          .join('/');
  if (file.startsWith('../') || !existsSync(join(ROOT, file))) return `${file} does not exist`;
  if (anchor === undefined || !file.endsWith('.md')) return undefined;
  return slugs(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

const docs = allDocs();
const links = docs.flatMap(linksOf);

it('reads README, CONTRIBUTING, bench/README and the docs/ pages, and finds their relative links', () => {
  const read = docs.map(({ path }) => path);
  expect(read).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'docs/api.md']));
  expect(links.length).toBeGreaterThan(20);
});

it('has no broken relative link: each file exists and each #anchor is a heading of its target', () => {
  const broken = links.flatMap((link) => {
    const problem = problemWith(link);
    return problem === undefined ? [] : [`${link.file}:${link.line}: (${link.target}) ${problem}`];
  });
  expect(broken.join('\n')).toBe('');
});

describe('the rules the check follows', () => {
  it.each([
    ['## `mcpRouter(options)`', 'mcprouteroptions'],
    ['## Sign-in (OAuth)', 'sign-in-oauth'],
    ['## Errors: which code when', 'errors-which-code-when'],
    ['### MCP 2026-07-28 beside the 2025 era', 'mcp-2026-07-28-beside-the-2025-era'],
    ['## The handler context (`ctx`)', 'the-handler-context-ctx'],
    ['## [Gateway](gateway.md) and `mcp.upstream`', 'gateway-and-mcpupstream'],
    ['## snake_case names', 'snake_case-names'],
  ])('slugs %s as GitHub does: #%s', (heading, slug) => {
    expect([...headingSlugs(heading)]).toEqual([slug]);
  });

  it('numbers repeated headings -1, -2, and ignores # lines in code fences', () => {
    const text = '# Options\n\n```sh\n# Options\n```\n\n## Options\n\n### Options\n\n## Options 1\n';
    expect([...headingSlugs(text)]).toEqual(['options', 'options-1', 'options-2', 'options-1-1']);
  });

  it('skips links in code fences and inline code, and finds links whose text wraps a line', () => {
    const text = [
      'See [the API](api.md#x) and `[not](a-link.md)`.',
      '```md',
      '[also not](fenced.md)',
      '```',
      'A [wrapped',
      'text](other.md "title") and ![an image](img.png) and [ext](https://example.com).',
      '[ref]: ref.md',
    ].join('\n');
    expect(linksOf({ path: 'docs/x.md', text }).map(({ line, target }) => `${line} ${target}`)).toEqual([
      '1 api.md#x',
      '5 other.md',
      '6 img.png',
      '7 ref.md',
    ]);
  });
});
