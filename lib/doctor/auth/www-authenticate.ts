// Reads a `WWW-Authenticate` header into its challenges and their parameters (RFC 9110 §11.6.1, RFC 6750 §3).

/** One challenge: its scheme as sent and its parameters, names in lower case. */
export interface Challenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** A quoted-string from `text[at]` (the opening quote): its unescaped value and where it ends. */
function quoted(text: string, at: number): { value: string; end: number } {
  let value = '';
  let i = at + 1;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\' && i + 1 < text.length) i += 1;
    value += text[i];
    i += 1;
  }
  return { value, end: i + 1 };
}

/**
 * The challenges of a header value, in order. A parameter is `name=token` or `name="quoted"`; a bare word starts a
 * new challenge; a token68 credential and anything unreadable are skipped, never thrown on.
 */
export function parseChallenges(header: string): Challenge[] {
  const challenges: { scheme: string; params: Record<string, string> }[] = [];
  let i = 0;
  while (i < header.length) {
    const rest = header.slice(i);
    const skip = /^[\s,]+/.exec(rest);
    if (skip) {
      i += skip[0].length;
      continue;
    }
    const word = TOKEN.exec(rest);
    if (!word) {
      i += 1;
      continue;
    }
    i += word[0].length;
    const afterSpaces = /^[ \t]*/.exec(header.slice(i))?.[0].length ?? 0;
    const current = challenges[challenges.length - 1];
    if (header[i + afterSpaces] !== '=' || current === undefined) {
      if (header[i + afterSpaces] !== '=') challenges.push({ scheme: word[0], params: {} });
      continue;
    }
    i += afterSpaces + 1;
    i += /^[ \t]*/.exec(header.slice(i))?.[0].length ?? 0;
    if (header[i] === '"') {
      const { value, end } = quoted(header, i);
      current.params[word[0].toLowerCase()] = value;
      i = end;
    } else {
      const value = TOKEN.exec(header.slice(i))?.[0] ?? '';
      if (value !== '') current.params[word[0].toLowerCase()] = value;
      i += Math.max(value.length, 1);
    }
  }
  return challenges;
}

/** The first challenge of a scheme MCP clients answer: `Bearer` (RFC 6750) or `DPoP` (RFC 9449 §7.1). */
export function oauthChallengeOf(challenges: readonly Challenge[]): Challenge | undefined {
  return challenges.find((challenge) => /^(bearer|dpop)$/i.test(challenge.scheme));
}
