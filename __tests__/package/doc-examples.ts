// The runnable examples of README.md and docs/: finds them by their marker, runs a compiled server as a child process
// and connects the SDK client to it, or runs a compiled client against it.

import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { endGroup, spawnGroup } from '../helpers/child';
import { within } from '../helpers/events';
import { ROOT, userDocs, type MarkdownFile } from '../helpers/markdown';
import { freePort } from '../helpers/ports';
import { scaled } from '../helpers/time-scale';

/** The preload that prints LISTENING when the example's server listens. */
const REPORT_LISTENING = join(__dirname, 'report-listening.js');

/**
 * A complete file in README.md or a docs/ page, marked on the line before its fence, `name` being the file it is
 * written as, unique across the documents:
 * - `<!-- example: <name>.ts (runs as is) -->` and a ```ts fence: a server, compiled and run, which the SDK client
 *   of its check connects to;
 * - `<!-- example: <name>.mts (runs as is against <server>.ts) -->` and a ```ts fence: a client, compiled in the app
 *   that has the SDK and run with the URL of `<server>.ts`'s endpoint as its argument;
 * - `<!-- example: <name>.html (runs as is) -->` and an ```html fence: a page a server example reads, written in the
 *   app's folder (the servers' working directory).
 */
export interface DocExample {
  name: string;
  /** The document it came from, relative to the repository: `docs/security.md`. */
  file: string;
  code: string;
  /** For a client: the server example it runs against. */
  against?: string;
}

const MARKER = /^<!-- example: .* \(runs as is(?: against \S+)?\) -->$/gm;
const EXAMPLE = /^<!-- example: (\S+) \(runs as is(?: against (\S+))?\) -->\n```(ts|html)\n([\s\S]*?)^```$/gm;
/** What each kind of example is named, by its fence and whether it names a server. */
const NAMES = { server: /^[\w-]+\.ts$/, client: /^[\w-]+\.mts$/, html: /^[\w-]+\.html$/ };
/** Examples that ship as files too (docs/examples/<name>): each is the example of that name, verbatim. */
const EXAMPLE_FILES = join(ROOT, 'docs', 'examples');

/** What is wrong with one example's name, fence and server, if anything. */
function misnamed(example: DocExample, fence: string): string | undefined {
  const kind = fence === 'html' ? 'html' : example.against === undefined ? 'server' : 'client';
  if (NAMES[kind].test(example.name) && (kind !== 'client' || NAMES.server.test(example.against ?? '')))
    return undefined;
  return `example ${example.name} of ${example.file}: a server is <name>.ts, a client <name>.mts against <server>.ts, a page <name>.html in an html fence`;
}

/** Each file of docs/examples must be the example of its name, verbatim: the copy users take is the one that runs. */
function shippedCopies(examples: DocExample[], dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const example = examples.find((one) => one.name === name);
    if (example === undefined) return [`docs/examples/${name} is no example marked "(runs as is)" in the documents`];
    if (readFileSync(join(dir, name), 'utf8') !== example.code)
      return [`docs/examples/${name} differs from the example of ${example.file}: they must be the same text`];
    return [];
  });
}

/**
 * The runnable examples of README.md and docs/**\/*.md. Throws if a marker is not followed by a ```ts or ```html
 * fence (so none is skipped unseen), if two examples share a name (they are written side by side), if a client names
 * a server that is no example, or if a file of docs/examples is not the example of its name.
 *
 * @param docs - the documents (the user's, unless a test gives others)
 * @param shipped - the folder of examples shipped as files (docs/examples)
 */
export function docExamples(docs: MarkdownFile[] = userDocs(), shipped: string = EXAMPLE_FILES): DocExample[] {
  const examples: DocExample[] = [];
  const problems: string[] = [];
  for (const { path, text } of docs) {
    const found = [...text.matchAll(EXAMPLE)].map(([, name, against, fence, code]) => ({
      example: { name: name as string, file: path, code: code as string, ...(against ? { against } : {}) },
      fence: fence as string,
    }));
    const markers = text.match(MARKER) ?? [];
    if (markers.length !== found.length)
      problems.push(
        `${path} has ${markers.length} "(runs as is)" markers but ${found.length} of them open a \`\`\`ts or \`\`\`html fence on the next line`,
      );
    for (const { example, fence } of found) {
      const first = examples.find(({ name }) => name === example.name);
      if (first !== undefined) problems.push(`example ${example.name} is in both ${first.file} and ${path}`);
      const wrong = misnamed(example, fence);
      if (wrong !== undefined) problems.push(wrong);
      examples.push(example);
    }
  }
  for (const { name, against } of examples)
    if (against !== undefined && !examples.some((server) => server.name === against && server.against === undefined))
      problems.push(`client example ${name} runs against ${against}, which is no server example`);
  problems.push(...shippedCopies(examples, shipped));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return examples;
}

/** The examples compiled and run: servers and clients, not pages. */
export const isProgram = ({ name }: DocExample): boolean => !name.endsWith('.html');

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
  /** Starts the client example `name` (compiled in the same app) with `<origin>/mcp` as its argument; `stop()` ends it. */
  runClient(name: string): RunningClient;
  /** Closes the clients, ends the client examples, then ends the process. Safe to call twice. */
  stop(): Promise<void>;
}

/** A client example running as `node dist/<name>.mjs <endpoint>`, as a user runs it against the server example. */
export interface RunningClient {
  /** The first match of `pattern` in what it prints (stdout); rejects if it exits or 10 s pass first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
  /** How it ended (within 10 s): its exit code, and what it printed on stdout and stderr. */
  ended(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Runs a compiled client example in `app` with only PATH set and `endpoint` as its one argument. */
function startClient(app: string, name: string, endpoint: string): RunningClient & { stop(): Promise<void> } {
  const child = spawnGroup(process.execPath, [join('dist', name.replace(/\.mts$/, '.mjs')), endpoint], {
    cwd: app,
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Listened for from the start: a client may end before anyone asks how.
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let stdout = '';
  let stderr = '';
  const printing: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    printing.forEach((check) => check());
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = async () => ({ code: (await exited)[0], stdout, stderr });
  return {
    printed: (pattern) =>
      within(
        new Promise<RegExpExecArray>((resolve, reject) => {
          const check = (): void => {
            const match = pattern.exec(stdout);
            if (match !== null) resolve(match);
          };
          printing.push(check);
          check();
          void exited.then(() => reject(new Error(`${name} exited before printing ${pattern}: ${stdout}${stderr}`)));
        }),
        `${name} to print ${pattern}`,
        10_000,
      ),
    ended: () => within(ended(), `${name} to end`, 10_000),
    stop: () => endGroup(child),
  };
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
  const clientExamples: Array<{ stop(): Promise<void> }> = [];
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
    runClient(clientName) {
      const client = startClient(app, clientName, `${running.origin}/mcp`);
      clientExamples.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.splice(0).map((client) => client.close()));
      await Promise.all(clientExamples.splice(0).map((client) => client.stop()));
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
