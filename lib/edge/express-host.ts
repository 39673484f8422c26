// The one module that knows Express 4 and 5 internals: the router's stack (read), its handle and route (replaced), and the apps calls run in.

import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';

/**
 * What this module relies on of Express, and nothing more (pinned by `__tests__/express-host.test.ts`):
 * - a router is a function that calls `router.handle(req, res, next)`, looked up on the router at each call, so
 *   a `handle` of its own replaces Express's; `router.stack` gains one layer per `use`, `get`, … call;
 * - `Router#get` and its kin call `this.route(path)`, so a router's own `route` must still answer a path;
 * - the app's router: `app._router` in Express 4 (which has `app.lazyrouter`), `app.router` in Express 5;
 * - `router.stack`: layers; a layer has `handle`, and `route` when it is a route;
 * - `route.path` (the path as declared) and `route.stack`: layers with `handle` and `method`;
 * - a mounted router is a layer whose `handle` has a `stack` of its own;
 * - a layer's mount path: `layer.rawPath` in Express 5 (router ≥ 2.3), or, in Express 4, `layer.regexp` and
 *   `layer.keys` as path-to-regexp 0.1 writes them (`/shops/:shop` → `^\/shops(?:\/([^/]+?))\/?(?=\/|$)`);
 * - the app setting `trust proxy fn`: the compiled `trust proxy` that `req.protocol` and `req.hostname` ask, called
 *   with the peer's address and the hop (0: the connection's peer).
 */
interface Layer {
  readonly handle?: unknown;
  readonly route?: { readonly path?: unknown; readonly stack?: readonly Layer[] };
  readonly method?: unknown;
  readonly rawPath?: unknown;
  readonly regexp?: unknown;
  readonly keys?: unknown;
}

/** Where a handler was found: its full path from the app's root, or why that path cannot be known. */
export type Location =
  | { readonly ok: true; readonly path: string; readonly method: string | undefined }
  | { readonly ok: false; readonly reason: string; readonly method: string | undefined };

type Prefix = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string };

/**
 * Every place `handler` sits in `app`'s router stack, nested routers included (mounted apps are opaque to
 * Express's stack, and so are left out). Reads the stack; changes nothing.
 *
 * @param app - an Express 4 or 5 app (usually `req.app`)
 * @param handler - the function to look for, as Express holds it
 * @example
 * ```ts
 * locateHandler(app, getItem); // [{ ok: true, path: '/api/items/:id', method: 'get' }]
 * ```
 */
export function locateHandler(app: unknown, handler: unknown): Location[] {
  const found: Location[] = [];
  // The routers on the way to the current one: a router mounted inside itself is walked once per branch.
  const onPath = new Set<unknown>();
  const walk = (stack: readonly Layer[], prefix: Prefix): void => {
    for (const layer of stack) {
      const route = layer.route;
      if (route !== undefined) {
        for (const entry of route.stack ?? []) {
          if (entry.handle === handler)
            found.push(locationOf(joinPaths(prefix, routePath(route.path)), methodOf(entry)));
        }
        continue;
      }
      if (layer.handle === handler) found.push(locationOf(joinPaths(prefix, mountPathOf(layer)), undefined));
      const nested = stackOf(layer.handle);
      if (nested === undefined || onPath.has(layer.handle)) continue;
      onPath.add(layer.handle);
      walk(nested, joinPaths(prefix, mountPathOf(layer)));
      onPath.delete(layer.handle);
    }
  };
  const root = rootStackOf(app);
  if (root !== undefined) walk(root, { ok: true, path: '' });
  return found;
}

/** How many layers the app's own router holds: a cheap sign that the app has mounted something since. */
export function rootLayerCount(app: unknown): number {
  return rootStackOf(app)?.length ?? 0;
}

/** True when `target` is an Express app (a router is not): it runs a request from the top, prototypes and all. */
export function isExpressApp(target: unknown): boolean {
  const candidate = target as { handle?: unknown; set?: unknown; settings?: unknown };
  return (
    typeof target === 'function' &&
    typeof candidate.handle === 'function' &&
    typeof candidate.set === 'function' &&
    typeof candidate.settings === 'object'
  );
}

/**
 * An app that runs requests through `target`: the app itself, or, for a router, an app of our own that mounts
 * it, so its handlers get Express's request and response (a router alone would get the bare Node objects).
 * An app is never mounted in another, which would change its `parent`, `mountpath` and settings.
 */
export function appRunning(target: unknown): unknown {
  if (isExpressApp(target)) return target;
  const host = express();
  host.use(target as RequestHandler);
  return host;
}

/**
 * An app of its own for handlers that no app route holds (a decorated controller method): they answer
 * `method` at `path`, with JSON bodies parsed.
 */
export function appOfHandlers(method: string, path: string, handlers: readonly RequestHandler[]): unknown {
  const app = express();
  app.use(express.json());
  (app as unknown as Record<string, (path: string, ...handlers: RequestHandler[]) => void>)[method.toLowerCase()]?.(
    path,
    ...handlers,
  );
  return app;
}

/** The app serving a request (`req.app`, set by Express on every request it routes). */
export function appOf(req: unknown): unknown {
  return (req as { app?: unknown }).app;
}

/**
 * Whether Express trusts the connection's peer as a proxy (the `trust proxy` setting), as it asks before reading
 * `X-Forwarded-Proto` for `req.protocol` and `X-Forwarded-Host` for `req.hostname`; false outside Express.
 */
export function trustsPeerAsProxy(req: { readonly socket?: { readonly remoteAddress?: string } }): boolean {
  const app = appOf(req) as { get?: (setting: string) => unknown } | undefined;
  const trust = typeof app?.get === 'function' ? app.get('trust proxy fn') : undefined;
  return typeof trust === 'function' && trust(req.socket?.remoteAddress, 0) === true;
}

/**
 * Express hands a mounted router each request through `Router#handle`, which parses the URL again, matches
 * each layer and saves and restores `req.baseUrl`, `req.next` and `req.params`, on every request. While the stack holds only the router's two layers, the request
 * goes to them directly, as `Router#handle` would send it: `serve`, then `onError` for an error, then out.
 * Once the host adds to the stack (`mcp.use`, `mcp.get`, …), Express's own `handle` runs it all.
 *
 * @param router - a router whose stack holds `serve` and `onError`, and nothing else yet
 */
export function runOwnLayersDirectly(router: Router, serve: RequestHandler, onError: ErrorRequestHandler): void {
  const target = router as unknown as { handle: RequestHandler; stack: unknown[] };
  const ownLayers = target.stack.length;
  const expressHandle = target.handle;
  target.handle = function handle(req, res, out) {
    // Without a callback (the router called as a bare request listener), Express's handle says what is wrong.
    if (target.stack.length !== ownLayers || typeof out !== 'function') {
      expressHandle.call(router, req, res, out);
      return;
    }
    // 'route' and 'router' leave this router without an error, as Express treats them.
    serve(req, res, (err?: unknown) => {
      if (err === undefined || err === null || err === 'route' || err === 'router') out();
      else {
        try {
          onError(err, req, res, out);
        } catch (failure) {
          out(failure);
        }
      }
    });
  };
}

/**
 * Express's own `router.route(path)` for `router`, to keep serving paths when the router's `route` is replaced
 * (`mcp.route(meta, ...handlers)`): `Router#get` and its kin call `this.route(path)`.
 */
export function expressRouteOf(router: Router): (path: string) => unknown {
  const route = (Object.getPrototypeOf(router) as { route(path: string): unknown }).route;
  return (path) => route.call(router, path);
}

function rootStackOf(app: unknown): readonly Layer[] | undefined {
  if (typeof app !== 'function') return undefined;
  const host = app as { lazyrouter?: unknown; _router?: unknown; router?: unknown };
  // Express 4 throws from its `app.router` getter; its router is `_router`, made on first use.
  return stackOf(typeof host.lazyrouter === 'function' ? host._router : host.router);
}

function stackOf(target: unknown): readonly Layer[] | undefined {
  const stack = (target as { stack?: unknown } | undefined)?.stack;
  return (typeof target === 'function' || typeof target === 'object') && Array.isArray(stack)
    ? (stack as Layer[])
    : undefined;
}

function methodOf(layer: Layer): string | undefined {
  return typeof layer.method === 'string' ? layer.method : undefined;
}

function routePath(path: unknown): Prefix {
  return typeof path === 'string'
    ? { ok: true, path }
    : { ok: false, reason: 'its route path is a RegExp or an array' };
}

function joinPaths(prefix: Prefix, next: Prefix): Prefix {
  if (!prefix.ok) return prefix;
  if (!next.ok) return next;
  const base = prefix.path.replace(/\/+$/, '');
  if (next.path === '' || next.path === '/') return { ok: true, path: base === '' ? '/' : base };
  return { ok: true, path: base + (next.path.startsWith('/') ? next.path : `/${next.path}`) };
}

function locationOf(prefix: Prefix, method: string | undefined): Location {
  return prefix.ok
    ? { ok: true, path: prefix.path === '' ? '/' : prefix.path, method }
    : { ok: false, reason: prefix.reason, method };
}

/** The path a `use` layer (middleware or router) is mounted at, as declared. */
function mountPathOf(layer: Layer): Prefix {
  if (typeof layer.rawPath === 'string') return { ok: true, path: layer.rawPath };
  if (layer.rawPath !== undefined)
    return { ok: false, reason: 'a router on its way is mounted at a RegExp or an array of paths' };
  if (layer.regexp instanceof RegExp && Array.isArray(layer.keys)) {
    const path = express4MountPath(layer.regexp, layer.keys as ReadonlyArray<{ name?: unknown; optional?: unknown }>);
    return path === undefined
      ? {
          ok: false,
          reason: `a router on its way is mounted at a path this module cannot read back (${String(layer.regexp)})`,
        }
      : { ok: true, path };
  }
  return { ok: false, reason: 'this Express keeps no mount paths (Express 5 needs router 2.3 or later)' };
}

/** path-to-regexp 0.1's `/:name` and `/:name?` as they appear in a regexp's source. */
const EXPRESS4_PARAM = /\(\?:\\\/\(\[\^\\?\/\]\+\?\)\)(\?)?/g;
/** The end of a mount regexp (`end: false`): an optional slash unless strict, then a slash or the end. */
const EXPRESS4_MOUNT = /^\^(.*?)(?:\\\/\?)?\(\?=\\\/\|\$\)$/s;

/**
 * The path an Express 4 `use` layer was declared with, read back from the regexp path-to-regexp 0.1 made of it:
 * literal text and plain `:name`/`:name?` parameters. Anything else (a custom pattern, `*`, a RegExp) gives
 * undefined. The result is checked: a sample URL made from it must match the layer's regexp.
 */
function express4MountPath(
  regexp: RegExp,
  keys: ReadonlyArray<{ name?: unknown; optional?: unknown }>,
): string | undefined {
  if ((regexp as { fast_slash?: unknown }).fast_slash === true) return '';
  const body = EXPRESS4_MOUNT.exec(regexp.source)?.[1];
  if (body === undefined) return undefined;
  let index = 0;
  let unreadable = false;
  const withParams = body.replace(EXPRESS4_PARAM, (_match, optional: string | undefined) => {
    const key = keys[index++];
    if (typeof key?.name !== 'string' || (key.optional === true) !== (optional === '?')) unreadable = true;
    return `\u0000${String(key?.name)}${optional ?? ''}\u0001`;
  });
  const text = withParams.replace(/\\([/.\-])/g, '$1');
  if (unreadable || index !== keys.length || /[\\()[\]{}*+?|^$:]/.test(text.replace(/\u0000[^\u0001]*\u0001/g, '')))
    return undefined;
  const path = text.replace(/\u0000([^\u0001]*)\u0001/g, '/:$1');
  const sample = path.replace(/:[^/]+/g, 'x').replace(/\?/g, '');
  return regexp.test(sample) ? path : undefined;
}
