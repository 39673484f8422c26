// Standard (TC39) decorators @tool, @resource, @prompt for controller classes, and what mcp.register() reads from them.

import { McpConfigError } from '../../options/config-error';
import type { BridgedRouteMeta } from '../../edge/host-routes/route-tool-meta';
import type { PromptDefinition } from '../../core/registry/prompts';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../../core/registry/resources';
import type { ToolDefinition } from '../../core/registry/tools';

/** `@tool` metadata: a tool definition without its handler, or a route to bridge (with `method` and `path`). */
export type ToolDecoratorMeta =
  | Omit<ToolDefinition, 'handler'>
  | (BridgedRouteMeta & {
      /** The HTTP method of the route the method serves: the tool calls the app's own route. */
      method: string;
      /** The path of that route, with its `:params`. */
      path: string;
    });

/** `@resource` metadata: a resource (with `uri`) or a template (with `uriTemplate`), without `read`. */
export type ResourceDecoratorMeta = Omit<ResourceDefinition, 'read'> | Omit<ResourceTemplateDefinition, 'read'>;

/** `@prompt` metadata: a prompt definition without `get`. */
export type PromptDecoratorMeta = Omit<PromptDefinition, 'get'>;

/** One decorated method of an instance, bound to it. */
export type DecoratedMember =
  | { readonly kind: 'tool'; readonly meta: ToolDecoratorMeta; readonly fn: (...args: never[]) => unknown }
  | { readonly kind: 'resource'; readonly meta: ResourceDecoratorMeta; readonly fn: (...args: never[]) => unknown }
  | { readonly kind: 'prompt'; readonly meta: PromptDecoratorMeta; readonly fn: (...args: never[]) => unknown };

/** Where an instance keeps its decorated members: a symbol, so it never collides with the class's own fields. */
const MEMBERS = Symbol('express-mcp-router.members');

type Decorated = { [MEMBERS]?: DecoratedMember[] };

function decorator<Meta>(kind: DecoratedMember['kind'], meta: Meta) {
  return function register<This extends object>(
    method: (this: This, ...args: never[]) => unknown,
    context: ClassMethodDecoratorContext<This>,
  ): void {
    if (context.kind !== 'method' || context.static) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `@${kind} goes on an instance method (${String(context.name)} is not one)`,
      );
    }
    // Runs when an instance is constructed: the member is kept on the instance, bound to it, for mcp.register().
    context.addInitializer(function (this: This) {
      const target = this as This & Decorated;
      const members = Object.hasOwn(target, MEMBERS) ? (target[MEMBERS] as DecoratedMember[]) : (target[MEMBERS] = []);
      members.push({ kind, meta, fn: method.bind(this) } as DecoratedMember);
    });
  };
}

/**
 * Marks a method as a tool: a plain method `(args, ctx)`, or, when `method` and `path` are given, an Express
 * handler `(req, res)` bridged like `mcp.route()`.
 *
 * @example
 * ```ts
 * class Orders {
 *   @tool({ name: 'count_orders', description: 'Count orders' })
 *   count() { return db.orders.count(); }
 * }
 * mcp.register(new Orders());
 * ```
 */
export function tool(meta: ToolDecoratorMeta) {
  return decorator('tool', meta);
}

/**
 * Marks a method as a resource's `read` (`uri`) or a template's (`uriTemplate`).
 *
 * @example
 * ```ts
 * @resource({ uriTemplate: 'orders://{id}', name: 'order' })
 * read(uri: string, { id }: { id: string }) { return JSON.stringify(db.orders.get(id)); }
 * ```
 */
export function resource(meta: ResourceDecoratorMeta) {
  return decorator('resource', meta);
}

/**
 * Marks a method as a prompt's `get`.
 *
 * @example
 * ```ts
 * @prompt({ name: 'summarize_order', arguments: [{ name: 'id', required: true }] })
 * summarize({ id }: { id: string }) { return `Summarize order ${id}`; }
 * ```
 */
export function prompt(meta: PromptDecoratorMeta) {
  return decorator('prompt', meta);
}

/**
 * The decorated members of an instance, in declaration order.
 *
 * @throws {McpConfigError} when the object has none (not an instance of a decorated class)
 */
export function decoratedMembers(instance: object): readonly DecoratedMember[] {
  const members = (instance as Decorated)[MEMBERS];
  if (members === undefined || members.length === 0) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      'register() needs an instance of a class with @tool, @resource or @prompt methods',
    );
  }
  return members;
}
