// compilePath, encodeSegment, holdsDotSegment and pathFromTemplate by direct calls: how tool arguments fill a route path.

import { McpConfigError } from '../../../lib';
import { compilePath, encodeSegment, holdsDotSegment } from '../../../lib/features/bridge/path-values';
import { pathFromTemplate } from '../../../lib/features/bridge/path-template';

const LABEL = "route tool 't'";

describe('holdsDotSegment', () => {
  it.each(['.', '..', '%2e', '%2E', '.%2e', '%2e.', '%2E%2e', '%252e', '%252e%252e', '%25252E.', '%2525252e'])(
    '%p is a dot segment',
    (text) => {
      expect(holdsDotSegment(text)).toBe(true);
    },
  );

  it.each([
    '../x',
    'x/..',
    'a/./b',
    'a\\..\\b',
    '..%2f',
    '%2e%2e%2Fx',
    'a%2F..',
    '..%5Cx',
    '%2e%2e%252f',
    'a%252F%252E%252E',
  ])('%p holds one', (text) => {
    expect(holdsDotSegment(text)).toBe(true);
  });

  it('counts a value encoded more than four times over as holding one, after four passes, not one pass per layer', () => {
    // 1.5 million layers of %25: one pass per layer would take time quadratic in the length (hours).
    const deep = `%${'25'.repeat(1_500_000)}41`;
    expect(holdsDotSegment(deep)).toBe(true);
    expect(holdsDotSegment(`%${'25'.repeat(6)}41`)).toBe(true);
    expect(holdsDotSegment(`%${'25'.repeat(4)}41`)).toBe(false);
  });

  it.each([
    '',
    '...',
    '%2e%2e%2e',
    'a.',
    '.a',
    '/',
    'a/b',
    '.a/b..',
    '%2',
    '%2f',
    '%25',
    '%%2e',
    '. ',
    '%2e%20',
    '．',
    '…',
  ])('%p neither is nor holds one', (text) => {
    expect(holdsDotSegment(text)).toBe(false);
  });
});

describe('encodeSegment', () => {
  it.each([
    ['abcXYZ019', 'abcXYZ019'],
    ['a/b?c#d', 'a%2Fb%3Fc%23d'],
    ["a.b-c_d~e!f'g(h)i*j", 'a%2Eb%2Dc%5Fd%7Ee%21f%27g%28h%29i%2Aj'],
    ['100%', '100%25'],
    ['é', '%C3%A9'],
    ['\u0000\r\n', '%00%0D%0A'],
  ])('%p → %p (only letters and digits stay as they are)', (text, encoded) => {
    expect(encodeSegment(text)).toBe(encoded);
    expect(decodeURIComponent(encodeSegment(text))).toBe(text);
  });
});

describe('compilePath', () => {
  it.each<[string, string[], string[]]>([
    ['/users/:id/orders', ['id'], []],
    ['/users{/:id}', ['id'], ['id']],
    ['/users/:id?', ['id'], ['id']],
    ['/docs/:section{/:page}.html', ['section', 'page'], ['page']],
    ['/files/*path', ['path'], []],
    ['/files{/*path}', ['path'], ['path']],
    ['/:id{/:id}', ['id'], []],
    ['/files/*', [], []],
  ])('%p has the params %p, of which %p are optional', (path, names, optional) => {
    const template = compilePath(path, LABEL);
    expect(template.names).toEqual(names);
    expect(template.optional).toEqual(optional);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['/users/:id/orders', { id: '7' }, '/users/7/orders'],
    ['/users/:id/orders', { id: 7 }, '/users/7/orders'],
    ['/users/:id/orders', { id: false }, '/users/false/orders'],
    ['/users/:id/orders', { id: '.a/b..' }, '/users/%2Ea%2Fb%2E%2E/orders'],
    ['/users{/:id}', {}, '/users'],
    ['/users{/:id}', { id: 'x' }, '/users/x'],
    ['/users/:id?', {}, '/users'],
    ['/users/:id?/orders', {}, '/users/orders'],
    ['/users/:id?/orders', { id: 'x' }, '/users/x/orders'],
    ['/plantae/:genus.:species?', { genus: 'a' }, '/plantae/a'],
    ['/a{/:b{/:c}}', { b: 'x' }, '/a/x'],
    ['/a{/:b{/:c}}', { b: 'x', c: 'y' }, '/a/x/y'],
    ['/files/*path', { path: 'a/b c' }, '/files/a/b%20c'],
    ['/files/*path', { path: ['a/b', 'c'] }, '/files/a%2Fb/c'],
    ['/files/*', {}, '/files/*'],
    ['/items/:id(\\d+)', { id: '42' }, '/items/42'],
    ['/users/:"user id"', { 'user id': 'x' }, '/users/x'],
    ['/a\\:b/:c', { c: 'x' }, '/a:b/x'],
  ])('%p with %p → %p', (path, values, filled) => {
    expect(compilePath(path, LABEL).fill(values)).toEqual({ ok: true, path: filled });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['/users/:id', {}, "Invalid argument 'id': a value is required for this URL path segment"],
    ['/users/:id', { id: undefined }, "Invalid argument 'id': a value is required for this URL path segment"],
    ['/users/:constructor', {}, "Invalid argument 'constructor': a value is required for this URL path segment"],
    [
      '/users/:id',
      { id: '..' },
      "Invalid argument 'id': '..' cannot be carried in a URL path segment: it is or holds a dot segment ('.' or '..', in any encoding), which URLs resolve away",
    ],
    ['/users/:id', { id: '' }, "Invalid argument 'id': an empty value cannot be carried in a URL path segment"],
    [
      '/users/:id',
      { id: '\udc00' },
      "Invalid argument 'id': a value that is not well-formed Unicode (a lone UTF-16 surrogate) cannot be carried in a URL path segment",
    ],
    [
      '/users/:id',
      { id: {} },
      "Invalid argument 'id': a URL path segment value must be a string, number or boolean (got an object)",
    ],
    [
      '/users/:id',
      { id: null },
      "Invalid argument 'id': a URL path segment value must be a string, number or boolean (got null)",
    ],
    [
      '/users/:id',
      { id: [] },
      "Invalid argument 'id': a URL path segment value must be a string, number or boolean (got an array)",
    ],
    [
      '/users/:id',
      { id: Number.NaN },
      "Invalid argument 'id': a URL path segment value must be a string, number or boolean (got a number)",
    ],
    ['/items/:id(\\d+)', { id: 'a\nb' }, "Invalid argument 'id': 'a\\u000ab' does not match the route's pattern \\d+"],
    ['/a{/:b/:c}', { b: 'x' }, "Invalid argument 'c': a value is required for this URL path segment"],
    [
      '/files/*path',
      { path: 'a/../b' },
      "Invalid argument 'path': segment 2 of 'a/../b': '..' cannot be carried in a URL path segment: it is or holds a dot segment ('.' or '..', in any encoding), which URLs resolve away",
    ],
    [
      '/files/*path',
      { path: [] },
      "Invalid argument 'path': an empty list of segments cannot be carried in a URL path",
    ],
    [
      '/files/*path',
      { path: ['a', {}] },
      "Invalid argument 'path': a URL path segment value must be a string, number or boolean (got an object)",
    ],
  ])('%p with %p is refused: %s', (path, values, message) => {
    expect(compilePath(path, LABEL).fill(values)).toEqual({ ok: false, message });
  });

  it('refuses at boot an Express 4 pattern that is not a regular expression', () => {
    const build = () => compilePath('/items/:id([)', LABEL);
    expect(build).toThrow(McpConfigError);
    expect(build).toThrow(expect.objectContaining({ code: 'ERR_MCP_INVALID_DEFINITION' }));
    expect(build).toThrow("route tool 't': the pattern of ':id' in '/items/:id([)' is not a valid regular expression");
  });
});

describe('pathFromTemplate', () => {
  it.each([
    ['/users/{id}', '/users/:id'],
    ['/users/{user-id}/orders', '/users/:"user-id"/orders'],
    ['/a/{say "hi"}', '/a/:"say \\"hi\\""'],
    ['/time/12:30/{id}', '/time/12\\:30/:id'],
    ['/a*b(c)?', '/a\\*b\\(c\\)\\?'],
    ['/{id}?', '/:id\\?'],
  ])('%p → %p', (template, path) => {
    expect(pathFromTemplate(template)).toBe(path);
  });

  it('reads back as a param of exactly the template’s name, the rest as text', () => {
    expect(compilePath(pathFromTemplate('/users/{user-id}/x*y'), LABEL).fill({ 'user-id': 'a' })).toEqual({
      ok: true,
      path: '/users/a/x*y',
    });
  });
});
