import { createHash } from 'node:crypto';
import { annotationsFor, MAX_TOOL_NAME_LENGTH, toolNameFor } from '../../../lib/features/bridge/route-names';
import { pathParamsOf } from '../../../lib/features/bridge/path-template';

const VALID_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const hash8 = (method: string, path: string): string =>
  createHash('sha256').update(`${method.toUpperCase()} ${path}`).digest('hex').slice(0, 8);

describe('toolNameFor: readable snake_case names', () => {
  it.each<[string, string, string]>([
    // the examples of the design
    ['GET', '/users/:id', 'get_users_by_id'],
    ['POST', '/orders', 'post_orders'],
    ['GET', '/api/v1/orders/:orderId/items', 'get_api_v1_orders_by_order_id_items'],
    // methods
    ['get', '/users/:id', 'get_users_by_id'],
    ['Delete', '/users/:id', 'delete_users_by_id'],
    ['PUT', '/users/:id', 'put_users_by_id'],
    ['PATCH', '/users/:id', 'patch_users_by_id'],
    ['M-SEARCH', '/devices', 'm_search_devices'],
    ['', '/users', 'users'],
    // the root and separators
    ['GET', '/', 'get_root'],
    ['GET', '', 'get_root'],
    ['GET', '///', 'get_root'],
    ['GET', '/users/', 'get_users'],
    ['GET', '//users//list', 'get_users_list'],
    ['', '', 'root'],
    // words inside segments
    ['GET', '/order-items', 'get_order_items'],
    ['GET', '/order_items', 'get_order_items'],
    ['GET', '/orderItems', 'get_order_items'],
    ['GET', '/Users/:ID', 'get_users_by_id'],
    ['GET', '/HTTPServer/userID', 'get_http_server_user_id'],
    ['GET', '/OAuth2/token', 'get_oauth2_token'],
    ['GET', '/users.json', 'get_users_json'],
    ['GET', '/2fa/:userId', 'get_2fa_by_user_id'],
    ['GET', '/@me/~settings/$metadata', 'get_me_settings_metadata'],
    ['GET', '/a%20b/caf%C3%A9', 'get_a_b_cafe'],
    ['GET', '/bad%E0%A4%A/x', 'get_bad_e0_a4_a_x'],
    // several parameters, adjacent ones, params inside a segment
    ['GET', '/users/:userId/posts/:postId', 'get_users_by_user_id_posts_by_post_id'],
    ['GET', '/flights/:from-:to', 'get_flights_by_from_by_to'],
    ['GET', '/plantae/:genus.:species', 'get_plantae_by_genus_by_species'],
    ['GET', '/users/:user_id', 'get_users_by_user_id'],
    ['GET', '/users/:$id', 'get_users_by_id'],
    ['GET', '/users/:"user id"', 'get_users_by_user_id'],
    ['GET', '/time/12:30', 'get_time_12_30'],
    ['GET', '/a:', 'get_a'],
    // Express 4 syntax
    ['GET', '/users/:id?', 'get_users_by_id'],
    ['GET', '/users/:id(\\d+)', 'get_users_by_id'],
    ['GET', '/users/:id((?:a|b)+)/posts', 'get_users_by_id_posts'],
    ['GET', '/files/*', 'get_files_any'],
    ['GET', '/*', 'get_any'],
    ['GET', '*', 'get_any'],
    ['GET', '/ab*', 'get_ab_any'],
    // Express 5 syntax
    ['GET', '/users{/:id}', 'get_users_by_id'],
    ['GET', '/user{s}', 'get_users'],
    ['GET', '/files/*path', 'get_files_by_path'],
    ['GET', '/files{/*path}', 'get_files_by_path'],
    ['GET', '/*splat', 'get_by_splat'],
    ['GET', '/ab*cd', 'get_ab_by_cd'], // read as Express 5 does: `*cd` is a wildcard named cd
    ['GET', '/docs/:section{/:page}.html', 'get_docs_by_section_by_page_html'],
    ['GET', '/a\\(b\\)', 'get_a_b'],
    // accents are dropped, not the letters
    ['GET', '/café/über/:naïve', 'get_cafe_uber_by_naive'],
    ['GET', '/Ångström', 'get_angstrom'],
  ])('%s %s → %s', (method, path, expected) => {
    const name = toolNameFor(method, path);
    expect(name).toBe(expected);
    expect(name).toMatch(VALID_NAME);
  });

  it.each<[string, string, string]>([
    ['GET', '/用户/:id', 'get_by_id'],
    ['GET', '/用户', 'get'],
    ['GET', '/:ид', 'get_by'],
    ['GET', '/straße', 'get_stra_e'],
    ['GET', '/emoji/🍕', 'get_emoji'],
    ['GET', '/', 'get_root'], // control row: no hash
  ])('%s %s: characters with no ASCII spelling add a hash (→ %s_<hash>)', (method, path, readable) => {
    const name = toolNameFor(method, path);
    expect(name).toMatch(VALID_NAME);
    if (path === '/') expect(name).toBe('get_root');
    else expect(name).toBe(`${readable}_${hash8(method, path)}`);
  });

  it('tells apart paths whose words were all lost, and spells them the same every time', () => {
    expect(toolNameFor('GET', '/用户')).toBe('get_c15c2aeb');
    expect(toolNameFor('GET', '/商品')).not.toBe(toolNameFor('GET', '/用户'));
    expect(toolNameFor('', '/用户')).toBe(hash8('', '/用户'));
    expect(toolNameFor('', '/用户')).toMatch(VALID_NAME);
  });

  it('hashes the upper-cased method, so the name does not depend on its case', () => {
    expect(toolNameFor('get', '/用户')).toBe(toolNameFor('GET', '/用户'));
  });
});

describe('toolNameFor: long paths', () => {
  const segments = (count: number): string => '/segment'.repeat(count);
  const deep = `/api/v1/organisations/:organisationId/projects/:projectId/environments/:environmentId/deployments`;

  it.each<[string, string, string]>([
    ['GET', segments(20), `get_segment_segment_segment_segment_segment_segment_${hash8('GET', segments(20))}`],
    ['GET', deep, `get_api_v1_organisations_by_organisation_id_projects_by_${hash8('GET', deep)}`],
    ['POST', `/${'a'.repeat(100)}`, `post_${'a'.repeat(50)}_${hash8('POST', `/${'a'.repeat(100)}`)}`],
    ['GET', `/${'x'.repeat(59)}`, `get_${'x'.repeat(59)}`], // 63 characters
    ['GET', `/${'x'.repeat(60)}`, `get_${'x'.repeat(60)}`], // 64 characters: the longest without a hash
    ['GET', `/${'x'.repeat(61)}`, `get_${'x'.repeat(51)}_${hash8('GET', `/${'x'.repeat(61)}`)}`],
    [
      'GET',
      `/abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz/${'b'.repeat(20)}`,
      `get_abcdefghijklmnopqrstuvwxyz_${hash8('GET', `/abcdefghijklmnopqrstuvwxyz_abcdefghijklmnopqrstuvwxyz/${'b'.repeat(20)}`)}`,
    ],
    [
      'GET',
      `${segments(30)}/用户`,
      `get_segment_segment_segment_segment_segment_segment_${hash8('GET', `${segments(30)}/用户`)}`,
    ],
  ])('%s %s → %s', (method, path, expected) => {
    const name = toolNameFor(method, path);
    expect(name).toBe(expected);
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(VALID_NAME);
    expect(toolNameFor(method, path)).toBe(name);
  });

  it('keeps two long paths that differ only at the end apart', () => {
    const a = toolNameFor('GET', `${segments(20)}/:a`);
    const b = toolNameFor('GET', `${segments(20)}/:b`);
    expect(a).not.toBe(b);
    expect(a.slice(0, -9)).toBe(b.slice(0, -9));
  });

  it('hashes the method too: one long path under two methods gets two suffixes', () => {
    const suffix = (name: string): string => name.slice(-8);
    expect(suffix(toolNameFor('GET', segments(20)))).toBe(hash8('GET', segments(20)));
    expect(suffix(toolNameFor('DELETE', segments(20)))).toBe(hash8('DELETE', segments(20)));
    expect(hash8('GET', segments(20))).not.toBe(hash8('DELETE', segments(20)));
  });
});

describe('toolNameFor: always a valid MCP name', () => {
  it.each<[string, string]>([
    ['GET', ''],
    ['', ''],
    ['GET', '/:'],
    ['GET', '/*'],
    ['GET', '/{}'],
    ['GET', '/{/:}'],
    ['GET', '/:id('],
    ['GET', '/\\'],
    ['GET', '/\u0000/\t/\n'],
    ['GET', '/%'],
    ['GET', '/🍕🍕🍕'],
    ['GET', '/ﾃｽﾄ'],
    ['GET', `/${'é'.repeat(200)}`],
    ['GET', `/${':x'.repeat(100)}`],
    ['GET', '/a'.repeat(1000)],
    ['\u0000', '/x'],
    ['G E T', '/x y'],
  ])('%j %j', (method, path) => {
    const name = toolNameFor(method, path);
    expect(name).toMatch(VALID_NAME);
    expect(name.startsWith('_')).toBe(false);
    expect(name.endsWith('_')).toBe(false);
    expect(toolNameFor(method, path)).toBe(name);
  });
});

describe('pathParamsOf', () => {
  it.each<[string, string[]]>([
    ['/users', []],
    ['/', []],
    ['', []],
    ['/users/:id', ['id']],
    ['/api/v1/orders/:orderId/items', ['orderId']],
    ['/users/:userId/posts/:postId', ['userId', 'postId']],
    ['/flights/:from-:to', ['from', 'to']],
    ['/plantae/:genus.:species', ['genus', 'species']],
    ['/users/:id?', ['id']],
    ['/users/:id(\\d+)/posts/:postId', ['id', 'postId']],
    ['/users{/:id}', ['id']],
    ['/docs/:section{/:page}.html', ['section', 'page']],
    ['/files/*path', ['path']],
    ['/files{/*path}', ['path']],
    ['/:a/*rest', ['a', 'rest']],
    ['/files/*', []],
    ['/ab*cd', ['cd']],
    ['*', []],
    ['/users/:"user id"', ['user id']],
    ['/users/:"a\\"b"', ['a"b']],
    ['/:ид/:naïve', ['ид', 'naïve']],
    ['/time/12:30', []],
    ['/a\\:b', []],
    ['/:id/again/:id', ['id']],
  ])('%j → %j', (path, expected) => {
    expect(pathParamsOf(path)).toEqual(expected);
  });
});

describe('annotationsFor', () => {
  it.each<[string, Record<string, boolean>]>([
    ['GET', { readOnlyHint: true }],
    ['get', { readOnlyHint: true }],
    ['HEAD', { readOnlyHint: true }],
    ['PUT', { idempotentHint: true }],
    ['put', { idempotentHint: true }],
    ['DELETE', { destructiveHint: true, idempotentHint: true }],
    ['delete', { destructiveHint: true, idempotentHint: true }],
    ['POST', {}],
    ['PATCH', {}],
    ['OPTIONS', {}],
    ['PURGE', {}],
    ['', {}],
  ])('%s → %j', (method, expected) => {
    expect(annotationsFor(method)).toStrictEqual(expected);
  });

  it('returns a fresh object each call, so a caller may change it', () => {
    const first = annotationsFor('GET');
    first.readOnlyHint = false;
    expect(annotationsFor('GET')).toStrictEqual({ readOnlyHint: true });
  });
});
