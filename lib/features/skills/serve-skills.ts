// mcp.skills(): serves a folder of Agent Skills over MCP (SEP-2640): the extension, its methods, and the files as resources.

import { JsonRpcError, ErrorCode } from '../../core/jsonrpc/errors';
import type { McpLogger } from '../../core/logger';
import type { MethodTable } from '../../core/protocol/methods/method-spec';
import type { ResourceContentInput } from '../../core/registry/resources';
import type { Registry } from '../../core/registry/registry';
import { loadCatalog, nameAndDescription, type SkillCatalog } from './catalog';
import { SKILLS_INDEX_URI, skillsIndexOf } from './discovery-index';
import { readListedFile } from './read-file';
import { skillMethods } from './skills-methods';
import { resolveSkillsOptions, type SkillsOptions } from './skills-options';

/** The extension's identifier, in `capabilities.extensions` (SEP-2640). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** One skill `mcp.skills()` serves. */
export interface McpSkill {
  /** Its `skill://…/SKILL.md` URI. */
  readonly uri: string;
  /** Its frontmatter `name`: its folder's name. */
  readonly name: string;
  /** Its frontmatter `description`. */
  readonly description: string;
}

/** What `mcp.skills()` needs of its router. */
export interface SkillsHost {
  readonly registry: Registry;
  /** Adds the extension's methods to the router's method table. */
  readonly extend: (table: MethodTable) => void;
  /** The router's `pageSize`, for skills/list and directory reads. */
  readonly pageSize: number;
  readonly logger: McpLogger;
}

/**
 * Walks the folder once, checks every skill, then serves them: `skill://index.json` (the Agent Skills discovery
 * document), each SKILL.md as a listed resource (name and description from its frontmatter, `text/markdown`), every
 * other file through the `skill://{+path}` template, skills/list, skills/get and (unless turned off)
 * resources/directory/read, and the extension declared.
 *
 * @throws {McpConfigError} for a bad option, a bad skill (naming its file), or a second call on one router
 */
export function serveSkills(input: string | SkillsOptions, host: SkillsHost): readonly McpSkill[] {
  const options = resolveSkillsOptions(input);
  const catalog = loadCatalog(options);
  const { registry } = host;
  // First: on a second call it throws ERR_MCP_DUPLICATE before anything is registered.
  host.extend(skillMethods(catalog, host.pageSize, options.directoryRead));
  const read = contentsReader(catalog, host.logger);
  const index = skillsIndexOf(catalog);
  registry.batch(() => {
    registry.addResource({
      uri: SKILLS_INDEX_URI,
      name: 'skills-index',
      description: "Every skill this server serves: its name, description, SKILL.md URI and that file's sha256 digest",
      mimeType: 'application/json',
      size: index.size,
      read: () => index.text,
    });
    for (const skill of catalog.skills) {
      const { name, description } = nameAndDescription(skill);
      const size = catalog.files.get(skill.uri)!.size;
      registry.addResource({ uri: skill.uri, name, description, mimeType: 'text/markdown', size, read });
    }
    registry.addTemplate({
      uriTemplate: 'skill://{+path}',
      name: 'skill-file',
      description: 'A file of a skill this server serves: see skills/list for each skill and its files',
      read,
    });
  });
  // SEP-2640 capability: settings inline under the identifier; an empty object when directoryRead is off.
  registry.declareExtension(SKILLS_EXTENSION, options.directoryRead ? { directoryRead: true } : {});
  return Object.freeze(catalog.skills.map((skill) => Object.freeze({ uri: skill.uri, ...nameAndDescription(skill) })));
}

/**
 * A resource `read` over the catalog: the URI must be one it lists, exactly (no decoding, so `..` or `%2e%2e` name
 * nothing), and the file must still be the one listed. A changed file is refused, and logged once.
 */
function contentsReader(catalog: SkillCatalog, logger: McpLogger) {
  const warned = new Set<string>();
  return async function readSkillResource(uri: string): Promise<ResourceContentInput> {
    const file = catalog.files.get(uri);
    if (file === undefined) throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
    const bytes = await readListedFile(file);
    if (bytes === undefined) {
      if (!warned.has(uri)) {
        warned.add(uri);
        logger.warn(new Error(`${file.path} changed since boot`), `mcp.skills(): refusing ${uri}: restart to serve it`);
      }
      throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource changed since it was listed', { uri });
    }
    const { mimeType } = file;
    return file.text ? { uri, mimeType, text: Buffer.from(bytes).toString('utf8') } : { uri, mimeType, blob: bytes };
  };
}
