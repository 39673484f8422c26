// strongEntityTag and noneMatchHits: a digest of the exact bytes, and If-None-Match read as RFC 9110 §13.1.2 says.

import type { IncomingMessage } from 'node:http';
import { noneMatchHits, strongEntityTag } from '../../../lib/edge/http/entity-tag';

const withNoneMatch = (value: string | undefined): IncomingMessage =>
  ({ headers: value === undefined ? {} : { 'if-none-match': value } }) as never;

describe('strongEntityTag', () => {
  it('is a quoted digest of the bytes: the same bytes, the same tag; one byte more, another', () => {
    const tag = strongEntityTag(Buffer.from('{}'));
    expect(tag).toBe('"RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"');
    expect(strongEntityTag(Buffer.from('{}'))).toBe(tag);
    expect(strongEntityTag(Buffer.from('{} '))).not.toBe(tag);
  });
});

describe('noneMatchHits', () => {
  const tag = '"abc"';

  it.each([
    ['the tag', '"abc"'],
    ['the tag, weak (weak comparison)', 'W/"abc"'],
    ['a list holding it', '"x", W/"y",   "abc"'],
    ['a list without spaces', '"x","abc"'],
    ['*', '*'],
    ['a tag beside one with a comma inside', '"a,b", "abc"'],
  ])('hits %s', (_name, header) => {
    expect(noneMatchHits(withNoneMatch(header), tag)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another tag', '"abd"'],
    ['the tag unquoted', 'abc'],
    ['a tag containing it', '"xabc"'],
    ['the empty tag', '""'],
    ['a star inside a list', '"x", *'],
  ])('misses %s', (_name, header) => {
    expect(noneMatchHits(withNoneMatch(header), tag)).toBe(false);
  });
});
