// initialize (version negotiation, capabilities derived from the registry) and ping in 2025; server/discover in 2026.

import { isObject } from '../../jsonrpc/types';
import type { Registry } from '../../registry/registry';
import { boundedCapabilities, boundedClientInfo } from '../client-data';
import { ClientUpdate } from '../handler-context';
import { eraPolicy, SESSION_ERAS, STATELESS_ERAS } from '../../era-policy';
import type { MethodTable } from './method-spec';
import { SERVER_INFO_FIELDS, shapeFields } from '../shaping';
import { TASKS_EXTENSION } from '../tasks/task-methods';
import {
  eraOf,
  isAtLeast,
  PROTOCOL_VERSIONS_2026,
  negotiateVersion,
  type ProtocolVersion,
  type Revision,
} from '../../versions';

/** Who the server is, as `initialize` tells the client. */
export interface ServerIdentity {
  /** `serverInfo` (an MCP Implementation): name, version, and optional title, description, icons, websiteUrl. */
  readonly serverInfo: Readonly<Record<string, unknown>>;
  /** Guidance for the model on how to use this server (MCP 2025-03-26 and later). */
  readonly instructions: string | undefined;
}

/**
 * MCP lifecycle: one capability for every feature offered, in the form `version` defines.
 *
 * @param listChanged - whether there is a stream to announce list changes and resource updates on (2025 GET, 2026 listen)
 */
export function capabilitiesFor(registry: Registry, version: Revision, listChanged: boolean): Record<string, unknown> {
  const offered = registry.features;
  const lists = listChanged ? { listChanged: true } : {};
  const capabilities: Record<string, unknown> = { logging: {} };
  if (offered.tools) capabilities.tools = lists;
  // Updates to subscribed resources travel on the GET (2025) or listen (2026) stream: with streams, `subscribe` is declared too.
  if (offered.resources) capabilities.resources = listChanged ? { subscribe: true, ...lists } : {};
  if (offered.prompts) capabilities.prompts = lists;
  if (offered.completions && isAtLeast(version, '2025-03-26')) capabilities.completions = {};
  if (offered.tasks) Object.assign(capabilities, tasksCapability(version));
  if (registry.extensions.size > 0) {
    // SEP-1724: extensions are declared under `capabilities.extensions` by identifier, in every revision.
    const extensions = { ...(capabilities.extensions as Record<string, unknown> | undefined) };
    for (const [id, settings] of registry.extensions) extensions[id] = settings;
    capabilities.extensions = extensions;
  }
  return capabilities;
}

/**
 * MCP tasks, as each revision declares them: 2025-11-25 `capabilities.tasks` (list, cancel, task-augmented
 * tools/call); 2026-07-28 the extension in `capabilities.extensions` (SEP-2663, which forbids the old slot there).
 */
function tasksCapability(version: Revision): Record<string, unknown> {
  if (eraPolicy(eraOf(version)).tasks.viaExtension) return { extensions: { [TASKS_EXTENSION]: {} } };
  if (isAtLeast(version, '2025-11-25')) return { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  return {};
}

/** True for an `initialize` request (a message with that method and an id): what starts a 2025 session. */
export function isInitializeRequest(message: unknown): boolean {
  return isObject(message) && message.method === 'initialize' && 'id' in message;
}

/** What `initialize` answers beside the negotiated revision: the same for every client of a revision. */
interface InitializeAnswer {
  /** The offered features it was made for ({@link featureBits}) and the extensions declared then. */
  readonly features: number;
  readonly extensions: ReadonlyArray<readonly [string, unknown]>;
  readonly capabilities: Record<string, unknown>;
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions: string | undefined;
}

/** The registry's offered features as one number: they only ever turn on. */
function featureBits({ tools, resources, prompts, completions, tasks }: Registry['features']): number {
  return +tools | (+resources << 1) | (+prompts << 2) | (+completions << 3) | (+tasks << 4);
}

/** Whether the registry declares the same extensions, with the same settings objects, as `known`. */
function sameExtensions(known: ReadonlyArray<readonly [string, unknown]>, registry: Registry): boolean {
  if (known.length !== registry.extensions.size) return false;
  for (const [id, settings] of known) if (registry.extensions.get(id) !== settings) return false;
  return true;
}

/**
 * The parts of `initialize`'s result that depend only on the router and the revision (capabilities, serverInfo,
 * instructions), made once per revision and made again when the registry's capabilities change; never per client.
 */
function initializeAnswers(
  registry: Registry,
  identity: ServerIdentity,
  listChanged: boolean,
): (version: ProtocolVersion) => InitializeAnswer {
  const answers = new Map<ProtocolVersion, InitializeAnswer>();
  return (version) => {
    const features = featureBits(registry.features);
    const known = answers.get(version);
    if (known !== undefined && known.features === features && sameExtensions(known.extensions, registry)) return known;
    const answer: InitializeAnswer = {
      features,
      extensions: [...registry.extensions],
      capabilities: capabilitiesFor(registry, version, listChanged),
      serverInfo: shapeFields(identity.serverInfo, SERVER_INFO_FIELDS, version),
      // MCP 2025-03-26 added instructions.
      instructions: isAtLeast(version, '2025-03-26') ? identity.instructions : undefined,
    };
    answers.set(version, answer);
    return answer;
  };
}

/**
 * initialize and ping (2025); server/discover (2026).
 *
 * @param listChanged - whether 2025 sessions have a GET stream to announce changes on
 * @param listenStreams - whether 2026 clients have subscriptions/listen streams to hear changes on
 */
export function lifecycleMethods(
  registry: Registry,
  identity: ServerIdentity,
  listChanged: boolean,
  listenStreams: boolean,
): MethodTable {
  // MCP 2026-07-28 discovery: supportedVersions names 2026 revisions only (the 2025 ones are reached by initialize).
  const supportedVersions = Object.freeze([...PROTOCOL_VERSIONS_2026]);
  // Discovery describes the newest revision served.
  const [newest] = PROTOCOL_VERSIONS_2026;
  const answerFor = initializeAnswers(registry, identity, listChanged);
  return {
    'server/discover': {
      eras: STATELESS_ERAS,
      cacheable: true,
      run: () => {
        // MCP 2026-07-28: capabilities match the handlers that work; listChanged and subscribe are served by subscriptions/listen.
        const result: Record<string, unknown> = {
          supportedVersions,
          capabilities: capabilitiesFor(registry, newest, listenStreams),
        };
        if (identity.instructions !== undefined) result.instructions = identity.instructions;
        return result;
      },
    },
    initialize: {
      eras: SESSION_ERAS,
      run: (params) => {
        const protocolVersion = negotiateVersion(params.protocolVersion);
        // Checked before anything is returned: a refused initialize changes nothing (and so creates no session).
        const clientCapabilities = boundedCapabilities(params.capabilities);
        const clientInfo = boundedClientInfo(params.clientInfo);
        const answer = answerFor(protocolVersion);
        const result: Record<string, unknown> = {
          protocolVersion,
          capabilities: answer.capabilities,
          serverInfo: answer.serverInfo,
        };
        if (answer.instructions !== undefined) result.instructions = answer.instructions;
        return new ClientUpdate(result, { protocolVersion, clientCapabilities, clientInfo });
      },
    },
    // MCP ping: answer promptly with an empty result, at any time.
    ping: { eras: SESSION_ERAS, run: () => ({}) },
  };
}
