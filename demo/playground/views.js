// The explorer views: tool forms with calls, live progress and paid retries (x402), resources and templates, prompts.

import { appUriOf, modelMayCall, renderApp } from './apps.js';
import { el, jsonBlock } from './dom.js';
import { itemButton, listAll } from './lists.js';
import { RpcError } from './mcp-client.js';
import { grouped, upstreamOfName, upstreamOfUri } from './namespaces.js';
import { paymentRequired, renderPaymentRequired, renderSettlement } from './payment.js';
import { renderError, renderPromptResult, renderResourceContents, renderToolResult } from './render.js';
import { createSchemaForm } from './schema-form.js';
import { expandTemplate, templateVariables } from './uri-template.js';

const $ = (id) => document.getElementById(id);
const ANNOTATION_BADGES = {
  readOnlyHint: 'read-only',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'open world',
};

/** The heading above a group of one upstream's items. */
function groupHeading(prefix) {
  return el(
    'li',
    { class: 'group', 'data-testid': 'upstream-group', 'data-upstream': prefix },
    `${prefix} · mounted upstream`,
  );
}

function heading(item, kind, via) {
  const id = kind === 'resource' ? item.uri : kind === 'template' ? item.uriTemplate : item.name;
  const title = item.title ?? item.name ?? id;
  const head = el('header', { class: 'view-head' }, el('h2', {}, title));
  if (id !== title) head.append(el('code', { class: 'muted' }, id));
  if (via)
    head.append(
      el(
        'p',
        { class: 'via', 'data-testid': 'via' },
        `Served by the upstream mounted as "${via}" (the gateway forwards it).`,
      ),
    );
  if (item.description) head.append(el('p', { class: 'description' }, item.description));
  return head;
}

/**
 * @param {{ state: object, reconnect: () => void, selectTab: (name: string) => void, traffic: { add: Function } }} deps
 */
export function createViews({ state, reconnect, selectTab, traffic }) {
  const toolViews = new Map();
  let callCount = 0;
  // Upstream prefixes seen on tool and prompt names; a resource URI counts as an upstream's only with one of them.
  const namePrefixes = { tools: new Set(), prompts: new Set() };
  const namesLoading = { tools: Promise.resolve(), prompts: Promise.resolve() };
  const prefixesOf = (items) => new Set(items.map((item) => upstreamOfName(item.name)).filter(Boolean));

  const notConnected = () => renderError(new Error('Not connected: press Connect first.'));
  const fail = (err, action) => renderError(err, { action, onReconnect: reconnect });

  /** `completion/complete` for a prompt or template, when the server declares completions. */
  function completer(ref) {
    if (!state.capabilities.completions) return undefined;
    return async (name, value, values) => {
      if (!state.client) return [];
      const others = Object.fromEntries(
        Object.entries(values).filter(([key, v]) => key !== name && typeof v === 'string'),
      );
      const params = { ref, argument: { name, value } };
      if (Object.keys(others).length > 0) params.context = { arguments: others };
      const result = await state.client.request('completion/complete', params);
      return (result?.completion?.values ?? []).filter((v) => typeof v === 'string');
    };
  }

  /** Reads a resource into `output`. */
  async function readInto(output, uri) {
    if (!state.client) return output.replaceChildren(notConnected());
    output.replaceChildren(el('p', { class: 'muted' }, `Reading ${uri}…`));
    try {
      output.replaceChildren(renderResourceContents(await state.client.request('resources/read', { uri })));
    } catch (err) {
      output.replaceChildren(fail(err, `resources/read ${uri}`));
    }
  }

  /** The resource view (from the list, or a resource link in a tool result). */
  function showResource(resource) {
    selectTab('resources');
    const output = el('div', { class: 'output', 'data-testid': 'resource-output', 'aria-live': 'polite' });
    const view = el(
      'article',
      { class: 'view', 'data-testid': 'resource-view' },
      heading(resource, 'resource', resource.via),
    );
    if (resource.mimeType) view.append(el('p', { class: 'muted' }, resource.mimeType));
    const actions = el('div', { class: 'buttons' });
    const reread = el('button', { type: 'button', 'data-testid': 'read-resource' }, 'Read again');
    reread.addEventListener('click', () => readInto(output, resource.uri));
    actions.append(reread);
    if (state.capabilities.resources?.subscribe) {
      const subscribe = el('button', { type: 'button', 'aria-pressed': 'false' }, 'Subscribe');
      subscribe.addEventListener('click', async () => {
        const on = subscribe.getAttribute('aria-pressed') !== 'true';
        try {
          await state.client?.request(on ? 'resources/subscribe' : 'resources/unsubscribe', { uri: resource.uri });
          subscribe.setAttribute('aria-pressed', String(on));
          subscribe.textContent = on ? 'Unsubscribe' : 'Subscribe';
        } catch (err) {
          output.replaceChildren(fail(err, 'resources/subscribe'));
        }
      });
      actions.append(subscribe);
    }
    view.append(actions, output);
    $('resource-detail').replaceChildren(view);
    readInto(output, resource.uri);
  }

  function showTemplate(template) {
    const names = templateVariables(template.uriTemplate);
    const schema = {
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
      required: names,
      additionalProperties: false,
    };
    const form = createSchemaForm(schema, { complete: completer({ type: 'ref/resource', uri: template.uriTemplate }) });
    const preview = el('code', { 'data-testid': 'expanded-uri' }, template.uriTemplate);
    const output = el('div', { class: 'output', 'data-testid': 'resource-output', 'aria-live': 'polite' });
    const formEl = el(
      'form',
      { novalidate: true, 'aria-label': `Variables of ${template.uriTemplate}` },
      form.element,
      el('p', {}, 'URI: ', preview),
      el(
        'div',
        { class: 'buttons' },
        el('button', { type: 'submit', class: 'primary', 'data-testid': 'read-template' }, 'Read'),
      ),
    );
    const expanded = () => expandTemplate(template.uriTemplate, form.read().value);
    formEl.addEventListener('input', () => (preview.textContent = expanded()));
    formEl.addEventListener('submit', (event) => {
      event.preventDefault();
      readInto(output, expanded());
    });
    const view = el(
      'article',
      { class: 'view', 'data-testid': 'template-view' },
      heading(template, 'template', template.via),
      formEl,
      output,
    );
    $('resource-detail').replaceChildren(view);
  }

  function showPrompt(prompt) {
    const args = Array.isArray(prompt.arguments) ? prompt.arguments : [];
    const schema = {
      type: 'object',
      properties: Object.fromEntries(
        args.map((arg) => [arg.name, { type: 'string', title: arg.title, description: arg.description }]),
      ),
      required: args.filter((arg) => arg.required).map((arg) => arg.name),
      additionalProperties: false,
    };
    const form = createSchemaForm(schema, { complete: completer({ type: 'ref/prompt', name: prompt.name }) });
    const output = el('div', { class: 'output', 'data-testid': 'prompt-result', 'aria-live': 'polite' });
    const formEl = el(
      'form',
      { novalidate: true, 'data-testid': 'prompt-form', 'aria-label': `Arguments of ${prompt.name}` },
      form.element,
      el(
        'div',
        { class: 'buttons' },
        el('button', { type: 'submit', class: 'primary', 'data-testid': 'get-prompt' }, 'Get prompt'),
      ),
    );
    formEl.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!state.client) return output.replaceChildren(notConnected());
      output.replaceChildren(el('p', { class: 'muted' }, 'Getting…'));
      try {
        const result = await state.client.request('prompts/get', { name: prompt.name, arguments: form.read().value });
        output.replaceChildren(renderPromptResult(result, { onReadResource }));
      } catch (err) {
        output.replaceChildren(fail(err, `prompts/get ${prompt.name}`));
      }
    });
    $('prompt-detail').replaceChildren(
      el(
        'article',
        { class: 'view', 'data-testid': 'prompt-view' },
        heading(prompt, 'prompt', upstreamOfName(prompt.name)),
        formEl,
        output,
      ),
    );
  }

  const onReadResource = (uri) => showResource({ uri, name: uri });

  /** A tool's view: its schema-driven form, a progress bar fed by notifications/progress, and the result. */
  function createToolView(tool) {
    const form = createSchemaForm(tool.inputSchema ?? {});
    const call = el('button', { type: 'submit', class: 'primary', 'data-testid': 'call-tool' }, 'Call tool');
    const cancel = el('button', { type: 'button', 'data-testid': 'cancel-call', hidden: true }, 'Cancel');
    const bar = el('progress', { max: '1', value: '0', 'aria-label': `Progress of ${tool.name}` });
    const progressText = el('span', { class: 'progress-text', 'data-testid': 'progress-text' });
    const progress = el(
      'div',
      { class: 'progress', 'data-testid': 'progress', 'data-updates': '0', hidden: true },
      bar,
      progressText,
    );
    const output = el('div', { class: 'output', 'data-testid': 'tool-result', 'aria-live': 'polite' });
    const formEl = el(
      'form',
      { class: 'tool-form', novalidate: true, 'data-testid': 'tool-form', 'aria-label': `Arguments of ${tool.name}` },
      form.element,
      el('div', { class: 'buttons' }, call, cancel),
    );
    const head = heading(tool, 'tool', upstreamOfName(tool.name));
    const badges = Object.entries(ANNOTATION_BADGES).filter(([key]) => tool.annotations?.[key] === true);
    if (badges.length > 0)
      head.append(el('p', { class: 'badges' }, ...badges.map(([, text]) => el('span', { class: 'badge' }, text))));
    const schemas = el(
      'details',
      { class: 'schemas' },
      el('summary', {}, 'Schemas'),
      el('h3', {}, 'inputSchema'),
      jsonBlock(tool.inputSchema ?? {}),
    );
    if (tool.outputSchema) schemas.append(el('h3', {}, 'outputSchema'), jsonBlock(tool.outputSchema));
    let controller;
    let app; // the app rendered for the last call, if the tool has one
    cancel.addEventListener('click', () =>
      controller?.abort(new DOMException('Cancelled: the server was sent notifications/cancelled', 'AbortError')),
    );
    formEl.addEventListener('submit', (event) => {
      event.preventDefault();
      const { value, errors } = form.read();
      if (errors.length > 0) {
        output.replaceChildren(
          el(
            'div',
            { class: 'error-box', role: 'alert', 'data-testid': 'error' },
            el('strong', {}, 'Fix these arguments first'),
            el('ul', {}, ...errors.map((e) => el('li', {}, e))),
          ),
        );
        return;
      }
      callTool(value);
    });
    /** One tools/call; `meta` goes in its `_meta` (a paid retry's payment). A payment-required result offers that retry. */
    async function callTool(value, meta) {
      const client = state.client;
      if (!client) return output.replaceChildren(notConnected());
      const token = `${tool.name}-${++callCount}`;
      controller = new AbortController();
      state.calls.add(controller);
      Object.assign(progress.dataset, { updates: '0', percent: '0' });
      progress.hidden = true;
      state.progress.set(token, (params) => {
        progress.hidden = false;
        progress.dataset.updates = String(Number(progress.dataset.updates) + 1);
        if (typeof params.total === 'number' && params.total > 0) {
          bar.max = params.total;
          bar.value = params.progress;
          progress.dataset.percent = String(Math.round((params.progress / params.total) * 100));
        } else bar.removeAttribute('value');
        progressText.textContent = `${params.progress}${typeof params.total === 'number' ? ` / ${params.total}` : ''}${params.message ? ` · ${params.message}` : ''}`;
      });
      call.disabled = true;
      cancel.hidden = false;
      output.replaceChildren(el('p', { class: 'muted' }, `Calling ${tool.name}…`));
      const started = performance.now();
      try {
        const result = await client.request(
          'tools/call',
          { name: tool.name, arguments: value },
          { signal: controller.signal, progressToken: token, meta },
        );
        const shown = [renderToolResult(result, { onReadResource })];
        const required = paymentRequired(result);
        if (required) shown.push(renderPaymentRequired(required, (payment) => callTool(value, payment)));
        app?.close();
        app = undefined;
        if (appUriOf(tool) && !result?.isError) {
          app = renderApp({ client, tool, args: value, result, findTool: (name) => state.tools.get(name), traffic });
          shown.push(app.element);
        }
        shown.push(
          renderSettlement(result),
          el('p', { class: 'muted elapsed' }, `${Math.round(performance.now() - started)} ms`),
        );
        output.replaceChildren(...shown.filter(Boolean));
      } catch (err) {
        output.replaceChildren(fail(err, `tools/call ${tool.name}`));
      } finally {
        state.progress.delete(token);
        state.calls.delete(controller);
        call.disabled = false;
        cancel.hidden = true;
      }
    }
    return el(
      'article',
      { class: 'view', 'data-testid': 'tool-view', 'data-tool': tool.name },
      head,
      formEl,
      schemas,
      progress,
      output,
    );
  }

  function showTool(tool) {
    const signature = JSON.stringify(tool);
    let entry = toolViews.get(tool.name);
    if (!entry || entry.signature !== signature) {
      entry = { signature, element: createToolView(tool) };
      toolViews.set(tool.name, entry);
    }
    $('tool-detail').replaceChildren(entry.element);
  }

  /** Fills a list from a list method, or says why it cannot. */
  async function refresh({ capability, list, count, load, empty }) {
    const client = state.client;
    if (!client) return;
    if (!state.capabilities[capability]) {
      list.replaceChildren(el('li', { class: 'muted' }, empty));
      count.textContent = '0';
      return;
    }
    try {
      const loaded = await load(client);
      if (client !== state.client) return;
      const items = Array.isArray(loaded) ? loaded : loaded.items;
      list.replaceChildren(...items);
      count.textContent = String(Array.isArray(loaded) ? items.length : loaded.total);
      if (items.length === 0) list.append(el('li', { class: 'muted' }, empty));
    } catch (err) {
      if (client === state.client) list.replaceChildren(el('li', {}, fail(err, `listing ${capability}`)));
    }
  }

  const refreshTools = () =>
    (namesLoading.tools = refresh({
      capability: 'tools',
      list: $('tool-list'),
      count: $('count-tools'),
      empty: 'No tools.',
      load: async (client) => {
        const all = await listAll(client, 'tools/list', 'tools');
        // SEP-1865 "Visibility": app-only tools are kept for the apps' calls, never listed for the model (or you).
        state.tools = new Map(all.map((tool) => [tool.name, tool]));
        const tools = all.filter(modelMayCall);
        const current = $('tool-detail').querySelector('[data-tool]')?.dataset.tool;
        const replaced = tools.find((tool) => tool.name === current);
        if (replaced) showTool(replaced);
        namePrefixes.tools = prefixesOf(tools);
        const render = (tool, via) => {
          const badges = Object.entries(ANNOTATION_BADGES)
            .filter(([key]) => tool.annotations?.[key] === true)
            .map(([, text]) => text);
          return itemButton(
            'tool-item',
            tool.name,
            tool.name,
            tool.title ?? tool.description?.split('\n')[0],
            badges,
            () => showTool(tool),
            via,
          );
        };
        // The count is of tools, not of the group headings between them.
        return {
          total: tools.length,
          items: grouped(tools, (tool) => upstreamOfName(tool.name), render, groupHeading),
        };
      },
    }));

  const refreshResources = () =>
    refresh({
      capability: 'resources',
      list: $('resource-list'),
      count: $('count-resources'),
      empty: 'No resources.',
      load: async (client) => {
        const resources = await listAll(client, 'resources/list', 'resources');
        let templates = [];
        try {
          templates = await listAll(client, 'resources/templates/list', 'resourceTemplates');
        } catch (err) {
          if (!(err instanceof RpcError && err.code === -32601)) throw err;
        }
        // Which prefixes are upstreams is known from the tool and prompt names, listed at the same time.
        await Promise.allSettled([namesLoading.tools, namesLoading.prompts]);
        const known = new Set([...namePrefixes.tools, ...namePrefixes.prompts]);
        const templateVia = (t) => upstreamOfUri(t.uriTemplate, known);
        const resourceVia = (r) => upstreamOfUri(r.uri, known);
        $('template-list').replaceChildren(
          ...grouped(
            templates,
            templateVia,
            (t, via) =>
              itemButton(
                'template-item',
                t.uriTemplate,
                t.title ?? t.name,
                t.uriTemplate,
                [],
                () => showTemplate({ ...t, via }),
                via,
              ),
            groupHeading,
          ),
          ...(templates.length === 0 ? [el('li', { class: 'muted' }, 'No templates.')] : []),
        );
        const render = (r, via) =>
          itemButton(
            'resource-item',
            r.uri,
            r.title ?? r.name ?? r.uri,
            r.uri,
            r.mimeType ? [r.mimeType] : [],
            () => showResource({ ...r, via }),
            via,
          );
        // The tab counts everything it lists: resources and templates.
        return {
          total: resources.length + templates.length,
          items: grouped(resources, resourceVia, render, groupHeading),
        };
      },
    });

  const refreshPrompts = () =>
    (namesLoading.prompts = refresh({
      capability: 'prompts',
      list: $('prompt-list'),
      count: $('count-prompts'),
      empty: 'No prompts.',
      load: async (client) => {
        const prompts = await listAll(client, 'prompts/list', 'prompts');
        namePrefixes.prompts = prefixesOf(prompts);
        const render = (p, via) =>
          itemButton('prompt-item', p.name, p.name, p.title ?? p.description, [], () => showPrompt(p), via);
        return { total: prompts.length, items: grouped(prompts, (p) => upstreamOfName(p.name), render, groupHeading) };
      },
    }));

  function clear() {
    toolViews.clear();
    namePrefixes.tools = new Set();
    namePrefixes.prompts = new Set();
    for (const id of ['tool-list', 'resource-list', 'template-list', 'prompt-list']) $(id).replaceChildren();
    for (const id of ['count-tools', 'count-resources', 'count-prompts']) $(id).textContent = '';
    $('tool-detail').replaceChildren(el('p', { class: 'muted' }, 'Pick a tool to see its form.'));
    $('resource-detail').replaceChildren(
      el('p', { class: 'muted' }, 'Pick a resource to read it, or a template to fill in.'),
    );
    $('prompt-detail').replaceChildren(el('p', { class: 'muted' }, 'Pick a prompt to fill in its arguments.'));
  }

  return { refreshTools, refreshResources, refreshPrompts, clear };
}
