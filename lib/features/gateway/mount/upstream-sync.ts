// An upstream's fetched lists applied to the registry: new items added, changed ones replaced in place, gone ones removed, clashes skipped and reported.

import type { Collection } from '../../../core/registry/collection';
import type { HeaderParam } from '../../../core/registry/header-params';
import type { PromptDefinition } from '../../../core/registry/prompts';
import { itemKey, type ItemKinds, type Registry } from '../../../core/registry/registry';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../../../core/registry/resources';
import type { ToolDefinition } from '../../../core/registry/tools';
import type { ResolvedUiLink } from '../../../core/registry/ui-link';
import type { SkippedReport } from './upstream-report';

type Entry = Record<string, unknown>;

/** An upstream's list entries by kind, as fetched (tools already filtered by `include`/`exclude`). */
export interface ListedItems {
  tools: Entry[];
  prompts: Entry[];
  resources: Entry[];
  templates: Entry[];
}

/** One mounted item and the entry it was made from (to tell a changed entry from the same one). */
interface Mounted<T> {
  readonly fingerprint: string;
  readonly item: T;
}

/** The items one upstream has in the registry, by kind and key (downstream name or URI). */
export type ItemSet = { readonly [K in keyof ItemKinds]: ReadonlyMap<string, Mounted<ItemKinds[K]>> };

/** How entries become definitions (upstream-items.ts), and the name rule of tools and prompts. */
export interface ItemBuilders {
  tool(entry: Entry & { name: string }, headerParamsOf: () => readonly HeaderParam[]): ToolDefinition<never>;
  /** A tool entry's link to one of the upstream's apps (SEP-1865), under the downstream URI; undefined for none. */
  toolUi(entry: Entry): ResolvedUiLink | undefined;
  prompt(entry: Entry & { name: string }): PromptDefinition<never>;
  resource(entry: Entry & { uri: string }): ResourceDefinition;
  template(entry: Entry & { uriTemplate: string }): ResourceTemplateDefinition<never>;
  name(original: string): string;
  /** Why a downstream name cannot be used, or undefined. */
  checkName(name: string): string | undefined;
  /** Where lists show the upstream's items: its mount order (the router's own items are group 0). */
  readonly group: number;
  /** How a reason names the upstream whose items are in `group` (one mounted before this one): `upstream 'a'`. */
  holderName(group: number): string;
}

export function emptyItemSet(): ItemSet {
  return { tools: new Map(), prompts: new Map(), resources: new Map(), templates: new Map() };
}

export function itemCounts(items: ItemSet): {
  tools: number;
  prompts: number;
  resources: number;
  resourceTemplates: number;
} {
  return {
    tools: items.tools.size,
    prompts: items.prompts.size,
    resources: items.resources.size,
    resourceTemplates: items.templates.size,
  };
}

/** How `status().skipped` names each kind of entry. */
export const SKIPPED_KIND = {
  tools: 'tool',
  prompts: 'prompt',
  resources: 'resource',
  templates: 'resource template',
} as const;
/** The field that identifies an entry of each kind. */
export const ID_FIELD = { tools: 'name', prompts: 'name', resources: 'uri', templates: 'uriTemplate' } as const;

/** Defines the registry item of an entry; throws (McpConfigError, a bad template) for one that cannot be mounted. */
function define<K extends keyof ItemKinds>(
  registry: Registry,
  kind: K,
  entry: Entry,
  builders: ItemBuilders,
): ItemKinds[K] {
  if (kind === 'tools' || kind === 'prompts') {
    const problem = builders.checkName(builders.name(entry.name as string));
    if (problem !== undefined) throw new Error(problem);
  }
  if (kind === 'tools') {
    let tool: ItemKinds['tools'] | undefined;
    const ui = builders.toolUi(entry);
    // An app in another prefix's namespace is that upstream's: a tool of this one may not open it with its own data.
    const owner = ui && registry.namespaces.ownerOf('uri', ui.resourceUri);
    if (owner !== undefined && owner.group !== builders.group)
      throw new Error(`its app '${ui!.resourceUri}' is in the namespace of ${owner.owner}`);
    tool = registry.defineTool(
      builders.tool(entry as Entry & { name: string }, () => tool?.headerParams ?? []),
      ui === undefined ? { forwarded: true } : { forwarded: true, ui },
    );
    return tool as ItemKinds[K];
  }
  if (kind === 'prompts')
    return registry.definePrompt(builders.prompt(entry as Entry & { name: string })) as ItemKinds[K];
  if (kind === 'resources')
    return registry.defineResource(builders.resource(entry as Entry & { uri: string })) as ItemKinds[K];
  return registry.defineTemplate(builders.template(entry as Entry & { uriTemplate: string })) as ItemKinds[K];
}

/**
 * Why an entry's item may not take `key`, or undefined when it may: the upstream listed it twice, another prefix owns
 * the namespace, or the router's own item or an upstream mounted before holds it.
 */
function whyNotMounted(
  registry: Registry,
  kind: keyof ItemKinds,
  key: string,
  mountedNow: ReadonlyMap<string, unknown>,
  builders: ItemBuilders,
): string | undefined {
  if (mountedNow.has(key)) return `another of its ${kind} is already mounted as '${key}'`;
  // A prefix owns its names from its mount on: another upstream's entry there is refused, whoever listed first.
  const owner = registry.namespaces.ownerOf(kind === 'tools' || kind === 'prompts' ? 'name' : 'uri', key);
  if (owner !== undefined && owner.group !== builders.group) return `'${key}' is in the namespace of ${owner.owner}`;
  // A key is the router's own item's, else the upstream mounted first's (Collection.add), whoever listed first.
  const holder = (registry[kind] as Collection<unknown>).groupOf(key);
  if (holder !== undefined && holder < builders.group)
    return `'${key}' is taken by ${holder === 0 ? `the router's own ${SKIPPED_KIND[kind]}` : builders.holderName(holder)}`;
  return undefined;
}

function applyKind<K extends keyof ItemKinds>(
  registry: Registry,
  kind: K,
  current: ReadonlyMap<string, Mounted<ItemKinds[K]>>,
  entries: readonly Entry[],
  builders: ItemBuilders | undefined,
  skipped: SkippedReport | undefined,
): Map<string, Mounted<ItemKinds[K]>> {
  const next = new Map<string, Mounted<ItemKinds[K]>>();
  for (const entry of builders === undefined ? [] : entries) {
    const id = entry[ID_FIELD[kind]];
    if (typeof id !== 'string' || id === '') continue;
    let item: ItemKinds[K];
    try {
      item = define(registry, kind, entry, builders!);
    } catch (err) {
      skipped?.add(SKIPPED_KIND[kind], id, err instanceof Error ? err.message.replace(/^mcpRouter: /, '') : 'invalid');
      continue;
    }
    const key = itemKey(kind, item);
    const refused = whyNotMounted(registry, kind, key, next, builders!);
    if (refused !== undefined) {
      skipped?.add(SKIPPED_KIND[kind], id, refused);
      continue;
    }
    const fingerprint = JSON.stringify(entry);
    const had = current.get(key);
    // One displaced since (by an item of a lower group, now gone) is put back, not kept as if still there.
    const previous = had !== undefined && registry[kind].get(key) === had.item ? had : undefined;
    if (previous !== undefined && previous.fingerprint === fingerprint) {
      next.set(key, previous);
      continue;
    }
    try {
      // A changed entry takes its old place: lists keep their order, cursors stay valid.
      registry.put(kind, item, previous?.item, builders!.group);
      next.set(key, { fingerprint, item });
    } catch (err) {
      // The name is another item's (a local one, another upstream's): both stay as they are, and this one is reported.
      skipped?.add(
        SKIPPED_KIND[kind],
        id,
        `'${key}' is taken by another item` +
          (err instanceof Error && !err.message.includes('already registered') ? `: ${err.message}` : ''),
      );
      if (previous !== undefined) next.set(key, previous);
    }
  }
  for (const [key, mounted] of current) if (!next.has(key)) registry.drop(kind, mounted.item);
  return next;
}

/**
 * Makes the registry hold exactly the mountable entries of `lists` for one upstream, changing only what changed, and
 * records in `skipped` those it cannot mount. Call inside `registry.batch()` so the changes are announced once.
 * Without builders, removes all its items.
 */
export function applyLists(
  registry: Registry,
  current: ItemSet,
  lists: ListedItems,
  builders: ItemBuilders | undefined,
  skipped?: SkippedReport,
): ItemSet {
  return {
    tools: applyKind(registry, 'tools', current.tools, lists.tools, builders, skipped),
    prompts: applyKind(registry, 'prompts', current.prompts, lists.prompts, builders, skipped),
    resources: applyKind(registry, 'resources', current.resources, lists.resources, builders, skipped),
    templates: applyKind(registry, 'templates', current.templates, lists.templates, builders, skipped),
  };
}
