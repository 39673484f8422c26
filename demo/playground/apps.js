// The playground as an MCP Apps host (SEP-1865, io.modelcontextprotocol/ui): a tool that names a ui:// app gets it
// rendered under its result, through the sandbox proxy on another origin, wired with ext-apps' AppBridge.

import { el } from './dom.js';
import { renderError } from './render.js';

/** The extension the playground declares when it connects, so servers send tools their `_meta.ui`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** SEP-1865 "UI Resource Format": the only MIME type rendered as an app. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
const HOST_INFO = { name: 'express-mcp-router-playground', version: '0.1.0' };
const MAX_HEIGHT = 900;

/** SEP-1865 "Resource Discovery": the app a tool names, if any. */
export function appUriOf(tool) {
  const uri = tool?._meta?.ui?.resourceUri;
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** SEP-1865 "Visibility": who may call a tool; both the model and apps unless it says otherwise. */
function visibilityOf(tool) {
  const visibility = tool?._meta?.ui?.visibility;
  return Array.isArray(visibility) ? visibility : ['model', 'app'];
}

/** The model's tool list leaves out app-only tools; the host keeps them for the apps' calls. */
export const modelMayCall = (tool) => visibilityOf(tool).includes('model');
const appMayCall = (tool) => visibilityOf(tool).includes('app');

/** Where the demo serves the sandbox proxy (/playground/host.json), read once. */
let hostConfig;
async function sandboxUrl() {
  hostConfig ??= fetch('host.json', { cache: 'no-store' })
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({}));
  return (await hostConfig).sandboxUrl ?? undefined;
}

/** The bridge's transport, with every message in and out shown in the traffic panel. */
function logged(transport, traffic, uri) {
  const note = `app ${uri}`;
  const wrapper = {
    start: () => transport.start(),
    close: () => transport.close(),
    send(message, options) {
      traffic.add({ direction: 'out', message, note, source: 'app' });
      return transport.send(message, options);
    },
  };
  transport.onmessage = (message, extra) => {
    traffic.add({ direction: 'in', message, note, source: 'app' });
    wrapper.onmessage?.(message, extra);
  };
  transport.onerror = (error) => wrapper.onerror?.(error);
  transport.onclose = () => wrapper.onclose?.();
  return wrapper;
}

/**
 * Renders a tool's app for one call: reads its ui:// resource, loads it into the sandbox proxy, then sends it the
 * call's input and result once the view is initialized (SEP-1865 "Lifecycle"). The view's tools/call and
 * resources/read go to the server through the playground's session; tools whose visibility leaves out "app" are
 * refused.
 *
 * @param {{ client: object, tool: object, args: object, result: object, findTool: (name: string) => object | undefined, traffic: { add: Function } }} call
 * @returns {{ element: HTMLElement, close: () => void }}
 */
export function renderApp({ client, tool, args, result, findTool, traffic }) {
  const uri = appUriOf(tool);
  // SEP-1865 "Sandbox proxy": the outer frame keeps its own (other) origin, so it may run the proxy's script.
  const frame = el('iframe', {
    class: 'app-frame',
    'data-testid': 'app-frame',
    title: `App ${uri}`,
    sandbox: 'allow-scripts allow-same-origin allow-forms',
  });
  const box = el(
    'section',
    { class: 'app-view', 'data-testid': 'app-view', 'data-state': 'loading', 'data-uri': uri },
    el('h3', {}, 'App ', el('code', {}, uri)),
  );
  let bridge;
  const fail = (error) => {
    box.dataset.state = 'error';
    box.append(renderError(error, { action: `Rendering ${uri}` }));
  };

  async function start() {
    const url = await sandboxUrl();
    if (!url) throw new Error('This server names no sandbox page (host.json): the app cannot be rendered safely.');
    const [{ AppBridge, PostMessageTransport }, read] = await Promise.all([
      import('./app-bridge.js'),
      client.request('resources/read', { uri }),
    ]);
    const content = (read?.contents ?? []).find((item) => item.uri === uri);
    if (typeof content?.text !== 'string' || content.mimeType !== APP_MIME_TYPE)
      throw new Error(`${uri} is not an MCP App: expected text of type ${APP_MIME_TYPE}`);
    const ui = content._meta?.ui ?? {};
    box.append(frame);
    bridge = new AppBridge(null, HOST_INFO, {
      serverTools: {},
      serverResources: {},
      logging: {},
      sandbox: { csp: ui.csp, permissions: ui.permissions },
    });
    bridge.oncalltool = async (params) => {
      const target = findTool(params.name);
      if (!target || !appMayCall(target)) throw new Error(`The host refuses ${params.name}: not a tool apps may call`);
      return client.request('tools/call', params);
    };
    bridge.onreadresource = (params) => client.request('resources/read', params);
    bridge.addEventListener('sandboxready', () =>
      bridge.sendSandboxResourceReady({ html: content.text, csp: ui.csp, permissions: ui.permissions }).catch(fail),
    );
    bridge.addEventListener('initialized', async () => {
      try {
        await bridge.sendToolInput({ arguments: args });
        await bridge.sendToolResult(result);
        box.dataset.state = 'ready';
      } catch (error) {
        fail(error);
      }
    });
    bridge.addEventListener('sizechange', ({ height }) => {
      if (typeof height === 'number' && height > 0) frame.style.height = `${Math.min(height, MAX_HEIGHT)}px`;
    });
    bridge.addEventListener('loggingmessage', (params) =>
      traffic.add({ direction: 'note', message: params, note: `app log` }),
    );
    // Listening before the sandbox page loads, so its sandbox-proxy-ready is never missed.
    await bridge.connect(logged(new PostMessageTransport(frame.contentWindow, frame.contentWindow), traffic, uri));
    const sandbox = new URL(url);
    sandbox.searchParams.set('host', location.origin);
    // The page's CSP, and so the view's, is fixed by its URL before the view arrives (demo/apps/sandbox-csp.ts).
    sandbox.searchParams.set('csp', JSON.stringify(ui.csp ?? {}));
    frame.src = sandbox.href;
  }

  start().catch(fail);
  return { element: box, close: () => bridge?.close().catch(() => {}) };
}
