// The WWW-Authenticate reader: challenges, quoted and token parameters, several challenges in one header.

import { oauthChallengeOf, parseChallenges } from '../../../lib/doctor/auth/www-authenticate';

describe('parseChallenges', () => {
  it('reads a Bearer challenge with quoted and token parameters, names in lower case', () => {
    expect(parseChallenges('Bearer Resource_Metadata="https://a.example/x", scope="a b", error=invalid_token')).toEqual(
      [
        {
          scheme: 'Bearer',
          params: { resource_metadata: 'https://a.example/x', scope: 'a b', error: 'invalid_token' },
        },
      ],
    );
  });

  it('unescapes quoted-pairs and keeps commas inside quotes', () => {
    expect(parseChallenges('Bearer error_description="a \\"b\\", c"')[0]?.params).toEqual({
      error_description: 'a "b", c',
    });
  });

  it('splits several challenges and finds the first one MCP clients answer', () => {
    const challenges = parseChallenges('Basic realm="x", DPoP algs="ES256", Bearer scope="mcp"');
    expect(challenges.map((challenge) => challenge.scheme)).toEqual(['Basic', 'DPoP', 'Bearer']);
    expect(oauthChallengeOf(challenges)?.scheme).toBe('DPoP');
    expect(oauthChallengeOf(parseChallenges('Basic realm="x"'))).toBeUndefined();
  });

  it('takes a bare scheme, spaces around "=", a token68 credential and garbage without throwing', () => {
    expect(parseChallenges('Bearer')).toEqual([{ scheme: 'Bearer', params: {} }]);
    expect(parseChallenges('Bearer scope = "mcp"')[0]?.params).toEqual({ scope: 'mcp' });
    expect(parseChallenges('Negotiate abc==')[0]?.scheme).toBe('Negotiate');
    expect(() => parseChallenges('=,"\\')).not.toThrow();
    expect(parseChallenges('Bearer scope="unterminated')[0]?.params).toEqual({ scope: 'unterminated' });
  });
});
