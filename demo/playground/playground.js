// The playground page: connection bar, session state, side panels and tabs; the item views live in views.js.

import { el, jsonBlock } from './dom.js';
import { McpClient } from './mcp-client.js';
import { finishSignIn, startSignIn } from './oauth.js';
import { APP_MIME_TYPE, UI_EXTENSION } from './apps.js';
import { createLogPanel, createTrafficPanel } from './panels.js';
import { renderError } from './render.js';
import { createSkillsTab } from './skills.js';
import { createViews } from './views.js';

const $ = (id) => document.getElementById(id);

/** The live connection, and per-call progress listeners keyed by progressToken. */
const state = { client: undefined, capabilities: {}, progress: new Map(), calls: new Set(), tools: new Map() };

const traffic = createTrafficPanel($('traffic-list'), $('expand-traffic'));
const logs = createLogPanel($('log-list'));
const views = createViews({ state, reconnect: () => connect(), selectTab, traffic });
const skills = createSkillsTab({
  state,
  selectTab,
  fail: (err, action) => renderError(err, { action, onReconnect: () => connect() }),
});

function setStatus(name, text) {
  $('status').dataset.state = name;
  $('status').textContent = text;
}

function showConnectionError(err, action, onReconnect) {
  $('connection-error').replaceChildren(renderError(err, { action, onReconnect }));
}

/** A client wired to the panels; `state.client` only once it is the live one. */
function makeClient() {
  const client = new McpClient({
    endpoint: $('endpoint').value.trim(),
    token: $('token').value.trim() || undefined,
    // SEP-1865 "Client capabilities": this host renders MCP Apps.
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } },
  });
  client.addEventListener('traffic', (event) => traffic.add(event.detail));
  client.addEventListener('notification', (event) => onNotification(event.detail.message));
  client.addEventListener('session-lost', (event) => {
    if (client !== state.client) return;
    client.streamController?.abort();
    setStatus('expired', 'Session expired: reconnect to start a new one');
    showConnectionError(event.detail.error, 'Session', () => connect());
  });
  client.addEventListener('stream', (event) => {
    if (client === state.client)
      logs.note(`GET stream ${event.detail.state}${event.detail.note ? `: ${event.detail.note}` : ''}`);
  });
  return client;
}

function onNotification(message) {
  const params = message.params ?? {};
  switch (message.method) {
    case 'notifications/progress':
      state.progress.get(params.progressToken)?.(params);
      break;
    case 'notifications/message':
      logs.log(params);
      break;
    case 'notifications/tools/list_changed':
      logs.note('the tool list changed');
      views.refreshTools();
      break;
    case 'notifications/resources/list_changed':
      logs.note('the resource list changed');
      views.refreshResources();
      break;
    case 'notifications/prompts/list_changed':
      logs.note('the prompt list changed');
      views.refreshPrompts();
      break;
    case 'notifications/resources/updated':
      logs.note(`resource updated: ${params.uri}`);
      break;
    default:
      logs.note(`notification ${message.method}`);
  }
}

function renderServerInfo(init, client) {
  const info = init.serverInfo ?? {};
  const box = $('server-info');
  const head = el(
    'div',
    { class: 'server-head' },
    el('strong', { 'data-testid': 'server-name' }, info.title ?? info.name ?? 'MCP server'),
    ` ${info.name ?? ''} ${info.version ?? ''}`,
  );
  const facts = el(
    'dl',
    { class: 'facts' },
    el('dt', {}, 'Protocol'),
    el('dd', {}, client.protocolVersion ?? '?'),
    el('dt', {}, 'Session'),
    el(
      'dd',
      {},
      client.sessionId ? el('code', { 'data-testid': 'session-id' }, client.sessionId) : 'none (stateless server)',
    ),
    el('dt', {}, 'Capabilities'),
    el('dd', {}, Object.keys(init.capabilities ?? {}).join(', ') || 'none'),
  );
  box.replaceChildren(head, facts);
  if (typeof info.websiteUrl === 'string' && /^https?:$/.test(new URL(info.websiteUrl, location.href).protocol)) {
    box.append(el('a', { href: info.websiteUrl, target: '_blank', rel: 'noopener noreferrer' }, info.websiteUrl));
  }
  if (typeof init.instructions === 'string')
    box.append(
      el('details', {}, el('summary', {}, 'Instructions'), el('p', { class: 'instructions' }, init.instructions)),
    );
}

/** Opens a new session (closing any previous one), then lists everything the server declares. */
async function connect() {
  const endpoint = $('endpoint').value.trim();
  try {
    new URL(endpoint);
  } catch {
    showConnectionError(new Error(`'${endpoint}' is not a URL`), 'Connect');
    return;
  }
  await disconnect({ quiet: true });
  const client = makeClient();
  state.client = client;
  $('connection-error').replaceChildren();
  setStatus('connecting', `Connecting to ${endpoint}…`);
  $('connect').disabled = true;
  try {
    const init = await client.connect();
    if (state.client !== client) return;
    state.capabilities = init.capabilities ?? {};
    setStatus('connected', `Connected · MCP ${client.protocolVersion}`);
    renderServerInfo(init, client);
    $('disconnect').disabled = false;
    $('log-level').disabled = !state.capabilities.logging;
    $('log-level').value = '';
    if ($('listen').checked && client.sessionId) client.listen();
    await Promise.all([views.refreshTools(), views.refreshResources(), views.refreshPrompts(), skills.refresh()]);
  } catch (err) {
    if (state.client !== client) return;
    state.client = undefined;
    setStatus('error', 'Not connected');
    showConnectionError(err, 'Connect');
  } finally {
    $('connect').disabled = false;
  }
}

/** Cancels running calls, closes the GET stream and DELETEs the session. */
async function disconnect({ quiet = false } = {}) {
  const client = state.client;
  state.client = undefined;
  state.capabilities = {};
  state.tools = new Map();
  for (const controller of state.calls) controller.abort(new DOMException('Cancelled: disconnected', 'AbortError'));
  views.clear();
  skills.clear();
  $('disconnect').disabled = true;
  $('log-level').disabled = true;
  if (!quiet) {
    $('server-info').replaceChildren(el('p', { class: 'muted' }, 'Disconnected.'));
    setStatus('disconnected', 'Disconnected');
  }
  if (!client) return;
  try {
    await client.close();
  } catch (err) {
    showConnectionError(err, 'Disconnect');
  }
}

/** OAuth sign-in (a server whose 401 names an authorization server): off to its sign-in page, back with a token. */
async function signIn() {
  const endpoint = $('endpoint').value.trim();
  setStatus('signing-in', `Signing in to ${endpoint}…`);
  $('sign-in').disabled = true;
  try {
    await startSignIn(endpoint);
  } catch (err) {
    setStatus('error', 'Not signed in');
    showConnectionError(err, 'Sign in');
    $('sign-in').disabled = false;
  }
}

/** Back from the sign-in page: the code redeemed, the access token in the token field, then connected as usual. */
async function resumeSignIn() {
  setStatus('signing-in', 'Signing in…');
  try {
    const signedIn = await finishSignIn();
    if (signedIn === undefined) return setStatus('disconnected', 'Disconnected');
    $('endpoint').value = signedIn.endpoint;
    $('token').value = signedIn.accessToken;
    connect();
  } catch (err) {
    setStatus('error', 'Not signed in');
    showConnectionError(err, 'Sign in');
  }
}

function selectTab(name) {
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const selected = tab.id === `tab-${name}`;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    $(tab.getAttribute('aria-controls')).hidden = !selected;
  }
}

function setUpTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  tabs.forEach((tab) => {
    tab.addEventListener('click', () => selectTab(tab.id.slice(4)));
    tab.addEventListener('keydown', (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      // A hidden tab (Skills, on a server without the extension) is skipped.
      const shown = tabs.filter((t) => !t.hidden);
      const at = shown.indexOf(tab);
      const next = shown[(at + step + shown.length) % shown.length];
      selectTab(next.id.slice(4));
      next.focus();
    });
  });
}

/** The manual box: any JSON-RPC message or batch, sent with the session's headers. */
async function sendManual(event) {
  event.preventDefault();
  const out = $('manual-result');
  let message;
  try {
    message = JSON.parse($('manual-message').value);
  } catch (err) {
    out.replaceChildren(
      renderError(new Error(`Not valid JSON: ${err instanceof Error ? err.message : err}`), { action: 'Send' }),
    );
    return;
  }
  const client = state.client ?? makeClient();
  const requests = (Array.isArray(message) ? message : [message]).filter(
    (m) => m && typeof m.method === 'string' && 'id' in m,
  );
  out.replaceChildren(el('p', { class: 'muted' }, 'Sending…'));
  try {
    const { status, responses } = await client.post(message, {
      wanted: requests.length > 0 ? new Set(requests.map((m) => m.id)) : undefined,
    });
    out.replaceChildren(
      el('p', {}, `HTTP ${status}${responses.length === 0 ? ' (no response)' : ''}`),
      ...responses.map((response) => jsonBlock(response)),
    );
    const id = /^manual-(\d+)$/.exec(String(message.id))?.[1];
    if (id) $('manual-message').value = JSON.stringify({ ...message, id: `manual-${Number(id) + 1}` });
  } catch (err) {
    out.replaceChildren(renderError(err, { action: 'Send', onReconnect: state.client ? () => connect() : undefined }));
  }
}

function init() {
  // The token travels in the fragment (#token=…), which the browser never sends to the server.
  const fragment = new URLSearchParams(location.hash.slice(1));
  $('endpoint').value = fragment.get('endpoint') ?? new URL('/mcp', location.origin).href;
  $('token').value = fragment.get('token') ?? '';
  $('manual-message').value = JSON.stringify({ jsonrpc: '2.0', id: 'manual-1', method: 'ping' });
  setUpTabs();
  views.clear();
  skills.clear();
  $('connect-form').addEventListener('submit', (event) => {
    event.preventDefault();
    connect();
  });
  $('disconnect').addEventListener('click', () => disconnect());
  $('sign-in').addEventListener('click', () => signIn());
  $('toggle-token').addEventListener('click', () => {
    const show = $('token').type === 'password';
    $('token').type = show ? 'text' : 'password';
    $('toggle-token').textContent = show ? 'Hide' : 'Show';
    $('toggle-token').setAttribute('aria-pressed', String(show));
    $('toggle-token').setAttribute('aria-label', show ? 'Hide the token' : 'Show the token');
  });
  $('log-level').addEventListener('change', async () => {
    const level = $('log-level').value;
    if (!level || !state.client) return;
    try {
      await state.client.request('logging/setLevel', { level });
      logs.note(`log level set to ${level}`);
    } catch (err) {
      logs.note(`logging/setLevel failed: ${err instanceof Error ? err.message : err}`, 'error');
    }
  });
  $('clear-log').addEventListener('click', () => logs.clear());
  $('clear-traffic').addEventListener('click', () => traffic.clear());
  $('manual-form').addEventListener('submit', sendManual);
  addEventListener('pagehide', () => state.client?.closeOnUnload());
  document.body.dataset.ready = 'true';
  $('connect').focus();
  // A link that carries a token (what `npm run demo` prints) means "connect to this": no click needed. A failure
  // shows in the connection bar exactly as after a click. With AUTH=oauth the link says #signin: sign in first.
  const query = new URLSearchParams(location.search);
  if (query.has('code') || query.has('error')) resumeSignIn();
  else if (fragment.has('signin')) signIn();
  else if ($('token').value) connect();
}

init();
