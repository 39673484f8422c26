// The runnable examples of README.md and docs/: finds them by their marker, runs a compiled one as a child process, and connects the SDK client to it.

import { once } from 'node:events';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { endGroup, spawnGroup } from '../helpers/child';
import { userDocs } from '../helpers/markdown';
import { freePort } from '../helpers/ports';
import { scaled } from '../helpers/time-scale';

/** The preload that prints LISTENING when the example's server listens. */
const REPORT_LISTENING = join(__dirname, 'report-listening.js');

/**
 * A complete program in README.md or a docs/ page, marked `<!-- example: <name> (runs as is) -->` on the line
 * before its ```ts fence; `name` is the file it is compiled as, unique across the documents.
 */
export interface DocExample {
  name: string;
  /** The document it came from, relative to the repository: `docs/security.md`. */
  file: string;
  code: string;
}

const MARKER = /^<!-- example: .* \(runs as is\) -->$/gm;
const EXAMPLE = /^<!-- example: (\S+) \(runs as is\) -->\n```ts\n([\s\S]*?)^```$/gm;

/**
 * The runnable examples of README.md and docs/**\/*.md. Throws if a marker is not followed by a ```ts fence (so
 * none is skipped unseen) or if two examples share a name (they are compiled side by side as src/<name>).
 */
export function docExamples(): DocExample[] {
  const examples: DocExample[] = [];
  const problems: string[] = [];
  for (const { path, text } of userDocs()) {
    const found = [...text.matchAll(EXAMPLE)].map(([, name, code]) => ({
      name: name as string,
      file: path,
      code: code as string,
    }));
    const markers = text.match(MARKER) ?? [];
    if (markers.length !== found.length)
      problems.push(
        `${path} has ${markers.length} "(runs as is)" markers but ${found.length} of them open a \`\`\`ts fence on the next line`,
      );
    for (const example of found) {
      const first = examples.find(({ name }) => name === example.name);
      if (first !== undefined) problems.push(`example ${example.name} is in both ${first.file} and ${path}`);
      examples.push(example);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return examples;
}

async function answers(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/** A compiled example running as `node dist/<name>.js`, what the SDK client sees of it, and how to stop it. */
export interface RunningExample {
  /** `http://127.0.0.1:<PORT>` */
  origin: string;
  /** The `MCP_TOKEN` it was started with. */
  token: string;
  /** Loads a module as the example's app would (`express-mcp-router/x402/testing` is the installed tarball's). */
  load(specifier: string): unknown;
  /** An SDK client connected to `<origin>/mcp` with `headers`, closed by `stop()`; rejects as `client.connect` does. */
  connect(headers?: Record<string, string>, fetch?: FetchLike): Promise<Client>;
  /** Closes the clients, then ends the process. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts `dist/<name>.js` in `app` with only PATH, PORT and MCP_TOKEN set, and resolves once its port answers. The
 * port is free when chosen, but another test's server may take it before the example listens: then it tries another.
 */
export async function startExample(app: string, name: string, token: string): Promise<RunningExample> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startExampleOn(await freePort(), app, name, token);
    } catch (err) {
      if (attempt === 3 || !(err instanceof Error) || !err.message.includes('EADDRINUSE')) throw err;
    }
  }
}

async function startExampleOn(port: number, app: string, name: string, token: string): Promise<RunningExample> {
  const env = { PATH: process.env.PATH, PORT: String(port), MCP_TOKEN: token };
  const child = spawnGroup(process.execPath, ['-r', REPORT_LISTENING, join('dist', name.replace(/\.ts$/, '.js'))], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening: () => void = () => undefined;
  const listened = new Promise<void>((resolve) => (listening = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (output.includes('LISTENING\n')) listening();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const clients: Client[] = [];
  const running: RunningExample = {
    origin: `http://127.0.0.1:${port}`,
    token,
    load: (specifier) => createRequire(join(app, 'package.json'))(specifier),
    async connect(headers = {}, fetch) {
      const client = new Client({ name: 'doc-example-test', version: '1.0.0' });
      clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', running.origin), { requestInit: { headers }, fetch }),
      );
      return client;
    },
    async stop() {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await endGroup(child);
    },
  };
  // The preload reports the listening server; an example that exits (or never listens) fails here.
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), scaled(10_000)).unref());
  const outcome = await Promise.race([listened, once(child, 'exit'), timeout]);
  if (outcome !== undefined || !(await answers(port))) {
    await running.stop();
    throw new Error(`${name} did not listen on PORT=${port}: ${output}`);
  }
  return running;
}
