// DOM helpers: elements built from text nodes only (server-supplied strings never reach innerHTML), pretty JSON.

/**
 * Creates an element. Attributes go through setAttribute (`true` → present, `false`/`undefined` → absent);
 * children are nodes or strings, and strings become text nodes.
 *
 * @param {string} tag - the tag name
 * @param {Record<string, string | boolean | undefined>} [attrs] - attributes
 * @param {...(Node | string | number | null | undefined)} children - content
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A `<pre>` of pretty-printed JSON. */
export function jsonBlock(value, className = 'json') {
  return el('pre', { class: className }, JSON.stringify(value, null, 2));
}

/** "12:34:56.789", for the traffic and log panels. */
export function clock(date = new Date()) {
  return `${date.toTimeString().slice(0, 8)}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}
