// Server (u1) of scenario `stdio` (issue 31): this router fronting the stdio `add` server with mcp.upstream({ command }).

import express from 'express';
import { mcpRouter } from '../../lib';
import { serveForBench } from './control';
import { SERVER_INFO } from './common';
import { STDIO_SERVER } from './stdio-server-path';

// (e)'s configuration (sessions on, `responseMode: 'auto'`, rate limit off): the gateway under test is the router's
// default one, and supergateway (u2) keeps a session too (`--stateful`).
const mcp = mcpRouter({ ...SERVER_INFO, rateLimit: false });
const upstream = mcp.upstream({ prefix: 'up', command: process.execPath, args: [STDIO_SERVER] });
const app = express();
app.use('/mcp', mcp);
// Ready once the upstream's tools are mounted (the harness's first call names one), which a loaded machine may delay.
// The upstream is a process of its own: its CPU time counts with the router's, as supergateway's child counts with it.
void upstream.refresh().then(() => serveForBench(app, { countDescendants: true }));
