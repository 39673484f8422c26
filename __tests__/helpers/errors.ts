// Test helpers that capture what a call throws or a promise rejects with, failing when nothing is thrown.

import { McpConfigError } from '../../lib/options/config-error';

/** The McpConfigError `fn` throws; fails the test if it throws nothing or something else. */
export function configError(fn: () => unknown): McpConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(McpConfigError);
    return err as McpConfigError;
  }
  throw new Error('expected a McpConfigError');
}

/** What `promise` rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
