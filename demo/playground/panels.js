// The side panels: server log lines, and the raw JSON-RPC traffic with a box to send a message by hand.

import { clock, el } from './dom.js';

const MAX_ENTRIES = 1000;
const ARROWS = { out: '→', in: '←', error: '✕', note: '·' };
const DIRECTION_NAMES = { out: 'sent', in: 'received', error: 'failed', note: 'transport' };

/** Appends to a scrolling list, keeping it bounded and pinned to the bottom if the reader was there. */
function append(list, item) {
  const pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(item);
  while (list.childElementCount > MAX_ENTRIES) list.firstElementChild.remove();
  if (pinned) list.scrollTop = list.scrollHeight;
}

/** What a message is, in a few words: its method, or which request it answers. */
function summarize(message) {
  if (Array.isArray(message)) return `batch of ${message.length}`;
  if (!message || typeof message !== 'object') return typeof message;
  if (typeof message.method === 'string') return 'id' in message ? `${message.method} #${message.id}` : message.method;
  if ('error' in message && message.error) return `error #${message.id ?? 'null'} (${message.error.code})`;
  if ('result' in message) return `result #${message.id}`;
  return Object.keys(message).join(', ');
}

/**
 * The traffic panel: one entry per message with direction, time, a one-line summary and the pretty JSON.
 *
 * @param {HTMLOListElement} list - where entries go
 * @param {HTMLInputElement} expand - "expand messages" checkbox
 */
export function createTrafficPanel(list, expand) {
  expand.addEventListener('change', () => {
    for (const details of list.querySelectorAll('details')) details.open = expand.checked;
  });
  return {
    /** `source` is 'app' for the messages between the playground and an app's view (demo/playground/apps.js). */
    add({ direction, message, note, source = 'server' }) {
      const method =
        message && typeof message.method === 'string'
          ? message.method
          : message && ('result' in message || 'error' in message)
            ? 'response'
            : '';
      const item = el('li', {
        class: `traffic dir-${direction}`,
        'data-testid': 'traffic-entry',
        'data-direction': direction,
        'data-method': method,
        'data-source': source,
      });
      const summary = el(
        'summary',
        {},
        el('span', { class: 'arrow', title: DIRECTION_NAMES[direction] }, ARROWS[direction] ?? '?'),
        el('span', { class: 'visually-hidden' }, ` ${DIRECTION_NAMES[direction]} `),
        el('time', {}, clock()),
        el('span', { class: 'what' }, summarize(message)),
        note ? el('span', { class: 'note' }, note) : null,
      );
      const details = el('details', {}, summary, el('pre', { class: 'json' }, JSON.stringify(message, null, 2)));
      details.open = expand.checked;
      item.append(details);
      append(list, item);
    },
    clear() {
      list.replaceChildren();
    },
  };
}

/**
 * The log panel: `notifications/message` lines from the server, and the playground's own notes.
 *
 * @param {HTMLOListElement} list - where lines go
 */
export function createLogPanel(list) {
  return {
    /** @param {{ level: string, logger?: string, data: unknown }} params - notifications/message params */
    log(params) {
      const level = typeof params?.level === 'string' ? params.level : 'info';
      const data = typeof params?.data === 'string' ? params.data : JSON.stringify(params?.data);
      const item = el('li', { class: `log level-${level}`, 'data-testid': 'log-entry', 'data-level': level });
      item.append(el('time', {}, clock()), el('span', { class: 'level' }, level));
      if (typeof params?.logger === 'string') item.append(el('span', { class: 'logger' }, params.logger));
      item.append(el('span', { class: 'data' }, data));
      append(list, item);
    },
    /** A line from the playground itself (stream state, updates), told apart from the server's. */
    note(text, kind = 'note') {
      append(
        list,
        el(
          'li',
          { class: `log ${kind}`, 'data-testid': 'log-note' },
          el('time', {}, clock()),
          el('span', { class: 'level' }, kind),
          el('span', { class: 'data' }, text),
        ),
      );
    },
    clear() {
      list.replaceChildren();
    },
  };
}
