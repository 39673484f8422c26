// The method table of one router: every protocol module's methods, with the eras that serve each, built once.

import type { Registry } from '../../registry/registry';
import { completionMethods } from './completion-methods';
import { lifecycleMethods, type ServerIdentity } from './lifecycle-methods';
import { loggingMethods } from './logging-methods';
import { McpConfigError } from '../../../options/config-error';
import type { MethodEntry, MethodTable } from './method-spec';
import { promptMethods } from './prompt-methods';
import { resourceMethods } from './resource-methods';
import type { createEntryShaper } from '../shaping';
import type { TaskRunner } from '../tasks/task-runner';
import { taskMethods } from '../tasks/task-methods';
import { toolMethods } from './tool-methods';

/** What the method table is built from: the dispatcher's settings (see `DispatcherConfig`). */
export interface MethodTableSettings {
  readonly identity: ServerIdentity;
  readonly pageSize: number;
  /** Whether list changes are announced (sessions with a GET stream). */
  readonly listChanged: boolean;
  /** Whether 2026 clients can listen for server events (subscriptions/listen streams). */
  readonly listenStreams?: boolean;
  /** Most resource URIs one session may subscribe to. */
  readonly maxSubscriptions: number;
  /** Runs the router's long-running tasks; its methods exist once a tool may run as a task. */
  readonly tasks?: TaskRunner;
}

/**
 * Builds the method table of one router once; every request then costs one lookup. The tasks methods exist only
 * once a tool may run as a task.
 *
 * @param shape - the router's cache of list entries shaped per revision
 */
export function methodTableOf(
  registry: Registry,
  config: MethodTableSettings,
  shape: ReturnType<typeof createEntryShaper>,
): Record<string, MethodEntry> {
  return {
    ...lifecycleMethods(registry, config.identity, config.listChanged, config.listenStreams === true),
    ...toolMethods(registry, config.pageSize, shape, config.tasks),
    ...(config.tasks && taskMethods(config.tasks)),
    ...resourceMethods(registry, config.pageSize, shape, config.maxSubscriptions),
    ...promptMethods(registry, config.pageSize, shape),
    ...completionMethods(registry),
    ...loggingMethods(),
  };
}

/**
 * Adds the methods an extension (SEP-1724) brings when it is registered after the table was built (SEP-2640
 * `skills/list`, …).
 *
 * @throws {McpConfigError} `ERR_MCP_DUPLICATE` for a method the table already serves
 */
export function extendTable(methods: Record<string, MethodEntry>, table: MethodTable): void {
  const taken = Object.keys(table).find((name) => Object.hasOwn(methods, name));
  if (taken !== undefined) throw new McpConfigError('ERR_MCP_DUPLICATE', `the method '${taken}' is already served`);
  Object.assign(methods, table);
}
