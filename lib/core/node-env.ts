// Whether the app runs in production (NODE_ENV), read the same way wherever the router behaves differently there.

/**
 * True when `NODE_ENV` says production, in any case or spacing (` Production`, `PRODUCTION\n`): what is refused or
 * skipped there must not hinge on a typo. Read at each call, as the option it guards is.
 */
export function inProduction(): boolean {
  return process.env.NODE_ENV?.trim().toLowerCase() === 'production';
}
