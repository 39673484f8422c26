// The router's `store` option with an in-process McpStore: each part it supplies is used (an explicit part wins), a bad store fails at boot, an outage is a 503, and close() closes it.

import request from 'supertest';
import express from 'express';
import { MemoryStore as MemoryRateLimitStore } from 'express-rate-limit';
import {
  McpConfigError,
  MemoryEventStore,
  MemoryMessageBus,
  MemorySessionStore,
  MemoryTaskStore,
  mcpRouter,
} from '../../../lib';
import { MemoryServerEventBus } from '../../../lib/edge/store/server-events';
import { StoreUnavailableError, type McpStore } from '../../../lib/edge/store/shared-store';
import { MCP_ACCEPT } from '../../helpers/messages';
import { envelope, MODERN } from '../../helpers/modern';

/** A store made of the in-memory parts, recording which were asked for. */
function memoryStore(overrides: Partial<McpStore> = {}): McpStore & { made: string[]; closed: number } {
  const made: string[] = [];
  const store = {
    made,
    closed: 0,
    sessions: (settings: { idleTtlMs: number; max: number }) => (
      made.push('sessions'),
      new MemorySessionStore(settings)
    ),
    events: () => (made.push('events'), new MemoryEventStore()),
    bus: () => (made.push('bus'), new MemoryMessageBus()),
    serverEvents: (onError: (err: unknown) => void) => (made.push('serverEvents'), new MemoryServerEventBus(onError)),
    tasks: () => (made.push('tasks'), new MemoryTaskStore()),
    rateLimit: () => (made.push('rateLimit'), new MemoryRateLimitStore()),
    stateKey: async () => Buffer.alloc(32, 7).toString('base64url'),
    close: async () => {
      store.closed++;
    },
    ...overrides,
  };
  return store;
}

function discover(app: express.Express): request.Test {
  return request(app)
    .post('/mcp')
    .set({
      'Content-Type': 'application/json',
      Accept: MCP_ACCEPT,
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': 'server/discover',
    })
    .send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } });
}

it('takes every part from the store, and closes it with the router', async () => {
  const store = memoryStore();
  const mcp = mcpRouter({ name: 's', version: '1', store });
  expect([...store.made].sort()).toEqual(['bus', 'events', 'rateLimit', 'serverEvents', 'sessions', 'tasks']);
  await mcp.close();
  expect(store.closed).toBe(1);
});

it('makes no part the router does not use, and lets an explicit part win', () => {
  const store = memoryStore();
  mcpRouter({
    name: 's',
    version: '1',
    store,
    sessions: false,
    rateLimit: false,
    tasks: { store: new MemoryTaskStore() },
  });
  expect([...store.made].sort()).toEqual(['bus', 'serverEvents']);
});

it('refuses at boot a store that is not an McpStore, naming the option', () => {
  expect(() =>
    mcpRouter({ name: 's', version: '1', store: { sessions: () => undefined } as unknown as McpStore }),
  ).toThrow(McpConfigError);
  expect(() =>
    mcpRouter({ name: 's', version: '1', store: { sessions: () => undefined } as unknown as McpStore }),
  ).toThrow(/option 'store'/);
});

it('answers 503 with Retry-After and a JSON-RPC body while the store cannot give its key, then serves once it can', async () => {
  let down = true;
  const store = memoryStore({
    stateKey: async () => {
      if (down) throw new StoreUnavailableError('Redis GET did not answer within 10 ms', 3);
      return Buffer.alloc(32, 1).toString('base64url');
    },
  });
  const app = express();
  app.use('/mcp', mcpRouter({ name: 's', version: '1', store, logger: { error: jest.fn(), warn: jest.fn() } }));
  const refused = await discover(app);
  expect(refused.status).toBe(503);
  expect(refused.headers['retry-after']).toBe('3');
  expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  down = false;
  expect((await discover(app)).status).toBe(200);
});
