// The processes of the Inspector's browser test: the pinned Inspector and Node 22 (setup.sh), the demo in AUTH=oauth
// mode, and the Inspector's web UI (its proxy and its page server), each started on free ports and stopped in afterAll.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/ports';

const ROOT = path.join(__dirname, '..', '..');

/** A process started by {@link startProcess}: what matched its ready pattern, its output so far, and how to stop it. */
export interface Started {
  readonly ready: RegExpExecArray;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `command` in its own process group and resolves once its output (stdout and stderr) matches `ready`;
 * rejects with that output when it exits first. `stop` ends the whole group (the Inspector starts two more Nodes).
 */
export async function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<Started> {
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = once(child, 'exit');
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const read = (chunk: string): void => {
      output += chunk;
      const found = ready.exec(output);
      if (found !== null) resolve(found);
    };
    child.stdout?.setEncoding('utf8').on('data', read);
    child.stderr?.setEncoding('utf8').on('data', read);
    child.once('exit', (code, signal) =>
      reject(
        new Error(`${path.basename(args[0] ?? command)} exited (${code ?? signal}) before it was ready:\n${output}`),
      ),
    );
  });
  return {
    ready: match,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/** Node >= 22 and the pinned Inspector's package directory, installed on first use by setup.sh. */
export async function inspectorInstall(): Promise<{ node22: string; inspectorDir: string }> {
  const { stdout } = await promisify(execFile)('bash', [path.join(__dirname, 'setup.sh')], { timeout: 600_000 });
  const value = (name: string): string => {
    const found = new RegExp(`^${name}=(.+)$`, 'm').exec(stdout)?.[1];
    if (found === undefined) throw new Error(`setup.sh printed no ${name}: ${stdout}`);
    return found;
  };
  return { node22: value('NODE22'), inspectorDir: value('INSPECTOR_DIR') };
}

/** `AUTH=oauth npm run demo` on a port the system picks: its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
export async function startOAuthDemo(): Promise<Started & { endpoint: string }> {
  const demo = await startProcess(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'demo', 'server.ts')],
    { PORT: '0', HOST: '127.0.0.1', AUTH: 'oauth' },
    /MCP endpoint +(\S+)[\s\S]*VS Code/,
  );
  return { ...demo, endpoint: demo.ready[1] as string };
}

/** The Inspector's web UI, as `npx @modelcontextprotocol/inspector` starts it: the page's URL (with the proxy's session token) and the proxy's address. */
export interface InspectorUi extends Started {
  /** `http://localhost:<client port>/?MCP_PROXY_PORT=…&MCP_PROXY_AUTH_TOKEN=…`, the URL it prints. */
  readonly url: URL;
  /** `http://localhost:<proxy port>`. */
  readonly proxyAddress: string;
}

/**
 * Starts the Inspector's web UI through its bin (cli.js → client/bin/start.js, which starts the proxy, server/build,
 * and the page server, client/bin/client.js, each with the `node` of PATH: Node 22 here) on two free ports, without
 * opening a browser.
 */
export async function startInspectorUi({
  node22,
  inspectorDir,
}: {
  node22: string;
  inspectorDir: string;
}): Promise<InspectorUi> {
  const [clientPort, proxyPort] = [await freePort(), await freePort()];
  const env = {
    PATH: `${path.dirname(node22)}${path.delimiter}${process.env.PATH ?? ''}`,
    CLIENT_PORT: String(clientPort),
    SERVER_PORT: String(proxyPort),
    MCP_AUTO_OPEN_ENABLED: 'false',
  };
  const ui = await startProcess(
    node22,
    [path.join(inspectorDir, 'cli', 'build', 'cli.js')],
    env,
    /MCP Inspector is up and running at:\s+(http:\/\/\S+)/,
  );
  return { ...ui, url: new URL(ui.ready[1] as string), proxyAddress: `http://localhost:${proxyPort}` };
}
