// x402 in the playground: spot a paid tool's payment-required result, show its price, and build a TEST payment
// (signature 'test') that only the demo's test facilitator accepts. No wallet, no real money.

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
 * A test x402 v2 `PaymentPayload` for `requirement`: the exact-EVM shape (an EIP-3009 authorization with a fresh
 * nonce) signed with the string 'test', which a real facilitator refuses and the demo's test facilitator accepts.
 */
export function testPayment(requirement) {
  const nonce = `0x${Array.from(crypto.getRandomValues(new Uint8Array(32)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: '0x000000000000000000000000000000000000test',
    to: requirement.payTo,
    value: requirement.amount,
    validAfter: String(now - 60),
    validBefore: String(now + (requirement.maxTimeoutSeconds ?? 60)),
    nonce,
  };
  return { x402Version: 2, accepted: requirement, payload: { signature: 'test', authorization } };
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
  pay.addEventListener('click', () => {
    pay.disabled = true;
    onPay({ [PAYMENT_KEY]: testPayment(first) });
  });
  box.append(
    pay,
    el(
      'p',
      { class: 'muted' },
      "A test payment is accepted only by the demo's test facilitator: no wallet, no real money.",
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
