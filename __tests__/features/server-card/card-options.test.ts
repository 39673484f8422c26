// The `serverCard` option: checked at boot (unknown keys, URLs, what the draft SEP-2127 card requires), never written to.

import { McpConfigError, mcpRouter, type McpRouterOptions } from '../../../lib';
import { resolveServerCard } from '../../../lib/features/server-card/card-options';

const BASE = { name: 'com.example/inventory', version: '1.0.0', description: 'Stock levels' } as const;

const boot = (options: Partial<McpRouterOptions>) => () => mcpRouter({ ...BASE, ...options } as McpRouterOptions);

describe('the serverCard option', () => {
  it.each([
    ['an unknown key, with the nearest known one', { serverCard: { titel: 'x' } }, /serverCard\.titel.*title/],
    ['a value that is neither an object nor a boolean', { serverCard: 'yes' }, /option 'serverCard' must be/],
    [
      'a router name not in reverse-DNS form',
      { name: 'inventory', serverCard: true },
      /option 'serverCard\.name' must be a reverse-DNS name.*got "inventory"/,
    ],
    ['a card name with two slashes', { serverCard: { name: 'com.example/a/b' } }, /option 'serverCard\.name'/],
    [
      'no description anywhere',
      { description: undefined, serverCard: true },
      /option 'serverCard\.description' must be 1 to 100 characters.*the router has no 'description'/,
    ],
    [
      'a router description over 100 characters',
      { description: 'x'.repeat(101), serverCard: true },
      /'serverCard\.description'.*the router's 'description' is 101 characters/,
    ],
    [
      'a card title over 100 characters',
      { serverCard: { title: 't'.repeat(101) } },
      /option 'serverCard\.title' must be 1 to 100 characters/,
    ],
    [
      'a version range',
      { version: '^1.2.3', serverCard: true },
      /option 'version' must be one version.*got "\^1\.2\.3"/,
    ],
    ['a wildcard version', { version: '1.x', serverCard: true }, /option 'version'/],
    [
      'a websiteUrl that is not a URL',
      { serverCard: { websiteUrl: 'example.com' } },
      /option 'serverCard\.websiteUrl' must be an http\(s\) URL/,
    ],
    [
      'a repository without source',
      { serverCard: { repository: { url: 'https://github.com/e/i' } } },
      /option 'serverCard\.repository\.source' must be a non-empty string/,
    ],
    [
      'a repository URL that is not http(s)',
      { serverCard: { repository: { url: 'git@github.com:e/i', source: 'github' } } },
      /option 'serverCard\.repository\.url'/,
    ],
    [
      'an unknown repository key',
      { serverCard: { repository: { url: 'https://github.com/e/i', source: 'github', branch: 'main' } } },
      /serverCard\.repository\.branch/,
    ],
    [
      'a subfolder climbing out',
      { serverCard: { repository: { url: 'https://github.com/e/i', source: 'github', subfolder: '../x' } } },
      /option 'serverCard\.repository\.subfolder' must be a clean relative path/,
    ],
    [
      'an icon without an http(s) or data: src',
      { serverCard: { icons: [{ src: 'javascript:alert(1)' }] } },
      /option 'serverCard\.icons' must be an array/,
    ],
  ])('refuses %s at boot', (_name, options, message) => {
    const create = boot(options as Partial<McpRouterOptions>);
    expect(create).toThrow(McpConfigError);
    expect(create).toThrow(message);
  });

  it('is nothing when absent or false', () => {
    expect(resolveServerCard(BASE)).toBeUndefined();
    expect(resolveServerCard({ ...BASE, serverCard: false })).toBeUndefined();
  });

  it("takes the router's identity, and the card's own fields over it", () => {
    const router = {
      ...BASE,
      name: 'inventory',
      title: 'Inventory',
      websiteUrl: 'https://example.com/',
      icons: [{ src: 'https://example.com/a.png' }],
    };
    const card = {
      name: 'com.example/inventory',
      title: 'Inventory (card)',
      description: 'Stock levels, as the card says',
      icons: [{ src: 'data:image/png;base64,AAAA', theme: 'dark' as const }],
      repository: { url: 'https://github.com/e/i', source: 'github', subfolder: 'servers/inventory', id: '42' },
    };
    expect(resolveServerCard({ ...router, serverCard: card })).toEqual({
      name: 'com.example/inventory',
      version: '1.0.0',
      description: 'Stock levels, as the card says',
      title: 'Inventory (card)',
      websiteUrl: 'https://example.com/',
      repository: { url: 'https://github.com/e/i', source: 'github', subfolder: 'servers/inventory', id: '42' },
      icons: [{ src: 'data:image/png;base64,AAAA', theme: 'dark' }],
    });
  });

  it('keeps URLs as written', () => {
    const card = { websiteUrl: 'https://example.com', repository: { url: 'https://github.com/e/i', source: 'github' } };
    expect(resolveServerCard({ ...BASE, serverCard: card })).toMatchObject(card);
  });

  it("never writes to the caller's options", () => {
    const serverCard = Object.freeze({
      repository: Object.freeze({ url: 'https://github.com/e/i', source: 'github' }),
      icons: Object.freeze([Object.freeze({ src: 'https://example.com/a.png' })]) as never,
    });
    expect(() => mcpRouter(Object.freeze({ ...BASE, serverCard }))).not.toThrow();
  });
});
