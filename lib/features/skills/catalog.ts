// The skills of a folder, walked and checked once at registration: their SKILL.md frontmatter, files, digests and folders.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { McpConfigError } from '../../options/config-error';
import { readFrontmatter, type FrontmatterValue } from './frontmatter';
import { mimeTypeOf } from './mime';
import { MAX_FILES_PER_SKILL, MAX_SKILL_BYTES, type ResolvedSkillsOptions } from './skills-options';

/** One file of a skill as it was at boot: what a read must find again (same inode, size and digest) to serve it. */
export interface SkillFile {
  readonly uri: string;
  readonly path: string;
  readonly mimeType: string;
  readonly size: number;
  /** SEP-2640: `sha256:` and 64 lowercase hex digits of the raw bytes. */
  readonly digest: string;
  /** Served as text (UTF-8 without NUL bytes) rather than as a base64 blob. */
  readonly text: boolean;
  readonly dev: number;
  readonly ino: number;
}

/** One entry of a folder as `resources/directory/read` lists it (SEP-2640: subfolders are `inode/directory`). */
export interface DirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  readonly size?: number;
}

/** One skill: its SKILL.md URI, frontmatter as YAML reads it, and every file it serves (SEP-2640 skill entry). */
export interface Skill {
  readonly uri: string;
  readonly frontmatter: Readonly<Record<string, FrontmatterValue>>;
  readonly resources: readonly { readonly uri: string; readonly digest: string; readonly size: number }[];
}

/** A skill's frontmatter `name` and `description`: strings, as the catalog checked them at boot. */
export function nameAndDescription(skill: Skill): { readonly name: string; readonly description: string } {
  const { name, description } = skill.frontmatter as { name: string; description: string };
  return { name, description };
}

/** Everything `mcp.skills()` serves, fixed at boot. */
export interface SkillCatalog {
  readonly skills: readonly Skill[];
  readonly files: ReadonlyMap<string, SkillFile>;
  readonly directories: ReadonlyMap<string, readonly DirectoryChild[]>;
}

/** SEP-2640 / Agent Skills naming rules: 1–64 lowercase letters, digits and hyphens, no hyphen at either end or twice. */
const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** Agent Skills: a description of at most 1024 characters. */
const MAX_DESCRIPTION = 1024;
const MANIFEST = 'SKILL.md';
/** Folders below `dir` that group skills (`billing/refunds`): deep enough for any catalog, bounded for a walk. */
const MAX_DEPTH = 8;

/** Percent-encodes one path segment for a `skill://` URI (RFC 3986: unreserved characters stay as they are). */
const segmentOf = (name: string): string => encodeURIComponent(name);

/**
 * Walks `options.dir` once: every folder with a SKILL.md is a skill (its whole subtree is its files); the folders
 * above it group skills. Entries whose name starts with a dot are not served.
 *
 * @throws {McpConfigError} naming the file: a symlink or special file, a SKILL.md at the root or inside another skill,
 *   bad frontmatter, a name that is not its folder's or that another skill has, no description, a file over
 *   `maxFileBytes`, a skill over SEP-2640's 512 files or 16 MiB, or no skill at all
 */
export function loadCatalog(options: ResolvedSkillsOptions): SkillCatalog {
  let root: string;
  try {
    root = fs.realpathSync(options.dir);
    if (!fs.statSync(root).isDirectory()) throw new Error('not a folder');
  } catch (err) {
    throw refuse(options.dir, `is not a readable folder (${(err as Error).message})`);
  }
  const catalog: SkillCatalog = { skills: [], files: new Map(), directories: new Map() };
  walkGroup(root, [], options, catalog);
  if (catalog.skills.length === 0) throw refuse(root, 'holds no skill: put each in a folder with a SKILL.md');
  refuseSharedNames(catalog);
  return catalog;
}

/**
 * SEP-2640: skill names SHOULD be unique within a server; the discovery index names each skill by its `name`
 * alone, so two grouping folders holding skills of one name would make it ambiguous.
 */
function refuseSharedNames(catalog: SkillCatalog): void {
  const seen = new Map<string, string>();
  for (const skill of catalog.skills) {
    const { name } = nameAndDescription(skill);
    const first = seen.get(name);
    if (first !== undefined)
      throw refuse(catalog.files.get(skill.uri)!.path, `names the skill '${name}', as ${first} does: rename one`);
    seen.set(name, catalog.files.get(skill.uri)!.path);
  }
}

function refuse(file: string, why: string): McpConfigError {
  return new McpConfigError('ERR_MCP_INVALID_DEFINITION', `mcp.skills(): ${file} ${why}`);
}

/** The entries of a folder in name order, without hidden ones; a symlink or special file fails. */
function entriesOf(dir: string): fs.Dirent[] {
  const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => !entry.name.startsWith('.'));
  for (const entry of entries) {
    // Refused rather than followed: a link may point outside the folder, or change where it points after boot.
    if (entry.isSymbolicLink()) throw refuse(path.join(dir, entry.name), 'is a symlink: skills serve real files only');
    if (!entry.isFile() && !entry.isDirectory()) throw refuse(path.join(dir, entry.name), 'is not a file or folder');
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function walkGroup(dir: string, segments: string[], options: ResolvedSkillsOptions, catalog: SkillCatalog): void {
  if (segments.length > MAX_DEPTH) throw refuse(dir, `is more than ${MAX_DEPTH} folders deep`);
  const entries = entriesOf(dir);
  if (entries.some((entry) => entry.isFile() && entry.name === MANIFEST)) {
    if (segments.length === 0) throw refuse(path.join(dir, MANIFEST), 'is at the root: put each skill in its folder');
    return loadSkill(dir, segments, options, catalog);
  }
  for (const entry of entries)
    if (entry.isDirectory()) walkGroup(path.join(dir, entry.name), [...segments, entry.name], options, catalog);
}

function loadSkill(dir: string, segments: string[], options: ResolvedSkillsOptions, catalog: SkillCatalog): void {
  const manifestPath = path.join(dir, MANIFEST);
  const name = segments[segments.length - 1]!;
  const base = `skill://${segments.map(segmentOf).join('/')}`;
  const [manifest, bytes] = readFileAt(manifestPath, `${base}/${MANIFEST}`, options);
  // The frontmatter is read from the very bytes the digest covers.
  const parsed = readFrontmatter(Buffer.from(bytes).toString('utf8'));
  if (!parsed.ok) throw refuse(manifestPath, `has frontmatter this server cannot read: ${parsed.reason}`);
  const { frontmatter } = parsed;
  if (frontmatter.name !== name)
    throw refuse(manifestPath, `names the skill ${JSON.stringify(frontmatter.name)}, not its folder's name '${name}'`);
  if (!SKILL_NAME.test(name))
    throw refuse(manifestPath, `names the skill '${name}': use 1-64 lowercase letters, digits and single hyphens`);
  const { description } = frontmatter;
  if (typeof description !== 'string' || description.trim() === '' || description.length > MAX_DESCRIPTION)
    throw refuse(manifestPath, `needs a 'description' of 1 to ${MAX_DESCRIPTION} characters`);
  const walk: SkillWalk = {
    files: [manifest],
    bytes: manifest.size,
    folders: 0,
    options,
    directories: catalog.directories as Directories,
  };
  collect(dir, base, true, walk);
  for (const file of walk.files) (catalog.files as Map<string, SkillFile>).set(file.uri, file);
  const resources = walk.files.map(({ uri, digest, size }) => Object.freeze({ uri, digest, size }));
  (catalog.skills as Skill[]).push(Object.freeze({ uri: manifest.uri, frontmatter, resources }));
}

type Directories = Map<string, readonly DirectoryChild[]>;

/** What a walk of one skill has found so far: its files (SKILL.md first) and how many folders. */
interface SkillWalk {
  readonly files: SkillFile[];
  /** Their bytes so far: the walk stops at the file that passes SEP-2640's 16 MiB, not after reading every file. */
  bytes: number;
  folders: number;
  readonly options: ResolvedSkillsOptions;
  readonly directories: Directories;
}

/** The files and folders under a skill folder (its SKILL.md is already read), depth first, bounded by SEP-2640's 512. */
function collect(dir: string, uri: string, top: boolean, walk: SkillWalk): void {
  const children: DirectoryChild[] = [];
  walk.directories.set(uri, children);
  for (const entry of entriesOf(dir)) {
    const full = path.join(dir, entry.name);
    const childUri = `${uri}/${segmentOf(entry.name)}`;
    if (entry.isDirectory()) {
      if (++walk.folders > MAX_FILES_PER_SKILL) throw refuse(full, `is one folder more than ${MAX_FILES_PER_SKILL}`);
      children.push({ uri: childUri, name: entry.name, mimeType: 'inode/directory' });
      collect(full, childUri, false, walk);
      continue;
    }
    if (entry.name === MANIFEST && !top) throw refuse(full, 'is a skill inside another skill: move it out');
    const file = top && entry.name === MANIFEST ? walk.files[0]! : readFileAt(full, childUri, walk.options)[0];
    if (file !== walk.files[0]) {
      walk.files.push(file);
      if ((walk.bytes += file.size) > MAX_SKILL_BYTES)
        throw refuse(full, `passes the 16 MiB SEP-2640 allows per skill (${walk.bytes} bytes so far)`);
    }
    if (walk.files.length > MAX_FILES_PER_SKILL)
      throw refuse(full, `is one file more than the ${MAX_FILES_PER_SKILL} SEP-2640 allows per skill`);
    children.push({ uri: childUri, name: entry.name, mimeType: file.mimeType, size: file.size });
  }
}

/** Reads one file at boot, bounded by `maxFileBytes`, through a descriptor that refuses a symlink in its place. */
function readFileAt(file: string, uri: string, options: ResolvedSkillsOptions): [SkillFile, Uint8Array] {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NO_FOLLOW);
  } catch (err) {
    throw refuse(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw refuse(file, 'is not a regular file');
    if (stat.size > options.maxFileBytes)
      throw refuse(file, `is ${stat.size} bytes, over maxFileBytes (${options.maxFileBytes})`);
    const bytes = fs.readFileSync(fd);
    if (bytes.length > options.maxFileBytes) throw refuse(file, 'grew over maxFileBytes while it was read');
    const text = isText(bytes);
    const { dev, ino } = stat;
    const entry = {
      uri,
      path: file,
      mimeType: mimeTypeOf(file, text),
      size: bytes.length,
      digest: digestOf(bytes),
      text,
      dev,
      ino,
    };
    return [Object.freeze(entry), bytes];
  } finally {
    fs.closeSync(fd);
  }
}

/** O_NOFOLLOW where the platform has it (not Windows, where the inode check at read time still holds). */
export const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** SEP-2640 Integrity: `sha256:{hex}`, the SHA-256 of the raw bytes in lowercase hex. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** UTF-8 without NUL bytes: text whose characters encode back to exactly these bytes (the digest's). */
function isText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
