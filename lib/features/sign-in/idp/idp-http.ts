// Calls to the IdP (the identity provider behind sign-in): each bounded in time and size, read as a JSON object, failing as a LoginError.

import { boundedFetch, BoundedFetchError, type BoundedResponse } from '../../../edge/outbound/bounded-fetch';
import { LoginError } from '../browser/login';

/** The largest answer read from a provider (discovery, tokens, userinfo, JWKS): ample for all, and a hostile one costs no more. */
export const MAX_PROVIDER_ANSWER_BYTES = 256 * 1024;

/** A provider's answer: its HTTP status and its JSON object body. */
export interface ProviderAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What to send to the provider. */
export interface ProviderRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  /** A form body (`application/x-www-form-urlencoded`). */
  readonly form?: URLSearchParams;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Sends one request to the provider and reads its JSON object answer, within `timeoutMs` for the whole exchange and
 * {@link MAX_PROVIDER_ANSWER_BYTES} for the body. A 5xx, a redirect, a timeout, a broken connection, an oversized or
 * non-JSON body all throw; a 4xx with a JSON object is returned (the caller reads the provider's `error`).
 *
 * @param what - the call, for messages: `"the provider's token endpoint"`
 * @throws {LoginError} `server_error`, its message saying what failed and never a secret
 */
export async function callProvider(
  what: string,
  url: string,
  request: ProviderRequest,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const failed = (why: string): LoginError => new LoginError('server_error', `${what} ${why}`);
  let answer: BoundedResponse;
  try {
    answer = await boundedFetch(
      new URL(url),
      {
        method: request.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...request.headers,
        },
        body: request.form?.toString(),
      },
      timeoutMs,
      MAX_PROVIDER_ANSWER_BYTES,
    );
  } catch (err) {
    const reason = err instanceof BoundedFetchError ? err.reason : 'network';
    if (reason === 'timeout') throw failed(`did not answer within ${timeoutMs} ms`);
    if (reason === 'too-large') throw failed(`answered with more than ${MAX_PROVIDER_ANSWER_BYTES} bytes`);
    throw failed('is unreachable');
  }
  const { status, text } = answer;
  // A redirect is not followed: it would send the client's credentials elsewhere.
  if (status >= 500 || (status >= 300 && status < 400)) throw failed(`answered HTTP ${status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failed(`answered HTTP ${status} with something other than JSON`);
  }
  if (!isObject(body)) throw failed(`answered HTTP ${status} with JSON that is not an object`);
  return { status, body };
}

/**
 * Printable text from a provider, safe to pass on in an `error_description` (RFC 6749 §4.1.2.1 allows
 * %x20-21 / %x23-5B / %x5D-7E) and short.
 */
export function providerText(value: unknown, max = 200): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  const text = String(value).replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '');
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
