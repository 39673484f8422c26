// Server (p), the production anchor: (a)'s hand-written answers behind the protections of the router's production
// configuration, written by hand with the libraries the router uses: `cors()` with an origin allow-list, an Origin
// check (403), express-rate-limit (a limit no benchmark reaches) and a bearer token compared by SHA-256. What a user
// would write instead of the router's (f); issue 34 measured it at 0.73× (a). Like (a), it keeps no session.

import { createHash, timingSafeEqual } from 'node:crypto';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import { serveForBench } from './control';
import { addResult, PRODUCTION_ORIGIN, PRODUCTION_TOKEN, SERVER_INFO, shapedFor } from './common';

const ALLOWED_ORIGINS = [PRODUCTION_ORIGIN];
/** The token's digest: digests of equal length compared in constant time say nothing about the token. */
const TOKEN_DIGEST = createHash('sha256').update(PRODUCTION_TOKEN).digest();

function jsonRpcError(res: Response, status: number, id: unknown, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', id, error: { code, message } });
}

/** MCP transports: a server MUST refuse a browser Origin it does not expect (DNS rebinding). */
function checkOrigin(req: Request, res: Response, next: NextFunction): void {
  const { origin } = req.headers;
  if (origin !== undefined && !ALLOWED_ORIGINS.includes(origin))
    return jsonRpcError(res, 403, null, -32000, 'Forbidden origin');
  next();
}

/** RFC 6750: `Authorization: Bearer <token>`, else 401 with a challenge. */
function checkBearer(req: Request, res: Response, next: NextFunction): void {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined || !timingSafeEqual(createHash('sha256').update(token).digest(), TOKEN_DIGEST)) {
    res.set('WWW-Authenticate', 'Bearer');
    return jsonRpcError(res, 401, null, -32000, 'Unauthorized');
  }
  next();
}

/** `initialize` and `tools/call add`, as (a) answers them; a notification gets 202. */
function answer(req: Request, res: Response): void {
  const { id, method, params } = req.body as { id?: unknown; method?: string; params?: Record<string, any> };
  if (id === undefined) res.status(202).end();
  else if (method === 'initialize')
    res.json({
      jsonrpc: '2.0',
      id,
      result: { protocolVersion: params?.protocolVersion, capabilities: { tools: {} }, serverInfo: SERVER_INFO },
    });
  else if (method === 'tools/call')
    res.json({ jsonrpc: '2.0', id, result: shapedFor(params, addResult(params?.arguments?.a, params?.arguments?.b)) });
  else jsonRpcError(res, 400, id, -32601, 'Method not found');
}

/** The limit of the router's (f) (servers/router.ts): it counts every request and never refuses one. */
const limiter = rateLimit({ windowMs: 60_000, limit: 1_000_000_000, standardHeaders: 'draft-8', legacyHeaders: false });

const app = express();
// Before the route, so that preflights (OPTIONS) are answered too.
app.use(cors({ origin: ALLOWED_ORIGINS, exposedHeaders: ['Mcp-Session-Id', 'WWW-Authenticate'] }));
app.post('/mcp', checkOrigin, limiter, checkBearer, express.json(), answer);

serveForBench(app);
