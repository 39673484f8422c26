// Test fixture: an in-process x402 facilitator (an Express app on port 0) with deterministic rules and no chain.

import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import express from 'express';

/** How the fake answers: normally, never (hang), with HTTP 500, a body that is not a verify/settle answer, 200 kB, or after 150 ms. */
export type FacilitatorMode = 'ok' | 'hang' | '500' | 'garbage' | 'huge' | 'slow';

export interface FakeFacilitator {
  readonly url: string;
  mode: FacilitatorMode;
  /** Bodies received, by path. */
  readonly calls: { verify: unknown[]; settle: unknown[]; supported: number };
  close(): Promise<void>;
}

/** A secret the fake puts in its error bodies: a test checks it never reaches an MCP client. */
export const FACILITATOR_SECRET = 'internal-facilitator-detail-42';

/**
 * Rules: `payload.signature` 'ok' verifies, 'settle-fails' verifies but its settlement fails (insufficient_funds),
 * anything else is invalid; a nonce settles once (nonce_already_used after), as an EIP-3009 authorization does.
 */
export async function startFacilitator(): Promise<FakeFacilitator> {
  const app = express();
  app.use(express.json());
  const hanging = new Set<ServerResponse>();
  const settledNonces = new Set<string>();
  const state = { mode: 'ok' as FacilitatorMode };
  const calls = { verify: [] as unknown[], settle: [] as unknown[], supported: 0 };

  const unusual = (res: express.Response): boolean => {
    if (state.mode === 'hang') {
      hanging.add(res);
      return true;
    }
    if (state.mode === '500') {
      res.status(500).json({ error: FACILITATOR_SECRET });
      return true;
    }
    if (state.mode === 'huge') {
      res.json({ isValid: true, padding: 'x'.repeat(200_000) });
      return true;
    }
    if (state.mode === 'garbage') {
      res.json({ hello: FACILITATOR_SECRET });
      return true;
    }
    return false;
  };
  const later = (fn: () => void): void => {
    if (state.mode === 'slow') setTimeout(fn, 150);
    else fn();
  };
  const signatureOf = (body: { paymentPayload?: { payload?: { signature?: string } } }): string | undefined => body.paymentPayload?.payload?.signature;
  const nonceOf = (body: { paymentPayload?: { payload?: { authorization?: { nonce?: string } } } }): string => String(body.paymentPayload?.payload?.authorization?.nonce);

  app.post('/verify', (req, res) => {
    calls.verify.push(req.body);
    if (unusual(res)) return;
    const signature = signatureOf(req.body);
    later(() => {
      if (signature === 'ok' || signature === 'settle-fails') res.json({ isValid: true, payer: '0xPayer' });
      else res.json({ isValid: false, invalidReason: 'invalid_exact_evm_payload_signature', payer: '0xPayer' });
    });
  });
  app.post('/settle', (req, res) => {
    calls.settle.push(req.body);
    if (unusual(res)) return;
    const nonce = nonceOf(req.body);
    if (signatureOf(req.body) === 'settle-fails') {
      res.status(400).json({ success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:84532' });
    } else if (settledNonces.has(nonce)) {
      res.status(400).json({ success: false, errorReason: 'nonce_already_used', transaction: '', network: 'eip155:84532' });
    } else {
      settledNonces.add(nonce);
      res.json({ success: true, payer: '0xPayer', transaction: `0xtx-${nonce}`, network: 'eip155:84532' });
    }
  });
  app.get('/supported', (_req, res) => {
    calls.supported += 1;
    if (unusual(res)) return;
    res.json({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }] });
  });

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    set mode(mode: FacilitatorMode) {
      state.mode = mode;
    },
    calls,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
