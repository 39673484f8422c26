// mcp.app() and tool links checked at registration: every misconfiguration is an McpConfigError naming the option.

import { mcpRouter, McpConfigError, type McpAppOptions, type McpRouter } from '../../../lib';
import { modern } from '../../helpers/modern';
import { createApp } from '../../helpers/create-app';

const router = (): McpRouter => mcpRouter({ name: 'shop', version: '1.0.0', sessions: false });
const html = '<p>app</p>';

function refused(options: unknown, message: RegExp): void {
  const mcp = router();
  expect(() => mcp.app(options as McpAppOptions)).toThrow(McpConfigError);
  expect(() => mcp.app(options as McpAppOptions)).toThrow(message);
}

describe('mcp.app() options', () => {
  it.each([
    [
      'javascript: origin',
      { csp: { resourceDomains: ['javascript:alert(1)'] } },
      /option 'csp.resourceDomains' must be an array of origins: .*, got \["javascript:alert\(1\)"\]/,
    ],
    [
      'data: origin',
      { csp: { connectDomains: ['data:'] } },
      /option 'csp.connectDomains' must be an array of origins: .*, got \["data:"\]/,
    ],
    [
      'a lone *',
      { csp: { frameDomains: ['*'] } },
      /option 'csp.frameDomains' must be an array of origins: .*, got \["\*"\]/,
    ],
    ['a quote', { csp: { resourceDomains: ["https://a.example.com'"] } }, /must be an array of origins/],
    [
      'a semicolon',
      { csp: { resourceDomains: ['https://a.example.com;script-src *'] } },
      /must be an array of origins/,
    ],
    [
      'a space',
      { csp: { resourceDomains: ['https://a.example.com https://b.example.com'] } },
      /must be an array of origins/,
    ],
    ['a path', { csp: { resourceDomains: ['https://cdn.example.com/lib'] } }, /must be an array of origins/],
    [
      'a port past 65535',
      { csp: { connectDomains: ['https://api.example.com:70000'] } },
      /must be an array of origins/,
    ],
    ['a wildcard top-level domain', { csp: { resourceDomains: ['https://*.com'] } }, /must be an array of origins/],
    ['port 0', { csp: { connectDomains: ['https://api.example.com:0'] } }, /must be an array of origins/],
    [
      'an IPv6 literal that is not one',
      { csp: { connectDomains: ['https://[:::::]'] } },
      /must be an array of origins/,
    ],
    ['an IPv4 address in brackets', { csp: { connectDomains: ['https://[1.2.3.4]'] } }, /must be an array of origins/],
    ['an international name not in its xn-- form', { csp: { resourceDomains: ['https://bücher.de'] } }, /xn-- form/],
    ['an unknown csp key', { csp: { scriptDomains: ['https://a.example.com'] } }, /unknown option 'csp.scriptDomains'/],
    [
      'csp origins not in an array',
      { csp: { connectDomains: 'https://a.example.com' } },
      /option 'csp.connectDomains' must be an array of origins/,
    ],
    ['an unknown permission', { permissions: { usb: {} } }, /unknown option 'permissions.usb'/],
    ['a permission that is not {}', { permissions: { camera: true } }, /option 'permissions.camera' must be \{\}/],
    ['prefersBorder not a boolean', { prefersBorder: 'yes' }, /option 'prefersBorder' must be true or false/],
    ['domain with a space', { domain: 'a b' }, /option 'domain' must be a host name/],
    ['an unknown option', { htlm: html }, /unknown option 'htlm'. Did you mean 'html'\?/],
    ['maxBytes not a positive integer', { maxBytes: 0 }, /app 'app': option 'maxBytes' must be a positive number/],
  ])('refuses %s', (_, extra, message) => refused({ name: 'app', html, ...extra }, message));

  it('accepts well-formed origins: ports, wildcards, ws(s), IPv6, a trailing slash', () => {
    const csp = {
      connectDomains: [
        'wss://live.example.com',
        'http://localhost:3000',
        'http://[::1]:8080',
        'HTTPS://API.EXAMPLE.COM',
      ],
      resourceDomains: ['https://*.example.org', 'https://cdn.example.com/', 'https://xn--bcher-kva.de:65535'],
      frameDomains: [],
      baseUriDomains: ['https://example.com'],
    };
    expect(router().app({ name: 'ok', html, csp }).uri).toBe('ui://shop/ok');
  });

  it.each([
    ['no source', { name: 'a' }, /needs exactly one of html, file or route, got none/],
    ['two sources', { name: 'a', html, route: '/a' }, /needs exactly one of html, file or route, got html and route/],
    ['a missing file', { name: 'a', file: '/nonexistent/app.html' }, /file "\/nonexistent\/app.html" cannot be read/],
    [
      'a route not a path',
      { name: 'a', route: 'apps/a' },
      /option 'route' must be a path of the host app starting with '\/'/,
    ],
    ['a name with a slash', { name: 'a/b', html }, /app name "a\/b" must be one URI path segment/],
    ['a name of ..', { name: '..', html }, /must be one URI path segment/],
    [
      'html past maxBytes',
      { name: 'a', html: 'x'.repeat(20), maxBytes: 10 },
      /html is larger than maxBytes \(10 bytes\)/,
    ],
  ])('refuses %s', (_, options, message) => refused(options, message));

  it('never changes the caller’s options', () => {
    const options = Object.freeze({
      name: 'frozen',
      html,
      csp: Object.freeze({ resourceDomains: Object.freeze(['https://cdn.example.com']) }),
    }) as McpAppOptions;
    expect(() => router().app(options)).not.toThrow();
  });

  it('refuses a second app of the same name', () => {
    const mcp = router();
    mcp.app({ name: 'a', html });
    expect(() => mcp.app({ name: 'a', html })).toThrow(/already registered/);
  });
});

describe('tool links', () => {
  it('a link to an app not registered (yet) names the tool and the app', () => {
    const mcp = router();
    expect(() => mcp.tool({ name: 'order', description: 'Order', ui: 'order-form', handler: () => 'x' })).toThrow(
      /tool 'order' ui names the app "order-form", which this router does not serve: register it with mcp.app\(\) before/,
    );
  });

  it('refuses a ui:// URI of another server', () => {
    const mcp = router();
    mcp.app({ name: 'order-form', html });
    expect(() =>
      mcp.tool({ name: 'order', description: 'Order', ui: 'ui://other-server/order-form', handler: () => 'x' }),
    ).toThrow(/names the app "ui:\/\/other-server\/order-form", which this router does not serve/);
  });

  it.each([[[]], [['model', 'user']], ['app']])('refuses visibility %j', (visibility) => {
    const mcp = router();
    mcp.app({ name: 'order-form', html });
    expect(() =>
      mcp.tool({
        name: 'order',
        description: 'Order',
        ui: { app: 'order-form', visibility: visibility as ['app'] },
        handler: () => 'x',
      }),
    ).toThrow(/tool 'order' ui visibility must be a non-empty list of 'model' and 'app'/);
  });

  it("registers an app's tools linked to it, and removes them with it", async () => {
    let registration: ReturnType<McpRouter['app']> | undefined;
    const app = createApp({}, (mcp) => {
      registration = mcp.app({
        name: 'order-form',
        html,
        tools: [
          { name: 'order', description: 'Order', handler: () => 'x' },
          { name: 'place', description: 'Place', ui: { app: 'order-form', visibility: ['app'] }, handler: () => 'y' },
        ],
      });
    });
    const ui = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/ui': {} } } };
    const listed = await modern(app, 'tools/list', {}, {}, ui).expect(200);
    expect(listed.body.result.tools.map((tool: { _meta: unknown }) => tool._meta)).toEqual([
      { ui: { resourceUri: 'ui://test/order-form' }, 'ui/resourceUri': 'ui://test/order-form' },
      { ui: { resourceUri: 'ui://test/order-form', visibility: ['app'] }, 'ui/resourceUri': 'ui://test/order-form' },
    ]);
    expect(registration?.remove()).toBe(true);
    const after = await modern(app, 'tools/list', {}, {}, ui).expect(200);
    expect(after.body.result.tools).toEqual([]);
    const resources = await modern(app, 'resources/list').expect(200);
    expect(resources.body.result.resources).toEqual([]);
  });

  it("a tool in an app's tools that links to another app is refused, and nothing of the app stays", () => {
    const mcp = router();
    mcp.app({ name: 'other', html });
    const tools = [{ name: 'order', description: 'Order', ui: 'other', handler: () => 'x' }];
    expect(() => mcp.app({ name: 'form', html, tools })).toThrow(/tool 'order' links to the app 'other'/);
    expect(() => mcp.app({ name: 'form', html })).not.toThrow();
  });

  it('refuses to remove an app while other tools link to it, and allows it once they are gone', () => {
    const mcp = router();
    const app = mcp.app({ name: 'order-form', html });
    const tool = mcp.tool({ name: 'order', description: 'Order', ui: 'order-form', handler: () => 'x' });
    expect(() => app.remove()).toThrow(/app 'order-form' cannot be removed while tools link to it \(order\)/);
    tool.remove();
    expect(app.remove()).toBe(true);
    expect(app.remove()).toBe(false);
  });
});
