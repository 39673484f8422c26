// Registry: owns one router's tools, resources, templates and prompts, and what features they add up to.

import type { SchemaValidator } from '../schema/validator';
import { Collection } from './collection';
import type { McpRegistration } from './definition';
import type { Guard } from './guards';
import { Namespaces } from './namespaces';
import { definePrompt, type PromptDefinition, type RegisteredPrompt } from './prompts';
import {
  defineResource,
  defineTemplate,
  type RegisteredResource,
  type RegisteredTemplate,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './resources';
import { defineTool, type RegisteredTool, type ToolDefinition, type ToolMode, type ToolServices } from './tools';
import { UI_EXTENSION, UI_MIME_TYPE, UiApps } from './ui-link';

/** A list whose items can change: a resource template counts as `resources`. */
export type ChangedList = 'tools' | 'prompts' | 'resources';

/** The kinds of item a source other than `mcp.tool()`… (an upstream) puts in place with {@link Registry.put}. */
export interface ItemKinds {
  tools: RegisteredTool;
  prompts: RegisteredPrompt;
  resources: RegisteredResource;
  templates: RegisteredTemplate;
}

/** An item's key in its collection: the name of a tool or prompt, the URI (or template) of a resource. */
export function itemKey<K extends keyof ItemKinds>(kind: K, item: ItemKinds[K]): string {
  return kind === 'tools' || kind === 'prompts'
    ? (item as RegisteredTool | RegisteredPrompt).name
    : (item as RegisteredResource).uri;
}

/** Which server features have been offered: each turns on once something of its kind is registered. */
export interface OfferedFeatures {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly completions: boolean;
  /** A tool that may run as a task was registered (MCP tasks). */
  readonly tasks: boolean;
}

/** A resource found for a URI, with the template variables it matched (none for a static resource). */
export interface ResourceMatch {
  readonly resource: RegisteredResource;
  readonly variables: Record<string, string>;
}

/**
 * Everything one router serves. Capabilities never shrink: once a kind was offered it stays declared,
 * even when its last item is removed, so a client's view from `initialize` stays true.
 */
export class Registry {
  /** The namespaces of a gateway's prefixed upstreams (claimed in a batch): every registration is checked against them. */
  readonly namespaces = new Namespaces();
  readonly tools = this.collection<RegisteredTool>('tool', 'name');
  readonly resources = this.collection<RegisteredResource>('resource', 'uri');
  readonly templates = this.collection<RegisteredTemplate>('resource template', 'uri');
  readonly prompts = this.collection<RegisteredPrompt>('prompt', 'name');
  private readonly offered = { tools: false, resources: false, prompts: false, completions: false, tasks: false };
  /** Extensions (SEP-1724) that registrations turned on, with the settings each declares, by identifier. */
  private readonly declared = new Map<string, Readonly<Record<string, unknown>>>();
  /** The MCP Apps (SEP-1865) registered, and the tools linked to them. */
  readonly apps = new UiApps();
  /** Change events held back by {@link Registry.batch}, by list; undefined outside a batch. */
  private held: Set<ChangedList> | undefined;
  private readonly listeners: Array<(kind: ChangedList) => void> = [];
  /** First loads (an upstream's lists) that lists and lookups wait for. */
  private readonly loads = new Set<Promise<unknown>>();
  /** First loads that start with the router's first request (an upstream mounted with `start: 'first-use'`). */
  private readonly deferred: (() => Promise<unknown>)[] = [];

  /**
   * @param validator - the router's schema compiler
   * @param guards - the router's `guards` (checked), composed into the chain of every item registered here
   * @param services - what the router lends every tool: where a `rateLimit` counts (the shared store, so every
   *   instance counts), and the payment ledger its guards reach on `call.payments`
   */
  constructor(
    private readonly validator: SchemaValidator,
    private readonly guards: readonly Guard[] = [],
    private readonly services: ToolServices = {},
  ) {
    const announce = (kind: ChangedList): void => {
      if (this.held !== undefined) this.held.add(kind);
      else for (const listener of this.listeners) listener(kind);
    };
    this.tools.onChange(() => announce('tools'));
    this.resources.onChange(() => announce('resources'));
    this.templates.onChange(() => announce('resources'));
    this.prompts.onChange(() => announce('prompts'));
  }

  private collection<T>(kind: string, keys: 'name' | 'uri'): Collection<T> {
    return new Collection<T>(kind, (key, group) => this.namespaces.refuseTaken(keys, kind, key, group));
  }

  /** Calls `listener` with the group of an item whose key a lower group's took (see {@link Collection.add}). */
  onDisplaced(listener: (group: number) => void): void {
    for (const list of [this.tools, this.prompts, this.resources, this.templates]) list.onDisplaced(listener);
  }

  /** What has been offered so far (for capabilities). */
  get features(): OfferedFeatures {
    return this.offered;
  }

  /**
   * Declares an extension (SEP-1724) in the server's capabilities, both eras: `capabilities.extensions[id]`. Like the
   * other capabilities it is never withdrawn; declaring it again replaces its settings.
   */
  declareExtension(id: string, settings: Readonly<Record<string, unknown>> = {}): void {
    this.declared.set(id, settings);
  }

  /** The extensions declared so far, by identifier (for capabilities). */
  get extensions(): ReadonlyMap<string, Readonly<Record<string, unknown>>> {
    return this.declared;
  }

  addTool(definition: ToolDefinition<never>, mode?: ToolMode): McpRegistration {
    const tool = this.defineTool(definition, mode);
    this.tools.add(tool.name, tool);
    this.offered.tools = true;
    if (tool.task !== undefined) this.offered.tasks = true;
    const unlink = tool.ui && this.apps.link(tool.name, tool.ui);
    return {
      remove: () => {
        const removed = this.tools.remove(tool.name, tool);
        if (removed) unlink?.();
        return removed;
      },
    };
  }

  /**
   * Registers an MCP App's `ui://` resource (SEP-1865), so tools can link to it by `name`, and declares the
   * extension. Its `remove()` throws while tools still link to it: they would point at nothing.
   *
   * @throws {McpConfigError} as {@link Registry.addResource}
   */
  addApp(name: string, definition: ResourceDefinition): McpRegistration {
    const resource = defineResource({ ...definition, mimeType: UI_MIME_TYPE }, this.guards);
    this.resources.add(resource.uri, resource);
    this.apps.add(name, resource.uri);
    this.offered.resources = true;
    // SEP-1865 Capability Negotiation, server side: the extension, with no settings of its own.
    this.declareExtension(UI_EXTENSION);
    return {
      remove: () => {
        this.apps.delete(name, resource.uri);
        return this.resources.remove(resource.uri, resource);
      },
    };
  }

  addResource(definition: ResourceDefinition): McpRegistration {
    const resource = defineResource(definition, this.guards);
    this.resources.add(resource.uri, resource);
    this.offered.resources = true;
    return { remove: () => this.resources.remove(resource.uri, resource) };
  }

  addTemplate(definition: ResourceTemplateDefinition<never>): McpRegistration {
    const template = defineTemplate(definition, this.guards);
    this.templates.add(template.uri, template);
    this.offered.resources = true;
    if (template.completers.size > 0) this.offered.completions = true;
    return { remove: () => this.templates.remove(template.uri, template) };
  }

  addPrompt(definition: PromptDefinition<never>): McpRegistration {
    const prompt = definePrompt(definition, this.guards);
    this.prompts.add(prompt.name, prompt);
    this.offered.prompts = true;
    if (prompt.completers.size > 0) this.offered.completions = true;
    return { remove: () => this.prompts.remove(prompt.name, prompt) };
  }

  /** Checks and compiles a tool with the router's validator and guards, without registering it (see {@link Registry.put}). */
  defineTool(definition: ToolDefinition<never>, mode?: ToolMode): RegisteredTool {
    const { ui } = definition as { ui?: unknown; name?: unknown };
    const linked = ui === undefined ? mode : { ...mode, ui: this.apps.resolve(ui, String(definition.name)) };
    return defineTool(definition, this.validator, this.guards, linked, this.services);
  }

  /** Checks a prompt, resource or template with the router's guards, without registering it. */
  definePrompt(definition: PromptDefinition<never>): RegisteredPrompt {
    return definePrompt(definition, this.guards);
  }

  defineResource(definition: ResourceDefinition): RegisteredResource {
    return defineResource(definition, this.guards);
  }

  defineTemplate(definition: ResourceTemplateDefinition<never>): RegisteredTemplate {
    return defineTemplate(definition, this.guards);
  }

  /**
   * Registers a defined item, or puts it in the place of `previous` (same key, same position in lists).
   *
   * @param group - where lists show it: after the router's own items, by group (a gateway's upstreams, in mount order)
   * @throws {McpConfigError} `ERR_MCP_DUPLICATE` when the key is held by another item of its group or a lower one
   */
  put<K extends keyof ItemKinds>(kind: K, item: ItemKinds[K], previous: ItemKinds[K] | undefined, group: number): void {
    const collection = this[kind] as unknown as Collection<ItemKinds[K]>;
    const key = itemKey(kind, item);
    if (previous === undefined || !collection.replace(key, previous, item)) collection.add(key, item, group);
    this.offered[kind === 'templates' ? 'resources' : (kind as 'tools' | 'prompts' | 'resources')] = true;
    const completers = (item as Partial<RegisteredPrompt>).completers;
    if (completers !== undefined && completers.size > 0) this.offered.completions = true;
  }

  /** Unregisters a defined item if it is still registered; returns whether it was. */
  drop<K extends keyof ItemKinds>(kind: K, item: ItemKinds[K]): boolean {
    const collection = this[kind] as unknown as Collection<ItemKinds[K]>;
    return collection.remove(itemKey(kind, item), item);
  }

  /**
   * Declares kinds before any item of them is registered: a gateway's upstream may bring them at any time, and a
   * client's view from `initialize` must already allow their methods (capabilities never shrink).
   */
  offer(kinds: Partial<Record<keyof OfferedFeatures, boolean>>): void {
    for (const [kind, on] of Object.entries(kinds) as [keyof OfferedFeatures, boolean][])
      if (on) this.offered[kind] = true;
  }

  /** Makes many changes, announcing each list that changed once, after them all (one list_changed per refresh). */
  batch(change: () => void): void {
    if (this.held !== undefined) return change();
    const held = (this.held = new Set());
    try {
      change();
    } finally {
      this.held = undefined;
      for (const kind of held) for (const listener of this.listeners) listener(kind);
    }
  }

  /** Lists and lookups wait for `load` (bounded by whoever made it) while it is pending: an upstream's first lists. */
  track(load: Promise<unknown>): void {
    const settled: Promise<unknown> = load.then(
      () => this.loads.delete(settled),
      () => this.loads.delete(settled),
    );
    this.loads.add(settled);
  }

  /** Like {@link track}, but `start` runs only when lists or lookups are first asked for (any request does): a lazy upstream. */
  trackOnFirstUse(start: () => Promise<unknown>): void {
    this.deferred.push(start);
  }

  /** Resolves once no tracked load is pending; undefined (nothing to wait for) on the usual path. */
  loaded(): Promise<void> | undefined {
    if (this.deferred.length > 0) for (const start of this.deferred.splice(0)) this.track(start());
    return this.loads.size === 0 ? undefined : Promise.all(this.loads).then(() => undefined);
  }

  /**
   * For an item not found: `find()` again once the pending first loads are done (an upstream's item asked for before
   * its first list arrived is found, not reported unknown); undefined at once when nothing is loading. Callers look
   * the item up first, so the usual path (found, or nothing loading) costs no promise.
   */
  async afterLoads<T>(find: () => T | undefined): Promise<T | undefined> {
    const pending = this.loaded();
    if (pending === undefined) return undefined;
    await pending;
    return find();
  }

  /**
   * The static resource with this URI, else the first template in list order (never arrival order) that matches it.
   * A URI in a claimed namespace is matched by its owner's templates only, so another's `{+uri}` cannot catch it.
   */
  findResource(uri: string): ResourceMatch | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { resource, variables: {} };
    const owner = this.namespaces.ownerOf('uri', uri);
    for (const template of this.templates.values()) {
      // Only the owner's group may add templates there (the admit check), so a template's group says whose it is.
      if (owner !== undefined && this.templates.groupOf(template.uri) !== owner.group) continue;
      const variables = template.template.match(uri);
      if (variables) return { resource: template, variables };
    }
    return undefined;
  }

  /** Calls `listener` whenever tools, resources, templates or prompts change. */
  onChange(listener: (kind: ChangedList) => void): void {
    this.listeners.push(listener);
  }
}
