// RESULTS.md's part for scenario `sign-in` (issue 30): the router's own JWTs against a static token, its target and tables.

import { formatNumber, formatRatio, markdownTable } from '../format';
import { DISTURBED_BELOW, type ServerRuns, type SideBySideRun } from '../scenarios/load-runs';
import { median, pairedRatio } from '../stats';
import { SERVERS } from './catalog';
import { find, loadTable, paired, perSecond, sideBySideTable, type TargetRow } from './report-figures';

/** Issue 30: the production configuration with router-issued JWTs costs no more than this over the static token. */
const MAX_COST_RATIO = 1.1;
/** DPoP: a proof verified on every request costs no more than this over the same configuration with a bearer token. */
const MAX_DPOP_COST_RATIO = 1.15;

/**
 * A server's CPU per request over (f)'s, from the rounds in which they ran at the same moments: the median of
 * per-round ratios, rounds in which the two together were busy under {@link DISTURBED_BELOW} left out.
 */
function costRatio(rounds: readonly SideBySideRun[]): { ratio: number; allDisturbed: boolean } {
  return pairedRatio(
    rounds.map(({ own, base }) => ({
      value: own.cpuMicrosPerRequest,
      base: base.cpuMicrosPerRequest,
      clean: own.busyShare + base.busyShare >= DISTURBED_BELOW,
    })),
  );
}

function costAgainstStatic(
  entries: readonly ServerRuns[] | undefined,
  spec: (typeof SERVERS)[keyof typeof SERVERS],
): number | undefined {
  const rounds = find(entries, spec)?.sideBySide;
  return rounds === undefined ? undefined : costRatio(rounds).ratio;
}

/** The figure of issue 30's performance goal, judged on the side-by-side rounds, with the control beside it. */
export function signInTargetRows(entries: readonly ServerRuns[] | undefined): TargetRow[] {
  const jwt = costAgainstStatic(entries, SERVERS.routerProductionSignIn);
  const control = costAgainstStatic(entries, SERVERS.routerProductionAgain);
  const fj = find(entries, SERVERS.routerProductionSignIn);
  const sequential = fj ? paired(fj, find(entries, SERVERS.routerProduction), perSecond) : Number.NaN;
  // Each against (f) at the same moments; their quotient is (fd) against the same configuration with a bearer token.
  const dpopToStatic = costAgainstStatic(entries, SERVERS.routerProductionDpop);
  const bearerToStatic = costAgainstStatic(entries, SERVERS.routerProductionVerify);
  const dpop = dpopToStatic === undefined || bearerToStatic === undefined ? undefined : dpopToStatic / bearerToStatic;
  const dpopRow: TargetRow = {
    figure:
      'production configuration, DPoP-bound token with a proof per request (fd): CPU per request against the same with a bearer token (fv)',
    target: `≤ ${MAX_DPOP_COST_RATIO.toFixed(2)}× (fv)`,
    measured:
      dpop === undefined
        ? ''
        : `${formatRatio(dpop)} (fv) ((fd) ${formatRatio(dpopToStatic!)} (f), (fv) ${formatRatio(bearerToStatic!)} (f))`,
    met: dpop === undefined ? undefined : dpop <= MAX_DPOP_COST_RATIO,
  };
  return [
    dpopRow,
    {
      figure:
        'production configuration, router-issued JWT (fj): CPU per request against the static token (f), same moments',
      target: `≤ ${MAX_COST_RATIO.toFixed(2)}× (f)`,
      measured:
        jwt === undefined
          ? ''
          : `${formatRatio(jwt)} (f) (control (f′): ${control === undefined ? '–' : formatRatio(control)}; sequential req/s ${formatRatio(sequential)} (f))`,
      met: jwt === undefined ? undefined : jwt <= MAX_COST_RATIO,
    },
  ];
}

/** Per server: its CPU per request beyond (f)'s and the spread of its per-round cost ratios. */
function costTable(entries: readonly ServerRuns[]): string {
  const rows = entries.slice(1).map((entry) => {
    const rounds = entry.sideBySide ?? [];
    const ratios = rounds.map((round) => round.own.cpuMicrosPerRequest / round.base.cpuMicrosPerRequest);
    const { ratio, allDisturbed } = costRatio(rounds);
    return [
      entry.spec.label,
      formatNumber(median(rounds.map((round) => round.own.cpuMicrosPerRequest - round.base.cpuMicrosPerRequest)), 1),
      `${formatRatio(ratio)}${allDisturbed ? ' †' : ''}`,
      ratios.length ? `${formatRatio(Math.min(...ratios))} … ${formatRatio(Math.max(...ratios))}` : '–',
    ];
  });
  return markdownTable(['server', 'CPU µs/req more than (f), same moments', 'CPU per request ×(f)', 'per round'], rows);
}

/** The section of scenario `sign-in`, empty when the run left it out. */
export function signInSections(entries: readonly ServerRuns[] | undefined): string[] {
  if (entries === undefined) return [];
  const base = find(entries, SERVERS.routerProduction);
  return [
    '',
    '## Sign-in: the production configuration with router-issued JWTs against a static token (issue 30)',
    '',
    "Scenario 1's `tools/call add` in one session, against (f) (`auth: { tokens }`), a second (f) process (f′) as the control, and (fj), " +
      "the same configuration with `auth: { server: { signIn } }`, whose client signed in once through the router's endpoints and sends that " +
      `one JWT on every request (the verified-token cache answers every request after the first); ${formatNumber(base?.runs.length ?? 0)} rounds. ` +
      "Every other server runs side by side with (f), as scenario 1 with (a); the target is judged on those rounds: CPU per request ÷ (f)'s at the same moments.",
    '',
    loadTable(entries, 'req', SERVERS.routerProduction),
    '',
    '### Sign-in side by side with (f): throughput per CPU-second',
    '',
    sideBySideTable(entries, SERVERS.routerProduction),
    '',
    '### Sign-in: cost per request',
    '',
    costTable(entries),
  ];
}
