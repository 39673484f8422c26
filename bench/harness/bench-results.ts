// What one `npm run bench` measured, scenario by scenario: what run.ts collects and every report-*.ts renders.

import type { ConnectionLevel } from '../scenarios/connections';
import type { ExchangeResults } from '../scenarios/exchange';
import type { ServerRuns } from '../scenarios/load-runs';
import type { RedisResults } from '../scenarios/redis';
import type { RegistrationResults } from '../scenarios/registration';
import type { ServerSessionRuns } from '../scenarios/sessions';
import type { SessionPerCallResults } from '../scenarios/session-per-call';
import type { StdioResults } from '../scenarios/stdio';
import type { ServerStreamRuns } from '../scenarios/streams';
import type { TelemetryResults } from '../scenarios/telemetry';

/** What a run measured; a scenario left out with BENCH_ONLY is undefined. */
export interface BenchResults {
  readonly throughput?: readonly ServerRuns[];
  readonly stream?: readonly ServerRuns[];
  readonly sessions?: readonly ServerSessionRuns[];
  /** Scenario 1m: `tools/call add` as 2026-07-28 requests. */
  readonly modernThroughput?: readonly ServerRuns[];
  /** Scenario 2m: 100 progress notifications and the result, as 2026-07-28 requests. */
  readonly modernStream?: readonly ServerRuns[];
  /** The Redis scenario, or why it was skipped. */
  readonly redis?: RedisResults;
  /** Scenario 4: `tools/call add` with OpenTelemetry absent, idle and on. */
  readonly telemetry?: TelemetryResults;
  /** Scenario `sign-in`: (f) with its static token, a second (f), and (f) with router-issued JWTs. */
  readonly signIn?: readonly ServerRuns[];
  /** Scenario `stdio`: a stdio server called directly, through this router and through supergateway. */
  readonly stdio?: StdioResults;
  /** Scenario `connections`: `tools/call add` at 100 and 1,000 keep-alive connections. */
  readonly connections?: readonly ConnectionLevel[];
  /** Scenario `streams`: heap and RSS per open GET stream and listen stream. */
  readonly streams?: readonly ServerStreamRuns[];
  /** Scenario `exchange`: µs per cached exchanged token. */
  readonly exchange?: ExchangeResults;
  /** Scenario `session-per-call`: whole sessions with an I/O-bound tool call each. */
  readonly sessionPerCall?: SessionPerCallResults;
  /** Scenario `registration`: time and heap per registered tool, first and warm calls. */
  readonly registration?: RegistrationResults;
}
