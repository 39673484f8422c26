// Browser bundles the demo builds at start, in memory: the order form's view (with the App SDK) and the playground's
// AppBridge. Both come from @modelcontextprotocol/ext-apps, whose modules import the SDK packages and zod by bare
// name, which a browser cannot resolve; nothing built is committed.

import path from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles `entry` (a path under demo/apps) with everything it imports into one minified ES module.
 *
 * @param entry - the file name, relative to this folder
 * @returns the module's source text
 */
export async function bundleForBrowser(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(__dirname, entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild produced nothing for ${entry}`);
  return file.text;
}

/** A bundle built once, on first use, and shared by everyone after (a failed build is retried on the next use). */
export function lazyBundle(entry: string): () => Promise<string> {
  let pending: Promise<string> | undefined;
  return () => {
    pending ??= bundleForBrowser(entry).catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
