// Scenario `session-per-call`'s split of a server's CPU profile: this router's layer, Express, Node/HTTP, GC and the
// tool's own code (the Redis client, fetch/undici, the bench tool), with profile-summary.ts's owners and layers.

import { readFileSync } from 'node:fs';
import { layerOf, ownerOf, type CpuProfile } from '../profile-summary';

/** The layers of the split, in the order the report prints them. */
export const SPLIT_LAYERS = ['router', 'express', 'node', 'gc', 'tool', 'other'] as const;
export type SplitLayer = (typeof SPLIT_LAYERS)[number];

/** Packages the tool code runs in (the `redis` client and its parts). */
const TOOL_PACKAGES = /^(@redis\/[^ ]+|redis|cluster-key-slot|generic-pool) \(npm\)$/;

function splitLayerOf(url: string, functionName: string): SplitLayer {
  // fetch is Node's bundled undici: its frames are Node's own files, but the work is the tool's HTTP call.
  if (url.includes('internal/deps/undici')) return 'tool';
  const owner = ownerOf(url, functionName);
  if (TOOL_PACKAGES.test(owner) || owner.startsWith('bench/')) return 'tool';
  const layer = layerOf(owner);
  if (layer.startsWith('this router')) return 'router';
  if (layer.startsWith('Express')) return 'express';
  if (layer.startsWith('Node')) return 'node';
  if (layer === 'garbage collection') return 'gc';
  return 'other';
}

/** Shares of busy self time (idle left out) per layer, summing to 1; `busyMs` the busy time the profile saw. */
export function profileSplit(file: string): { shares: Record<SplitLayer, number>; busyMs: number } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
  );
  const micros: Record<SplitLayer, number> = { router: 0, express: 0, node: 0, gc: 0, tool: 0, other: 0 };
  let busy = 0;
  for (const node of profile.nodes) {
    const { functionName, url } = node.callFrame;
    const self = selfMicros.get(node.id) ?? 0;
    if (functionName === '(idle)' || self === 0) continue;
    micros[splitLayerOf(url, functionName)] += self;
    busy += self;
  }
  const shares = { ...micros };
  for (const layer of SPLIT_LAYERS) shares[layer] = busy === 0 ? Number.NaN : micros[layer] / busy;
  return { shares, busyMs: busy / 1000 };
}
