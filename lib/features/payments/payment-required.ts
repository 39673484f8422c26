// What a paid tool asks for and refuses with: the `accepts` list checked, and the x402 payment-required result.

import { isPositiveInteger } from '../../options/config-error';
import { isObject } from '../../core/jsonrpc/types';
import { textContent } from '../../core/registry/content';
import type { ToolGuardCall } from '../../core/registry/guards';
import type { CallToolResult } from '../../core/registry/results';
import type { PaymentRequired, PaymentRequirements } from './x402-types';

/** What {@link checkAccepts} asks for, in the message of a list that is not one. */
export const ACCEPTS_EXPECTED =
  'a non-empty array of { scheme, network, amount (atomic units, digits), asset, payTo, maxTimeoutSeconds }';

/**
 * Checks a list of requirements: non-empty, each with the x402 v2 fields a client needs to pay.
 *
 * @param fail - the error of the list, or of its first bad item
 */
export function checkAccepts(
  accepts: unknown,
  fail: (value: unknown) => Error,
): asserts accepts is PaymentRequirements[] {
  if (!Array.isArray(accepts) || accepts.length === 0) throw fail(accepts);
  for (const item of accepts) {
    const ok =
      isObject(item) &&
      ['scheme', 'network', 'asset', 'payTo'].every((field) => typeof item[field] === 'string' && item[field] !== '') &&
      typeof item.amount === 'string' &&
      /^\d+$/.test(item.amount) &&
      isPositiveInteger(item.maxTimeoutSeconds) &&
      (item.extra === undefined || isObject(item.extra));
    if (!ok) throw fail(item);
  }
}

/**
 * The x402 payment-required result (specs/transports-v2/mcp.md): `isError`, the `PaymentRequired` as
 * `structuredContent` and as JSON in `content[0].text`. A tool with an `outputSchema` gets the text only: SDK clients
 * check `structuredContent` against that schema even on an error and would throw; x402 clients read the text then.
 */
export function paymentRequired(call: ToolGuardCall, accepts: PaymentRequirements[], error?: string): CallToolResult {
  const description = typeof call.descriptor.description === 'string' ? call.descriptor.description : undefined;
  const required: PaymentRequired = {
    x402Version: 2,
    ...(error === undefined ? {} : { error }),
    resource: {
      url: `mcp://tool/${call.name}`,
      ...(description === undefined ? {} : { description }),
      mimeType: 'application/json',
    },
    accepts,
  };
  const result: CallToolResult = { content: [textContent(JSON.stringify(required))], isError: true };
  if (call.descriptor.outputSchema === undefined)
    result.structuredContent = required as unknown as Record<string, unknown>;
  return result;
}

/** A client-safe reason: the facilitator's own words are short codes (`insufficient_funds`); anything else is cut. */
export function reasonOf(reason: unknown, fallback: string): string {
  return typeof reason === 'string' && reason !== '' ? reason.slice(0, 200) : fallback;
}

/** The first text of a failed result, cut short: why the tool failed, told to the client that was not charged. */
export function firstText(result: CallToolResult): string {
  const block = result.content.find((item) => item.type === 'text');
  return block !== undefined && 'text' in block && typeof block.text === 'string'
    ? block.text.slice(0, 500)
    : 'the tool returned an error';
}
