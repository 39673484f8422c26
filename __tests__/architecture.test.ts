// Repository rules for lib/ (STYLE §3.2, §3.5): layer order, who may import express and node:http, headers, sizes.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.resolve(__dirname, '..', 'lib');
// Issue 32: no lib file over 300 lines (as prettier writes them, 120 columns).
const MAX_LINES = 300;

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
 * The layer of a lib file: imports point to a lower layer, or stay inside the file's own folder (subfolders included).
 *
 * router → router-api → resolved-config → options → session-options → decorators → (auth, security, bridge,
 * payments, gateway, redis: beside the chain) → express-host → transport → listen → sessions → streams → http →
 * outbound → store → protocol → registry → schema → telemetry → era-policy → leaves.
 *
 * - router-api.ts: the types of what the router adds; express-host.ts: the one module that knows Express internals,
 *   below auth/ and bridge/, which both read the host app's stack.
 * - transport/: the MCP endpoint's handlers; listen/: 2026 subscriptions/listen, its protocol half and its stream;
 *   sessions/: the 2025 sessions and their channel; streams/: the outbound SSE streams both eras write.
 * - http/: generic HTTP helpers for incoming requests (auth/ and security/ use them too); outbound/: bounded calls to
 *   other servers (identity providers, upstreams, facilitators).
 * - store/: the shared store (McpStore and its readiness): the interfaces redis/ implements and their memory
 *   defaults, the server event bus among them.
 * - protocol/: the classifier, the dispatcher, the call pipeline's request side; methods/ the method tables, tasks/
 *   MCP tasks (store, runner, methods), modern/ the 2026 wire (request _meta and headers, result envelope,
 *   input_required).
 * - payments/ (x402) is a tool guard beside auth/, on the registry's guard chain only (payments/index.ts is the
 *   express-mcp-router/x402 subpath, payments/testing.ts its /x402/testing); gateway/ is a client of upstream MCP
 *   servers; redis/ (the express-mcp-router/redis subpath) implements store/; decorators/index.ts is the
 *   express-mcp-router/decorators subpath.
 * - era-policy.ts: what differs between protocol eras, as data, consulted by every layer above instead of era literals.
 */
function layerOf(name: string): number {
  const [top] = name.split('/');
  const layers: Readonly<Record<string, number>> = {
    'index.ts': 100,
    'router.ts': 90,
    'router-api.ts': 85,
    // resolveOptions() reads the public option types of options.ts, so it sits just above it.
    'resolved-config.ts': 82,
    'options.ts': 80,
    'session-options.ts': 78,
    // Decorators bridge Express handlers too, so they sit just above bridge/.
    decorators: 65,
    // MCP Apps render a route through the bridge's in-process dispatch, so they sit just above bridge/.
    apps: 62,
    auth: 60,
    security: 60,
    bridge: 60,
    payments: 60,
    gateway: 60,
    redis: 60,
    // skills/ (SEP-2640) adds methods to protocol/'s table and resources to the registry, beside gateway/.
    skills: 60,
    'express-host.ts': 55,
    transport: 50,
    listen: 48,
    sessions: 46,
    streams: 45,
    http: 44,
    outbound: 43,
    store: 41,
    protocol: 40,
    registry: 30,
    schema: 20,
    telemetry: 12,
    'era-policy.ts': 11,
    jsonrpc: 10,
    'config-error.ts': 10,
    'logger.ts': 10,
    'versions.ts': 10,
    'bounded-map.ts': 10,
    'node-env.ts': 10,
  };
  return layers[name] ?? layers[top as string] ?? -1;
}

const folderOf = (name: string): string => (name.includes('/') ? name.slice(0, name.indexOf('/')) : name);
const isExpress = (specifier: string): boolean => /^express(\/|$)/.test(specifier);
const isNodeHttp = (specifier: string): boolean => /^(node:)?https?$/.test(specifier);

describe('lib/ architecture', () => {
  it('finds the lib files', () => {
    expect(FILES.map((file) => file.name)).toEqual(
      expect.arrayContaining(['index.ts', 'router.ts', 'options.ts', 'config-error.ts', 'logger.ts']),
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

  it('keeps jsonrpc/, schema/, registry/ and protocol/ free of express and node:http (not even types)', () => {
    const offenders = FILES.filter((file) =>
      ['jsonrpc', 'schema', 'registry', 'protocol'].includes(folderOf(file.name)),
    ).flatMap((file) =>
      file.imports
        .filter((imp) => isExpress(imp.specifier) || isNodeHttp(imp.specifier))
        .map((imp) => `${file.name} → ${imp.specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports express as a value only in router.ts and express-host.ts (the one module that knows its internals); everything else uses import type', () => {
    const offenders = FILES.filter((file) => file.name !== 'router.ts' && file.name !== 'express-host.ts').flatMap(
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
      FILES.filter((file) => file.name !== 'express-host.ts' && internals.test(file.text)).map((file) => file.name),
    ).toEqual([]);
    expect(internals.test(FILES.find((file) => file.name === 'express-host.ts')?.text ?? '')).toBe(true);
  });

  // One exception: a Client ID Metadata Document is fetched over node:http(s), whose `lookup` pins the connection to
  // the address the SSRF check approved; Node's global fetch cannot be told which address to connect to.
  it('imports node:http only as types, but for the pinned fetch of auth/server/document-fetch.ts', () => {
    const offenders = FILES.filter((file) => file.name !== 'auth/server/document-fetch.ts').flatMap((file) =>
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

  it('imports point down the layers: router → transport → protocol → registry → schema → jsonrpc/, errors.ts, logger.ts', () => {
    const offenders = FILES.flatMap((file) =>
      file.imports
        .filter((imp) => imp.target !== undefined && imp.target !== 'index.ts')
        .filter((imp) => {
          const target = imp.target as string;
          if (folderOf(target) === folderOf(file.name) && file.name.includes('/')) return false; // within one folder
          return layerOf(target) >= layerOf(file.name);
        })
        .map((imp) => `${file.name} → ${imp.target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps jsonrpc/, errors.ts, logger.ts and versions.ts as leaves: they import no other lib file', () => {
    const offenders = FILES.filter((file) => layerOf(file.name) === 10).flatMap((file) =>
      file.imports
        .filter(
          (imp) =>
            imp.target !== undefined && !(file.name.includes('/') && folderOf(imp.target) === folderOf(file.name)),
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

  it('opens every file with a one-line // comment stating its responsibility', () => {
    const offenders = FILES.filter((file) => {
      const [first = '', second = ''] = file.text.split(/\r?\n/);
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
          'protocol/classify.ts',
          'protocol/dispatcher.ts',
          'protocol/methods/lifecycle-methods.ts',
          'jsonrpc/envelope.ts',
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
});
