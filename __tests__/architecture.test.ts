// Repository rules for lib/ (STYLE §3.2, §3.5): layer order, who may import express and node:http, headers, sizes.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.resolve(__dirname, '..', 'lib');
// No lib file over 300 lines (as prettier writes them, 120 columns), no function over 60 lines of its own body, no
// factory closure over 120, no folder over 24 files.
const MAX_LINES = 300;
const MAX_FUNCTION_LINES = 60;
const MAX_CLOSURE_LINES = 120;
const MAX_FOLDER_FILES = 24;

interface Import {
  /** What the statement names: `express`, `./errors`, … */
  readonly specifier: string;
  /** The lib file it resolves to (relative to lib/, with .ts), for relative imports. */
  readonly target: string | undefined;
  /** True when nothing of it survives compilation (`import type`, or only `type` specifiers). */
  readonly typeOnly: boolean;
}

interface LibFile {
  /** Relative to lib/, with forward slashes: `transport/post.ts`. */
  readonly name: string;
  readonly text: string;
  readonly imports: readonly Import[];
}

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolveTarget(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(path.join(LIB, from)), specifier);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (candidate.endsWith('.ts') && fs.existsSync(candidate))
      return path.relative(LIB, candidate).split(path.sep).join('/');
  }
  return `${path.relative(LIB, base).split(path.sep).join('/')} (unresolved)`;
}

function importsOf(name: string, text: string): Import[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean): void => {
    found.push({ specifier, target: resolveTarget(name, specifier), typeOnly });
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      // `import 'x'` (side effect) and `import x from` / `import * as x from` are value imports.
      let typeOnly = clause !== undefined && clause.isTypeOnly;
      if (
        clause &&
        !clause.isTypeOnly &&
        clause.name === undefined &&
        clause.namedBindings &&
        ts.isNamedImports(clause.namedBindings)
      ) {
        const specifiers = clause.namedBindings.elements;
        typeOnly = specifiers.length > 0 && specifiers.every((element) => element.isTypeOnly);
      }
      add(statement.moduleSpecifier.text, typeOnly);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const clause = statement.exportClause;
      const typeOnly =
        statement.isTypeOnly ||
        (clause !== undefined &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((element) => element.isTypeOnly));
      add(statement.moduleSpecifier.text, typeOnly);
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const expression = statement.moduleReference.expression;
      if (ts.isStringLiteral(expression)) add(expression.text, statement.isTypeOnly);
    }
  }
  // require('x') and import('x') anywhere in the file.
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isRequire || node.expression.kind === ts.SyntaxKind.ImportKeyword)
        add((node.arguments[0] as ts.StringLiteralLike).text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const FILES: LibFile[] = listTs(LIB)
  .map((full) => {
    const name = path.relative(LIB, full).split(path.sep).join('/');
    const text = fs.readFileSync(full, 'utf8');
    return { name, text, imports: importsOf(name, text) };
  })
  .sort((a, b) => a.name.localeCompare(b.name));

/**
 * The house (CONTRIBUTING › Layout): `core/` (no HTTP) ← `edge/` (HTTP and shared state) ← `features/<name>/` (the
 * wings, each installed through one RouterFeature) ← the composition root and the public entry points. An import
 * points to a lower layer, or stays inside the file's own folder (subfolders included); `options/` (the one option
 * checker) is a leaf every layer may use.
 *
 * Within core: protocol/ → registry/ → schema/ → observe/ → era-policy.ts → the leaves (jsonrpc/, versions.ts,
 * logger.ts, bounded-map.ts, node-env.ts). Within edge: security/ → transport/ → listen/ → host-routes/ → sessions/ →
 * streams/ → http/ → outbound/ → express-host.ts → store/. Every feature sits on one floor and imports no other feature.
 */
function layerOf(name: string): number {
  const parts = name.split('/');
  const entries: Readonly<Record<string, number>> = {
    'index.ts': 100,
    'x402.ts': 100,
    'x402-testing.ts': 100,
    'decorators.ts': 100,
    'redis.ts': 100,
    'router.ts': 90,
    // The features in install order and their host; the core and edge services they are lent.
    'router-features.ts': 88,
    'router-core.ts': 87,
    'router-api.ts': 85,
    // resolveOptions() reads the public option types of options.ts, so it sits just above it.
    'resolved-config.ts': 82,
    'options.ts': 80,
  };
  if (parts.length === 1) return entries[name] ?? -1;
  const [top, second] = parts as [string, string];
  if (top === 'features') return 60;
  // The command line's doctor: a client of any MCP server, built on the core's leaves, never on the router's edge.
  if (top === 'doctor') return 95;
  if (top === 'options') return 5;
  const edge: Readonly<Record<string, number>> = {
    // RouterFeature and the host: the seam, above everything else of the edge.
    'feature.ts': 56,
    'express-host.ts': 42,
    security: 52,
    transport: 50,
    listen: 48,
    // Host routes run in process and described as tools (bridge, apps, decorators): above http/, which answers for them.
    'host-routes': 47,
    sessions: 46,
    streams: 45,
    http: 44,
    outbound: 43,
    store: 41,
  };
  const core: Readonly<Record<string, number>> = {
    protocol: 40,
    registry: 30,
    schema: 20,
    observe: 15,
    'era-policy.ts': 11,
    jsonrpc: 10,
    'versions.ts': 10,
    'logger.ts': 10,
    'bounded-map.ts': 10,
    'node-env.ts': 10,
  };
  if (top === 'edge') return edge[second] ?? -1;
  if (top === 'core') return core[second] ?? -1;
  return -1;
}

/** The folder whose files may import each other freely: `core/registry`, `edge/http`, `features/gateway`, `options`. */
function roomOf(name: string): string {
  const parts = name.split('/');
  if (parts.length === 1) return name;
  if (parts[0] === 'options') return 'options';
  if (parts[0] === 'doctor') return 'doctor';
  return parts.length === 2 ? `${parts[0]}/${parts[1]}` : `${parts[0]}/${parts[1]}`;
}

const isExpress = (specifier: string): boolean => /^express(\/|$)/.test(specifier);
const isNodeHttp = (specifier: string): boolean => /^(node:)?https?$/.test(specifier);

describe('lib/ architecture', () => {
  it('finds the lib files', () => {
    expect(FILES.map((file) => file.name)).toEqual(
      expect.arrayContaining(['index.ts', 'router.ts', 'options.ts', 'options/config-error.ts', 'core/logger.ts']),
    );
    expect(FILES.length).toBeGreaterThan(20);
  });

  it('places every file in a known layer', () => {
    expect(FILES.filter((file) => layerOf(file.name) < 0).map((file) => file.name)).toEqual([]);
  });

  it('resolves every relative import to a lib file', () => {
    const unresolved = FILES.flatMap((file) =>
      file.imports
        .filter((imp) => imp.target?.endsWith('(unresolved)'))
        .map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('keeps core/ free of express and node:http (not even types)', () => {
    const offenders = FILES.filter((file) => file.name.startsWith('core/')).flatMap((file) =>
      file.imports
        .filter((imp) => isExpress(imp.specifier) || isNodeHttp(imp.specifier))
        .map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports express as a value only in router.ts and express-host.ts (the one module that knows its internals); everything else uses import type', () => {
    const offenders = FILES.filter((file) => file.name !== 'router.ts' && file.name !== 'edge/express-host.ts').flatMap(
      (file) =>
        file.imports
          .filter((imp) => isExpress(imp.specifier) && !imp.typeOnly)
          .map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(offenders).toEqual([]);
    expect(
      FILES.find((file) => file.name === 'router.ts')?.imports.some(
        (imp) => imp.specifier === 'express' && !imp.typeOnly,
      ),
    ).toBe(true);
  });

  it("reaches into Express's internals (app._router, a router's stack, a layer's rawPath, a router's handle) only in express-host.ts", () => {
    const internals = /\b_router\b|\blazyrouter\b|\brawPath\b|\.stack\b|\.handle\s*=[^=]/;
    expect(
      FILES.filter((file) => file.name !== 'edge/express-host.ts' && internals.test(file.text)).map(
        (file) => file.name,
      ),
    ).toEqual([]);
    expect(internals.test(FILES.find((file) => file.name === 'edge/express-host.ts')?.text ?? '')).toBe(true);
  });

  // Three exceptions, clients that must say how to connect, which Node's global fetch cannot be told: a Client ID
  // Metadata Document is fetched over node:http(s), whose `lookup` pins the connection to the address the SSRF check
  // approved; the doctor reads TLS certificates, extra authorities and arrival times of a stream's bytes; the gateway
  // posts every forwarded call on its upstream's own keep-alive pool, where fetch's WHATWG streams and Headers cost
  // several times the request itself.
  const HTTP_CLIENTS = [
    'features/sign-in/clients/document-fetch.ts',
    'doctor/http.ts',
    'features/gateway/http-client/http-post.ts',
  ];
  it('imports node:http only as types, but for the pinned fetch of document-fetch.ts, the doctor and the gateway POST', () => {
    const offenders = FILES.filter((file) => !HTTP_CLIENTS.includes(file.name)).flatMap((file) =>
      file.imports
        .filter((imp) => isNodeHttp(imp.specifier) && !imp.typeOnly)
        .map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('never imports lib/index.ts from inside lib/', () => {
    const offenders = FILES.flatMap((file) =>
      file.imports.filter((imp) => imp.target === 'index.ts').map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports point down the layers: entry points → router → features → edge → core, and no feature imports another', () => {
    const offenders = FILES.flatMap((file) =>
      file.imports
        .filter((imp) => imp.target !== undefined && imp.target !== 'index.ts')
        .filter((imp) => {
          const target = imp.target as string;
          if (roomOf(target) === roomOf(file.name) && file.name.includes('/')) return false; // within one folder
          return layerOf(target) >= layerOf(file.name);
        })
        .map((imp) => `${file.name} → ${imp.target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps the leaves (core/jsonrpc/, core/versions.ts, core/logger.ts, options/…) importing no other lib file', () => {
    const offenders = FILES.filter((file) => layerOf(file.name) <= 10).flatMap((file) =>
      file.imports
        .filter(
          (imp) => imp.target !== undefined && !(file.name.includes('/') && roomOf(imp.target) === roomOf(file.name)),
        )
        .map((imp) => `${file.name} → ${imp.target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('has no import cycles', () => {
    const graph = new Map(
      FILES.map((file) => [file.name, file.imports.flatMap((imp) => (imp.target ? [imp.target] : []))]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (name: string, trail: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(name)), name].join(' → '));
        return;
      }
      state.set(name, 'open');
      for (const next of graph.get(name) ?? []) walk(next, [...trail, name]);
      state.set(name, 'done');
    };
    for (const name of graph.keys()) walk(name, []);
    expect(cycles).toEqual([]);
  });

  it('opens every file with a one-line // comment stating its responsibility (after the shebang of a command)', () => {
    const offenders = FILES.filter((file) => {
      const [first = '', second = ''] = file.text.replace(/^#!.*\n/, '').split(/\r?\n/);
      return !/^\/\/ \S.{10,}$/.test(first) || second.trim().startsWith('//');
    }).map((file) => file.name);
    expect(offenders).toEqual([]);
  });

  it('keeps router.ts a composition root: at most 180 lines (as prettier writes it), no function of its own beyond mcpRouter', () => {
    const router = FILES.find((file) => file.name === 'router.ts') as LibFile;
    expect(router.text.split('\n').length).toBeLessThanOrEqual(180);
    expect(router.text.match(/^(export )?(async )?function \w+/gm)).toEqual(['export function mcpRouter']);
  });

  it('decides what a POST is in one place: only protocol/classify.ts parses a message or tests for initialize outside the dispatcher', () => {
    const peeking = FILES.filter(
      (file) =>
        ![
          'core/protocol/classify.ts',
          'core/protocol/dispatcher.ts',
          'core/protocol/methods/lifecycle-methods.ts',
          'core/jsonrpc/envelope.ts',
        ].includes(file.name),
    )
      .filter((file) => /\b(parseMessage|isInitializeRequest)\(/.test(file.text))
      .map((file) => file.name);
    expect(peeking).toEqual([]);
  });

  it('keeps client state an input: no lib file assigns to a field of the client state', () => {
    const mutating = FILES.filter((file) =>
      /\.(client|peer)\.(protocolVersion|clientCapabilities|clientInfo|logLevel|subscriptions)\s*=[^=]/.test(file.text),
    ).map((file) => file.name);
    expect(mutating).toEqual([]);
  });

  it(`keeps every file at or under ${MAX_LINES} lines`, () => {
    const offenders = FILES.map((file) => ({
      name: file.name,
      lines: file.text.split('\n').length - (file.text.endsWith('\n') ? 1 : 0),
    }))
      .filter((file) => file.lines > MAX_LINES)
      .map((file) => `${file.name} (${file.lines} lines)`);
    expect(offenders).toEqual([]);
  });

  it(`keeps every function at or under ${MAX_FUNCTION_LINES} lines of its own body, and every factory closure at or under ${MAX_CLOSURE_LINES}`, () => {
    expect(FILES.flatMap((file) => oversizedFunctions(file))).toEqual([]);
  });

  it('installs every feature through one seam: router.ts imports no feature, and each feature index.ts exports one RouterFeature', () => {
    const router = FILES.find((file) => file.name === 'router.ts') as LibFile;
    expect(router.imports.filter((imp) => imp.target?.startsWith('features/')).map((imp) => imp.specifier)).toEqual([]);
    const seam = FILES.find((file) => file.name === 'router-features.ts') as LibFile;
    const features = new Set(
      FILES.filter((file) => file.name.startsWith('features/')).map((file) => file.name.split('/')[1] as string),
    );
    // Libraries a user passes in options, not wings of the router: the x402 guard, the Redis store, token verifiers.
    const passedInOptions = ['payments', 'redis', 'verifiers'];
    const installed = [...features].filter((name) => !passedInOptions.includes(name)).sort();
    expect(
      installed.filter(
        (name) =>
          !/export const \w+Feature: RouterFeature</.test(
            FILES.find((file) => file.name === `features/${name}/index.ts`)?.text ?? '',
          ),
      ),
    ).toEqual([]);
    expect(installed.filter((name) => !seam.imports.some((imp) => imp.target === `features/${name}/index.ts`))).toEqual(
      [],
    );
  });

  it('mirrors lib/ in __tests__/: every test folder under core/, edge/, features/ and options/ is a lib folder', () => {
    const TESTS = path.resolve(__dirname);
    const folders = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        if (!entry.isDirectory() || entry.name === 'fixtures' || entry.name === 'cluster') return [];
        const full = path.join(dir, entry.name);
        return [full, ...folders(full)];
      });
    const mirrored = ['core', 'edge', 'features', 'options'].flatMap((top) => [
      path.join(TESTS, top),
      ...folders(path.join(TESTS, top)),
    ]);
    const relative = mirrored.map((dir) => path.relative(TESTS, dir).split(path.sep).join('/'));
    expect(relative.filter((dir) => !fs.existsSync(path.join(LIB, dir)))).toEqual([]);
    expect(relative).toEqual(expect.arrayContaining(['core/protocol', 'edge/transport', 'features/gateway']));
  });

  it(`keeps every folder at or under ${MAX_FOLDER_FILES} files`, () => {
    const counts = new Map<string, number>();
    for (const file of FILES) {
      const folder = path.posix.dirname(file.name);
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
    expect(
      [...counts].filter(([, count]) => count > MAX_FOLDER_FILES).map(([folder, count]) => `${folder} (${count})`),
    ).toEqual([]);
  });
});

const isFunctionLike = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/**
 * A function's own lines are its lines less those of the functions and classes inside it; a function with functions
 * inside is a factory closure, measured whole. `file.ts:name (N own lines)` for each one over a limit.
 */
function oversizedFunctions(file: LibFile): string[] {
  const source = ts.createSourceFile(file.name, file.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line;
  const linesOf = (node: ts.Node): number => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const nameOf = (node: ts.FunctionLikeDeclaration): string => {
    if (node.name) return node.name.getText(source);
    const parent = node.parent;
    if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
      return parent.name.getText(source);
    return `(anonymous, line ${lineOf(node.getStart(source)) + 1})`;
  };
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      let inner = 0;
      const measureInner = (child: ts.Node): void => {
        if (isFunctionLike(child) || ts.isClassLike(child)) inner += linesOf(child);
        else ts.forEachChild(child, measureInner);
      };
      ts.forEachChild(node, measureInner);
      const whole = linesOf(node);
      if (whole - inner > MAX_FUNCTION_LINES) found.push(`${file.name}:${nameOf(node)} (${whole - inner} own lines)`);
      if (inner > 0 && whole > MAX_CLOSURE_LINES)
        found.push(`${file.name}:${nameOf(node)} (a closure of ${whole} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
