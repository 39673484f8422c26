// docs/examples/oauth-client.mts as a person runs it against the demo: it prints a sign-in URL and waits for a browser
// to come back to its loopback redirect URI. The tests play the browser and then read how the script ended.

import { once } from 'node:events';
import path from 'node:path';
import { endGroup, spawnGroup } from './child';

const SCRIPT = path.join(__dirname, '..', '..', 'docs', 'examples', 'oauth-client.mts');

export interface OAuthClientScript {
  /** The authorization URL the script printed for the browser. */
  readonly signInUrl: Promise<string>;
  /** How the script ended, with everything it printed. */
  ended(): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Ends the script (and whatever it started) and waits until it has. */
  kill(): Promise<void>;
}

export function startOAuthClientScript(endpoint: string): OAuthClientScript {
  const child = spawnGroup(process.execPath, ['--import', 'tsx', SCRIPT, endpoint], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Listened for from the start: the script can finish before the browser's last page has been read back, and a
  // listener added after 'exit' would wait forever.
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const signInUrl = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const printed = /^Sign in at:\n {2}(http\S+)$/m.exec(stdout)?.[1];
      if (printed !== undefined) resolve(printed);
    });
    void exited.then(([code]) =>
      reject(new Error(`the script exited (${code}) before asking for a browser: ${stderr}`)),
    );
  });
  return {
    signInUrl,
    ended: async () => {
      const [code] = await exited;
      return { code, stdout, stderr };
    },
    kill: () => endGroup(child),
  };
}
