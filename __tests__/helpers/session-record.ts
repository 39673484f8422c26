// Test helper: a session record as initialize stores it, for the session stores' tests (in memory and in Redis).

import type { SessionRecord } from '../../lib/edge/store/session-stores';

/** A 2025-11-25 session record with this id, created now, with no principal. */
export function sessionRecord(id: string): SessionRecord {
  return {
    id,
    protocolVersion: '2025-11-25',
    clientCapabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'client', version: '1.0.0' },
    logLevel: undefined,
    subscriptions: [],
    createdAt: Date.now(),
  };
}
