// The public surface: exactly these runtime exports per entry point, no more (adding one is a deliberate, reviewed
// change), and a package.json whose exports and typesVersions name those entry points under every module resolution.

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import * as root from '../lib';
import * as decorators from '../lib/decorators';
import * as x402 from '../lib/x402';
import * as x402Testing from '../lib/x402-testing';
import * as redis from '../lib/redis';
import packageJson from '../package.json';

const ROOT = path.resolve(__dirname, '..');

/** Every export path of the package: its lib entry point (loaded above), and its runtime exports. */
const ENTRY_POINTS: ReadonlyArray<{ subpath: string; source: string; module: object; values: string[] }> = [
  {
    subpath: '.',
    source: 'lib/index.ts',
    module: root,
    values: [
      'ErrorCode',
      'JsonRpcError',
      'McpConfigError',
      'MemoryEventStore',
      'MemoryMessageBus',
      'MemorySessionStore',
      'MemoryTaskStore',
      'StoreUnavailableError',
      'audioContent',
      'embeddedResource',
      'guardFor',
      'imageContent',
      'introspectionVerifier',
      'jwtVerifier',
      'mcpRouter',
      'oidcUpstream',
      'resourceLink',
      'textContent',
      'tokenExchange',
    ],
  },
  {
    subpath: './x402',
    source: 'lib/x402.ts',
    module: x402,
    values: ['FacilitatorError', 'x402Facilitator', 'x402Guard'],
  },
  {
    subpath: './x402/testing',
    source: 'lib/x402-testing.ts',
    module: x402Testing,
    values: ['testFacilitator', 'testPayment'],
  },
  {
    subpath: './decorators',
    source: 'lib/decorators.ts',
    module: decorators,
    values: ['prompt', 'resource', 'tool'],
  },
  { subpath: './redis', source: 'lib/redis.ts', module: redis, values: ['StoreUnavailableError', 'redisStore'] },
];

/** A file of the built package (`./dist/payments/index.d.ts`) → the lib source it is compiled from. */
function sourceOf(built: string): string {
  const match = /^\.\/dist\/(.+)\.(d\.ts|js)$/.exec(built);
  if (match === null) throw new Error(`${built} is not a file of dist/`);
  return `lib/${match[1]}.ts`;
}

describe('public surface', () => {
  describe.each(ENTRY_POINTS)('express-mcp-router$subpath', ({ module, values }) => {
    it('exports exactly these values, named (no default export)', () => {
      expect(Object.keys(module).sort()).toEqual(values);
      expect(module).not.toHaveProperty('default');
    });
  });

  it('exports functions and classes where it says it does', () => {
    const constants = new Set(['ErrorCode']);
    for (const { module, values } of ENTRY_POINTS) {
      for (const name of values.filter((value) => !constants.has(value)))
        expect([name, typeof (module as Record<string, unknown>)[name]]).toEqual([name, 'function']);
    }
  });

  it('gives each value one home: no value is exported by two entry points, but StoreUnavailableError (root and redis)', () => {
    const homes = new Map<unknown, string[]>();
    for (const { subpath, module } of ENTRY_POINTS)
      for (const [name, value] of Object.entries(module))
        homes.set(value, [...(homes.get(value) ?? []), `${subpath} ${name}`]);
    expect([...homes.values()].filter((where) => where.length > 1)).toEqual([
      ['. StoreUnavailableError', './redis StoreUnavailableError'],
    ]);
  });

  it('keeps the moved and removed names out of the root', () => {
    for (const name of ['x402Guard', 'x402Facilitator', 'FacilitatorError', 'tool', 'resource', 'prompt', 'LOG_LEVELS'])
      expect(root).not.toHaveProperty(name);
    expect(root).not.toHaveProperty('SUPPORTED_PROTOCOL_VERSIONS');
  });

  it('exports ErrorCode frozen (STYLE §3.2: no module-level mutable state a caller could change for every router)', () => {
    expect(root.ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ServerError: -32000,
      ResourceNotFound: -32002,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    });
    expect(Object.isFrozen(root.ErrorCode)).toBe(true);
  });
});

describe('package.json', () => {
  const exportsMap = packageJson.exports as Record<string, string | { types: string; default: string }>;
  const typesVersions = packageJson.typesVersions['*'] as Record<string, string[]>;

  it('has an export path for every entry point, and no other (but ./package.json)', () => {
    expect(Object.keys(exportsMap).sort()).toEqual(
      [...ENTRY_POINTS.map((entry) => entry.subpath), './package.json'].sort(),
    );
  });

  it.each(ENTRY_POINTS)('maps $subpath to the build of $source, types and code', ({ subpath, source }) => {
    const target = exportsMap[subpath] as { types: string; default: string };
    expect(Object.keys(target)).toEqual(['types', 'default']);
    expect([sourceOf(target.types), sourceOf(target.default)]).toEqual([source, source]);
    expect(fs.existsSync(path.join(ROOT, source))).toBe(true);
  });

  it('names the same types for each subpath in typesVersions (moduleResolution node10 ignores exports)', () => {
    const subpaths = ENTRY_POINTS.filter((entry) => entry.subpath !== '.');
    expect(typesVersions).toEqual(
      Object.fromEntries(
        subpaths.map(({ subpath }) => [subpath.slice(2), [(exportsMap[subpath] as { types: string }).types]]),
      ),
    );
    expect(packageJson.types).toBe((exportsMap['.'] as { types: string }).types.slice(2));
    expect(packageJson.main).toBe((exportsMap['.'] as { default: string }).default.slice(2));
  });

  // TypeScript's own resolver, on an app with the package in node_modules: every subpath resolves to its types under
  // node10 (typesVersions), node16 and bundler (exports). The package's dist/ is read from lib/ (what it is built
  // from), so this holds before `npm run build`; __tests__/package/ checks the packed tarball itself.
  it.each([
    ['node10', ts.ModuleResolutionKind.Node10],
    ['node16', ts.ModuleResolutionKind.Node16],
    ['bundler', ts.ModuleResolutionKind.Bundler],
  ])('resolves every subpath to its types under moduleResolution %s', (_name, moduleResolution) => {
    const app = '/app';
    const installed = `${app}/node_modules/express-mcp-router/`;
    const onDisk = (file: string): string | undefined => {
      if (!file.startsWith(installed)) return undefined;
      const inPackage = file.slice(installed.length);
      if (inPackage === 'package.json') return path.join(ROOT, 'package.json');
      const built = /^dist\/(.+)\.d\.ts$/.exec(inPackage);
      return built === null ? undefined : path.join(ROOT, 'lib', `${built[1]}.ts`);
    };
    const host: ts.ModuleResolutionHost = {
      fileExists: (file) => {
        const real = onDisk(file);
        return real !== undefined && fs.existsSync(real);
      },
      readFile: (file) => {
        const real = onDisk(file);
        return real === undefined ? undefined : fs.readFileSync(real, 'utf8');
      },
      directoryExists: (dir) => `${dir}/`.startsWith(`${app}/`) || installed.startsWith(`${dir}/`),
    };
    const options: ts.CompilerOptions = {
      moduleResolution,
      module: moduleResolution === ts.ModuleResolutionKind.Node16 ? ts.ModuleKind.Node16 : ts.ModuleKind.CommonJS,
    };
    const resolved = ENTRY_POINTS.map(({ subpath }) => {
      const specifier = `express-mcp-router${subpath.slice(1)}`;
      const result = ts.resolveModuleName(
        specifier,
        `${app}/index.ts`,
        options,
        host,
        undefined,
        undefined,
        // A CommonJS app under node16 (an Express 4 app, say); node10 has no import modes (given one, TypeScript reads
        // exports, which node10 does not).
        moduleResolution === ts.ModuleResolutionKind.Node16 ? ts.ModuleKind.CommonJS : undefined,
      );
      return [specifier, result.resolvedModule?.resolvedFileName.slice(installed.length)];
    });
    expect(resolved).toEqual(
      ENTRY_POINTS.map(({ subpath }) => [
        `express-mcp-router${subpath.slice(1)}`,
        (exportsMap[subpath] as { types: string }).types.slice(2),
      ]),
    );
  });
});
