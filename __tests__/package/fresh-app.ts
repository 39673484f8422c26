// Builds a user's app in a temp dir from the packed tarball and this repository's node_modules, as npm would lay it out.

import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(__dirname, '../..');
const REPO_MODULES = join(ROOT, 'node_modules');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A fresh app: which packages of this repository's node_modules play `express` and `@types/express`, and its tsconfig. */
export interface FreshAppSpec {
  express: string;
  typesExpress: string;
  compilerOptions: Record<string, unknown>;
  /** Other packages of this repository's node_modules the app installs (a client's SDK), by their name. */
  packages?: string[];
}

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function packageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** What the incremental build below knows between runs: outside dist/, so it never ships. */
const BUILD_INFO = join(REPO_MODULES, '.cache', 'tsc', 'pack-build.tsbuildinfo');

/** The compiled files dist/ must hold for lib/: a `.js` and a `.d.ts` per source, by path relative to dist/. */
function expectedOutputs(): Set<string> {
  const sources = readdirSync(join(ROOT, 'lib'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );
  return new Set(sources.flatMap((file) => [file.replace(/\.ts$/, '.js'), file.replace(/\.ts$/, '.d.ts')]));
}

/**
 * Builds dist/ with `npm run build`'s tsconfig, incrementally: a test run re-emits what changed since the last one
 * (about 3 s of CPU instead of 11). tsc does not emit again an output deleted meanwhile, so a missing one starts the
 * build over; and a compiled file whose source is gone is removed, so it cannot ship.
 */
function buildDist(): void {
  const expected = expectedOutputs();
  const dist = join(ROOT, 'dist');
  if ([...expected].some((file) => !existsSync(join(dist, file)))) rmSync(BUILD_INFO, { force: true });
  if (existsSync(dist)) {
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }))
      if (/\.(js|d\.ts)$/.test(file) && !expected.has(file)) rmSync(join(dist, file));
  }
  const tscBin = join(REPO_MODULES, 'typescript', 'bin', 'tsc');
  execFileSync(
    process.execPath,
    [tscBin, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', BUILD_INFO],
    {
      cwd: ROOT,
    },
  );
}

/**
 * Builds dist/ (as `prepack` would, see {@link buildDist}) and runs `npm pack` into `dir`; returns the tarball's path.
 */
export function packInto(dir: string): string {
  buildDist();
  const packed = execFileSync(NPM, ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop() as string;
  return join(dir, packed);
}

/** Where Node (and tsc) find `name` from inside `fromDir`: the nearest `node_modules` on the way up to the repository. */
function resolveFrom(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT) return undefined;
  }
}

/**
 * The repository's top-level packages that `roots` (name in the app → package dir) need, transitively, keyed by
 * their name in the app. Nested dependencies are not listed: they are copied with the package that holds them.
 */
function installClosure(roots: Record<string, string>): Map<string, string> {
  const top = new Map<string, string>();
  const walked = new Set<string>();
  const add = (name: string, dir: string): void => {
    const held = top.get(name);
    if (held !== undefined && held !== dir) throw new Error(`${name} is needed as both ${held} and ${dir}`);
    top.set(name, dir);
    walk(dir);
  };
  const walk = (dir: string): void => {
    if (walked.has(dir)) return;
    walked.add(dir);
    const { dependencies = {}, optionalDependencies = {} } = packageJson(dir);
    for (const dep of Object.keys({ ...dependencies, ...optionalDependencies })) {
      const found = resolveFrom(dep, dir);
      if (found === undefined && dep in optionalDependencies) continue;
      if (found === undefined) throw new Error(`${dep} (a dependency of ${dir}) is not installed`);
      if (relative(REPO_MODULES, found) === dep) add(dep, found);
      else walk(found);
    }
  };
  for (const [name, dir] of Object.entries(roots)) add(name, dir);
  return top;
}

/**
 * Makes a CommonJS app at `dir` (no `"type"` in package.json) with the tarball as `express-mcp-router`, its
 * dependencies, `express`, `@types/express`, the spec's `packages`, their closures and `typescript`, and nothing else. Packages are
 * copied, not linked: tsc and Node resolve a linked package's imports from its real path inside this repository,
 * where they would find the repository's other packages (its @types/express 5 from app B's express-rate-limit).
 */
export function createFreshApp(dir: string, tarball: string, spec: FreshAppSpec): void {
  const modules = join(dir, 'node_modules');
  const installed = join(modules, 'express-mcp-router');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const roots: Record<string, string> = {
    express: join(REPO_MODULES, spec.express),
    '@types/express': join(REPO_MODULES, spec.typesExpress),
  };
  for (const dep of Object.keys(packageJson(installed).dependencies ?? {})) roots[dep] = join(REPO_MODULES, dep);
  for (const name of spec.packages ?? []) roots[name] = join(REPO_MODULES, name);
  for (const [name, from] of installClosure(roots))
    cpSync(from, join(modules, name), { recursive: true, verbatimSymlinks: true });
  // TypeScript is the compiler, not a module the app loads: a link is enough.
  symlinkSync(join(REPO_MODULES, 'typescript'), join(modules, 'typescript'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-app', version: '1.0.0', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: spec.compilerOptions, include: ['src'] }, null, 2),
  );
}

/** Runs the app's own tsc on its tsconfig with `args`; resolves with its exit code and everything it printed. */
export async function tsc(dir: string, ...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', ...args],
      { cwd: dir, encoding: 'utf8' },
    );
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}
