// Registry: owns one router's tools, resources, templates and prompts, and what features they add up to.

import type { SchemaValidator } from '../schema/validator';
import { Collection } from './collection';
import type { McpRegistration } from './definition';
import type { Guard } from './guards';
import { definePrompt, type PromptDefinition, type RegisteredPrompt } from './prompts';
import {
  defineResource,
  defineTemplate,
  type RegisteredResource,
  type RegisteredTemplate,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './resources';
import { defineTool, type RegisteredTool, type ToolDefinition } from './tools';

/** A list whose items can change: a resource template counts as `resources`. */
export type ChangedList = 'tools' | 'prompts' | 'resources';

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
  readonly tools = new Collection<RegisteredTool>('tool');
  readonly resources = new Collection<RegisteredResource>('resource');
  readonly templates = new Collection<RegisteredTemplate>('resource template');
  readonly prompts = new Collection<RegisteredPrompt>('prompt');
  private readonly offered = { tools: false, resources: false, prompts: false, completions: false, tasks: false };

  /**
   * @param validator - the router's schema compiler
   * @param guards - the router's `guards` (checked), composed into the chain of every item registered here
   */
  constructor(
    private readonly validator: SchemaValidator,
    private readonly guards: readonly Guard[] = [],
  ) {}

  /** What has been offered so far (for capabilities). */
  get features(): OfferedFeatures {
    return this.offered;
  }

  addTool(definition: ToolDefinition<never>): McpRegistration {
    const tool = defineTool(definition, this.validator, this.guards);
    this.tools.add(tool.name, tool);
    this.offered.tools = true;
    if (tool.task !== undefined) this.offered.tasks = true;
    return { remove: () => this.tools.remove(tool.name, tool) };
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

  /** The static resource with this URI, else the first template (in registration order) that matches it. */
  findResource(uri: string): ResourceMatch | undefined {
    const resource = this.resources.get(uri);
    if (resource) return { resource, variables: {} };
    for (const template of this.templates.values()) {
      const variables = template.template.match(uri);
      if (variables) return { resource: template, variables };
    }
    return undefined;
  }

  /** Calls `listener` whenever tools, resources, templates or prompts change. */
  onChange(listener: (kind: ChangedList) => void): void {
    this.tools.onChange(() => listener('tools'));
    this.resources.onChange(() => listener('resources'));
    this.templates.onChange(() => listener('resources'));
    this.prompts.onChange(() => listener('prompts'));
  }
}
