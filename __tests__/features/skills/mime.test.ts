// A skill file's media type: mime-db's where it names what a skill holds, else text/plain or application/octet-stream.

import { mimeTypeOf } from '../../../lib/features/skills/mime';

describe('mimeTypeOf', () => {
  it.each([
    ['SKILL.md', true, 'text/markdown'],
    ['data.json', true, 'application/json'],
    ['script.ts', true, 'text/x-typescript'],
    ['script.py', true, 'text/x-python'],
    ['config.yaml', true, 'application/yaml'],
    ['icon.svg', true, 'image/svg+xml'],
    ['logo.png', false, 'image/png'],
    // mime-db names another kind of file for these extensions than the source text a skill holds.
    ['main.rs', true, 'text/plain'],
    ['run.bat', true, 'text/plain'],
    ['index.cjs', true, 'text/plain'],
    ['clip.mp4', true, 'text/plain'],
    ['notes.unknownext', true, 'text/plain'],
    ['blob.unknownext', false, 'application/octet-stream'],
  ])('%s (text: %s) is %s', (file, text, type) => {
    expect(mimeTypeOf(file, text)).toBe(type);
  });
});
