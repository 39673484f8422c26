// `npm run bench`: scenarios 1–3, 1m, 2m, redis, 4, sign-in, stdio, connections, streams, exchange, session-per-call and registration against bare Express, the official SDK and this router; writes bench/RESULTS.md.

import { writeFileSync } from 'node:fs';
import { buildForBench } from './harness/build';
import { readConfig } from './harness/config';
import { LoadGenerator } from './harness/fleet';
import { collectMeta, endLoadAverage } from './harness/meta';
import type { BenchResults } from './harness/bench-results';
import { renderResults } from './harness/report';
import { measureConnections } from './scenarios/connections';
import { measureExchange } from './scenarios/exchange';
import { measureModernStream, measureModernThroughput } from './scenarios/modern';
import { measureRedis } from './scenarios/redis';
import { measureRegistration } from './scenarios/registration';
import { measureSessions } from './scenarios/sessions';
import { measureSessionPerCall } from './scenarios/session-per-call';
import { measureSignIn } from './scenarios/sign-in';
import { measureStdio } from './scenarios/stdio';
import { measureStream } from './scenarios/stream';
import { measureStreams } from './scenarios/streams';
import { measureTelemetry } from './scenarios/telemetry';
import { measureThroughput } from './scenarios/throughput';

async function main(): Promise<void> {
  const config = readConfig();
  const meta = collectMeta('bench', config.pinning);
  process.stderr.write('compiling lib/ and bench/ with tsc\n');
  buildForBench();
  const load = await LoadGenerator.start(config.pinning);
  const results: { -readonly [K in keyof BenchResults]: BenchResults[K] } = {};
  try {
    if (config.scenarios.includes('throughput')) {
      process.stderr.write('scenario 1: tools/call throughput\n');
      results.throughput = await measureThroughput(config, load);
    }
    if (config.scenarios.includes('stream')) {
      process.stderr.write('scenario 2: 100 progress notifications + result\n');
      results.stream = await measureStream(config, load);
    }
    if (config.scenarios.includes('sessions')) {
      process.stderr.write('scenario 3: sessions\n');
      results.sessions = await measureSessions(config, load);
    }
    if (config.scenarios.includes('modern')) {
      process.stderr.write('scenario 1m: 2026-07-28 tools/call throughput\n');
      results.modernThroughput = await measureModernThroughput(config, load);
    }
    if (config.scenarios.includes('modern-stream')) {
      process.stderr.write('scenario 2m: 2026-07-28, 100 progress notifications + result\n');
      results.modernStream = await measureModernStream(config, load);
    }
    if (config.scenarios.includes('redis')) {
      process.stderr.write('scenario redis: two instances on Redis behind a round-robin proxy (issue 20)\n');
      results.redis = await measureRedis(config, load);
      if (results.redis.skipped !== undefined) process.stderr.write(`  skipped: ${results.redis.skipped}\n`);
    }
    if (config.scenarios.includes('telemetry')) {
      process.stderr.write('scenario 4: OpenTelemetry absent, idle and on (issue 21)\n');
      results.telemetry = await measureTelemetry(config, load);
    }
    if (config.scenarios.includes('sign-in')) {
      process.stderr.write(
        'scenario sign-in: production configuration, router-issued JWT against static token (issue 30)\n',
      );
      results.signIn = await measureSignIn(config, load);
    }
    if (config.scenarios.includes('stdio')) {
      process.stderr.write(
        'scenario stdio: a stdio MCP server directly, through this router and through supergateway (issue 31)\n',
      );
      results.stdio = await measureStdio(config, load);
    }
    if (config.scenarios.includes('connections')) {
      process.stderr.write('scenario connections: tools/call at 100 and 1,000 keep-alive connections (issue 34)\n');
      results.connections = await measureConnections(config, load);
    }
    if (config.scenarios.includes('streams')) {
      process.stderr.write(
        `scenario streams: memory of ${config.streams} open GET streams and listen streams (issue 34)\n`,
      );
      results.streams = await measureStreams(config, load);
    }
    if (config.scenarios.includes('exchange')) {
      process.stderr.write('scenario exchange: tokenExchange cache hit, in process\n');
      results.exchange = await measureExchange(config);
    }
    if (config.scenarios.includes('session-per-call')) {
      process.stderr.write('scenario session-per-call: 50 users, a whole session per I/O-bound call\n');
      results.sessionPerCall = await measureSessionPerCall(config, load);
    }
    if (config.scenarios.includes('registration')) {
      process.stderr.write(
        'scenario registration: 1k/10k/100k tools and an OpenAPI document, against SDK v1 and v2 (issue 45)\n',
      );
      results.registration = await measureRegistration(config);
    }
  } finally {
    await load.stop();
  }
  const markdown = renderResults(results, config, endLoadAverage(meta));
  process.stdout.write(`${markdown}\n`);
  if (config.output !== undefined) {
    writeFileSync(config.output, markdown);
    process.stderr.write(`written to ${config.output}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
