// The part of scenario `registration` in RESULTS.md: time and heap per registered tool against SDK v1 and v2, the first call's latency, and the verdicts.

import { formatBytes, formatNumber, formatRatio, markdownTable } from '../format';
import {
  figuresOf,
  OPENAPI_OPERATIONS,
  REGISTRATION_HEAP_TARGET_BYTES,
  REGISTRATION_TARGET_RATIO,
  runOf,
  timeRatio,
  type RegistrationResults,
  type RegistrationRun,
} from '../scenarios/registration';
import type { RegistrationKind } from '../servers/registration';
import type { TargetRow } from './report-figures';

const LABELS: Record<RegistrationKind, string> = {
  router: 'this router, `mcp.tool()`, one schema',
  'router-distinct': 'this router, every schema different',
  'sdk-v1': 'SDK v1 `McpServer.registerTool` (zod shape)',
  'sdk-v2': 'SDK v2 `McpServer.registerTool` (`z.object`)',
  'router-openapi': `this router, \`mcp.exposeOpenApi()\` (${formatNumber(OPENAPI_OPERATIONS)} operations)`,
  'sdk-v1-openapi': `SDK v1, the same ${formatNumber(OPENAPI_OPERATIONS)} tools by hand (zod)`,
};

export function registrationTargetRows(results: RegistrationResults | undefined): TargetRow[] {
  const router = results && runOf(results, 'router', 10_000);
  const sdk = results && runOf(results, 'sdk-v1', 10_000);
  const ratio = router && sdk ? timeRatio(router, sdk) : undefined;
  const heap = router && figuresOf(router).heapPerTool;
  return [
    {
      figure: 'registration of 10,000 tools (time)',
      target: `≤ ${REGISTRATION_TARGET_RATIO.toFixed(2)}× SDK v1 at 10,000 tools`,
      measured:
        ratio === undefined
          ? 'not run'
          : `${formatRatio(ratio)} (${formatNumber(figuresOf(router!).microsPerTool, 1)} µs per tool)`,
      met: ratio === undefined ? undefined : ratio <= REGISTRATION_TARGET_RATIO,
    },
    {
      figure: 'registration of 10,000 tools (heap)',
      target: `heap per tool ≤ ${formatBytes(REGISTRATION_HEAP_TARGET_BYTES)}`,
      measured: heap === undefined ? 'not run' : formatBytes(heap),
      met: heap === undefined ? undefined : heap <= REGISTRATION_HEAP_TARGET_BYTES,
    },
  ];
}

function row(run: RegistrationRun, base: RegistrationRun | undefined): string[] {
  const f = figuresOf(run);
  return [
    LABELS[run.kind],
    formatNumber(run.tools),
    formatNumber(f.registerMs),
    formatNumber(f.microsPerTool, 1),
    base === undefined ? '–' : formatRatio(timeRatio(run, base)),
    formatBytes(f.heapPerTool),
    formatNumber(f.firstCallMs, 2),
    formatNumber(f.warmCallMs, 3),
    formatNumber(f.firstCallMs - f.warmCallMs, 2),
  ];
}

export function registrationSections(results: RegistrationResults | undefined): string[] {
  if (results === undefined) return [];
  const baseOf = (run: RegistrationRun): RegistrationRun | undefined =>
    run.kind.endsWith('openapi')
      ? runOf(results, 'sdk-v1-openapi', run.tools)
      : runOf(results, 'sdk-v1', run.kind === 'router-distinct' ? 10_000 : run.tools);
  const rounds = Math.max(...results.runs.map((run) => run.rounds.length));
  return [
    '',
    '## Registration',
    '',
    `Tools registered in one process per server and size (medians of ${rounds} round(s); the ratio is the median of per-round ratios to SDK v1 at the same size). Each tool's schema has two properties, one required; each definition is written inline in the loop, as users write it. Heap: after full collections, after registration less before, per tool. First call: the first \`tools/call\` of one registered tool after the call path was warmed with another tool (the router builds the schema's Ajv function then); warm: the median of the next 200 calls. The router is called through its Express app in process (light-my-request), the SDKs through their in-memory transport and client.`,
    '',
    markdownTable(
      [
        'server',
        'tools',
        'register (ms)',
        'µs per tool',
        '× SDK v1',
        'heap per tool',
        'first call (ms)',
        'warm call (ms)',
        'first − warm (ms)',
      ],
      results.runs
        .filter((run) => run.rounds.length > 0)
        .map((run) => row(run, run.kind.startsWith('sdk-v1') ? undefined : baseOf(run))),
    ),
  ];
}
