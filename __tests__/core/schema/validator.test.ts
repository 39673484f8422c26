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

describe('createSchemaValidator: checked at registration, compiled on first use', () => {
  afterEach(() => jest.restoreAllMocks());

  // Each passes the JSON Schema 2020-12 meta-schema and fails Ajv's compile: registration must still refuse it.
  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a pattern invalid with the u flag',
      { type: 'object', properties: { a: { type: 'string', pattern: '\\q' } } },
      /Invalid escape/,
    ],
    [
      'a patternProperties key invalid with the u flag',
      { type: 'object', patternProperties: { '\\q': {} } },
      /Invalid escape/,
    ],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }, /enum must have non-empty array/],
    ['a root that is only a reference to itself', { type: 'object', $ref: '#' }, /can't resolve reference #/],
    ['a $ref to the root below it', { type: 'object', properties: { a: { $ref: '#' } } }, /can't resolve reference #/],
    [
      'a $ref to the root in the items of a property',
      { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } },
      /can't resolve reference #/,
    ],
    ['an invalid $anchor under a vendor key', { type: 'object', 'x-vendor': { $anchor: '#x' } }, /invalid anchor/],
    [
      'an invalid $dynamicAnchor under additionalItems',
      { type: 'object', additionalItems: { $dynamicAnchor: '1' } },
      /invalid anchor/,
    ],
    [
      'one $anchor given twice under vendor keys',
      { type: 'object', 'x-a': { $anchor: 'a' }, 'x-b': { $anchor: 'a' } },
      /resolves to more than one schema/,
    ],
    [
      'nullable without type',
      { type: 'object', properties: { a: { nullable: true } } },
      /"nullable" cannot be used without "type"/,
    ],
    ['the draft-04 id keyword', { type: 'object', properties: { a: { id: 'x' } } }, /NOT SUPPORTED: keyword "id"/],
    [
      'a $ref into data that is not a schema',
      { type: 'object', examples: [{ type: 'bogus' }], properties: { a: { $ref: '#/examples/0' } } },
      /type must be JSONType/,
    ],
  ])('refuses %s at registration, as Ajv words it', (_label, schema, detail) => {
    const ajv = new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false });
    expect(ajv.validateSchema(schema)).toBe(true);
    const err = configError(() => createSchemaValidator().check(schema, "tool 'odd' inputSchema"));
    expect(err.code).toBe('ERR_MCP_INVALID_SCHEMA');
    expect(err.message).toMatch(/^mcpRouter: tool 'odd' inputSchema is not a valid JSON Schema: /);
    expect(err.message).toMatch(detail);
  });

  it('refuses exactly what a plain Ajv compile refuses, with the same words', () => {
    const schemas: Record<string, unknown>[] = [
      { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string', minLength: 1 } }, required: ['a'] },
      { type: 'object', $defs: { p: { type: 'integer' } }, properties: { a: { $ref: '#/$defs/p' } } },
      { type: 'object', $defs: { p: { type: 'integer' } }, properties: { a: { $ref: '#/$defs/q' } } },
      { type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: '[' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: '\\-' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: '[\\u{10000}-\\u{10FFFF}]' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: 'a\\Z' } } },
      { type: 'object', required: ['a', 'a'] },
      { type: 'object', properties: { a: { type: 'integer', minimum: 1, maxItems: 2.5 } } },
      { type: 'object', properties: { a: { type: ['string', 'null'], nullable: true } } },
      { type: 'object', properties: { a: { type: 'string', nullable: false, enum: ['x', null] } } },
      { type: 'object', properties: { a: { minContains: 1 } } },
      { type: 'object', $defs: { a: { $anchor: 'x' }, b: { $anchor: 'x' } } },
      { type: 'object', properties: { a: { $dynamicRef: '#meta' } } },
      { type: 'object', properties: { a: { $ref: '#/properties/b' }, b: { $ref: '#/properties/a' } } },
    ];
    const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    for (const schema of schemas) {
      let plain: string | undefined;
      try {
        new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false, logger: quiet }).compile(
          structuredClone(schema),
        );
      } catch (err) {
        plain = (err as Error).message;
      }
      let ours: string | undefined;
      try {
        createSchemaValidator().check(schema, 'x').validate({});
      } catch (err) {
        ours = (err as Error).message;
      }
      expect([JSON.stringify(schema), ours]).toStrictEqual([
        JSON.stringify(schema),
        plain === undefined ? undefined : `mcpRouter: x is not a valid JSON Schema: ${plain}`,
      ]);
    }
  });

  it('builds the Ajv function on the first validation, not at registration, and once', () => {
    const compile = jest.spyOn(Ajv2020.prototype, 'compile');
    const validator = createSchemaValidator();
    const validate = validator.compile({ type: 'object', properties: { a: { type: 'number' } } }, 'x');
    expect(compile).not.toHaveBeenCalled();
    expect(validate({ a: 'no' })).toStrictEqual({ ok: false, message: 'a: must be number' });
    expect(validate({ a: 1 })).toStrictEqual({ ok: true });
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('shares one copy and one validator between identical schemas, compiled once', () => {
    const compile = jest.spyOn(Ajv2020.prototype, 'compile');
    const validator = createSchemaValidator();
    const one = validator.check({ type: 'object', properties: { a: { type: 'number' } } }, "tool 'one' inputSchema");
    const two = validator.check({ type: 'object', properties: { a: { type: 'number' } } }, "tool 'two' inputSchema");
    expect(two.validate).toBe(one.validate);
    expect(two.schema).toBe(one.schema);
    expect(Object.isFrozen((one.schema.properties as Record<string, unknown>).a)).toBe(true);
    one.validate({ a: 1 });
    two.validate({ a: 'x' });
    expect(compile).toHaveBeenCalledTimes(1);
    // The same keywords in another order are another schema: their errors come in their own order.
    expect(validator.check({ properties: { a: { type: 'number' } }, type: 'object' }, 'x').validate).not.toBe(
      one.validate,
    );
  });

  it('keeps its own copy: a change to the caller’s object afterwards changes nothing', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    const validate = createSchemaValidator().compile(schema, 'x');
    schema.properties.a.type = 'string';
    expect(validate({ a: 1 })).toStrictEqual({ ok: true });
  });

  it('forgets the least recently registered of more than 1,024 distinct schemas (the tools keep theirs)', () => {
    const validator = createSchemaValidator();
    const schemaOf = (i: number) => ({ type: 'object', properties: { [`p${i}`]: { type: 'number' } } });
    const first = validator.check(schemaOf(0), 'x');
    for (let i = 1; i <= 1024; i++) validator.check(schemaOf(i), 'x');
    const again = validator.check(schemaOf(0), 'x');
    expect(again.validate).not.toBe(first.validate);
    expect(first.validate({ p0: 'x' })).toStrictEqual({ ok: false, message: 'p0: must be number' });
    // Registering a schema seen recently again is a lookup, not a new entry.
    expect(validator.check(schemaOf(1024), 'x')).toBe(validator.check(schemaOf(1024), 'y'));
  });

  it('compiles a schema with an $id at registration, each on its own', () => {
    const compile = jest.spyOn(Ajv2020.prototype, 'compile');
    const validator = createSchemaValidator();
    const schema = { $id: 'https://example.com/args', type: 'object', properties: { a: { type: 'number' } } };
    const one = validator.compile(schema, 'one');
    expect(compile).toHaveBeenCalledTimes(1);
    expect(validator.compile(schema, 'two')).not.toBe(one);
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it('compiles at registration with a caller’s Ajv, once per distinct schema', () => {
    const ajv = new Ajv2020({ allErrors: true });
    const compile = jest.spyOn(ajv, 'compile');
    const validator = createSchemaValidator(ajv);
    const one = validator.compile({ type: 'object', properties: { a: { type: 'number' } } }, 'one');
    expect(compile).toHaveBeenCalledTimes(1);
    expect(validator.compile({ type: 'object', properties: { a: { type: 'number' } } }, 'two')).toBe(one);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
