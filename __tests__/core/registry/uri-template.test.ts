import { McpConfigError } from '../../../lib/options/config-error';
import { parseUriTemplate } from '../../../lib/core/registry/uri-template';

type Vars = Record<string, string | number | boolean | undefined>;

describe('parseUriTemplate: parsing', () => {
  it.each<[string, string[]]>([
    ['users://{id}/profile', ['id']],
    ['file:///{+path}', ['path']],
    ['search://q{?query,limit}', ['query', 'limit']],
    ['repo://{owner}/{repo}/tree/{+path}', ['owner', 'repo', 'path']],
    ['x{/a,b}{.ext}{;m}{?q}{&r}{#f}', ['a', 'b', 'ext', 'm', 'q', 'r', 'f']],
    ['x://{a:3}/{list*}', ['a', 'list']],
    ['x://{a.b}/{c%20d}/{_1}/{A9}', ['a.b', 'c%20d', '_1', 'A9']],
    ['static://config', []],
    ['', []],
  ])('%s has variables %j', (template, names) => {
    const t = parseUriTemplate(template);
    expect(t.template).toBe(template);
    expect(t.variableNames).toEqual(names);
  });

  it('returns a frozen template with a frozen variable list', () => {
    const t = parseUriTemplate('users://{id}/profile');
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.variableNames)).toBe(true);
  });
});

describe('parseUriTemplate: config errors', () => {
  it.each<[string, string, RegExp]>([
    ['unclosed brace', 'users://{id', /unclosed '\{' at position 8/],
    ['lone open brace', '{', /unclosed '\{'/],
    ['nested braces', 'a{b{c}}', /nested '\{' at position 3/],
    ['unmatched close brace', 'x}', /unmatched '\}' at position 1/],
    ['extra close brace', '{a}}', /unmatched '\}' at position 3/],
    ['empty expression', 'users://{}', /empty expression '\{\}'/],
    ['operator without variable', 'x{+}', /expression '\{\+\}' has no variable/],
    ['reserved operator =', '{=a}', /unsupported operator '='/],
    ['reserved operator ,', '{,a}', /unsupported operator ','/],
    ['reserved operator !', '{!a}', /unsupported operator '!'/],
    ['reserved operator @', '{@a}', /unsupported operator '@'/],
    ['reserved operator |', '{|a}', /unsupported operator '\|'/],
    ['space in name', '{a b}', /invalid variable 'a b' in '\{a b\}'/],
    ['hyphen in name', '{a-b}', /invalid variable 'a-b'/],
    ['trailing dot', '{.a.}', /invalid variable 'a\.'/],
    ['double dot', '{a..b}', /invalid variable 'a\.\.b'/],
    ['leading dot in simple expression', '{.}', /has no variable/],
    ['empty name in list', '{a,}', /invalid variable ''/],
    ['bad pct-encoding in name', '{%zz}', /invalid variable '%zz'/],
    ['prefix 0', '{a:0}', /invalid variable 'a:0'/],
    ['prefix over 9999', '{a:10000}', /invalid variable 'a:10000'/],
    ['empty prefix', '{a:}', /invalid variable 'a:'/],
    ['prefix and explode', '{a:3*}', /invalid variable 'a:3\*'/],
    ['duplicate across expressions', 'x://{id}/{name}/{id}', /duplicate variable 'id'/],
    ['duplicate in one list', '{?a,a}', /duplicate variable 'a'/],
    ['duplicate with different operators', '{?a}{&a}', /duplicate variable 'a'/],
  ])('%s: %s', (_label, template, problem) => {
    let caught: unknown;
    try {
      parseUriTemplate(template);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(McpConfigError);
    const err = caught as McpConfigError;
    expect(err.code).toBe('ERR_MCP_INVALID_URI_TEMPLATE');
    expect(err.message).toMatch(/^mcpRouter: /);
    expect(err.message).toContain(`'${template}'`);
    expect(err.message).toMatch(problem);
  });

  it('rejects a non-string template at runtime', () => {
    expect(() => parseUriTemplate(42 as unknown as string)).toThrow(McpConfigError);
  });
});

describe('UriTemplate.match', () => {
  it.each<[string, string, Record<string, string>]>([
    ['users://{id}/profile', 'users://42/profile', { id: '42' }],
    ['users://{id}/profile', 'users://ada%20lovelace/profile', { id: 'ada lovelace' }],
    ['users://{id}/profile', 'users://a%2Fb%3F/profile', { id: 'a/b?' }],
    ['users://{id}/profile', 'users://%C3%A9t%C3%A9/profile', { id: 'été' }],
    ['test://template/{id}/data', 'test://template/abc-123_x.y~z/data', { id: 'abc-123_x.y~z' }],
    ['file:///{+path}', 'file:///src/index.ts', { path: 'src/index.ts' }],
    ['file:///{+path}', 'file:///dir%20x/a.txt', { path: 'dir x/a.txt' }],
    [
      'repo://{owner}/{repo}/tree/{+path}',
      'repo://acme/web/tree/src/a.ts',
      { owner: 'acme', repo: 'web', path: 'src/a.ts' },
    ],
    ['x://{+a}/end', 'x://p/q/end', { a: 'p/q' }],
    ['a.b+c://{x}', 'a.b+c://y', { x: 'y' }],
    ['q^$|*(x)[y]\\-://{v}', 'q^$|*(x)[y]\\-://1', { v: '1' }],
    ['x://{a}/{b}', 'x://1/2', { a: '1', b: '2' }],
    ['x://{a}.{b}', 'x://my.file.txt', { a: 'my', b: 'file.txt' }],
    ['x://{a}-{b}', 'x://my-org-repo', { a: 'my', b: 'org-repo' }],
    ['map?{x,y}', 'map?1024,768', { x: '1024', y: '768' }],
    ['search://q{?query,limit}', 'search://q?query=mcp&limit=10', { query: 'mcp', limit: '10' }],
    ['search://q{?query,limit}', 'search://q?query=a%26b%3Dc', { query: 'a&b=c' }],
    ['search://q{?query,limit}', 'search://q?limit=5', { limit: '5' }],
    ['search://q{?query,limit}', 'search://q', {}],
    ['search://q{?query,limit}', 'search://q?query=', { query: '' }],
    ['search://q{?query,limit}', 'search://q?query=a+b', { query: 'a+b' }],
    ['search://q{?q,query}', 'search://q?query=1', { query: '1' }],
    ['list://items?fixed=1{&page,size}', 'list://items?fixed=1&size=10', { size: '10' }],
    ['list://items{?page}{&size}', 'list://items?page=2&size=10', { page: '2', size: '10' }],
    ['x{/a,b}', 'x/1/2', { a: '1', b: '2' }],
    ['x{/a,b}', 'x/1', { a: '1' }],
    ['x{/a,b}', 'x', {}],
    ['x://{a}{/b}{.ext}', 'x://1/2.json', { a: '1', b: '2', ext: 'json' }],
    ['x://{a}{/b}{.ext}', 'x://1', { a: '1' }],
    ['x{;a,b}', 'x;a=1;b=2', { a: '1', b: '2' }],
    ['x{;a,b}', 'x;a;b=2', { a: '', b: '2' }],
    ['x{;a,b}', 'x;b=2', { b: '2' }],
    ['page{#section}', 'page#intro/part?x', { section: 'intro/part?x' }],
    ['x://{v:3}', 'x://abcdef', { v: 'abcdef' }],
    ['x://{list*}', 'x://a', { list: 'a' }],
    ['x://{a.b}/{c%20d}', 'x://1/2', { 'a.b': '1', 'c%20d': '2' }],
    ['static://config', 'static://config', {}],
    ['a b/{x}', 'a b/1', { x: '1' }],
    ['a b/{x}', 'a%20b/1', { x: '1' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(parseUriTemplate(template).match(uri)).toEqual(expected);
  });

  it.each<[string, string]>([
    ['users://{id}/profile', 'users://1/2/profile'],
    ['users://{id}/profile', 'users:///profile'],
    ['users://{id}/profile', 'users://1/profile/extra'],
    ['users://{id}/profile', 'xusers://1/profile'],
    ['users://{id}/profile', 'users://1/profile?x=1'],
    ['users://{id}/profile', 'users://a?b/profile'],
    ['users://{id}/profile', 'users://a#b/profile'],
    ['users://{id}/profile', 'users://a,b/profile'],
    ['users://{id}/profile', 'users://a&b/profile'],
    ['users://{id}/profile', 'USERS://1/profile'],
    ['users://{id}/profile', ''],
    ['test://template/{id}/data', 'test://template/1/data/'],
    ['test://template/{id}/data', 'test://template//data'],
    ['a.b+c://{x}', 'aXb+c://y'],
    ['a.b+c://{x}', 'a.bbc://y'],
    ['a.b+c://{x}', 'a.b+c://'],
    ['file:///{+path}', 'file:///'],
    ['file:///{+path}', 'file:///a?b'],
    ['file:///{+path}', 'file:///a#b'],
    ['file:///{+path}', 'file://a'],
    ['search://q{?query,limit}', 'search://q?limit=1&query=a'],
    ['search://q{?query,limit}', 'search://q?other=1'],
    ['search://q{?query,limit}', 'search://q?query'],
    ['search://q{?query,limit}', 'search://q&query=1'],
    ['search://q{?query,limit}', 'search://q?query=1&'],
    ['search://q{?query,limit}', 'search://q?query=1#frag'],
    ['x{/a,b}', 'x/1/2/3'],
    ['x{;a,b}', 'x;ab=1'],
    ['page{#section}', 'page#'],
    ['static://config', 'static://config2'],
  ])('%s does not match %j', (template, uri) => {
    expect(parseUriTemplate(template).match(uri)).toBeNull();
  });

  it('returns a variable named __proto__ as an own property', () => {
    const values = parseUriTemplate('x://{__proto__}').match('x://p');
    expect(values).not.toBeNull();
    expect(Object.hasOwn(values ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
  });

  it('gives the same answer on repeated calls (the compiled RegExp keeps no state)', () => {
    const t = parseUriTemplate('users://{id}/profile');
    for (let i = 0; i < 3; i++) {
      expect(t.match('users://1/profile')).toEqual({ id: '1' });
      expect(t.match('users://1/nope')).toBeNull();
    }
  });
});

describe('UriTemplate.match never throws', () => {
  const TEMPLATES = [
    'users://{id}/profile',
    'file:///{+path}',
    'search://q{?query,limit}',
    'x{/a,b}{.ext}{;m}{#f}',
    'static://config',
  ];
  const GARBAGE = [
    '',
    '%',
    '%E0%A4%A',
    'users://%E0%A4%A/profile',
    'users://%/profile',
    'users://%ZZ/profile',
    'users://%ED%A0%80/profile',
    'file:///%E0%A4%A',
    'search://q?query=%E0%A4%A',
    'x/%FF.json',
    '\uD800',
    'users://\uDFFF/profile',
    '{id}',
    '\u0000\n\r\t',
    '?&#,;=/.',
  ];

  it.each(TEMPLATES.flatMap((template) => GARBAGE.map((uri) => [template, uri] as const)))(
    '%s with %j',
    (template, uri) => {
      const t = parseUriTemplate(template);
      let result: Record<string, string> | null | undefined;
      expect(() => {
        result = t.match(uri);
      }).not.toThrow();
      expect(result === null || typeof result === 'object').toBe(true);
    },
  );

  it.each<[string, string]>([
    ['users://{id}/profile', 'users://%E0%A4%A/profile'],
    ['users://{id}/profile', 'users://%ED%A0%80/profile'],
    ['file:///{+path}', 'file:///a/%zz'],
    ['search://q{?query,limit}', 'search://q?query=%E0%A4%A'],
    ['x{;a}', 'x;a=%'],
  ])('%s treats malformed percent-encoding in %j as a non-match', (template, uri) => {
    expect(parseUriTemplate(template).match(uri)).toBeNull();
  });

  it('returns null for non-string input', () => {
    expect(parseUriTemplate('users://{id}').match(undefined as unknown as string)).toBeNull();
  });

  // Each case would hang on a backtracking-prone pattern; finishing at all is the assertion.
  const N = 100_000;
  it.each<[string, string, string]>([
    ['simple value then a missing literal', 'users://{id}/profile', `users://${'a'.repeat(N)}/x`],
    ['simple value with no delimiter', 'users://{id}/profile', `users://${'a'.repeat(N)}`],
    ['two values split by a repeated separator', 'x://{a}-{b}/end', `x://${'a-'.repeat(N / 2)}/x`],
    ['two values split by dots', 'x://{a}.{b}/end', `x://${'a.'.repeat(N / 2)}`],
    ['reserved value ending in ?', 'file:///{+path}', `file:///${'a/'.repeat(N / 2)}?`],
    ['reserved value then a missing literal', 'x://{+p}/end', `x://${'/'.repeat(N)}x`],
    ['many slashes for optional segments', 'x{/a,b,c}{.ext}', `x${'/'.repeat(N)}`],
    ['long query with a bad tail', 'search://q{?query,limit}', `search://q?query=${'a'.repeat(N)}&&`],
    ['path params then a long bad tail', 'test://template/{id}/data', `test://template/${'1/'.repeat(N / 2)}data`],
  ])('returns null for a 100k-char non-matching uri: %s', (_label, template, uri) => {
    expect(uri.length).toBeGreaterThanOrEqual(N);
    expect(parseUriTemplate(template).match(uri)).toBeNull();
  });

  it('still matches a 100k-char value', () => {
    const id = 'a'.repeat(N);
    expect(parseUriTemplate('users://{id}/profile').match(`users://${id}/profile`)).toEqual({ id });
  });
});

describe('UriTemplate.expand', () => {
  // RFC 6570 §1.2 / §3.2 example variables.
  const RFC: Vars = {
    var: 'value',
    hello: 'Hello World!',
    path: '/foo/bar',
    empty: '',
    x: 1024,
    y: 768,
    undef: undefined,
  };

  it.each<[string, string]>([
    // level 1
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    // level 2
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
    // level 3
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{empty}', ''],
    ['X{#empty}', 'X#'],
    ['X{.empty}', 'X.'],
    // prefix and explode modifiers on scalars
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['X{.var:3}', 'X.val'],
    ['{;hello:5}', ';hello=Hello'],
    ['{?var:3}', '?var=val'],
    ['{var*}', 'value'],
    // undefined values are omitted, and an expression with none expands to nothing
    ['{undef}', ''],
    ['{x,undef,y}', '1024,768'],
    ['X{.undef}', 'X'],
    ['{?undef}', ''],
    ['{?undef,x}', '?x=1024'],
    ['{;undef}', ''],
    ['{missing}', ''],
  ])('RFC 6570 example %s → %s', (template, expected) => {
    expect(parseUriTemplate(template).expand(RFC)).toBe(expected);
  });

  it.each<[string, Vars, string]>([
    ['users://{id}/profile', { id: 'a/b?c#d&e,f g' }, 'users://a%2Fb%3Fc%23d%26e%2Cf%20g/profile'],
    ['users://{id}', { id: "!'()*" }, 'users://%21%27%28%29%2A'],
    ['users://{id}', { id: '-._~' }, 'users://-._~'],
    ['users://{id}', { id: 'été' }, 'users://%C3%A9t%C3%A9'],
    ['users://{id}', { id: '😀' }, 'users://%F0%9F%98%80'],
    ['users://{id}', { id: 'a\uD800b' }, 'users://a%EF%BF%BDb'],
    ['users://{id:1}', { id: '😀x' }, 'users://%F0%9F%98%80'],
    ['file:///{+path}', { path: 'a b/%41%zz[x]' }, 'file:///a%20b/%41%25zz[x]'],
    ['x://{n}/{b}', { n: 42, b: false }, 'x://42/false'],
    ['a b/{x}', { x: '1' }, 'a%20b/1'],
    ['x://{constructor}{?toString}', {}, 'x://'],
    ['static://config', { extra: 'ignored' }, 'static://config'],
  ])('%s with %j → %s', (template, vars, expected) => {
    expect(parseUriTemplate(template).expand(vars)).toBe(expected);
  });
});

describe('expand → match round trips', () => {
  it.each<[string, Vars]>([
    ['users://{id}/profile', { id: 'ada lovelace/ü?#&,=;+' }],
    ['users://{id}/profile', { id: 42 }],
    ['users://{id}/profile', { id: true }],
    ['test://template/{id}/data', { id: 'abc-123' }],
    ['file:///{+path}', { path: 'docs/a b/ü.md' }],
    ['repo://{owner}/{repo}/tree/{+path}', { owner: 'acme inc', repo: 'web', path: 'src/a.ts' }],
    ['search://q{?query,limit}', { query: 'a&b=c d', limit: 10 }],
    ['search://q{?query,limit}', { query: undefined, limit: '5' }],
    ['search://q{?query,limit}', { query: '' }],
    ['search://q{?query,limit}', {}],
    ['list://items{?page}{&size}', { page: 2, size: 10 }],
    ['x{/a,b}{.ext}', { a: '1', b: 'two words', ext: 'json' }],
    ['x{/a,b}{.ext}', { a: 'only' }],
    ['x{;a,b}', { a: '', b: 'z;y' }],
    ['page{#section}', { section: 'a/b c' }],
    ['map?{x,y}', { x: 'a,b', y: 'c' }],
    ['a b/{x}', { x: '1' }],
    ['static://config', {}],
  ])('%s with %j', (template, vars) => {
    const t = parseUriTemplate(template);
    const expected = Object.fromEntries(
      Object.entries(vars).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
    );
    expect(t.match(t.expand(vars))).toEqual(expected);
  });
});
