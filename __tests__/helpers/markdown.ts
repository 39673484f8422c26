// The repository's Markdown documents, and what the doc tests read from them: fenced code skipped, heading slugs as GitHub makes them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** One Markdown file: its path from the repository root (forward slashes) and its text. */
export interface MarkdownFile {
  path: string;
  text: string;
}

function markdownUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return markdownUnder(full);
      return entry.name.endsWith('.md') ? [full] : [];
    })
    .sort();
}

function read(paths: string[]): MarkdownFile[] {
  return paths
    .filter((path) => existsSync(path))
    .map((path) => ({ path: relative(ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));
}

/** What a user reads: README.md and every docs/**\/*.md (the files whose runnable examples the package test runs). */
export function userDocs(): MarkdownFile[] {
  return read([join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))]);
}

/** The user's documents plus the maintainers': CONTRIBUTING.md, CHANGELOG.md (when present) and bench/README.md. */
export function allDocs(): MarkdownFile[] {
  return [...userDocs(), ...read(['CONTRIBUTING.md', 'CHANGELOG.md', 'bench/README.md'].map((p) => join(ROOT, p)))];
}

/** A line of a Markdown file outside fenced code blocks, with its 1-based number. */
export interface ProseLine {
  line: number;
  text: string;
}

/** The lines outside ``` and ~~~ fences (CommonMark: a fence closes on the same character, at least as long). */
export function proseLines(text: string): ProseLine[] {
  const lines: ProseLine[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})\s*(\S*)/.exec(line);
    const run = marker?.[1];
    if (fence === undefined) {
      if (run === undefined) lines.push({ line: index + 1, text: line });
      else fence = run;
    } else if (run !== undefined && run[0] === fence[0] && run.length >= fence.length && marker?.[2] === '') {
      fence = undefined;
    }
  });
  return lines;
}

/** A heading's text as GitHub renders it for the slug: links and images by their text, code spans by their content. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+([^`]*)`+/g, '$1');
}

/**
 * GitHub's anchor for a heading: lower case, every character but letters, digits, spaces, `-` and `_` dropped,
 * spaces to `-`; a slug seen before gets `-1`, `-2`, … (github-slugger's rules).
 */
export function headingSlugs(text: string): Set<string> {
  // github-slugger: occurrences[slug] counts the repeats of a base slug; every slug handed out is taken.
  const occurrences = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = headingText(heading)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let slug = base;
    while (occurrences.has(slug)) {
      const repeats = (occurrences.get(base) ?? 0) + 1;
      occurrences.set(base, repeats);
      slug = `${base}-${repeats}`;
    }
    occurrences.set(slug, 0);
  }
  return new Set(occurrences.keys());
}
