import Ajv2020 from 'ajv/dist/2020';
import { McpConfigError } from '../../../lib/options/config-error';
import { createSchemaValidator, describeErrors, type CompiledSchema } from '../../../lib/core/schema/validator';
import { configError } from '../../helpers/errors';

describe('createSchemaValidator: compile', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown type', { type: 'object', properties: { a: { type: 'nonsense' } } }, /properties\/a\/type/],
    ['a dangling $ref', { type: 'object', $ref: '#/$defs/missing' }, /can't resolve reference #\/\$defs\/missing/],
    ['required that is not an array', { type: 'object', required: 'a' }, /required must be array/],
    [
      'a negative minLength',
      { type: 'object', properties: { a: { type: 'string', minLength: -1 } } },
      /minLength must be >= 0/,
    ],
  ])('throws ERR_MCP_INVALID_SCHEMA for %s, naming the label', (_label, schema, detail) => {
    const err = configError(() => createSchemaValidator().compile(schema, "tool 'add' inputSchema"));
    expect(err.code).toBe('ERR_MCP_INVALID_SCHEMA');
    expect(err.message).toMatch(/^mcpRouter: tool 'add' inputSchema is not a valid JSON Schema: /);
    expect(err.message).toMatch(detail);
  });

  it('compiles once: the schema is not compiled again on each call', () => {
    const ajv = new Ajv2020({ allErrors: true });
    const compile = jest.spyOn(ajv, 'compile');
    const validate = createSchemaValidator(ajv).compile({ type: 'object', properties: { a: { type: 'number' } } }, 'x');
    expect(compile).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) validate({ a: i });
    validate({ a: 'no' });
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('returns exactly { ok: true } for a valid value', () => {
    const validate = createSchemaValidator().compile({ type: 'object', properties: { a: { type: 'number' } } }, 'x');
    expect(validate({ a: 1 })).toStrictEqual({ ok: true });
  });
});

describe('createSchemaValidator: JSON Schema dialects', () => {
  it('treats a schema without $schema as 2020-12: $defs and $ref', () => {
    const validate = createSchemaValidator().compile(
      {
        type: 'object',
        $defs: {
          point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
        },
        properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
        required: ['from'],
      },
      'x',
    );
    expect(validate({ from: { x: 1, y: 2 }, to: { x: 3, y: 4 } })).toStrictEqual({ ok: true });
    expect(validate({ from: { x: 1 } })).toStrictEqual({ ok: false, message: "from: must have required property 'y'" });
    expect(validate({ from: { x: 1, y: 2 }, to: { x: 'a', y: 4 } })).toStrictEqual({
      ok: false,
      message: 'to.x: must be number',
    });
  });

  it('treats a schema without $schema as 2020-12: prefixItems and items: false', () => {
    const validate = createSchemaValidator().compile(
      {
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], items: false } },
      },
      'x',
    );
    expect(validate({ pair: [1, 'a'] })).toStrictEqual({ ok: true });
    expect(validate({ pair: [1, 2] })).toStrictEqual({ ok: false, message: 'pair.1: must be string' });
    expect(validate({ pair: [1, 'a', 3] })).toStrictEqual({
      ok: false,
      message: 'pair: must NOT have more than 2 items',
    });
  });

  it('accepts an explicit 2020-12 $schema', () => {
    const validate = createSchemaValidator().compile(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { a: { type: 'integer' } },
      },
      'x',
    );
    expect(validate({ a: 1 })).toStrictEqual({ ok: true });
    expect(validate({ a: 1.5 })).toStrictEqual({ ok: false, message: 'a: must be integer' });
  });

  it('accepts a draft-07 $schema with definitions and $ref', () => {
    const validate = createSchemaValidator().compile(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { name: { type: 'string', minLength: 1 } },
        properties: { first: { $ref: '#/definitions/name' } },
        required: ['first'],
      },
      'x',
    );
    expect(validate({ first: 'Ada' })).toStrictEqual({ ok: true });
    expect(validate({ first: '' })).toStrictEqual({
      ok: false,
      message: 'first: must NOT have fewer than 1 characters',
    });
  });

  // Schemas generated for MCP before 2025-11-25 (e.g. zod-to-json-schema's draft-07 target) write tuples as
  // `items: [...]` + `additionalItems`; a schema that declares draft-07 must be read as draft-07.
  it('validates a draft-07 tuple (items array + additionalItems) with draft-07 semantics', () => {
    let validate: CompiledSchema | undefined;
    expect(() => {
      validate = createSchemaValidator().compile(
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            pair: { type: 'array', items: [{ type: 'number' }, { type: 'string' }], additionalItems: false },
          },
        },
        "tool 'pair' inputSchema",
      );
    }).not.toThrow();
    expect(validate?.({ pair: [1, 'a'] })).toStrictEqual({ ok: true });
    expect(validate?.({ pair: [1, 2] })).toMatchObject({ ok: false });
    expect(validate?.({ pair: [1, 'a', 3] })).toMatchObject({ ok: false });
  });

  it.each<[string, unknown, boolean]>([
    ['a valid email', 'ada@example.com', true],
    ['a string without @', 'not-an-email', false],
    ['an empty string', '', false],
  ])('validates format: email (%s)', (_label, email, ok) => {
    const validate = createSchemaValidator().compile(
      { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
      'x',
    );
    expect(validate({ email })).toStrictEqual(
      ok ? { ok: true } : { ok: false, message: 'email: must match format "email"' },
    );
  });

  it.each<[string, string, unknown, boolean]>([
    ['date-time', '2025-11-25T10:00:00Z', 'yesterday', false],
    ['uri', 'https://example.com/a', 'not a uri', false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'xyz', false],
  ])('validates format: %s', (format, good, bad) => {
    const validate = createSchemaValidator().compile(
      { type: 'object', properties: { v: { type: 'string', format } } },
      'x',
    );
    expect(validate({ v: good })).toStrictEqual({ ok: true });
    expect(validate({ v: bad })).toStrictEqual({ ok: false, message: `v: must match format "${format}"` });
  });

  it('accepts unknown annotation keywords (strict: false)', () => {
    const validate = createSchemaValidator().compile(
      { type: 'object', example: { a: 1 }, 'x-vendor': true, properties: { a: { type: 'number', examples: [1] } } },
      'x',
    );
    expect(validate({ a: 1 })).toStrictEqual({ ok: true });
  });
});

describe('createSchemaValidator: messages', () => {
  const validator = createSchemaValidator();

  it.each<[string, Record<string, unknown>, unknown, string]>([
    ['a wrong type', { type: 'object', properties: { a: { type: 'number' } } }, { a: 'x' }, 'a: must be number'],
    ['a missing required property', { type: 'object', required: ['b'] }, {}, "(root): must have required property 'b'"],
    [
      'an additional property (named)',
      { type: 'object', properties: { a: { type: 'number' } }, additionalProperties: false },
      { a: 1, extra: true },
      "(root): must NOT have additional properties 'extra'",
    ],
    [
      'an enum (lists the allowed values)',
      { type: 'object', properties: { color: { enum: ['red', 'green', 3] } } },
      { color: 'blue' },
      'color: must be equal to one of the allowed values (["red","green",3])',
    ],
    [
      'a nested path (dots)',
      { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } },
      { a: { b: 1 } },
      'a.b: must be string',
    ],
    [
      'an array index',
      { type: 'object', properties: { list: { type: 'array', items: { type: 'integer' } } } },
      { list: [1, 'two'] },
      'list.1: must be integer',
    ],
    ['a root that is not an object', { type: 'object' }, 'text', '(root): must be object'],
  ])('words %s', (_label, schema, value, message) => {
    expect(validator.compile(schema, 'x')(value)).toStrictEqual({ ok: false, message });
  });

  it('lists every problem (allErrors), separated by "; "', () => {
    const validate = validator.compile(
      {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'string' } },
        required: ['c'],
        additionalProperties: false,
      },
      'x',
    );
    expect(validate({ a: 'x', b: 1, d: 0 })).toStrictEqual({
      ok: false,
      message:
        "(root): must have required property 'c'; (root): must NOT have additional properties 'd'; a: must be number; b: must be string",
    });
  });

  it('lists at most 8 problems and says how many more', () => {
    const properties: Record<string, unknown> = {};
    const value: Record<string, unknown> = {};
    for (let i = 0; i < 11; i++) {
      properties[`p${i}`] = { type: 'number' };
      value[`p${i}`] = 'x';
    }
    const result = validator.compile({ type: 'object', properties }, 'x')(value);
    expect(result).toStrictEqual({
      ok: false,
      message: [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `p${i}: must be number`).join('; ') + '; and 3 more',
    });
  });

  it('describeErrors drops duplicate lines and words an error without message', () => {
    const error = {
      keyword: 'type',
      instancePath: '/a',
      schemaPath: '#/properties/a/type',
      params: {},
      message: 'must be number',
    };
    expect(describeErrors([error, { ...error }])).toBe('a: must be number');
    expect(describeErrors([{ ...error, message: undefined }])).toBe('a: is invalid');
    expect(describeErrors([])).toBe('');
  });
});

describe('createSchemaValidator: instances', () => {
  it('uses a caller-supplied Ajv2020 instance (its own keywords and formats)', () => {
    const ajv = new Ajv2020({ allErrors: true });
    ajv.addFormat('even-digits', /^([0-9]{2})+$/);
    ajv.addKeyword({
      keyword: 'isEven',
      type: 'number',
      schemaType: 'boolean',
      validate: (flag: boolean, n: number) => !flag || n % 2 === 0,
    });
    const validate = createSchemaValidator(ajv).compile(
      {
        type: 'object',
        properties: { n: { type: 'number', isEven: true }, code: { type: 'string', format: 'even-digits' } },
      },
      'x',
    );
    expect(validate({ n: 4, code: '1234' })).toStrictEqual({ ok: true });
    expect(validate({ n: 3, code: '1234' })).toStrictEqual({
      ok: false,
      message: 'n: must pass "isEven" keyword validation',
    });
    expect(validate({ n: 2, code: '123' })).toStrictEqual({
      ok: false,
      message: 'code: must match format "even-digits"',
    });
  });

  it('the default instance does not know a caller instance’s keywords', () => {
    const ajv = new Ajv2020();
    ajv.addKeyword({
      keyword: 'isEven',
      type: 'number',
      schemaType: 'boolean',
      validate: (flag: boolean, n: number) => !flag || n % 2 === 0,
    });
    createSchemaValidator(ajv);
    // strict: false ignores the unknown keyword, so odd numbers pass.
    const validate = createSchemaValidator().compile(
      { type: 'object', properties: { n: { type: 'number', isEven: true } } },
      'x',
    );
    expect(validate({ n: 3 })).toStrictEqual({ ok: true });
  });

  it('compiles two schemas with the same $id in one validator, each keeping its own rules', () => {
    const validator = createSchemaValidator();
    const asNumber = validator.compile(
      { $id: 'https://example.com/args', type: 'object', properties: { a: { type: 'number' } } },
      'one',
    );
    const asString = validator.compile(
      { $id: 'https://example.com/args', type: 'object', properties: { a: { type: 'string' } } },
      'two',
    );
    expect(asNumber({ a: 1 })).toStrictEqual({ ok: true });
    expect(asNumber({ a: 'x' })).toStrictEqual({ ok: false, message: 'a: must be number' });
    expect(asString({ a: 'x' })).toStrictEqual({ ok: true });
    expect(asString({ a: 1 })).toStrictEqual({ ok: false, message: 'a: must be string' });
  });

  it('compiles one schema object with an $id twice in one validator', () => {
    const validator = createSchemaValidator();
    const schema = { $id: 'https://example.com/shared', type: 'object', properties: { a: { type: 'number' } } };
    const first = validator.compile(schema, 'first');
    const second = validator.compile(schema, 'second');
    expect(first({ a: 'x' })).toStrictEqual({ ok: false, message: 'a: must be number' });
    expect(second({ a: 'x' })).toStrictEqual({ ok: false, message: 'a: must be number' });
  });

  it('two validators share nothing: the same $id compiles in both with different rules', () => {
    const one = createSchemaValidator().compile(
      { $id: 'https://example.com/x', type: 'object', required: ['a'] },
      'one',
    );
    const two = createSchemaValidator().compile(
      { $id: 'https://example.com/x', type: 'object', required: ['b'] },
      'two',
    );
    expect(one({ a: 1 })).toStrictEqual({ ok: true });
    expect(one({ b: 1 })).toStrictEqual({ ok: false, message: "(root): must have required property 'a'" });
    expect(two({ b: 1 })).toStrictEqual({ ok: true });
    expect(two({ a: 1 })).toStrictEqual({ ok: false, message: "(root): must have required property 'b'" });
  });

  it('two validators share nothing: a $ref to an $id compiled in one does not resolve in the other', () => {
    const one = createSchemaValidator();
    one.compile({ $id: 'https://example.com/point', type: 'object', properties: { x: { type: 'number' } } }, 'point');
    const err = configError(() =>
      createSchemaValidator().compile(
        { type: 'object', properties: { p: { $ref: 'https://example.com/point' } } },
        "tool 'uses' inputSchema",
      ),
    );
    expect(err.code).toBe('ERR_MCP_INVALID_SCHEMA');
    expect(err.message).toMatch(
      /^mcpRouter: tool 'uses' inputSchema is not a valid JSON Schema: can't resolve reference/,
    );
  });
});
