// Test fixture: an in-process x402 facilitator (an Express app on port 0) with deterministic rules and no chain.

import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import express from 'express';
import { Signal } from '../../helpers/events';

/**
 * How the fake answers: normally, never (hang), with HTTP 500, a body that is not a verify/settle answer, 200 kB,
 * after 150 ms, (hold) a /verify only once the test calls `release()`, or (settle-hang) /verify as usual and /settle
 * never (a transaction that went out and whose answer was lost: not settled yet, so a /verify still accepts it).
 */
export type FacilitatorMode = 'ok' | 'hang' | '500' | 'garbage' | 'huge' | 'slow' | 'hold' | 'settle-hang';

export interface FakeFacilitator {
  readonly url: string;
  mode: FacilitatorMode;
  /** Bodies received, by path; `abandoned`: held or hung calls whose caller hung up before the answer. */
  readonly calls: { verify: unknown[]; settle: unknown[]; supported: number; abandoned: number };
  /** Told at each change of `calls`: a test waits on it for a call to arrive or be abandoned. */
  readonly called: Signal;
  /** Answers every /verify held in `hold` mode (as `ok` would) and sets the mode back to `ok`. */
  release(): void;
  close(): Promise<void>;
}

/** A secret the fake puts in its error bodies: a test checks it never reaches an MCP client. */
export const FACILITATOR_SECRET = 'internal-facilitator-detail-42';

/**
 * Rules: `payload.signature` 'ok' verifies, 'settle-fails' verifies but its settlement fails (insufficient_funds),
 * anything else is invalid. As a chain does, an authorization's (from, nonce) settles once: a second settle is
 * refused (nonce_already_used), and so is a verify of a settled one; hex is read without case, and nothing else of
 * the payment (`accepted.extra`, key order, other fields) makes it another authorization.
 */
export async function startFacilitator(): Promise<FakeFacilitator> {
  const app = express();
  app.use(express.json());
  const hanging = new Set<ServerResponse>();
  const held: Array<() => void> = [];
  const settledNonces = new Set<string>();
  const state = { mode: 'ok' as FacilitatorMode };
  const calls = { verify: [] as unknown[], settle: [] as unknown[], supported: 0, abandoned: 0 };
  const called = new Signal();
  /** Counts a caller that hangs up on a held or hung call (a cancelled or timed-out guard aborts its fetch). */
  const park = (res: ServerResponse): void => {
    hanging.add(res);
    res.once('close', () => {
      if (!res.writableEnded) calls.abandoned += 1;
      hanging.delete(res);
      called.notify();
    });
  };

  const unusual = (res: express.Response): boolean => {
    if (state.mode === 'hang') {
      park(res);
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
  const signatureOf = (body: { paymentPayload?: { payload?: { signature?: string } } }): string | undefined =>
    body.paymentPayload?.payload?.signature;
  type Body = { paymentPayload?: { payload?: { authorization?: { from?: string; nonce?: string } } } };
  const nonceOf = (body: Body): string => String(body.paymentPayload?.payload?.authorization?.nonce);
  /** What a chain settles once: the authorizer's nonce (hex without case). */
  const authorizationOf = (body: Body): string =>
    `${String(body.paymentPayload?.payload?.authorization?.from).toLowerCase()}/${nonceOf(body).toLowerCase()}`;

  app.post('/verify', (req, res) => {
    calls.verify.push(req.body);
    called.notify();
    if (unusual(res)) return;
    const signature = signatureOf(req.body);
    const answer = (): void => {
      if (res.writableEnded || res.destroyed) return;
      if (signature !== 'ok' && signature !== 'settle-fails')
        res.json({ isValid: false, invalidReason: 'invalid_exact_evm_payload_signature', payer: '0xPayer' });
      else if (settledNonces.has(authorizationOf(req.body)))
        res.json({ isValid: false, invalidReason: 'nonce_already_used', payer: '0xPayer' });
      else res.json({ isValid: true, payer: '0xPayer' });
    };
    if (state.mode === 'hold') {
      park(res);
      held.push(answer);
    } else later(answer);
  });
  app.post('/settle', (req, res) => {
    calls.settle.push(req.body);
    called.notify();
    if (unusual(res)) return;
    if (state.mode === 'settle-hang') {
      park(res);
      return;
    }
    const nonce = nonceOf(req.body);
    if (signatureOf(req.body) === 'settle-fails') {
      res
        .status(400)
        .json({ success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:84532' });
    } else if (settledNonces.has(authorizationOf(req.body))) {
      res
        .status(400)
        .json({ success: false, errorReason: 'nonce_already_used', transaction: '', network: 'eip155:84532' });
    } else {
      settledNonces.add(authorizationOf(req.body));
      res.json({ success: true, payer: '0xPayer', transaction: `0xtx-${nonce}`, network: 'eip155:84532' });
    }
  });
  app.get('/supported', (_req, res) => {
    calls.supported += 1;
    called.notify();
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
    called,
    release() {
      state.mode = 'ok';
      for (const answer of held.splice(0)) answer();
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One fake facilitator for a test file: started before its tests, reset to `ok` with no calls recorded before each,
 * closed after them. Read it through the returned function (it exists once `beforeAll` ran).
 */
export function useFacilitator(): () => FakeFacilitator {
  let facilitator: FakeFacilitator | undefined;
  beforeAll(async () => {
    facilitator = await startFacilitator();
  });
  afterAll(() => facilitator?.close());
  beforeEach(() => {
    if (facilitator === undefined) return;
    facilitator.mode = 'ok';
    facilitator.calls.verify.length = 0;
    facilitator.calls.settle.length = 0;
    facilitator.calls.abandoned = 0;
  });
  return () => {
    if (facilitator === undefined)
      throw new Error('useFacilitator: the facilitator starts in beforeAll; use it inside a test');
    return facilitator;
  };
}
