// Every docs link an auth finding carries names a heading of a page under docs/.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_DOCS } from '../../../lib/doctor/auth/links';
import { headingSlugs, ROOT } from '../../helpers/markdown';

describe('AUTH_DOCS', () => {
  it.each(Object.entries(AUTH_DOCS))('%s (%s) is a heading of docs/', (_name, link) => {
    const [page, anchor] = link.split('#') as [string, string];
    expect(headingSlugs(readFileSync(join(ROOT, 'docs', page), 'utf8')).has(anchor)).toBe(true);
  });
});
