// The order form's script, as an MCP App view (bundled with the App SDK by demo/apps/bundle.ts and inlined in the
// page, so the view needs no origin besides its own: SEP-1865 hosts load a view under a CSP that allows only what
// its resource declares). Opened as a plain web page, it only explains where it works.

import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const $ = (id) => document.getElementById(id);

/** Shows a line in the status box; `state` is read by tests and styles. */
function status(text, state) {
  $('order-status').textContent = text;
  $('order-status').dataset.state = state;
}

/** The form's values, as submit_order_form takes them. */
function formValues() {
  return {
    productId: $('product').value,
    quantity: Number($('quantity').value),
    customerId: $('customer').value,
  };
}

/** The text of a tool result's first text content. */
function textOf(result) {
  const first = (result?.content ?? []).find((item) => item.type === 'text');
  return first ? first.text : '';
}

/** ui/notifications/tool-result of order_form: the product the model picked (and a quantity), preselected. */
function showToolResult(result) {
  const picked = result?.structuredContent;
  if (picked && typeof picked.productId === 'string') $('product').value = picked.productId;
  if (picked && Number.isInteger(picked.quantity)) $('quantity').value = String(picked.quantity);
  $('picked').textContent = textOf(result);
  $('picked').dataset.state = 'received';
}

async function main() {
  // Not framed: a web page like any other, but ordering needs an MCP host to call the app-only tool through.
  if (window.parent === window) {
    status('Open this form from an MCP host (the playground) to place an order.', 'web');
    return;
  }
  const app = new App({ name: 'order-form', version: '1.0.0' });
  app.ontoolresult = showToolResult;
  // The violations the CSP reports, shown and counted: proof, for people and tests, that the host applied it.
  document.addEventListener('securitypolicyviolation', (event) => {
    const list = $('csp-violations');
    list.dataset.count = String(Number(list.dataset.count ?? '0') + 1);
    list.append(
      Object.assign(document.createElement('li'), {
        textContent: `${event.effectiveDirective} refused ${event.blockedURI}`,
      }),
    );
  });
  $('order-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('place').disabled = true;
    status('Placing the order…', 'pending');
    try {
      // submit_order_form is app-only (visibility ['app']): the host calls it for us; the model never sees it.
      const result = await app.callServerTool({ name: 'submit_order_form', arguments: formValues() });
      status(textOf(result), result.isError ? 'error' : 'placed');
    } catch (error) {
      status(`The host refused: ${error instanceof Error ? error.message : String(error)}`, 'error');
    } finally {
      $('place').disabled = false;
    }
  });
  await app.connect(new PostMessageTransport(window.parent, window.parent));
  $('place').disabled = false;
  status('Connected to the host: pick a product and place the order.', 'ready');
}

main().catch((error) => status(`Could not start: ${error instanceof Error ? error.message : String(error)}`, 'error'));
