// Hostile requests: the rate limit — its own router, limit 3 per second, on a fake clock.

import { Host, rpc } from './host';
import { errorOf, overTheLimit, useFakeClock } from './requests';
import { hostileTable, type Row } from './table';

const ROWS: Array<[string, Row]> = [
  // ---- 5. the rate limit (its own router, limit 3 per second, on a fake clock) ----
  [
    'over the rate limit: 429, -32000 with the request id, Retry-After; other principals keep their own budget; served again after the window',
    {
      run: async () => {
        useFakeClock();
        const host = await Host.start({ sessions: false, rateLimit: { limit: 3, windowMs: 1_000 } });
        try {
          for (let i = 1; i <= 3; i++)
            expect((await host.post('alice', rpc('ping', undefined, `ok-${i}`))).status).toBe(200);
          const refused = await host.post('alice', rpc('ping', undefined, 'burst-4'));
          expect((await host.post('bob', rpc('ping', undefined, 'bob-1'))).status).toBe(200);
          jest.advanceTimersByTime(1_000);
          expect((await host.post('alice', rpc('ping', undefined, 'after'))).json).toEqual({
            jsonrpc: '2.0',
            id: 'after',
            result: {},
          });
          return refused;
        } finally {
          await host.close();
          jest.useRealTimers();
        }
      },
      status: 429,
      type: 'json',
      error: { code: -32000, id: 'burst-4' },
      also: (res) => {
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(1);
      },
    },
  ],
  [
    'a 2 MB body over the rate limit: 429 too, with its id',
    {
      run: () => overTheLimit(rpc('tools/list', { pad: 'p'.repeat(2 * 1024 * 1024) }, 'big')),
      status: 429,
      type: 'json',
      error: { code: -32000, id: ['big', null] },
      also: (res) => expect(res.headers['retry-after']).toMatch(/^\d+$/),
    },
  ],
  [
    'a 3 MB body over the rate limit with its id after the padding: 429, with its id or null',
    {
      run: () =>
        overTheLimit(
          `{"jsonrpc":"2.0","method":"tools/list","params":{"pad":"${'p'.repeat(3 * 1024 * 1024)}"},"id":"late"}`,
        ),
      status: 429,
      type: 'json',
      error: { code: -32000, id: ['late', null] },
      also: (res) => expect(res.headers['retry-after']).toMatch(/^\d+$/),
    },
  ],
  [
    'a burst of 10 at once over a limit of 3: 3 served, 7 refused with 429, then served again after the window',
    {
      run: async () => {
        useFakeClock();
        const host = await Host.start({ sessions: false, rateLimit: { limit: 3, windowMs: 1_000 } });
        try {
          const burst = await Promise.all(
            Array.from({ length: 10 }, (_, i) => host.post('alice', rpc('ping', undefined, i))),
          );
          expect(burst.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
          for (const res of burst.filter((r) => r.status === 429)) expect(errorOf(res).code).toBe(-32000);
          jest.advanceTimersByTime(1_000);
          return await host.post('alice', rpc('ping', undefined, 'recovered'));
        } finally {
          await host.close();
          jest.useRealTimers();
        }
      },
      status: 200,
      type: 'json',
      result: { id: 'recovered' },
    },
  ],
];

hostileTable('hostile requests: the rate limit (issue 13)', ROWS, 4);
