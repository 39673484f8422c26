// docs/doctor.md documents every finding the doctor can make, and every docs link a finding carries points at a heading.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { headingSlugs, ROOT } from '../helpers/markdown';

const LIB = join(ROOT, 'lib', 'doctor');
const sources = readdirSync(LIB, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => readFileSync(join(LIB, name), 'utf8'))
  .join('\n');
const page = readFileSync(join(ROOT, 'docs', 'doctor.md'), 'utf8');

it('lists every finding id in docs/doctor.md', () => {
  const ids = [...new Set([...sources.matchAll(/id: '([a-z0-9]+\.[a-z0-9.-]+)'/g)].map((m) => m[1] as string))];
  expect(ids.length).toBeGreaterThan(40);
  expect(ids.filter((id) => !page.includes(`\`${id}\``))).toEqual([]);
});

it("points every finding's docs at a heading of a docs page", () => {
  const links = [
    ...new Set([...sources.matchAll(/(?:docs: |DOCS = )'([a-z-]+\.md)#([a-z0-9-]+)'/g)].map((m) => `${m[1]}#${m[2]}`)),
  ];
  expect(links.length).toBeGreaterThan(5);
  const broken = links.filter((link) => {
    const [file, anchor] = link.split('#') as [string, string];
    return !headingSlugs(readFileSync(join(ROOT, 'docs', file), 'utf8')).has(anchor);
  });
  expect(broken).toEqual([]);
});
