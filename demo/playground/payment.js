// x402 in the playground: spot a paid tool's payment-required result, show its price, and pay with a TEST payment
// (the package's testPayment(), fetched from the demo server) that only its test facilitator accepts. No real money.

import { el, jsonBlock } from './dom.js';

/** The key a payment travels under in a call's `_meta`, and the one its settlement comes back under (x402 MCP transport). */
export const PAYMENT_KEY = 'x402/payment';
export const PAYMENT_RESPONSE_KEY = 'x402/payment-response';

/**
 * The x402 `PaymentRequired` a tool result carries, or undefined: an isError result whose structuredContent (or,
 * when a tool has an outputSchema, its JSON text) holds `x402Version` and a non-empty `accepts`.
 */
export function paymentRequired(result) {
  if (result?.isError !== true) return undefined;
  let candidate = result.structuredContent;
  if (candidate === undefined) {
    const text = Array.isArray(result.content)
      ? result.content.find((block) => block?.type === 'text')?.text
      : undefined;
    try {
      candidate = typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }
  const isEnvelope =
    candidate &&
    typeof candidate === 'object' &&
    candidate.x402Version !== undefined &&
    Array.isArray(candidate.accepts) &&
    candidate.accepts.length > 0;
  return isEnvelope ? candidate : undefined;
}

/** "0.01 USDC on eip155:84532": the amount in whole units when the requirement says its decimals, else atomic units. */
export function formatPrice(requirement) {
  const decimals = requirement?.extra?.decimals;
  const asset = typeof requirement?.extra?.name === 'string' ? requirement.extra.name : requirement?.asset;
  const amount =
    Number.isInteger(decimals) && /^\d+$/.test(String(requirement?.amount))
      ? Number(requirement.amount) / 10 ** decimals
      : `${requirement?.amount} atomic units of`;
  return `${amount} ${asset} on ${requirement?.network}`;
}

/**
 * A test x402 v2 `PaymentPayload` for `requirement`: the demo server answers it with express-mcp-router/x402/testing's
 * testPayment(requirement), which a real facilitator refuses and the paid tool's testFacilitator() accepts.
 */
export async function fetchTestPayment(requirement) {
  const response = await fetch(new URL('test-payment', import.meta.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(requirement),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new Error(body.error ?? `The demo server answered HTTP ${response.status} for a test payment`);
  return body;
}

/** The price box under a payment-required result, with the button that retries the call with a test payment. */
export function renderPaymentRequired(required, onPay) {
  const [first] = required.accepts;
  const box = el(
    'div',
    { class: 'payment', 'data-testid': 'payment-required' },
    el('h4', {}, 'Payment required (x402)'),
  );
  if (required.error) box.append(el('p', { class: 'error-text', 'data-testid': 'payment-error' }, required.error));
  box.append(
    el('p', {}, 'Price: ', el('strong', { 'data-testid': 'payment-price' }, formatPrice(first)), ` to ${first.payTo}`),
  );
  if (required.accepts.length > 1)
    box.append(
      el(
        'p',
        { class: 'muted' },
        `${required.accepts.length - 1} other way(s) to pay; the test payment uses the first.`,
      ),
    );
  const pay = el(
    'button',
    { type: 'button', class: 'primary', 'data-testid': 'pay-and-retry' },
    'Pay with a test payment and retry',
  );
  pay.addEventListener('click', async () => {
    pay.disabled = true;
    try {
      onPay({ [PAYMENT_KEY]: await fetchTestPayment(first) });
    } catch (err) {
      pay.disabled = false;
      box.append(el('p', { class: 'error-text', 'data-testid': 'payment-error' }, err.message));
    }
  });
  box.append(
    pay,
    el(
      'p',
      { class: 'muted' },
      "A test payment is accepted only by the package's test facilitator: no wallet, no real money.",
    ),
  );
  return box;
}

/** The settlement a paid result carries in `_meta["x402/payment-response"]`, or nothing. */
export function renderSettlement(result) {
  const settlement = result?._meta?.[PAYMENT_RESPONSE_KEY];
  if (!settlement || typeof settlement !== 'object') return undefined;
  const summary = settlement.success
    ? `Paid: transaction ${settlement.transaction} on ${settlement.network}`
    : `Settlement failed: ${settlement.errorReason}`;
  return el(
    'div',
    { class: 'payment settlement', 'data-testid': 'settlement', 'data-success': String(settlement.success === true) },
    el('h4', {}, summary),
    jsonBlock(settlement),
  );
}
