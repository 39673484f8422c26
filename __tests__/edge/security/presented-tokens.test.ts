// PresentedTokens: the token behind each request's AuthInfo, kept only once a feature asks, never one request's token for another's.

import { PresentedTokens } from '../../../lib/edge/security/presented-tokens';

const auth = (subject: string) => Object.freeze({ subject, scopes: Object.freeze([]) });

describe('PresentedTokens', () => {
  it('keeps nothing until a reader is asked for', () => {
    const presented = new PresentedTokens();
    const alice = auth('alice');
    expect(presented.keep(alice, 'token-a')).toBe(alice);
    expect(presented.reader()(alice)).toBeUndefined();
  });

  it('gives the token behind an AuthInfo, the same object for a token seen again', () => {
    const presented = new PresentedTokens();
    const read = presented.reader();
    const alice = auth('alice');
    expect(presented.keep(alice, 'token-a')).toBe(alice);
    expect(presented.keep(alice, 'token-a')).toBe(alice);
    expect(read(alice)).toBe('token-a');
    expect(read(undefined)).toBeUndefined();
    expect(read(auth('nobody'))).toBeUndefined();
  });

  it('one AuthInfo object standing for two tokens (a verify callback sharing it): each request gets its own copy', () => {
    const presented = new PresentedTokens();
    const read = presented.reader();
    const shared = auth('svc');
    const first = presented.keep(shared, 'token-1');
    const second = presented.keep(shared, 'token-2');
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(read(first)).toBe('token-1');
    expect(read(second)).toBe('token-2');
  });

  it('no token (fromRequest): the AuthInfo as it is, nothing kept', () => {
    const presented = new PresentedTokens();
    const read = presented.reader();
    const host = auth('host-user');
    expect(presented.keep(host, undefined)).toBe(host);
    expect(read(host)).toBeUndefined();
  });
});
