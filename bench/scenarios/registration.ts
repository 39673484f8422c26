// Scenario `registration`: N tools registered in this router, in SDK v1's and SDK v2's McpServer, and an OpenAPI document bridged; one child process per server and size, so heaps do not mix.

import { Child } from '../harness/child';
import type { BenchConfig } from '../harness/config';
import type { RegistrationKind, RegistrationReport } from '../servers/registration';
import { median } from '../stats';

/** The issue's goal: the router registers 10,000 tools in at most this share of SDK v1's time, in the same round. */
export const REGISTRATION_TARGET_RATIO = 0.5;
/** The goal: heap kept per registered tool, bytes. */
export const REGISTRATION_HEAP_TARGET_BYTES = 2048;
/** The size of the OpenAPI document bridged (operations). */
export const OPENAPI_OPERATIONS = 2000;

/** One server kind at one size, every round's report. */
export interface RegistrationRun {
  readonly kind: RegistrationKind;
  readonly tools: number;
  readonly rounds: readonly RegistrationReport[];
}

export interface RegistrationResults {
  readonly runs: readonly RegistrationRun[];
}

/** Each round: at each size the router, SDK v1 and SDK v2 one after another; then the distinct schemas and the OpenAPI pair. */
function plan(quick: boolean): Array<{ kind: RegistrationKind; tools: number }> {
  const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
  return [
    ...sizes.flatMap((tools) => (['router', 'sdk-v1', 'sdk-v2'] as const).map((kind) => ({ kind, tools }))),
    { kind: 'router-distinct', tools: 10_000 },
    { kind: 'router-openapi', tools: OPENAPI_OPERATIONS },
    { kind: 'sdk-v1-openapi', tools: OPENAPI_OPERATIONS },
  ];
}

async function runChild(config: BenchConfig, kind: RegistrationKind, tools: number): Promise<RegistrationReport> {
  const nodeArgs = ['--max-old-space-size=4096'];
  if (config.cpuProfileDir !== undefined)
    nodeArgs.push(
      '--cpu-prof',
      `--cpu-prof-dir=${config.cpuProfileDir}`,
      `--cpu-prof-name=registration-${kind}-${tools}.cpuprofile`,
    );
  const { child, ready } = await Child.start<RegistrationReport>(
    `registration ${kind} ${tools}`,
    'servers/registration.ts',
    [kind, String(tools)],
    config.pinning?.serverCpu,
    nodeArgs,
  );
  await child.stop();
  return ready;
}

/** `config.repeats` rounds of {@link plan}, each child alone on the server CPU. */
export async function measureRegistration(config: BenchConfig): Promise<RegistrationResults> {
  const steps = plan(config.quick);
  const rounds = new Map<string, RegistrationReport[]>();
  for (let round = 0; round < config.repeats; round++) {
    for (const { kind, tools } of steps) {
      process.stderr.write(`  round ${round + 1}: ${kind}, ${tools} tools\n`);
      const report = await runChild(config, kind, tools);
      const key = `${kind}:${tools}`;
      rounds.set(key, [...(rounds.get(key) ?? []), report]);
    }
  }
  return { runs: steps.map(({ kind, tools }) => ({ kind, tools, rounds: rounds.get(`${kind}:${tools}`) ?? [] })) };
}

/** The run of `kind` at `tools`, if measured. */
export function runOf(
  results: RegistrationResults,
  kind: RegistrationKind,
  tools: number,
): RegistrationRun | undefined {
  return results.runs.find((run) => run.kind === kind && run.tools === tools);
}

/** The median of per-round ratios of `run`'s registration time to `base`'s (rounds paired by index). */
export function timeRatio(run: RegistrationRun, base: RegistrationRun): number {
  return median(run.rounds.map((report, i) => report.registerMs / (base.rounds[i]?.registerMs ?? NaN)));
}

/** Median figures of a run: µs and bytes per tool, ms of the first and of a warm call. */
export function figuresOf(run: RegistrationRun): {
  registerMs: number;
  microsPerTool: number;
  heapPerTool: number;
  firstCallMs: number;
  warmCallMs: number;
} {
  const of = (pick: (report: RegistrationReport) => number): number => median(run.rounds.map(pick));
  return {
    registerMs: of((r) => r.registerMs),
    microsPerTool: of((r) => (r.registerMs * 1000) / r.tools),
    heapPerTool: of((r) => r.heapBytes / r.tools),
    firstCallMs: of((r) => r.firstCallMs),
    warmCallMs: of((r) => r.warmCallMs),
  };
}
