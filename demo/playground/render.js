// Rendering of what the server sends: content blocks, tool results, resource contents, prompt messages, errors.

import { el, jsonBlock } from './dom.js';
import { HttpError, NetworkError, RpcError } from './mcp-client.js';

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** A data: URL for base64 `data` of a media type, or undefined when either looks wrong. */
function dataUrl(mimeType, data, kind) {
  if (typeof data !== 'string' || !BASE64.test(data)) return undefined;
  const type = typeof mimeType === 'string' && new RegExp(`^${kind}/[\\w.+-]+$`).test(mimeType) ? mimeType : undefined;
  return type && `data:${type};base64,${data.replace(/\s/g, '')}`;
}

/** Text, pretty-printed when it is JSON. */
function textBlock(text, mimeType) {
  if (typeof text !== 'string') return jsonBlock(text);
  if (mimeType === undefined || /json/.test(mimeType)) {
    try {
      return el('pre', { class: 'text' }, JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      // not JSON: as is
    }
  }
  return el('pre', { class: 'text' }, text);
}

/** Binary resource contents: an image, audio, or a download link. */
function blobBlock(blob, mimeType, uri) {
  const image = dataUrl(mimeType, blob, 'image');
  if (image) return el('img', { src: image, alt: `${mimeType} from ${uri ?? 'the server'}` });
  const audio = dataUrl(mimeType, blob, 'audio');
  if (audio) return el('audio', { controls: true, src: audio });
  if (typeof blob !== 'string' || !BASE64.test(blob)) return jsonBlock(blob);
  const bytes = Uint8Array.from(atob(blob.replace(/\s/g, '')), (c) => c.charCodeAt(0));
  const href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  return el(
    'p',
    {},
    `${bytes.length} bytes (${mimeType ?? 'binary'}) `,
    el('a', { href, download: 'resource.bin' }, 'download'),
  );
}

/**
 * One content block (MCP ContentBlock).
 *
 * @param {any} block - `{ type: 'text' | 'image' | 'audio' | 'resource_link' | 'resource', … }`
 * @param {{ onReadResource?: (uri: string) => void }} [options] - makes resource links readable
 * @returns {HTMLElement}
 */
export function renderBlock(block, { onReadResource } = {}) {
  const wrap = el('div', {
    class: `block block-${block?.type ?? 'unknown'}`,
    'data-testid': 'content-block',
    'data-type': String(block?.type),
  });
  if (block?.type === 'text') wrap.append(textBlock(block.text, 'text/plain'));
  else if (block?.type === 'image' || block?.type === 'audio') {
    const src = dataUrl(block.mimeType, block.data, block.type);
    if (!src) wrap.append(el('p', { class: 'error-text' }, `Unreadable ${block.type} (${block.mimeType})`));
    else if (block.type === 'image')
      wrap.append(el('img', { src, alt: `${block.mimeType} image returned by the server` }));
    else wrap.append(el('audio', { controls: true, src }));
  } else if (block?.type === 'resource_link') {
    const head = el(
      'div',
      { class: 'link-head' },
      el('strong', {}, block.title ?? block.name ?? block.uri),
      ' ',
      el('code', {}, block.uri),
    );
    if (block.mimeType) head.append(' ', el('span', { class: 'muted' }, block.mimeType));
    wrap.append(head);
    if (block.description) wrap.append(el('p', { class: 'muted' }, block.description));
    if (onReadResource && typeof block.uri === 'string') {
      const button = el('button', { type: 'button', class: 'small' }, 'Read');
      button.setAttribute('aria-label', `Read ${block.uri}`);
      button.addEventListener('click', () => onReadResource(block.uri));
      wrap.append(button);
    }
  } else if (block?.type === 'resource' && block.resource) {
    wrap.append(el('div', { class: 'link-head' }, 'Embedded ', el('code', {}, block.resource.uri)));
    wrap.append(
      'text' in block.resource
        ? textBlock(block.resource.text, block.resource.mimeType)
        : blobBlock(block.resource.blob, block.resource.mimeType, block.resource.uri),
    );
  } else wrap.append(jsonBlock(block));
  return wrap;
}

/** A `tools/call` result: content blocks, structuredContent, and isError styled as an error. */
export function renderToolResult(result, options) {
  const box = el('div', {
    class: `result${result.isError ? ' is-error' : ''}`,
    'data-testid': 'result',
    'data-is-error': String(result.isError === true),
  });
  if (result.isError) {
    box.setAttribute('role', 'alert');
    box.append(el('h4', {}, 'The tool reported an error (isError: true)'));
  } else box.append(el('h4', {}, 'Result'));
  const content = Array.isArray(result.content) ? result.content : [];
  if (content.length === 0) box.append(el('p', { class: 'muted' }, 'No content blocks.'));
  for (const block of content) box.append(renderBlock(block, options));
  if (result.structuredContent !== undefined) {
    box.append(el('h5', {}, 'structuredContent'), jsonBlock(result.structuredContent, 'json structured'));
    box.lastElementChild.dataset.testid = 'structured-content';
  }
  if (result._meta !== undefined) box.append(el('h5', {}, '_meta'), jsonBlock(result._meta));
  return box;
}

/** A `resources/read` result: each content with its URI and type. */
export function renderResourceContents(result) {
  const box = el('div', { class: 'result', 'data-testid': 'resource-contents' });
  for (const content of Array.isArray(result.contents) ? result.contents : []) {
    box.append(
      el(
        'div',
        { class: 'link-head' },
        el('code', {}, content.uri),
        content.mimeType ? el('span', { class: 'muted' }, ` ${content.mimeType}`) : null,
      ),
    );
    box.append(
      'text' in content
        ? textBlock(content.text, content.mimeType)
        : blobBlock(content.blob, content.mimeType, content.uri),
    );
  }
  if (box.childElementCount === 0) box.append(el('p', { class: 'muted' }, 'No contents.'));
  return box;
}

/** A `prompts/get` result: its description and messages. */
export function renderPromptResult(result, options) {
  const box = el('div', { class: 'result', 'data-testid': 'prompt-messages' });
  if (result.description) box.append(el('p', {}, result.description));
  for (const message of Array.isArray(result.messages) ? result.messages : []) {
    const item = el('div', {
      class: `message role-${message.role === 'assistant' ? 'assistant' : 'user'}`,
      'data-testid': 'prompt-message',
    });
    item.append(el('div', { class: 'role' }, String(message.role)), renderBlock(message.content, options));
    box.append(item);
  }
  return box;
}

const RPC_ERROR_NAMES = {
  '-32700': 'Parse error',
  '-32600': 'Invalid request',
  '-32601': 'Method not found',
  '-32602': 'Invalid params',
  '-32603': 'Internal error',
  '-32002': 'Resource not found',
  '-32000': 'Server error',
};

const HTTP_ERRORS = {
  400: ['Bad request', 'The server could not accept the request as sent.'],
  401: [
    'Unauthorized',
    'The server refused the bearer token. Check the Token field: the demo prints a link carrying it after #token=.',
  ],
  403: ['Forbidden', 'The server refused this origin, host or token scope.'],
  404: [
    'Session expired or unknown',
    'The server no longer knows this session (it expired, was deleted, or the server restarted). Reconnect to start a new one.',
  ],
  405: ['Method not allowed', 'The endpoint does not accept this HTTP method.'],
  406: ['Not acceptable', 'The server accepts neither JSON nor SSE replies for this request.'],
  409: ['Conflict', 'Another stream is already open for this session.'],
  413: ['Request too large', 'The message is over the server’s body limit.'],
  415: ['Unsupported media type', 'The server wants Content-Type: application/json.'],
  429: ['Too many requests', 'The server’s rate limit was reached.'],
};

/**
 * An error as an alert box: what failed, the server's message, and what to do.
 *
 * @param {unknown} err - an HttpError, RpcError, NetworkError or any Error
 * @param {{ action?: string, onReconnect?: () => void }} [options] - what was being done; a reconnect handler for 404
 * @returns {HTMLElement}
 */
export function renderError(err, { action, onReconnect } = {}) {
  const box = el('div', { class: 'error-box', role: 'alert', 'data-testid': 'error' });
  let title;
  const lines = [];
  if (err instanceof HttpError) {
    // Without a session to lose (initialize), a 404 means nothing answers at that URL.
    const notFound =
      err.status === 404 && !onReconnect
        ? ['Not found', 'Nothing answers MCP at this URL: check the endpoint.']
        : undefined;
    const [name, hint] = notFound ??
      HTTP_ERRORS[err.status] ?? [err.status >= 500 ? 'Server error' : 'HTTP error', undefined];
    title = `${name} (HTTP ${err.status})`;
    box.dataset.status = String(err.status);
    if (err.rpcMessage) lines.push(`Server said: ${err.rpcMessage}`);
    else if (typeof err.body === 'string' && err.body.trim() !== '')
      lines.push(`Server said: ${err.body.trim().slice(0, 300)}`);
    if (err.wwwAuthenticate) lines.push(`WWW-Authenticate: ${err.wwwAuthenticate}`);
    if (err.status === 429)
      lines.push(err.retryAfter ? `Retry after ${err.retryAfter} s.` : 'Wait a little, then retry.');
    if (hint) lines.push(hint);
  } else if (err instanceof RpcError) {
    title = `JSON-RPC error ${err.code}${RPC_ERROR_NAMES[String(err.code)] ? ` (${RPC_ERROR_NAMES[String(err.code)]})` : ''}`;
    box.dataset.code = String(err.code);
    lines.push(err.message);
  } else if (err instanceof NetworkError) {
    title = 'Network error';
    lines.push(err.message, 'Is the server running, and is the endpoint URL right?');
  } else {
    title = err instanceof Error && err.name === 'AbortError' ? 'Cancelled' : 'Error';
    lines.push(err instanceof Error ? err.message : String(err));
  }
  box.append(el('strong', {}, action ? `${action}: ${title}` : title));
  for (const line of lines) box.append(el('p', {}, line));
  if (err instanceof RpcError && err.data !== undefined) box.append(jsonBlock(err.data));
  if (err instanceof HttpError && err.status === 404 && onReconnect) {
    const button = el('button', { type: 'button', 'data-testid': 'reconnect' }, 'Reconnect');
    button.addEventListener('click', onReconnect);
    box.append(button);
  }
  return box;
}
