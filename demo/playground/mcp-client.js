// A small MCP Streamable HTTP client for the browser: JSON-RPC over POST, replies as JSON or SSE, the GET stream.

/** The MCP revision the playground asks for. */
export const PROTOCOL_VERSION = '2025-11-25';

/** A reply that was not 2xx; carries what the page needs to explain it (status, challenge, Retry-After). */
export class HttpError extends Error {
  /**
   * @param {Response} response - the failed response
   * @param {unknown} body - its parsed JSON body (a JSON-RPC error envelope), or its text
   */
  constructor(response, body) {
    const rpcMessage =
      body && typeof body === 'object' && body.error && typeof body.error.message === 'string'
        ? body.error.message
        : undefined;
    super(
      `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${rpcMessage ? `: ${rpcMessage}` : ''}`,
    );
    this.name = 'HttpError';
    this.status = response.status;
    this.body = body;
    this.rpcMessage = rpcMessage;
    this.wwwAuthenticate = response.headers.get('WWW-Authenticate');
    this.retryAfter = response.headers.get('Retry-After');
  }
}

/** A JSON-RPC error response to one of our requests. */
export class RpcError extends Error {
  /** @param {{ code: number, message: string, data?: unknown }} error - the response's `error` member */
  constructor(error) {
    super(error.message);
    this.name = 'RpcError';
    this.code = error.code;
    this.data = error.data;
  }
}

/** The request never got an HTTP answer (server down, wrong URL, CORS refused). */
export class NetworkError extends Error {
  constructor(url, cause) {
    super(`Could not reach ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'NetworkError';
  }
}

/**
 * Reads Server-Sent Events from a fetch body, incrementally (HTML Living Standard, "event stream interpretation"):
 * lines end in CRLF, LF or CR; `data:` lines are joined with "\n"; a blank line dispatches; comments are skipped.
 *
 * @param {ReadableStream<Uint8Array>} body - the response body
 * @returns {AsyncGenerator<{ id: string | undefined, event: string, data: string, retry: number | undefined }>}
 */
export async function* readSse(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data = [];
  let event = '';
  let id;
  let retry;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A trailing CR may be the first half of CRLF: keep it until the next chunk says.
      let match;
      const lineBreak = /\r\n|\n|\r(?!$)/g;
      let start = 0;
      while ((match = lineBreak.exec(buffer)) !== null) {
        const line = buffer.slice(start, match.index);
        start = match.index + match[0].length;
        if (line === '') {
          // Yielded even with empty data: a priming event carries the id and retry a resumption needs.
          if (data.length > 0 || retry !== undefined)
            yield { id, event: event || 'message', data: data.join('\n'), retry };
          data = [];
          event = '';
          retry = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
      buffer = buffer.slice(start);
      if (done) return;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function isResponse(message) {
  return (
    message && typeof message === 'object' && !('method' in message) && ('result' in message || 'error' in message)
  );
}

/**
 * One connection to an MCP endpoint. Emits `traffic` ({ direction, message, note }) for every message in or out,
 * `notification` ({ message }) for server notifications, `session-lost` when the server forgets the session,
 * and `stream` ({ state, note }) for the GET stream.
 */
export class McpClient extends EventTarget {
  /**
   * @param {{ endpoint: string, token?: string, clientInfo?: { name: string, version: string }, capabilities?: object }} options
   */
  constructor({
    endpoint,
    token,
    clientInfo = { name: 'express-mcp-router-playground', version: '0.1.0' },
    capabilities = {},
  }) {
    super();
    this.capabilities = capabilities;
    this.endpoint = endpoint;
    this.token = token;
    this.clientInfo = clientInfo;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.serverInfo = undefined;
    this.nextId = 1;
    this.streamController = undefined;
    this.closing = false;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  headers(extra) {
    const headers = { ...extra };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.sessionId) headers['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion) headers['MCP-Protocol-Version'] = this.protocolVersion;
    return headers;
  }

  async httpFetch(init, note) {
    let response;
    try {
      response = await fetch(this.endpoint, { ...init, cache: 'no-store' });
    } catch (err) {
      if (err && err.name === 'AbortError') throw err;
      const error = new NetworkError(this.endpoint, err);
      this.emit('traffic', { direction: 'error', message: { error: error.message }, note });
      throw error;
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    let body = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    const error = new HttpError(response, body);
    this.emit('traffic', {
      direction: 'in',
      message: body,
      note: `HTTP ${response.status}${error.wwwAuthenticate ? ` · WWW-Authenticate: ${error.wwwAuthenticate}` : ''}`,
    });
    if (response.status === 404 && this.sessionId && !this.closing) this.emit('session-lost', { error });
    throw error;
  }

  /**
   * POSTs one JSON-RPC message (or a batch) and returns the responses it gets back, dispatching notifications and
   * answering server requests as they arrive on an SSE reply.
   *
   * @param {object | object[]} message - what to send
   * @param {{ signal?: AbortSignal, wanted?: Set<string | number> }} options - ids whose responses end the wait
   * @returns {Promise<{ status: number, sessionId: string | null, responses: object[] }>}
   */
  async post(message, { signal, wanted } = {}) {
    this.emit('traffic', { direction: 'out', message });
    const response = await this.httpFetch(
      {
        method: 'POST',
        headers: this.headers({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }),
        body: JSON.stringify(message),
        signal,
      },
      'POST',
    );
    const result = { status: response.status, sessionId: response.headers.get('Mcp-Session-Id'), responses: [] };
    const type = (response.headers.get('Content-Type') ?? '').toLowerCase();
    if (response.status === 202 || !response.body) return result;
    if (type.startsWith('text/event-stream')) {
      const pending = new Set(wanted ?? []);
      let lastEventId;
      for await (const event of readSse(response.body)) {
        lastEventId = event.id ?? lastEventId;
        for (const incoming of this.parseEvent(event)) {
          if (isResponse(incoming)) {
            result.responses.push(incoming);
            pending.delete(incoming.id);
          }
        }
        if (wanted && pending.size === 0) break;
      }
      if (wanted && pending.size > 0 && lastEventId !== undefined && !signal?.aborted) {
        result.responses.push(...(await this.resume(lastEventId, pending, signal)));
      }
      return result;
    }
    const text = await response.text();
    if (text.trim() === '') return result;
    const parsed = JSON.parse(text);
    for (const incoming of Array.isArray(parsed) ? parsed : [parsed]) {
      this.emit('traffic', { direction: 'in', message: incoming });
      if (isResponse(incoming)) result.responses.push(incoming);
      else this.handleIncoming(incoming);
    }
    return result;
  }

  /** Parses one SSE event into messages, reporting and dispatching each. */
  parseEvent(event) {
    // A priming event (MCP 2025-11-25: an id and empty data) only sets the resumption point.
    if (event.data.trim() === '') return [];
    let parsed;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      this.emit('traffic', { direction: 'error', message: { unparsable: event.data }, note: 'SSE data is not JSON' });
      return [];
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    for (const message of messages) {
      this.emit('traffic', { direction: 'in', message, note: event.id ? `SSE id ${event.id}` : 'SSE' });
      if (!isResponse(message)) this.handleIncoming(message);
    }
    return messages;
  }

  /**
   * The reply stream broke before every response arrived: resume it with GET + Last-Event-ID (MCP transports ›
   * Resumability), a few times, until the responses come.
   */
  async resume(lastEventId, pending, signal) {
    const responses = [];
    let eventId = lastEventId;
    for (let attempt = 0; attempt < 3 && pending.size > 0; attempt++) {
      this.emit('traffic', {
        direction: 'note',
        message: { resume: { 'Last-Event-ID': eventId } },
        note: 'GET (resume)',
      });
      const response = await this.httpFetch(
        { method: 'GET', headers: this.headers({ Accept: 'text/event-stream', 'Last-Event-ID': eventId }), signal },
        'GET resume',
      );
      if (!response.body) break;
      for await (const event of readSse(response.body)) {
        eventId = event.id ?? eventId;
        for (const incoming of this.parseEvent(event)) {
          if (isResponse(incoming) && pending.delete(incoming.id)) responses.push(incoming);
        }
        if (pending.size === 0) break;
      }
    }
    return responses;
  }

  /** A server notification or request that arrived outside a response. */
  handleIncoming(message) {
    if (!message || typeof message.method !== 'string') return;
    if (!('id' in message)) {
      this.emit('notification', { message });
      return;
    }
    // A server → client request. The playground declares no client capabilities, so only ping is answered.
    const reply =
      message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: `The playground does not support ${message.method}` },
          };
    this.post(reply).catch(() => {});
  }

  /**
   * Sends a request and resolves with its result.
   *
   * @param {string} method - the JSON-RPC method
   * @param {object} [params] - its params
   * @param {{ signal?: AbortSignal, progressToken?: string | number, meta?: object }} [options] - `meta` goes in `params._meta` (an x402 payment, say)
   * @returns {Promise<any>} the result; rejects with RpcError, HttpError or NetworkError
   */
  async request(method, params, { signal, progressToken, meta } = {}) {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined || progressToken !== undefined || meta !== undefined) {
      message.params = { ...params };
      if (meta !== undefined) message.params._meta = { ...message.params._meta, ...meta };
      if (progressToken !== undefined) message.params._meta = { ...message.params._meta, progressToken };
    }
    const onAbort = () =>
      this.notify('notifications/cancelled', { requestId: id, reason: 'Cancelled from the playground' }).catch(
        () => {},
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { responses } = await this.post(message, { signal, wanted: new Set([id]) });
      const response = responses.find((r) => r.id === id);
      if (!response) throw new Error(`The server closed the reply to ${method} without answering it`);
      if (response.error) throw new RpcError(response.error);
      return response.result;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Sends a notification (the server answers 202). */
  async notify(method, params) {
    await this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /**
   * Opens the session: initialize, remember Mcp-Session-Id and the negotiated revision, then notifications/initialized.
   *
   * @returns {Promise<any>} the initialize result
   */
  async connect() {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const id = this.nextId++;
    const { responses, sessionId } = await this.post(
      {
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: this.capabilities, clientInfo: this.clientInfo },
      },
      { wanted: new Set([id]) },
    );
    const response = responses.find((r) => r.id === id);
    if (!response) throw new Error('The server did not answer initialize');
    if (response.error) throw new RpcError(response.error);
    this.sessionId = sessionId ?? undefined;
    this.protocolVersion = response.result.protocolVersion;
    this.serverInfo = response.result.serverInfo;
    await this.notify('notifications/initialized');
    return response.result;
  }

  /**
   * Keeps the session's GET stream open (list_changed, resource updates, logs outside requests), reconnecting
   * with Last-Event-ID after the server's `retry:` delay until {@link close}.
   */
  async listen() {
    if (this.streamController) return;
    const controller = new AbortController();
    this.streamController = controller;
    let lastEventId;
    let retryMs = 1000;
    while (!controller.signal.aborted) {
      try {
        const extra = { Accept: 'text/event-stream' };
        if (lastEventId !== undefined) extra['Last-Event-ID'] = lastEventId;
        this.emit('traffic', {
          direction: 'note',
          message: { open: 'GET stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
          note: 'GET',
        });
        const response = await this.httpFetch(
          { method: 'GET', headers: this.headers(extra), signal: controller.signal },
          'GET stream',
        );
        this.emit('stream', { state: 'open' });
        for await (const event of readSse(response.body)) {
          lastEventId = event.id ?? lastEventId;
          if (event.retry !== undefined) retryMs = event.retry;
          this.parseEvent(event);
        }
        this.emit('stream', { state: 'reconnecting' });
      } catch (err) {
        if (controller.signal.aborted) break;
        // A 4xx will not get better by retrying (404 gone, 405 no stream, 409 one already open, 401/403 refused).
        if (err instanceof HttpError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          const note =
            { 404: 'the session is gone', 405: 'the server offers no GET stream', 409: 'another GET stream is open' }[
              err.status
            ] ?? err.message;
          this.emit('stream', { state: 'closed', note });
          break;
        }
        this.emit('stream', { state: 'reconnecting', note: err instanceof Error ? err.message : String(err) });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(retryMs, 250)));
    }
    if (this.streamController === controller) this.streamController = undefined;
  }

  /** Best effort while the page unloads: a keepalive DELETE, not awaited. */
  closeOnUnload() {
    this.streamController?.abort();
    if (this.sessionId)
      fetch(this.endpoint, { method: 'DELETE', headers: this.headers({}), keepalive: true }).catch(() => {});
    this.sessionId = undefined;
  }

  /** Ends the session: closes the GET stream and DELETEs the session (405/404 mean there is nothing to end). */
  async close() {
    this.streamController?.abort();
    this.streamController = undefined;
    if (!this.sessionId) return;
    this.emit('traffic', { direction: 'note', message: { delete: this.sessionId }, note: 'DELETE' });
    this.closing = true;
    try {
      await this.httpFetch({ method: 'DELETE', headers: this.headers({}) }, 'DELETE');
    } catch (err) {
      if (!(err instanceof HttpError && (err.status === 404 || err.status === 405))) throw err;
    } finally {
      this.closing = false;
      this.sessionId = undefined;
    }
  }
}
