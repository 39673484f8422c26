// The media type of a skill file, by its extension: what `resources/read` and directory reads say it holds.

import path from 'node:path';
import { lookup } from 'mime-types';

/**
 * Where a skill means another type than mime-db (the table `mime-types` reads) gives: source files it does not list
 * or takes for media (`.ts` is an MPEG transport stream there), and YAML as RFC 9512 registers it.
 */
const SKILL_TYPES: Readonly<Record<string, string>> = {
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/**
 * The types a file that reads as text is believed to hold: text, and the structured text formats. An extension
 * mime-db maps elsewhere (`.rs` is an RLS services document there, `.bat` a Windows program, `.cjs` `application/node`)
 * names another kind of file than a skill's source, which is then `text/plain`.
 */
const TEXTUAL =
  /^(text\/|image\/svg\+xml$|application\/(json|ld\+json|xml|yaml|toml|javascript|ecmascript|x-sh|x-httpd-php|sql|graphql|x-tex)$)/;

/**
 * The media type of `file` by its extension (SEP-2640: a SKILL.md is `text/markdown`), without parameters; else
 * `text/plain` for text, `application/octet-stream` for bytes.
 *
 * @param text - whether the file's bytes read as UTF-8 text
 */
export function mimeTypeOf(file: string, text: boolean): string {
  const extension = path.extname(file).toLowerCase();
  const type = SKILL_TYPES[extension] ?? lookup(extension);
  if (type !== false && (!text || TEXTUAL.test(type))) return type;
  return text ? 'text/plain' : 'application/octet-stream';
}
