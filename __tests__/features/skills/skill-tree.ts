// Test helper: writes a folder of skills into a fresh temp dir, and the digest SEP-2640 lists for a file's bytes.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A 1x1 PNG: bytes that are not UTF-8 text, served as a base64 blob. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export const PDF_SKILL = [
  '---',
  'name: pdf-processing',
  'description: Extract text and tables from PDF files',
  'metadata:',
  '  author: ada',
  '---',
  '',
  '# PDF processing',
  '',
].join('\n');

/** Files by path below the root: a string is written as UTF-8, a Buffer as is. */
export type Tree = Record<string, string | Buffer>;

/** The usual tree: a skill with a subfolder, a script and an image, and a skill under a grouping folder. */
export function sampleTree(): Tree {
  return {
    'pdf-processing/SKILL.md': PDF_SKILL,
    'pdf-processing/references/FORMS.md': '# Forms\n\nFill them by field name.\n',
    'pdf-processing/scripts/extract.py': 'print("extract")\n',
    'pdf-processing/assets/logo.png': PNG,
    'pdf-processing/.hidden': 'not served',
    'team/csv-cleanup/SKILL.md': '---\nname: csv-cleanup\ndescription: "Clean CSV files: trim, re-encode"\n---\n',
    'README.md': 'A file beside the skills, in no skill: not served.\n',
  };
}

/** Writes `tree` under a new temp folder and returns its path. */
export function writeTree(tree: Tree): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skills-'));
  for (const [file, content] of Object.entries(tree)) {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  return root;
}

/** SEP-2640: `sha256:` and the lowercase hex SHA-256 of the raw bytes. */
export function digest(content: string | Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}
