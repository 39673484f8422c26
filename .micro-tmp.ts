// In-process: µs per whole session (initialize, initialized, tools/call, DELETE) and per stateless call, light-my-request.
import express from 'express';
import inject from 'light-my-request';
const lib = require(process.argv[2] ?? '/work/wt/session/lib') as typeof import('/work/wt/session/lib');
const N = Number(process.argv[3] ?? 4000);
const mk = (opts: object) => {
  const mcp = lib.mcpRouter({ name: 'bench', version: '1.0.0', rateLimit: false, ...opts } as never);
  mcp.tool({ name: 'lookup', description: 'd', inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] }, handler: async ({ key }: { key: string }) => ({ content: [{ type: 'text', text: key }] }) } as never);
  const app = express(); app.use('/mcp', mcp); return app;
};
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1' };
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
const INITD = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lookup', arguments: { key: 'k1' } } });
async function session(app: express.Express) {
  const r = await inject(app, { method: 'POST', url: '/mcp', headers: H, payload: INIT, remoteAddress: '127.0.0.1' } as never);
  const sid = r.headers['mcp-session-id'] as string;
  const h = { ...H, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const a = await inject(app, { method: 'POST', url: '/mcp', headers: h, payload: INITD } as never);
  const c = await inject(app, { method: 'POST', url: '/mcp', headers: h, payload: CALL } as never);
  const d = await inject(app, { method: 'DELETE', url: '/mcp', headers: h } as never);
  if (a.statusCode !== 202 || c.statusCode !== 200 || d.statusCode !== 200) throw new Error(`${r.statusCode} ${a.statusCode} ${c.statusCode} ${d.statusCode} ${c.body}`);
}
async function call(app: express.Express) {
  const c = await inject(app, { method: 'POST', url: '/mcp', headers: { ...H, 'mcp-protocol-version': '2025-11-25' }, payload: CALL } as never);
  if (c.statusCode !== 200) throw new Error(c.body);
}
async function time(f: () => Promise<void>, n: number) {
  for (let i = 0; i < n / 2; i++) await f();
  const t = process.cpuUsage(); for (let i = 0; i < n; i++) await f(); const u = process.cpuUsage(t);
  return (u.user + u.system) / n;
}
(async () => {
  const s = mk({}); const d = mk({ sessions: false, responseMode: 'json' });
  const rs: number[] = [], rc: number[] = [];
  for (let k = 0; k < 5; k++) { rs.push(await time(() => session(s), N)); rc.push(await time(() => call(d), N)); }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[2]!;
  console.log(`session ${med(rs).toFixed(1)} µs, call ${med(rc).toFixed(1)} µs, ratio ${(med(rs) / med(rc)).toFixed(2)}  [${rs.map((x) => x.toFixed(0))}] [${rc.map((x) => x.toFixed(0))}]`);
})();
