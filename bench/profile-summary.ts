// `tsx bench/profile-summary.ts <file.cpuprofile> [top]`: where a server's CPU time went, by package and by function.
// Profiles come from a run with BENCH_CPU_PROF=<dir> (the servers then run with --cpu-prof).

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { formatNumber, markdownTable } from './format';
import { BUILD_DIR } from './harness/build';

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = path.join(__dirname, '..');
/** The compiled tree as profiles name it: node_modules may be a symlink (a git worktree's), and V8 writes real paths. */
const COMPILED = existsSync(BUILD_DIR) ? realpathSync(BUILD_DIR) : BUILD_DIR;

/**
 * Who a frame belongs to: a file of this repository (`lib/transport/post.js`, compiled), an npm package
 * (`router (npm)`, Express 5's router), Node itself, or V8's pseudo-frames (`(garbage collector)`).
 */
export function ownerOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : 'native';
  if (url.startsWith('node:')) return 'node core';
  const file = url.replace(/^file:\/\//, '');
  if (file.startsWith(COMPILED)) return path.relative(COMPILED, file);
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = file.slice(modules + '/node_modules/'.length).split('/');
    return `${scope.startsWith('@') ? `${scope}/${name}` : scope} (npm)`;
  }
  const relative = path.relative(ROOT, file);
  return relative.startsWith('..') ? file : relative;
}

/** npm packages that Express 5 itself brings (and that it runs per request), for the by-layer view. */
const EXPRESS_PACKAGES = new Set(
  'express router body-parser raw-body type-is parseurl content-type on-finished finalhandler etag fresh mime-types mime-db iconv-lite debug ms path-to-regexp send qs cookie media-typer proxy-addr forwarded accepts negotiator statuses http-errors depd bytes encodeurl escape-html merge-descriptors content-disposition range-parser safe-buffer safer-buffer setprototypeof toidentifier ipaddr.js unpipe ee-first destroy get-intrinsic call-bind-apply-helpers call-bound side-channel side-channel-map side-channel-list side-channel-weakmap object-inspect dunder-proto get-proto has-symbols function-bind gopd es-errors es-object-atoms es-define-property hasown math-intrinsics once wrappy'.split(
    ' ',
  ),
);

/**
 * Which layer of the stack a frame's owner belongs to: Node's HTTP machinery, Express, this router's code,
 * the packages this router uses (cors, express-rate-limit, ajv…), the official SDK, GC, or the bench server.
 */
export function layerOf(owner: string): string {
  if (owner === 'node core' || owner === 'native' || owner === '(program)') return 'Node: HTTP, streams, sockets';
  if (owner === '(garbage collector)') return 'garbage collection';
  if (owner.startsWith('lib/')) return 'this router (lib/)';
  if (owner.startsWith('bench/')) return 'the bench server (tool handlers, bare handler)';
  const name = owner.endsWith(' (npm)') ? owner.slice(0, -' (npm)'.length) : undefined;
  if (name === undefined) return 'other';
  if (EXPRESS_PACKAGES.has(name)) return 'Express (express, router, body-parser, …)';
  if (name.startsWith('@modelcontextprotocol/') || name.startsWith('zod')) return 'official SDK (+ zod)';
  return "this router's dependencies (cors, express-rate-limit, ajv, …)";
}

function labelOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${ownerOf(url, functionName)}:${lineNumber + 1}`;
}

/** Time with each function anywhere on the stack (counted once per sample, however deep it recurses). */
function inclusiveTimes(profile: CpuProfile): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const inclusive = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const seen = new Set<string>();
    for (let node = byId.get(id); node !== undefined; node = parent.get(node.id)) seen.add(labelOf(node));
    if (seen.has('(idle) (idle):0')) return;
    for (const label of seen) inclusive.set(label, (inclusive.get(label) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return inclusive;
}

function summarise(profile: CpuProfile, top: number): string {
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, index) =>
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
  );
  const byOwner = new Map<string, number>();
  const byLayer = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const node of profile.nodes) {
    const micros = selfMicros.get(node.id) ?? 0;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') {
      idle += micros;
      continue;
    }
    total += micros;
    const owner = ownerOf(url, functionName);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + micros);
    byLayer.set(layerOf(owner), (byLayer.get(layerOf(owner)) ?? 0) + micros);
    const label = labelOf(node);
    byFunction.set(label, (byFunction.get(label) ?? 0) + micros);
  }
  const rows = (map: Map<string, number>): string[][] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => [name, formatNumber(micros / 1000), `${((100 * micros) / total).toFixed(1)}%`]);
  return [
    `busy ${formatNumber(total / 1000)} ms, idle ${formatNumber(idle / 1000)} ms`,
    '',
    markdownTable(['self time by layer', 'ms', 'share of busy'], rows(byLayer)),
    '',
    markdownTable(['self time by owner', 'ms', 'share of busy'], rows(byOwner)),
    '',
    markdownTable(['self time by function', 'ms', 'share of busy'], rows(byFunction)),
    '',
    markdownTable(['time with the function on the stack', 'ms', 'share of busy'], rows(inclusiveTimes(profile))),
  ].join('\n');
}

if (require.main === module) {
  const [file, top = '25'] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  process.stdout.write(`${summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top))}\n`);
}
