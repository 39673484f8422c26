// One x402 price for the payment tests: 0.01 USDC (6 decimals) on Base Sepolia, paid to a made-up address.

import type { PaymentRequirements } from '../../../lib/x402';

export const PRICE: PaymentRequirements = Object.freeze({
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 60,
});
