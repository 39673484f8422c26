// The one decision on how an authorization error goes back to a client (RFC 6749 §4.1.2.1, RFC 9700 §4.11.2).

import { errorReturn } from '../../../lib/features/sign-in/browser/authorization-request';

describe('errorReturn', () => {
  const to = { uri: 'https://client.example/cb', state: 's' };

  it.each([
    ['a pre-registered client, before the user acted', 'preregistered', false, true],
    ['a DCR client, before the user acted', 'dynamic', false, false],
    ['a metadata-document client, before the user acted', 'metadata-document', false, false],
    ['a pending request kept before the client’s source was', undefined, false, false],
    ['a DCR client, after the user answered the consent page', 'dynamic', true, true],
    ['a metadata-document client, after the user answered the consent page', 'metadata-document', true, true],
  ] as const)('%s', (_name, source, userAnswered, automatic) => {
    expect(errorReturn(to, source, userAnswered)).toEqual({ ...to, automatic });
  });
});
