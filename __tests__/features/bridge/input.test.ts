// inputLayoutFor: a bridged route's tool input schema (params, query and body merged, or nested) and the split back.

import { McpConfigError } from '../../../lib';
import { inputLayoutFor } from '../../../lib/features/bridge/input';

const QUERY = {
  type: 'object',
  properties: { limit: { type: 'integer' }, tag: { type: 'array', items: { type: 'string' } } },
  required: ['limit'],
};
const BODY = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] };

describe('inputLayoutFor, flat layout', () => {
  it('derives required string params from the path when none are declared', () => {
    const layout = inputLayoutFor(undefined, ['userId', 'postId'], "route tool 't'", 'flat');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: { userId: { type: 'string' }, postId: { type: 'string' } },
      required: ['userId', 'postId'],
    });
    expect(layout.split({ userId: '7', postId: '9' })).toEqual({
      params: { userId: '7', postId: '9' },
      query: {},
      body: undefined,
    });
  });

  it('gives an empty object schema for a route without params, query or body', () => {
    const layout = inputLayoutFor(undefined, [], "route tool 't'", 'flat');
    expect(layout.schema).toEqual({ type: 'object', properties: {}, required: [] });
    expect(layout.split({})).toEqual({ params: {}, query: {}, body: undefined });
  });

  it('merges params, query and body properties into one object, with every required name', () => {
    const layout = inputLayoutFor({ query: QUERY, body: BODY }, ['id'], "route tool 't'", 'flat');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        limit: { type: 'integer' },
        tag: { type: 'array', items: { type: 'string' } },
        name: { type: 'string' },
        age: { type: 'integer' },
      },
      required: ['id', 'limit', 'name'],
    });
    expect(layout.split({ id: '7', limit: 5, tag: ['a', 'b'], name: 'Ada', age: 36 })).toEqual({
      params: { id: '7' },
      query: { limit: 5, tag: ['a', 'b'] },
      body: { name: 'Ada', age: 36 },
    });
  });

  it('uses declared params instead of the path’s', () => {
    const params = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] };
    const layout = inputLayoutFor({ params }, ['id'], "route tool 't'", 'flat');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: { id: { type: 'integer', minimum: 1 } },
      required: ['id'],
    });
  });

  it('makes a non-object body the argument `body`, sent as it is', () => {
    const body = { type: 'array', items: { type: 'string' } };
    const layout = inputLayoutFor({ body }, ['id'], "route tool 't'", 'flat');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, body },
      required: ['id', 'body'],
    });
    expect(layout.split({ id: '1', body: ['a', 'b'] })).toEqual({ params: { id: '1' }, query: {}, body: ['a', 'b'] });
  });

  it('keeps only declared names when splitting, and stringifies params', () => {
    const params = {
      type: 'object',
      properties: { id: { type: 'integer' }, active: { type: 'boolean' } },
      required: ['id'],
    };
    const layout = inputLayoutFor({ params, query: QUERY, body: BODY }, ['id', 'active'], "route tool 't'", 'flat');
    const split = layout.split({ id: 7, active: false, limit: 2, name: 'Ada', extra: 'dropped' });
    expect(split).toEqual({ params: { id: '7', active: 'false' }, query: { limit: 2 }, body: { name: 'Ada' } });
    // An object body with no body arguments is still an object (the route gets `{}` as JSON).
    expect(layout.split({ id: 1 })).toEqual({ params: { id: '1' }, query: {}, body: {} });
  });

  it.each([
    ['params', 'query', { query: { type: 'object', properties: { id: { type: 'string' } } } }],
    ['params', 'body', { body: { type: 'object', properties: { id: { type: 'string' } } } }],
  ])('refuses a name that is both a %s and a %s input', (first, second, input) => {
    const build = () => inputLayoutFor(input, ['id'], "route tool 'get_users_by_id'", 'flat');
    expect(build).toThrow(McpConfigError);
    expect(build).toThrow(expect.objectContaining({ code: 'ERR_MCP_INVALID_DEFINITION' }));
    let message = '';
    try {
      build();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("route tool 'get_users_by_id'");
    expect(message).toContain(`'id' is both a ${first} and a ${second} input`);
    expect(message).toContain("layout: 'nested'");
  });

  it('refuses a name that is both a query and a body input', () => {
    const input = {
      query: { type: 'object', properties: { q: { type: 'string' } } },
      body: { type: 'object', properties: { q: { type: 'string' } } },
    };
    expect(() => inputLayoutFor(input, [], "route tool 'search'", 'flat')).toThrow(
      /'q' is both a query and a body input; rename one, or use layout: 'nested'/,
    );
  });

  it('refuses a query named `body` next to a non-object body', () => {
    const input = { query: { type: 'object', properties: { body: { type: 'string' } } }, body: { type: 'string' } };
    expect(() => inputLayoutFor(input, [], "route tool 't'", 'flat')).toThrow(
      /'body' is both a query and a body input/,
    );
  });
});

describe('inputLayoutFor, nested layout', () => {
  it('keeps params, query and body apart in the schema, and accepts names found in two places', () => {
    const query = { type: 'object', properties: { id: { type: 'string' } } };
    const layout = inputLayoutFor({ query, body: BODY }, ['id'], "route tool 't'", 'nested');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: {
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        query,
        body: BODY,
      },
      required: ['params', 'body'],
    });
    expect(layout.split({ params: { id: '7' }, query: { id: 'q' }, body: { name: 'Ada' } })).toEqual({
      params: { id: '7' },
      query: { id: 'q' },
      body: { name: 'Ada' },
    });
  });

  it('leaves query and body out of the schema when not declared, and splits missing parts to empty', () => {
    const layout = inputLayoutFor(undefined, ['id'], "route tool 't'", 'nested');
    expect(layout.schema).toEqual({
      type: 'object',
      properties: { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      required: ['params'],
    });
    expect(layout.split({})).toEqual({ params: {}, query: {}, body: undefined });
    expect(layout.split({ params: 'not an object', query: ['x'] })).toEqual({ params: {}, query: {}, body: undefined });
  });
});
