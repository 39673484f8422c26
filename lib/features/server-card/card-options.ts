// The router's `serverCard` option: its type and its check, and the card's identity made from it and the router's own options.

import { invalidOption, McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isIcon, type Icon } from '../../core/registry/definition';

/**
 * The Server Card's own fields (draft SEP-2127, the `experimental-ext-server-card` extension): what the router's
 * `name`, `title`, `description`, `websiteUrl` and `icons` do not say, or say otherwise for the card. Experimental:
 * the draft may change.
 */
export interface ServerCardOptions {
  /**
   * The card's name, in reverse-DNS form with one slash (`com.example/inventory`), 3 to 200 characters. Defaults to
   * the router's `name` when it has that form (else this is required).
   */
  name?: string;
  /** A display name, 1 to 100 characters. Defaults to the router's `title`. */
  title?: string;
  /** What the server does, 1 to 100 characters (the card requires one). Defaults to the router's `description`. */
  description?: string;
  /** The server's home page or documentation. Defaults to the router's `websiteUrl`. */
  websiteUrl?: string;
  /** Icons a client may show. Defaults to the router's `icons`. */
  icons?: Icon[];
  /** Where the server's source is: `url` and `source` (`'github'`, …), optionally `subfolder` and the forge's `id`. Defaults to none. */
  repository?: ServerCardRepository;
}

/** The repository of a Server Card (draft SEP-2127 `Repository`). */
export interface ServerCardRepository {
  /** The repository's URL, for browsing and `git clone`. */
  url: string;
  /** The hosting service (`'github'`, `'gitlab'`, …). */
  source: string;
  /** The server's folder in a monorepo, relative to the repository's root. */
  subfolder?: string;
  /** The forge's stable identifier of the repository. */
  id?: string;
}

/** The router's options the server card reads: its identity, checked by the router before its features resolve. */
export interface ServerCardRouterOptions {
  readonly serverCard?: ServerCardOptions | boolean;
  readonly name?: string;
  readonly version?: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: Icon[];
}

/** The card's identity, checked: every field but `$schema` and `remotes`, in the order the card lists them. */
export type CardIdentity = Readonly<Record<string, unknown>>;

const KNOWN: OptionKeys<ServerCardOptions> = {
  name: true,
  title: true,
  description: true,
  websiteUrl: true,
  icons: true,
  repository: true,
};
const REPOSITORY_KEYS: OptionKeys<ServerCardRepository> = { url: true, source: true, subfolder: true, id: true };

/** Draft SEP-2127 `ServerCard.name`: a namespace, one slash, a name. */
const CARD_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
/** Draft SEP-2127 `ServerCard.version`: ranges are refused (`^1.2.3`, `~1.2.3`, `>=1.2.3`, `1.x`, `1.*`). */
const VERSION_RANGE = /^[\^~<>=]|(^|\.)[xX*](\.|$)|\s-\s|\|\|/;
/** Draft SEP-2127: `title` and `description` are 1 to 100 characters. */
const MAX_TEXT = 100;

/**
 * Checks the `serverCard` option once, at router creation, and makes the card's identity.
 *
 * @returns the identity, or undefined when no card is served (`serverCard` absent or `false`)
 * @throws {McpConfigError} for an unknown key, a bad value, or a card the draft would refuse (no description, a
 *   name not in reverse-DNS form, a version range)
 */
export function resolveServerCard(options: ServerCardRouterOptions): CardIdentity | undefined {
  const given = options.serverCard;
  if (given === undefined || given === false) return undefined;
  if (given !== true && (typeof given !== 'object' || given === null))
    throw invalidOption(
      'serverCard',
      '{ name?, title?, description?, websiteUrl?, icons?, repository? } or a boolean',
      given,
    );
  const read = OptionReader.of(given === true ? undefined : given, 'serverCard', KNOWN);
  const identity: Record<string, unknown> = {
    name: cardName(read.string('name', { nonEmpty: true }) ?? options.name),
    version: cardVersion(options.version),
    description: cardText(read, 'description', options.description, true),
  };
  const title = cardText(read, 'title', options.title, false);
  if (title !== undefined) identity.title = title;
  // Checked as URLs, kept as written: the card says what the router's serverInfo says.
  const websiteUrl = read.url('websiteUrl') === undefined ? options.websiteUrl : String(read.raw('websiteUrl'));
  if (websiteUrl !== undefined) identity.websiteUrl = websiteUrl;
  const repository = cardRepository(read);
  if (repository !== undefined) identity.repository = repository;
  const icons = cardIcons(read) ?? options.icons;
  if (icons !== undefined && icons.length > 0) identity.icons = icons.map((icon) => ({ ...icon }));
  return Object.freeze(identity);
}

function cardName(name: string | undefined): string {
  if (name !== undefined && name.length >= 3 && name.length <= 200 && CARD_NAME.test(name)) return name;
  throw new McpConfigError(
    'ERR_MCP_INVALID_OPTION',
    `option 'serverCard.name' must be a reverse-DNS name with one slash, 3 to 200 characters (e.g. 'com.example/inventory'), got ${JSON.stringify(name)}: a Server Card's name has that form (draft SEP-2127), so set it when the router's 'name' does not`,
  );
}

function cardVersion(version: string | undefined): string {
  if (version !== undefined && version.length <= 255 && !VERSION_RANGE.test(version)) return version;
  throw new McpConfigError(
    'ERR_MCP_INVALID_OPTION',
    `option 'version' must be one version of at most 255 characters for a Server Card, not a range (draft SEP-2127), got ${JSON.stringify(version)}`,
  );
}

/** `title` or `description`: the card's own value, else the router's, 1 to 100 characters either way. */
function cardText(
  read: OptionReader<ServerCardOptions>,
  key: 'title' | 'description',
  routerValue: string | undefined,
  required: boolean,
): string | undefined {
  const own = read.string(key, { nonEmpty: true });
  const value = own ?? routerValue;
  if (value === undefined && !required) return undefined;
  if (value !== undefined && value.trim() !== '' && value.length <= MAX_TEXT) return value;
  const from = own === undefined && value !== undefined ? ` (the router's '${key}' is ${value.length} characters)` : '';
  throw new McpConfigError(
    'ERR_MCP_INVALID_OPTION',
    `option 'serverCard.${key}' must be 1 to ${MAX_TEXT} characters${from}: a Server Card ${required ? 'requires one' : 'allows no more'} (draft SEP-2127)${value === undefined ? `, and the router has no '${key}'` : ''}`,
  );
}

function cardRepository(read: OptionReader<ServerCardOptions>): Readonly<Record<string, string>> | undefined {
  if (read.raw('repository') === undefined) return undefined;
  const repo = read.nested('repository', REPOSITORY_KEYS);
  const repository: Record<string, string> = {
    url: repo.url('url', { required: true }) && String(repo.raw('url')),
    source: repo.string('source', { nonEmpty: true, required: true }),
  };
  const subfolder = repo.string('subfolder', { nonEmpty: true });
  if (subfolder !== undefined) {
    // Draft SEP-2127: a clean relative path.
    if (subfolder.startsWith('/') || subfolder.split('/').some((part) => part === '..' || part === '.' || part === ''))
      throw repo.invalid('subfolder', "a clean relative path (no leading '/', no '.' or '..' segments)");
    repository.subfolder = subfolder;
  }
  const id = repo.string('id', { nonEmpty: true });
  if (id !== undefined) repository.id = id;
  return Object.freeze(repository);
}

function cardIcons(read: OptionReader<ServerCardOptions>): readonly Icon[] | undefined {
  return read.array('icons', isIcon, 'an array of { src, mimeType?, sizes?, theme? } with an http(s) or data: src');
}
