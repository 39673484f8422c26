// The Skills tab (SEP-2640, io.modelcontextprotocol/skills): the server's skills from skills/list, one skill's
// SKILL.md and its files (a folder tree through resources/directory/read when the server declares directoryRead,
// else the files its skills/list entry names), each file readable. Skill files are untrusted text: every string
// here becomes a text node (dom.js), never markup.

import { el, jsonBlock } from './dom.js';
import { itemButton, listAll } from './lists.js';
import { renderResourceContents } from './render.js';

const $ = (id) => document.getElementById(id);

/** The extension's identifier in `capabilities.extensions` (SEP-2640). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** SEP-2640 resources/directory/read: a subfolder's MIME type. */
const FOLDER_TYPE = 'inode/directory';
const MANIFEST = '/SKILL.md';

/** The extension's settings as the server declared them, or undefined when it did not. */
function skillsSettings(capabilities) {
  const settings = capabilities?.extensions?.[SKILLS_EXTENSION];
  return settings !== null && typeof settings === 'object' ? settings : undefined;
}

/** A skills/list entry the tab can show: `uri` a string, `frontmatter` an object (SEP-2640 "Skill entry"). */
function isEntry(entry) {
  return (
    entry !== null &&
    typeof entry === 'object' &&
    typeof entry.uri === 'string' &&
    entry.frontmatter !== null &&
    typeof entry.frontmatter === 'object'
  );
}

const text = (value) => (typeof value === 'string' ? value : undefined);
const sizeOf = (bytes) => (typeof bytes === 'number' ? `${bytes} B` : undefined);

/** The SHA-256 of a `resources/read` content's bytes, as SEP-2640 writes digests (`sha256:<hex>`). */
async function digestOf(content) {
  if (!globalThis.crypto?.subtle) return undefined; // only in secure contexts: http://localhost is one
  const bytes =
    typeof content.text === 'string'
      ? new TextEncoder().encode(content.text)
      : Uint8Array.from(atob(String(content.blob ?? '')), (c) => c.charCodeAt(0));
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * @param {{ state: object, selectTab: (name: string) => void, fail: (err: unknown, action: string) => Node }} deps
 */
export function createSkillsTab({ state, selectTab, fail }) {
  const tab = $('tab-skills');

  /** Shows the tab only for a server that declares the extension; leaves it if it was open and the server has none. */
  function setAvailable(available) {
    tab.hidden = !available;
    if (!available && tab.getAttribute('aria-selected') === 'true') selectTab('tools');
  }

  /** Reads `uri` into `output`; the digest skills/list gave for it, if any, is checked against the bytes read. */
  async function readInto(output, uri, listedDigest) {
    const client = state.client;
    if (!client) return;
    output.replaceChildren(el('p', { class: 'muted' }, `Reading ${uri}…`));
    try {
      const result = await client.request('resources/read', { uri });
      const shown = [renderResourceContents(result)];
      const content = Array.isArray(result?.contents) ? result.contents[0] : undefined;
      if (listedDigest && content) {
        const read = await digestOf(content);
        if (read)
          shown.unshift(
            el(
              'p',
              { class: 'muted', 'data-testid': 'skill-digest', 'data-match': String(read === listedDigest) },
              read === listedDigest
                ? 'The bytes read match the digest skills/list gave.'
                : `The bytes read do not match the digest skills/list gave (${listedDigest}).`,
            ),
          );
      }
      output.replaceChildren(...shown);
    } catch (err) {
      output.replaceChildren(fail(err, `resources/read ${uri}`));
    }
  }

  /** A file's entry: a button that reads it into the view's file output. */
  function fileItem(uri, label, size, open) {
    const button = el('button', { type: 'button', class: 'link', 'data-testid': 'skill-file', 'data-uri': uri }, label);
    button.addEventListener('click', () => open(uri));
    return el('li', {}, button, sizeOf(size) ? el('span', { class: 'muted' }, ` ${sizeOf(size)}`) : null);
  }

  /** A folder's children from resources/directory/read (every page); subfolders open on click, once. */
  async function listFolder(into, folderUri, open) {
    const client = state.client;
    if (!client) return;
    into.replaceChildren(el('li', { class: 'muted' }, 'Listing…'));
    try {
      const children = await listAll(client, 'resources/directory/read', 'resources', { uri: folderUri });
      into.replaceChildren(
        ...children
          .filter((child) => child && typeof child.uri === 'string')
          .map((child) => {
            const label = text(child.name) ?? child.uri.slice(folderUri.length + 1);
            if (child.mimeType !== FOLDER_TYPE) return fileItem(child.uri, label, child.size, open);
            const nested = el('ul', { class: 'file-list' });
            const folder = el(
              'button',
              { type: 'button', class: 'link', 'data-testid': 'skill-folder', 'data-uri': child.uri },
              `${label}/`,
            );
            folder.addEventListener('click', () => {
              if (nested.childElementCount === 0) listFolder(nested, child.uri, open);
            });
            return el('li', {}, folder, nested);
          }),
      );
      if (into.childElementCount === 0) into.append(el('li', { class: 'muted' }, 'Empty folder.'));
    } catch (err) {
      into.replaceChildren(el('li', {}, fail(err, `resources/directory/read ${folderUri}`)));
    }
  }

  /** One skill: its description and frontmatter, its SKILL.md, and its files. */
  function showSkill(entry) {
    const { frontmatter } = entry;
    const name = text(frontmatter.name) ?? entry.uri;
    const listed = Array.isArray(entry.resources) ? entry.resources.filter((r) => r && typeof r.uri === 'string') : [];
    const digests = new Map(listed.map((r) => [r.uri, text(r.digest)]));
    const manifest = el('div', { class: 'output', 'data-testid': 'skill-md', 'aria-live': 'polite' });
    const fileOutput = el('div', { class: 'output', 'data-testid': 'skill-file-output', 'aria-live': 'polite' });
    const files = el('ul', { class: 'file-list', 'data-testid': 'skill-files' });
    const open = (uri) => readInto(fileOutput, uri, digests.get(uri));
    const head = el('header', { class: 'view-head' }, el('h2', {}, name), el('code', { class: 'muted' }, entry.uri));
    if (text(frontmatter.description)) head.append(el('p', { class: 'description' }, frontmatter.description));
    $('skill-detail').replaceChildren(
      el(
        'article',
        { class: 'view', 'data-testid': 'skill-view', 'data-skill': entry.uri },
        head,
        el('details', { class: 'schemas' }, el('summary', {}, 'Frontmatter'), jsonBlock(frontmatter)),
        el('h3', {}, 'SKILL.md'),
        manifest,
        el('h3', {}, 'Files'),
        files,
        fileOutput,
      ),
    );
    readInto(manifest, entry.uri, digests.get(entry.uri));
    const folder = entry.uri.endsWith(MANIFEST) ? entry.uri.slice(0, -MANIFEST.length) : undefined;
    // SEP-2640: a server that declares directoryRead lists a skill's folders; otherwise the entry names every file.
    if (skillsSettings(state.capabilities)?.directoryRead === true && folder) listFolder(files, folder, open);
    else
      files.replaceChildren(
        ...listed.map((r) => fileItem(r.uri, folder ? r.uri.slice(folder.length + 1) : r.uri, r.size, open)),
      );
  }

  /** Lists the skills (every page of skills/list) when the server declares the extension; hides the tab otherwise. */
  async function refresh() {
    const client = state.client;
    const available = client !== undefined && skillsSettings(state.capabilities) !== undefined;
    setAvailable(available);
    if (!available) return;
    const list = $('skill-list');
    try {
      const skills = (await listAll(client, 'skills/list', 'skills')).filter(isEntry);
      if (client !== state.client) return;
      list.replaceChildren(
        ...skills.map((entry) =>
          itemButton(
            'skill-item',
            entry.uri,
            text(entry.frontmatter.name) ?? entry.uri,
            text(entry.frontmatter.description),
            [],
            () => showSkill(entry),
          ),
        ),
      );
      if (skills.length === 0) list.append(el('li', { class: 'muted' }, 'No skills.'));
      $('count-skills').textContent = String(skills.length);
    } catch (err) {
      if (client === state.client) list.replaceChildren(el('li', {}, fail(err, 'skills/list')));
    }
  }

  function clear() {
    setAvailable(false);
    $('skill-list').replaceChildren();
    $('count-skills').textContent = '';
    $('skill-detail').replaceChildren(el('p', { class: 'muted' }, 'Pick a skill to read its SKILL.md and files.'));
  }

  return { refresh, clear };
}
