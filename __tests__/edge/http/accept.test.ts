// Accept negotiation for POST replies: the mode when both types are accepted, the only type otherwise, and a memo that never changes an answer.

import { createReplyNegotiator, REMEMBERED_ACCEPT_HEADERS, type ResponseMode } from '../../../lib/edge/http/accept';

describe('createReplyNegotiator', () => {
  it.each<[string | undefined, ResponseMode, ResponseMode | undefined]>([
    ['application/json, text/event-stream', 'auto', 'auto'],
    ['application/json, text/event-stream', 'sse', 'sse'],
    [undefined, 'json', 'json'],
    ['', 'auto', 'auto'],
    ['*/*', 'auto', 'auto'],
    ['application/json', 'sse', 'json'],
    ['text/event-stream', 'json', 'sse'],
    ['text/event-stream, application/json;q=0', 'auto', 'sse'],
    ['text/html', 'auto', undefined],
  ])('answers %j in mode %s with %j, the first time and from memory', (header, mode, expected) => {
    const negotiate = createReplyNegotiator();
    expect(negotiate(header, mode)).toBe(expected);
    expect(negotiate(header, mode)).toBe(expected);
  });

  it('keeps answering rightly past the number of headers it remembers', () => {
    const negotiate = createReplyNegotiator();
    for (let i = 0; i <= 2 * REMEMBERED_ACCEPT_HEADERS; i++) {
      expect(negotiate(`text/event-stream, application/x-${i}`, 'auto')).toBe('sse');
      expect(negotiate(`application/json;v=${i}`, 'sse')).toBe('json');
    }
    expect(negotiate('text/event-stream, application/x-0', 'auto')).toBe('sse');
  });
});
