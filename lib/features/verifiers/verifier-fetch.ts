// What the token verifiers share: the options both take, under the same keys.

import type { OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import type { McpLogger } from '../../core/logger';
import { DEFAULT_TOKEN_CACHE_MAX } from '../../edge/security/token-cache';

/** The options both verifiers take, under the same keys. */
export interface SharedVerifierOptions {
  audience?: string;
  cacheMax?: number;
  logger?: McpLogger;
}

/** {@link SharedVerifierOptions}, checked and defaulted. */
export interface SharedVerifierSettings {
  /** The configured audience; undefined: the URL of the MCP endpoint the request reached. */
  readonly audience: string | undefined;
  readonly cacheMax: number;
  readonly logger: McpLogger;
}

const SHARED_KEYS: OptionKeys<SharedVerifierOptions> = { audience: true, cacheMax: true, logger: true };

/**
 * Opens a verifier's options: unknown keys refused, and the options both verifiers take read.
 *
 * @param name - the verifier, as messages name its options: `'jwtVerifier'`
 * @throws {McpConfigError} for options that are not an object, an unknown key, or a bad shared one
 */
export function readVerifierOptions<T extends SharedVerifierOptions>(
  name: string,
  options: T,
  known: OptionKeys<T>,
): { readonly read: OptionReader<T>; readonly shared: SharedVerifierSettings } {
  const read = OptionReader.of(options, name, known);
  const { audience, cacheMax, logger } = read.options;
  const shared = OptionReader.of<SharedVerifierOptions>({ audience, cacheMax, logger }, name, SHARED_KEYS);
  return {
    read,
    shared: Object.freeze({
      audience: shared.string('audience', { nonEmpty: true }),
      cacheMax: shared.positiveInteger('cacheMax', DEFAULT_TOKEN_CACHE_MAX),
      logger: shared.raw('logger') ?? console,
    }),
  };
}
