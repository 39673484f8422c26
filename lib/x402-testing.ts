// express-mcp-router/x402/testing: a local facilitator and payments it accepts, to try paid tools without a chain (tests and demos only).

export { testFacilitator } from './features/payments/test-facilitator';
export { testPayment, type TestPaymentOptions } from './features/payments/test-payment';
