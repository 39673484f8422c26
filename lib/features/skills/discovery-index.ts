// skill://index.json: the Agent Skills discovery document of a catalog, written once at boot from its entries.

import { nameAndDescription, type SkillCatalog } from './catalog';

/** Where the index is served: the URI hosts that discover skills over MCP by an index read first. */
export const SKILLS_INDEX_URI = 'skill://index.json';

/** The Agent Skills discovery schema the document names in `$schema` (version 0.2.0). */
export const SKILLS_INDEX_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

/** One skill in the index: its frontmatter name and description, where its SKILL.md is, and that file's digest. */
export interface SkillsIndexEntry {
  readonly name: string;
  /** Agent Skills discovery: `skill-md`, a skill read from its SKILL.md URL (this server serves no archives). */
  readonly type: 'skill-md';
  readonly description: string;
  /** The skill's `skill://…/SKILL.md` URI, the `uri` of its skills/list entry. */
  readonly url: string;
  /** The SKILL.md's `sha256:` digest, the one its skills/list entry lists. */
  readonly digest: string;
}

/** The index as served: its JSON text (what `resources/read` answers) and that text's size in bytes. */
export interface SkillsIndex {
  readonly text: string;
  readonly size: number;
}

/**
 * The discovery document of `catalog`, in catalog order. Every field comes from the catalog walked at boot, so the
 * document never changes after boot, and each digest is the SKILL.md's own (computed once, in the catalog): a host
 * that checks a SKILL.md against the index or against skills/list finds the same value.
 */
export function skillsIndexOf(catalog: SkillCatalog): SkillsIndex {
  const skills = catalog.skills.map((skill): SkillsIndexEntry => {
    const { name, description } = nameAndDescription(skill);
    const { digest } = catalog.files.get(skill.uri)!;
    return { name, type: 'skill-md', description, url: skill.uri, digest };
  });
  const text = `${JSON.stringify({ $schema: SKILLS_INDEX_SCHEMA, skills }, null, 2)}\n`;
  return Object.freeze({ text, size: Buffer.byteLength(text) });
}
