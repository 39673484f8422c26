// The part of scenario `exchange` in RESULTS.md: the cost of a cached exchanged token against its target.

import { formatNumber } from '../format';
import { EXCHANGE_HIT_TARGET_MICROS, exchangeHitMicros, type ExchangeResults } from '../scenarios/exchange';
import type { TargetRow } from './report-figures';
import { median } from '../stats';

export function exchangeTargetRows(results: ExchangeResults | undefined): TargetRow[] {
  const micros = results && exchangeHitMicros(results);
  return [
    {
      figure: 'tokenExchange cache hit (tokenFor, in process)',
      target: `≤ ${EXCHANGE_HIT_TARGET_MICROS} µs`,
      measured: micros === undefined ? 'not run' : `${formatNumber(micros, 2)} µs`,
      met: micros === undefined ? undefined : micros <= EXCHANGE_HIT_TARGET_MICROS,
    },
  ];
}

const rounds = (micros: readonly number[]): string => micros.map((value) => formatNumber(value, 2)).join(', ');

export function exchangeSections(results: ExchangeResults | undefined): string[] {
  if (results === undefined) return [];
  return [
    '',
    '## Token exchange: cache hit',
    '',
    `\`tokenFor(ctx)\` of one caller whose exchanged token is cached, an 800-byte subject token, ${formatNumber(results.hits)} calls per round, µs per call by round:`,
    '',
    `- the caller's \`AuthInfo\` seen before (what a verifier's token cache gives): ${rounds(results.microsPerHit)} (median ${formatNumber(exchangeHitMicros(results), 2)} µs);`,
    `- a new \`AuthInfo\` per call (a verifier without a cache): ${rounds(results.microsPerHitDigested)} (median ${formatNumber(median([...results.microsPerHitDigested]), 2)} µs).`,
  ];
}
