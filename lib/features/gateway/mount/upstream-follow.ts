// An upstream's notifications followed for its mount: list changes lead to a refresh, resource updates go on under our URIs.

import { isObject } from '../../../core/jsonrpc/types';
import type { Naming } from './prefixed-names';
import type { UpstreamClient, UpstreamListener } from '../shared/upstream-client';

/** Most upstream resources the gateway subscribes to, so one upstream cannot make it hold without bound. */
const MAX_RESOURCE_SUBSCRIPTIONS = 100;
const LIST_CHANGED = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
]);

/** What a mount does with what its upstream tells. */
export interface FollowHandlers {
  /** One of its lists changed. */
  onListChanged(): void;
  /** A resource it serves changed: `uri` is the downstream URI. */
  onResourceUpdated(uri: string): void;
}

/**
 * The notification stream of one mounted upstream: opened once connected, when the upstream says its lists change
 * (MCP: `listChanged`) or offers resource subscriptions, and kept subscribed to the mounted resources.
 */
export class UpstreamFollower {
  #listener: UpstreamListener | undefined;
  /** The URIs the listener subscribes to, joined: to update it only when they change. */
  #subscribed = '';

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly naming: Naming,
    private readonly handlers: FollowHandlers,
  ) {}

  /** Whether the notification stream is open (list changes then arrive by themselves). */
  get listening(): boolean {
    return this.#listener !== undefined;
  }

  /** Opens the stream when offered, or brings its subscriptions in step with `mountedUris` (downstream URIs). */
  follow(mountedUris: Iterable<string>): void {
    const capabilities = this.upstream.capabilities ?? {};
    const changes = ['tools', 'prompts', 'resources'].some(
      (kind) => isObject(capabilities[kind]) && (capabilities[kind] as Record<string, unknown>).listChanged === true,
    );
    const uris = this.#wantedUpdates(mountedUris);
    const key = uris.join('\n');
    if (this.#listener === undefined && (changes || uris.length > 0))
      this.#listener = this.upstream.listen({
        onNotification: (message) => this.#onNotification(message),
        resourceSubscriptions: uris,
      });
    else if (this.#listener !== undefined && key !== this.#subscribed) this.#listener.update(uris);
    this.#subscribed = key;
  }

  /** Ends the stream. */
  close(): void {
    this.#listener?.close();
  }

  /**
   * The upstream resources whose updates the gateway asks for: its listed static resources (at most
   * {@link MAX_RESOURCE_SUBSCRIPTIONS}), when it offers subscriptions (MCP resources › Subscriptions). Downstream,
   * only the callers subscribed to a resource hear of its updates.
   */
  #wantedUpdates(mountedUris: Iterable<string>): string[] {
    const resources = this.upstream.capabilities?.resources;
    if (!isObject(resources) || resources.subscribe !== true) return [];
    return [...mountedUris].slice(0, MAX_RESOURCE_SUBSCRIPTIONS).map((uri) => this.naming.originalUri(uri) ?? uri);
  }

  #onNotification(message: Record<string, unknown>): void {
    if (typeof message.method !== 'string') return;
    if (LIST_CHANGED.has(message.method)) {
      this.handlers.onListChanged();
    } else if (
      message.method === 'notifications/resources/updated' &&
      isObject(message.params) &&
      typeof message.params.uri === 'string'
    ) {
      this.handlers.onResourceUpdated(this.naming.uri(message.params.uri));
    }
  }
}
