// The media type of a skill file, by its extension: what `resources/read` and directory reads say it holds.

import path from 'node:path';

/** SEP-2640: a SKILL.md is `text/markdown`; the rest by the common extensions of what skills hold. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
};

/** The media type of `file` by its extension; else `text/plain` for text, `application/octet-stream` for bytes. */
export function mimeTypeOf(file: string, text: boolean): string {
  return BY_EXTENSION[path.extname(file).toLowerCase()] ?? (text ? 'text/plain' : 'application/octet-stream');
}
