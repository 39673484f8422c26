// Test helper: a tiny Express app around one login step: its start at /authorize, its finish at /oauth/callback.
// Usage:
//   const app = await startLoginStepApp(); // listening first: a provider needs app.callbackUrl registered
//   app.use(oidcUpstream({ issuer, clientId, clientSecret }));
//   const end = await followFlow(app.authorizeUrl('p1'), { onForm }); // end.json(): { pendingId, identity } or { error, … }

import express from 'express';
import type { Request, Response } from 'express';
import { LoginError } from '../../lib/features/sign-in/browser/login';
import type { LoginStep } from '../../lib/features/sign-in/browser/login';
import { MemorySignInStore } from '../../lib/edge/store/memory-sign-in-store';
import { listenLocally } from './ports';

export interface LoginStepApp {
  readonly origin: string;
  /** `<origin>/oauth/callback`: the redirect URI to register at the provider. */
  readonly callbackUrl: string;
  readonly store: MemorySignInStore;
  /** The authorization endpoint's URL for a pending request. */
  authorizeUrl(pendingId: string): string;
  /** Sets the login step the routes use. */
  use(step: LoginStep): void;
  close(): Promise<void>;
}

/** How the app answers a failure: a LoginError as JSON, anything else (a bug in the step) as a 500 the tests look for. */
function answerFailure(res: Response, err: unknown): void {
  if (err instanceof LoginError)
    res.status(400).json({ error: err.error, message: err.message, pendingId: err.pendingId });
  else res.status(500).json({ crash: String(err) });
}

/** Starts the app on a free port of 127.0.0.1. */
export async function startLoginStepApp(): Promise<LoginStepApp> {
  const app = express();
  const store = new MemorySignInStore();
  let step: LoginStep | undefined;
  let callbackUrl = '';
  let origin = '';
  app.get('/authorize', async (req: Request, res: Response) => {
    try {
      const pendingId = String(req.query.pending);
      const identity = await step?.start(req, res, {
        pendingId,
        returnTo: `${origin}/authorize?pending=${pendingId}`,
        callbackUrl,
        store,
      });
      if (identity !== undefined) res.json({ pendingId, identity });
    } catch (err) {
      answerFailure(res, err);
    }
  });
  app.get('/oauth/callback', async (req: Request, res: Response) => {
    try {
      if (step?.finish === undefined) throw new Error('no finish');
      res.json(await step.finish(req, { callbackUrl, store }));
    } catch (err) {
      answerFailure(res, err);
    }
  });
  const listening = await listenLocally(app);
  origin = `http://127.0.0.1:${listening.port}`;
  callbackUrl = `${origin}/oauth/callback`;
  return {
    origin,
    callbackUrl,
    store,
    authorizeUrl: (pendingId) => `${origin}/authorize?pending=${encodeURIComponent(pendingId)}`,
    use: (next) => {
      step = next;
    },
    close: () => listening.close(),
  };
}
