// Where the stdio `add` server of scenario `stdio` is, for the processes that start it (router, supergateway, load child).

import path from 'node:path';

/** The compiled `stdio-add.ts`, beside this file in the bench build (`node_modules/.cache/…/bench/servers/`). */
export const STDIO_SERVER = path.join(__dirname, 'stdio-add.js');
