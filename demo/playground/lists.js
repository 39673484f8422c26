// The explorer's lists: every page of a list method, and the entry button each list shows.

import { el } from './dom.js';

/**
 * Every page of a list method (`tools/list`, `skills/list`, `resources/directory/read` …), following nextCursor
 * (MCP pagination: the cursor is opaque, sent back as is), at most 100 pages.
 *
 * @param {{ request: Function }} client - the live McpClient
 * @param {string} method - the list method
 * @param {string} key - the result's array member (`tools`, `skills`, `resources` …)
 * @param {object} [params] - the method's own params, sent with every page
 */
export async function listAll(client, method, key, params) {
  const items = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const result = await client.request(method, cursor ? { ...params, cursor } : params);
    items.push(...(Array.isArray(result?.[key]) ? result[key] : []));
    cursor = result?.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** A list entry: a button with the item's name, a secondary line, and badges (first "via <prefix>" for an upstream's item). */
export function itemButton(testid, key, title, subtitle, badges, onSelect, via) {
  const button = el(
    'button',
    { type: 'button', class: 'item', 'data-testid': testid, 'data-name': key, 'data-upstream': via },
    el('span', { class: 'item-title' }, title),
  );
  if (subtitle) button.append(el('span', { class: 'item-sub' }, subtitle));
  const shown = [...(via ? [`via ${via}`] : []), ...badges];
  if (shown.length > 0)
    button.append(
      el(
        'span',
        { class: 'badges' },
        ...shown.map((badge) =>
          el('span', { class: `badge badge-${badge.startsWith('via ') ? 'via' : badge.replace(/\s/g, '-')}` }, badge),
        ),
      ),
    );
  button.addEventListener('click', () => {
    for (const other of button.closest('nav').querySelectorAll('.item[aria-current]'))
      other.removeAttribute('aria-current');
    button.setAttribute('aria-current', 'true');
    onSelect();
  });
  return el('li', {}, button);
}
