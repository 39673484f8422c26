// mcp.skills() at boot: bad skills and bad options fail with McpConfigError naming the file or option, before anything is served.

import fs from 'node:fs';
import path from 'node:path';
import { mcpRouter, McpConfigError } from '../../../lib';
import { sampleTree, writeTree, type Tree } from './skill-tree';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => fs.rmSync(root, { recursive: true, force: true })));

function folder(tree: Tree): string {
  const root = writeTree(tree);
  roots.push(root);
  return root;
}

const router = () => mcpRouter({ name: 'skills-boot', version: '1.0.0' });
const skill = (name: string, description = 'Does a thing'): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n`;

describe('mcp.skills() refuses at boot', () => {
  const cases: [string, Tree, string, RegExp][] = [
    [
      'a name that is not its folder',
      { 'a/SKILL.md': skill('b') },
      'a/SKILL.md',
      /names the skill "b", not its folder's name 'a'/,
    ],
    ['no description', { 'a/SKILL.md': '---\nname: a\n---\n' }, 'a/SKILL.md', /needs a 'description'/],
    ['an empty description', { 'a/SKILL.md': skill('a', "''") }, 'a/SKILL.md', /needs a 'description'/],
    ['no frontmatter', { 'a/SKILL.md': '# A\n' }, 'a/SKILL.md', /does not start with a --- line/],
    ['bad frontmatter', { 'a/SKILL.md': skill('a', '[x, y]') }, 'a/SKILL.md', /line 3: .*needs quotes/],
    ['a name outside the naming rules', { 'Big--One/SKILL.md': skill('Big--One') }, 'Big--One/SKILL.md', /lowercase/],
    ['a SKILL.md at the root', { 'SKILL.md': skill('x') }, 'SKILL.md', /is at the root/],
    [
      'a skill inside a skill',
      { 'a/SKILL.md': skill('a'), 'a/b/SKILL.md': skill('b') },
      'a/b/SKILL.md',
      /inside another skill/,
    ],
    [
      'a file over maxFileBytes',
      { 'a/SKILL.md': skill('a'), 'a/big.bin': Buffer.alloc(2048) },
      'a/big.bin',
      /2048 bytes, over maxFileBytes \(1024\)/,
    ],
    ['a folder without skills', { 'notes/readme.md': 'x' }, '', /holds no skill/],
    [
      'two skills of one name under two grouping folders',
      { 'billing/refunds/SKILL.md': skill('refunds'), 'support/refunds/SKILL.md': skill('refunds') },
      'support/refunds/SKILL.md',
      /names the skill 'refunds', as .*billing\/refunds\/SKILL\.md does: rename one/,
    ],
  ];

  it.each(cases)('%s, naming the file', (_label, tree, file, reason) => {
    const root = folder(tree);
    const call = () => router().skills({ dir: root, maxFileBytes: 1024 });
    expect(call).toThrow(McpConfigError);
    expect(call).toThrow(reason);
    expect(call).toThrow(fs.realpathSync(path.join(root, file)));
  });

  it('a symlink anywhere in the folder (to a file, or to a folder elsewhere)', () => {
    const root = folder(sampleTree());
    fs.symlinkSync('/etc/hostname', path.join(root, 'pdf-processing/references/link.md'));
    expect(() => router().skills(root)).toThrow(/references\/link\.md is a symlink/);
    const other = folder(sampleTree());
    fs.symlinkSync(path.join(other, 'pdf-processing'), path.join(root, 'team/linked'));
    fs.rmSync(path.join(root, 'pdf-processing/references/link.md'));
    expect(() => router().skills(root)).toThrow(/team\/linked is a symlink/);
  });

  it('more than the 512 files SEP-2640 allows in one skill', () => {
    const tree: Tree = { 'a/SKILL.md': skill('a') };
    for (let index = 0; index < 512; index++) tree[`a/files/${index}.txt`] = `${index}`;
    expect(() => router().skills(folder(tree))).toThrow(/is one file more than the 512 SEP-2640 allows/);
  });

  it('more than the 16 MiB SEP-2640 allows in one skill: refused at the file that passes it, before the rest is read', () => {
    const tree: Tree = { 'a/SKILL.md': skill('a') };
    const mebibyte = Buffer.alloc(1024 * 1024, 1);
    for (let index = 10; index < 30; index++) tree[`a/files/${index}.bin`] = mebibyte;
    // SKILL.md and 10.bin to 25.bin: 16 MiB and a few bytes.
    expect(() => router().skills(folder(tree))).toThrow(
      /a\/files\/25\.bin passes the 16 MiB SEP-2640 allows per skill/,
    );
  });

  it('a folder that does not exist', () => {
    expect(() => router().skills('/no/such/folder')).toThrow(/\/no\/such\/folder is not a readable folder/);
  });

  it.each([
    [{ dir: '' }, /option 'skills.dir' must be a non-empty string/],
    [{ dir: 'x', directoryRaed: true }, /unknown option 'skills.directoryRaed'. Did you mean 'skills.directoryRead'\?/],
    [{ dir: 'x', directoryRead: 'yes' }, /option 'skills.directoryRead' must be true or false/],
    [{ dir: 'x', maxFileBytes: 0 }, /option 'skills.maxFileBytes' must be an integer from 1 to 16777216/],
    [42, /option 'skills' must be a folder path or \{ dir, … \}/],
  ])('the options %p', (options, reason) => {
    expect(() => router().skills(options as never)).toThrow(reason);
  });

  it('a second call on one router, before registering anything more', () => {
    const mcp = router();
    mcp.skills(folder(sampleTree()));
    expect(() => mcp.skills(folder({ 'other/SKILL.md': skill('other') }))).toThrow(/'skills\/list' is already served/);
  });

  it('leaves the options object untouched', () => {
    const options = Object.freeze({ dir: folder(sampleTree()), directoryRead: false });
    expect(
      router()
        .skills(options)
        .map((served) => served.name),
    ).toEqual(['pdf-processing', 'csv-cleanup']);
  });
});
