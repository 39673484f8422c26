// Scenario `session-per-call`: 50 virtual users each doing whole sessions (initialize, notifications/initialized, one
// I/O-bound tools/call, DELETE) against the SDK v1, the SDK v2 and this router; and the router's own CPU per session
// against its own CPU per stateless (d) call, from CPU profiles of both.

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Target } from '../load/http-client';
import { PROTOCOL_VERSION } from '../load/http-client';
import type { SessionPerCallResult, SessionPerCallTask } from '../load/session-per-call';
import type { ServerSpec } from '../harness/catalog';
import type { Pinning } from '../harness/child';
import { selectServers, type BenchConfig } from '../harness/config';
import { RunningServer, type LoadGenerator } from '../harness/fleet';
import { profileSplit, type SplitLayer } from '../harness/profile-layers';
import { startBenchRedis, redisServerMissing, type BenchRedis } from '../harness/redis-server';
import { LOOKUP_KEYS, lookupValue } from '../servers/session-tool';

/** Concurrent virtual users, each doing one session after another (the 50). */
export const SESSION_USERS = 50;

const TAIL = 'tool `lookup` (one Redis GET, one `fetch` of the local JSON service), the same module in every server';

/** The servers of the scenario; the last runs single stateless calls, the base of the router's-share target. */
export const SESSION_PER_CALL_SERVERS = [
  {
    key: 'spc-sdk-v1',
    label: '(s1) SDK v1 stateless',
    script: 'servers/session-sdk.ts',
    args: [],
    sessions: false,
    headers: {},
    description: `\`@modelcontextprotocol/sdk\` as its stateless example: \`createMcpExpressApp()\`, a new \`McpServer\` and \`StreamableHTTPServerTransport({ sessionIdGenerator: undefined })\` per POST (SSE replies, its default), GET and DELETE answered 405; ${TAIL}`,
  },
  {
    key: 'spc-sdk-v2',
    label: '(s2) SDK v2',
    script: 'servers/session-sdk-v2.ts',
    args: [],
    sessions: false,
    headers: {},
    description: `\`@modelcontextprotocol/server\` 2: \`createMcpHandler(factory)\` as server (g) (an \`McpServer\` per request, 2025 requests served statelessly); ${TAIL}`,
  },
  {
    key: 'spc-router',
    label: '(sr) router, sessions',
    script: 'servers/session-router.ts',
    args: ['defaults'],
    sessions: true,
    headers: {},
    description: `this router with its defaults (sessions on, in-memory session and event stores, \`responseMode: 'auto'\`) and \`rateLimit: false\` as (e); ${TAIL}`,
  },
  {
    key: 'spc-router-stateless',
    label: '(sd) router stateless, one call',
    script: 'servers/session-router.ts',
    args: ['stateless'],
    sessions: false,
    headers: {},
    description: `(d)'s options (\`sessions: false, responseMode: 'json', rateLimit: false\`), loaded with single \`tools/call\` requests (no initialize, no DELETE) by the same 50 users; ${TAIL}`,
  },
] as const satisfies readonly ServerSpec[];

/** One measured run of one server. */
export interface SessionPerCallRun extends SessionPerCallResult {
  /** The server process's CPU time over the run, µs. */
  readonly cpuMicros: number;
}

export interface SessionPerCallServer {
  readonly spec: ServerSpec;
  readonly mode: 'session' | 'call';
  readonly runs: readonly SessionPerCallRun[];
}

/** One profiled run: the process's CPU per unit (session or call) and the profile's split of it. */
export interface ProfiledRun {
  readonly cpuMicrosPerUnit: number;
  readonly shares: Record<SplitLayer, number>;
  readonly profile: string;
}

export interface SessionPerCallResults {
  readonly users: number;
  readonly servers: readonly SessionPerCallServer[];
  /** The router with sessions and the (d) router, each profiled in its own process after the rounds. */
  readonly profiled?: { readonly session: ProfiledRun; readonly call: ProfiledRun };
  /** Why the scenario did not run (no redis-server). */
  readonly skipped?: string;
}

const modeOf = (spec: ServerSpec): 'session' | 'call' => (spec.key === 'spc-router-stateless' ? 'call' : 'session');

function targetOf(server: RunningServer): Target {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (modeOf(server.spec) === 'call') headers['mcp-protocol-version'] = PROTOCOL_VERSION;
  return { url: server.url, headers };
}

/** The processes the tools call, both on the load CPU: redis-server with its keys, and the JSON service. */
async function startBackends(pinning: Pinning | undefined): Promise<{ redis: BenchRedis; service: RunningServer }> {
  const redis = await startBenchRedis(pinning?.loadCpu);
  try {
    for (let i = 0; i < LOOKUP_KEYS; i++) await redis.command(['SET', `k${i}`, lookupValue(i)]);
    const onLoadCpu = pinning && { serverCpu: pinning.loadCpu, loadCpu: pinning.loadCpu };
    const service = await RunningServer.start(
      {
        key: 'spc-service',
        label: 'rates service',
        script: 'servers/session-service.ts',
        args: [],
        sessions: false,
        headers: {},
        description: 'node:http JSON service',
      },
      onLoadCpu,
    );
    return { redis, service };
  } catch (err) {
    await redis.close();
    throw err;
  }
}

class Fleet {
  readonly servers: RunningServer[] = [];
  constructor(
    private readonly config: BenchConfig,
    private readonly load: LoadGenerator,
    private readonly backends: { redis: BenchRedis; service: RunningServer },
  ) {}

  async start(spec: ServerSpec, nodeArgs: readonly string[] = []): Promise<RunningServer> {
    const args = [...spec.args, this.backends.redis.url, this.backends.service.url.replace(/\/mcp$/, '/rates')];
    const server = await RunningServer.start({ ...spec, args }, this.config.pinning, nodeArgs);
    this.servers.push(server);
    return server;
  }

  /** One run of `seconds`; throws on any failed session (a server that does not do the lifecycle is not measured). */
  async run(server: RunningServer, seconds: number): Promise<SessionPerCallRun> {
    const task: SessionPerCallTask = {
      kind: 'session-per-call',
      target: targetOf(server),
      mode: modeOf(server.spec),
      users: SESSION_USERS,
      seconds,
      keys: LOOKUP_KEYS,
    };
    const before = await server.cpuMicros();
    const result = await this.load.run(task);
    const cpuMicros = (await server.cpuMicros()) - before;
    if (result.failed > 0)
      throw new Error(`${server.spec.label}: ${result.failed} sessions failed, first: ${result.firstFailure ?? '?'}`);
    return { ...result, cpuMicros };
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((server) => server.stop()));
  }
}

/** Profiles the router with sessions and the (d) router, each alone in a fresh process with `--cpu-prof`. */
async function profileRouter(fleet: Fleet, config: BenchConfig): Promise<SessionPerCallResults['profiled']> {
  const root = config.cpuProfileDir ?? mkdtempSync(path.join(tmpdir(), 'mcp-bench-spc-'));
  const profiled: Partial<Record<'session' | 'call', ProfiledRun>> = {};
  try {
    for (const spec of [SESSION_PER_CALL_SERVERS[2], SESSION_PER_CALL_SERVERS[3]]) {
      const dir = path.join(root, `session-per-call-${spec.key}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const server = await fleet.start(spec, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
      await fleet.run(server, config.warmupSeconds);
      const run = await fleet.run(server, config.seconds);
      await server.stop();
      const [file] = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
      if (file === undefined) throw new Error(`${spec.label}: no CPU profile in ${dir}`);
      const profile = path.join(dir, file);
      profiled[modeOf(spec)] = {
        cpuMicrosPerUnit: run.cpuMicros / run.completed,
        shares: profileSplit(profile).shares,
        profile,
      };
    }
  } finally {
    if (config.cpuProfileDir === undefined) rmSync(root, { recursive: true, force: true });
  }
  return profiled.session && profiled.call && { session: profiled.session, call: profiled.call };
}

/**
 * Starts redis-server and the JSON service on the load CPU, the servers on the servers' CPU; warms each up, then
 * `config.repeats` interleaved rounds of `config.seconds`; then the two profiled router runs.
 */
export async function measureSessionPerCall(config: BenchConfig, load: LoadGenerator): Promise<SessionPerCallResults> {
  const missing = redisServerMissing();
  if (missing !== undefined) return { users: SESSION_USERS, servers: [], skipped: missing };
  const backends = await startBackends(config.pinning);
  const fleet = new Fleet(config, load, backends);
  try {
    const specs = selectServers(config, SESSION_PER_CALL_SERVERS);
    const servers: RunningServer[] = [];
    for (const spec of specs) {
      const server = await fleet.start(spec);
      await fleet.run(server, config.warmupSeconds);
      servers.push(server);
    }
    const runs: SessionPerCallRun[][] = servers.map(() => []);
    for (let round = 0; round < config.repeats; round++)
      for (let step = 0; step < servers.length; step++) {
        const index = (step + round) % servers.length;
        const server = servers[index] as RunningServer;
        const run = await fleet.run(server, config.seconds);
        runs[index]!.push(run);
        process.stderr.write(
          `  round ${round + 1} ${server.spec.label}: ${(run.completed / run.seconds).toFixed(0)} ${modeOf(server.spec)}s/s, ` +
            `${(run.cpuMicros / run.completed).toFixed(0)} µs CPU each, p50 ${run.p50Ms.toFixed(1)} ms\n`,
        );
      }
    const measured = servers.map((server, index) => ({
      spec: server.spec,
      mode: modeOf(server.spec),
      runs: runs[index]!,
    }));
    await fleet.stopAll();
    const profiled = await profileRouter(fleet, config);
    return { users: SESSION_USERS, servers: measured, ...(profiled && { profiled }) };
  } finally {
    await fleet.stopAll();
    await backends.service.stop();
    await backends.redis.close();
  }
}
