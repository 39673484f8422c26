// Repository rules for lib/ (STYLE §3.2, §3.5): layer order, who may import express and node:http, headers, sizes.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const LIB = path.resolve(__dirname, '..', 'lib');
// Raised from 400 for the formatting commit (prettier lengthens files); issue 32 splits them and sets 300.
const MAX_LINES = 500;

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
 * The layer of a lib file: imports point to a lower layer, or stay inside the file's own folder.
 * router → router-api → resolved-config → options → decorators → (auth, security, bridge, gateway: beside the chain) → express-host → transport
 * → sessions → http → protocol → tasks → registry → schema → telemetry → leaves. router-api.ts holds the types of what the router adds;
 * express-host.ts is the one module that knows Express internals, below auth/ and bridge/ which both read the host
 * app's stack; http/ holds generic HTTP helpers (auth/ and security/ use them too); sessions/ the 2025 sessions,
 * their stores and the server event bus; transport/ the MCP endpoint's handlers; payments/ (x402) is a tool guard
 * beside auth/, on the registry's guard chain only; gateway/ (issue 19) is a client of upstream MCP servers; redis/ (the
 * express-mcp-router/redis subpath) implements the shared store.
 */
function layerOf(name: string): number {
  const [top] = name.split('/');
  if (name === 'index.ts') return 100;
  if (name === 'router.ts') return 90;
  if (name === 'router-api.ts') return 85;
  // resolveOptions() reads the public option types of options.ts, so it sits just above it.
  if (name === 'resolved-config.ts') return 82;
  if (name === 'options.ts') return 80;
  if (name === 'session-options.ts') return 78;
  // Decorators bridge Express handlers too, so they sit just above bridge/.
  if (top === 'decorators') return 65;
  if (
    top === 'auth' ||
    top === 'security' ||
    top === 'bridge' ||
    top === 'payments' ||
    top === 'gateway' ||
    top === 'redis'
  )
    return 60;
  if (name === 'express-host.ts') return 55;
  if (top === 'transport') return 50;
  if (top === 'sessions') return 46;
  if (top === 'http') return 44;
  if (top === 'protocol') return 40;
  // tasks/: the TaskStore and its records (MCP tasks), below the protocol methods that serve them.
  if (top === 'tasks') return 35;
  if (top === 'registry') return 30;
  if (top === 'schema') return 20;
  // telemetry/ (issue 21): OpenTelemetry spans and metrics, used by protocol/ and by the gateway, bridge and payments.
  if (top === 'telemetry') return 12;
  // era-policy.ts (issue 32): what differs between protocol eras, as data; above the leaves so that registry/,
  // protocol/, transport/ and gateway/ all consult it instead of comparing era literals.
  if (name === 'era-policy.ts') return 11;
  if (
    top === 'jsonrpc' ||
    name === 'errors.ts' ||
    name === 'logger.ts' ||
    name === 'versions.ts' ||
    name === 'bounded-map.ts'
  )
    return 10;
  return -1;
}

const folderOf = (name: string): string => (name.includes('/') ? name.slice(0, name.indexOf('/')) : name);
const isExpress = (specifier: string): boolean => /^express(\/|$)/.test(specifier);
const isNodeHttp = (specifier: string): boolean => /^(node:)?https?$/.test(specifier);

describe('lib/ architecture', () => {
  it('finds the lib files', () => {
    expect(FILES.map((file) => file.name)).toEqual(
      expect.arrayContaining(['index.ts', 'router.ts', 'options.ts', 'errors.ts', 'logger.ts']),
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
        !['protocol/classify.ts', 'protocol/dispatcher.ts', 'protocol/lifecycle.ts', 'jsonrpc/envelope.ts'].includes(
          file.name,
        ),
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
