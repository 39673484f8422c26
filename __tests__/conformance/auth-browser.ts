// The browser of the conformance suite's authorization-code-grant scenario: runs the suite's CLI, follows each authorization
// URL it prints (the app's login, the consent page answered "allow") to its callback server, and exits with the CLI's code.
// Usage (run.sh): tsx __tests__/conformance/auth-browser.ts <node> <conformance dist/index.js> authorization --url … --port …

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { followSignIn } from '../helpers/sign-in-flow';

// What the CLI prints (0.2.0-alpha.12, authorization-code-grant): its callback server once listening, then the URL to open.
const CALLBACK_LISTENING = /^Callback server started: (http:\/\/\S+)$/;
const URL_FOLLOWS = 'Access the following URL in your browser';

const [node, ...cliArgs] = process.argv.slice(2);
if (node === undefined || cliArgs.length === 0) {
  console.error(
    'usage: auth-browser.ts <node> <conformance CLI> authorization --url <issuer> --client-id <id> --port <p>',
  );
  process.exit(2);
}

const cli = spawn(node, cliArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
/** Callback servers announced so far (origin → listening), and the waiters for one not yet announced. */
const listening = new Set<string>();
const waiters = new Map<string, () => void>();
let urlNext = false;
let failed = false;

/** Resolves once the CLI has said its callback server at `origin` listens: the redirect is only sent to a listening server. */
function callbackListening(origin: string): Promise<void> {
  if (listening.has(origin)) return Promise.resolve();
  return new Promise((resolve) => waiters.set(origin, resolve));
}

/** The browser's part: the authorization URL through login and consent to the redirect, then the redirect itself. */
async function browse(authorizationUrl: string): Promise<void> {
  const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri');
  if (redirectUri === null) throw new Error(`the authorization URL has no redirect_uri: ${authorizationUrl}`);
  const end = await followSignIn(authorizationUrl, { stopAt: redirectUri });
  await callbackListening(new URL(redirectUri).origin);
  const delivered = await fetch(end.location, { redirect: 'manual' });
  await delivered.body?.cancel();
  console.log(`auth-browser: ${end.consentPages} consent page(s) answered; the callback answered ${delivered.status}`);
  if (delivered.status !== 200) throw new Error(`the CLI's callback answered ${delivered.status}`);
}

createInterface({ input: cli.stdout }).on('line', (line) => {
  console.log(line);
  const announced = CALLBACK_LISTENING.exec(line)?.[1];
  if (announced !== undefined) {
    const origin = new URL(announced).origin;
    listening.add(origin);
    waiters.get(origin)?.();
    waiters.delete(origin);
  }
  if (line.startsWith(URL_FOLLOWS)) urlNext = true;
  else if (urlNext && line.trim() !== '') {
    urlNext = false;
    browse(line.trim()).catch((err: unknown) => {
      // Without the callback the CLI would wait 5 minutes: stop it; its scenario then has no checks.json, a failure.
      failed = true;
      console.error(`auth-browser: the browser step failed: ${err instanceof Error ? err.message : String(err)}`);
      cli.kill('SIGTERM');
    });
  }
});

cli.on('close', (code, signal) => process.exit(failed ? 1 : (code ?? (signal === null ? 1 : 128))));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => cli.kill(signal));
