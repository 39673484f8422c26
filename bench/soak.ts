// `npm run bench:soak`: moderate mixed traffic against this router for 10 minutes; heap and RSS sampled every
// 30 s (after full GCs) must not trend upward. Writes bench/SOAK.md.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatBytes, formatNumber, markdownTable } from './format';
import { buildForBench } from './harness/build';
import { SERVERS } from './harness/catalog';
import { detectPinning } from './harness/child';
import { LoadGenerator, RunningServer } from './harness/fleet';
import { collectMeta, endLoadAverage, type RunMeta } from './harness/meta';
import type { SoakResult } from './load/soak-traffic';
import { median, trendOf, type Trend, type TrendSample } from './stats';

const MB = 1024 * 1024;

interface SoakConfig {
  readonly minutes: number;
  readonly sampleSeconds: number;
  readonly ratePerSecond: number;
  readonly connections: number;
  readonly callsPerSession: number;
  readonly output: string | undefined;
}

function numberFrom(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
}

/** BENCH_SOAK_MINUTES, BENCH_SOAK_SAMPLE_SECONDS, BENCH_SOAK_RATE, BENCH_OUT; BENCH_QUICK=1: 1 minute, printed only. */
function readSoakConfig(): SoakConfig {
  const quick = process.env.BENCH_QUICK === '1';
  const out = process.env.BENCH_OUT;
  return {
    minutes: numberFrom('BENCH_SOAK_MINUTES', quick ? 1 : 10),
    sampleSeconds: numberFrom('BENCH_SOAK_SAMPLE_SECONDS', quick ? 5 : 30),
    ratePerSecond: numberFrom('BENCH_SOAK_RATE', 400),
    connections: 4,
    callsPerSession: 20,
    output: out ? path.resolve(out) : quick ? undefined : path.join(__dirname, 'SOAK.md'),
  };
}

/** Growth over the run that still counts as flat: a real leak at this traffic grows far faster. */
function tolerance(samples: readonly TrendSample[], floor: number): number {
  return Math.max(floor, 0.05 * median(samples.map((sample) => sample.value)));
}

interface Sample {
  readonly minute: number;
  readonly heapUsed: number;
  readonly rss: number;
}

function verdictRow(name: string, trend: Trend, allowed: number): string[] {
  return [
    name,
    `${formatBytes(trend.slopePerMinute)}/min`,
    formatBytes(trend.rise),
    formatBytes(trend.thirdsDelta),
    formatBytes(allowed),
    trend.upward ? '**upward: missed**' : '**flat: met**',
  ];
}

function render(config: SoakConfig, meta: RunMeta, traffic: SoakResult, samples: readonly Sample[]): string {
  // The first minute (at most a fifth of the run) is warm-up: code is compiled, pools and caches fill.
  const warmup = Math.min(1, config.minutes / 5);
  const steady = samples.filter((sample) => sample.minute >= warmup);
  const heap = steady.map((sample) => ({ minute: sample.minute, value: sample.heapUsed }));
  const rss = steady.map((sample) => ({ minute: sample.minute, value: sample.rss }));
  const heapAllowed = tolerance(heap, 2 * MB);
  const rssAllowed = tolerance(rss, 8 * MB);
  return [
    '# Soak results',
    '',
    `- **Date:** ${meta.date}`,
    `- **Versions:** ${Object.entries(meta.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ')}`,
    `- **Machine:** ${meta.machine}; load average ${meta.loadAverage.start} at the start, ${meta.loadAverage.end ?? '?'} at the end`,
    `- **Pinning:** ${meta.pinning}`,
    `- **Command:** \`${meta.command}\``,
    `- **Server:** ${SERVERS.routerProduction.label}: ${SERVERS.routerProduction.description}.`,
    `- **Traffic:** ${config.connections} clients, at most ${config.ratePerSecond} requests/s in all, for ${config.minutes} min. Each client loops: initialize + notifications/initialized, ${config.callsPerSession} × \`tools/call add\`, one \`count\` (100 progress notifications on an SSE stream), DELETE.`,
    `- **Done:** ${formatNumber(traffic.requests)} requests (${formatNumber(traffic.requests / traffic.seconds)}/s), ${formatNumber(traffic.sessions)} sessions opened and deleted, ${formatNumber(traffic.failed)} failed.`,
    `- **Samples:** every ${config.sampleSeconds} s, heap used and RSS of the server after full GCs (\`gc()\` over IPC); the trend is judged from minute ${warmup} on.`,
    '',
    '## Verdict',
    '',
    'A series trends upward when both its least-squares rise over the span and the median of its last third minus the median of its first third exceed the tolerance (5% of its median, at least 2 MB for heap and 8 MB for RSS).',
    '',
    markdownTable(
      ['series', 'slope', 'fitted rise over the span', 'last third − first third', 'tolerance', 'verdict'],
      [
        verdictRow('heap used', trendOf(heap, heapAllowed), heapAllowed),
        verdictRow('RSS', trendOf(rss, rssAllowed), rssAllowed),
      ],
    ),
    '',
    '## Samples',
    '',
    markdownTable(
      ['minute', 'heap used', 'RSS'],
      samples.map((sample) => [sample.minute.toFixed(2), formatBytes(sample.heapUsed), formatBytes(sample.rss)]),
    ),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const config = readSoakConfig();
  const pinning = detectPinning();
  const meta = collectMeta('bench:soak', pinning);
  buildForBench();
  const load = await LoadGenerator.start(pinning);
  const server = await RunningServer.start(SERVERS.routerProduction, pinning);
  const samples: Sample[] = [];
  try {
    const started = performance.now();
    const traffic = load.run({
      kind: 'soak',
      target: server.target(),
      seconds: config.minutes * 60,
      connections: config.connections,
      ratePerSecond: config.ratePerSecond,
      callsPerSession: config.callsPerSession,
    });
    let running = true;
    void traffic.finally(() => (running = false));
    // Samples are taken under load only: one now, then one per interval until the traffic ends.
    while (running) {
      const minute = (performance.now() - started) / 60_000;
      const { heapUsed, rss } = await server.memory();
      samples.push({ minute, heapUsed, rss });
      process.stderr.write(`  ${minute.toFixed(1)} min: heap ${formatBytes(heapUsed)}, RSS ${formatBytes(rss)}\n`);
      await Promise.race([traffic, new Promise((resolve) => setTimeout(resolve, config.sampleSeconds * 1000))]);
    }
    const markdown = render(config, endLoadAverage(meta), await traffic, samples);
    process.stdout.write(`${markdown}\n`);
    if (config.output !== undefined) writeFileSync(config.output, markdown);
  } finally {
    await server.stop();
    await load.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
