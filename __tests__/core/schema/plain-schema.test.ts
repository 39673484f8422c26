import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { AjvKnowledge } from '../../../lib/core/schema/compile-check';
import { isPlainSchema } from '../../../lib/core/schema/plain-schema';

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false }));
const knowledge: AjvKnowledge = {
  hasFormat: (format) => ajv.formats[format] !== undefined,
  hasKeyword: (key) => Boolean(ajv.getKeyword(key)),
};

/** What a plain schema promises: Ajv's meta-schema validation passes and its compile succeeds. */
function ajvAccepts(schema: Record<string, unknown>): boolean {
  if (ajv.validateSchema(schema) !== true) return false;
  try {
    ajv.compile(structuredClone(schema));
    return true;
  } catch {
    return false;
  }
}

describe('isPlainSchema', () => {
  it.each<[string, Record<string, unknown>]>([
    [
      'the typical tool schema',
      { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a'] },
    ],
    [
      'nested objects and arrays',
      {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } },
      },
    ],
    [
      'bounds, enums, formats, patterns',
      {
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 1, maximum: 9 },
          s: { type: 'string', minLength: 1, maxLength: 5, pattern: '^[a-z]+$', format: 'email' },
          e: { enum: ['x', 1, null] },
        },
      },
    ],
    ['a nullable type list', { type: 'object', properties: { a: { type: ['string', 'null'] } } }],
    [
      'annotations and unknown keys',
      {
        type: 'object',
        title: 't',
        description: 'd',
        examples: [{}],
        'x-vendor': 1,
        'x-mcp-header': 'A',
        additionalProperties: false,
      },
    ],
  ])('accepts %s, which Ajv accepts too', (_label, schema) => {
    expect(isPlainSchema(schema, knowledge)).toBe(true);
    expect(ajvAccepts(schema)).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown type', { type: 'object', properties: { a: { type: 'nonsense' } } }],
    ['an empty type list', { type: [] }],
    ['a type list with a repeat', { type: ['string', 'string'] }],
    ['required that is not an array', { type: 'object', required: 'a' }],
    ['required with a repeat', { type: 'object', required: ['a', 'a'] }],
    ['a negative minLength', { type: 'object', properties: { a: { type: 'string', minLength: -1 } } }],
    ['a fractional maxItems', { type: 'array', maxItems: 1.5 }],
    ['an empty enum', { enum: [] }],
    ['a pattern only the u flag accepts', { type: 'string', pattern: '[\\u{10000}-\\u{10FFFF}]' }],
    ['a pattern only the u flag refuses', { type: 'string', pattern: '\\q' }],
    ['a \\Z anchor', { type: 'string', pattern: 'a\\Z' }],
    ['an unknown format', { type: 'string', format: 'zip-code' }],
    ['a $ref', { type: 'object', properties: { a: { $ref: '#' } } }],
    ['a $schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }],
    ['an applicator left to Ajv', { type: 'object', anyOf: [{ required: ['a'] }] }],
    ['an Ajv keyword', { type: 'object', properties: { a: { nullable: true } } }],
    ['a __proto__ property', JSON.parse('{"type":"object","properties":{"__proto__":{}}}') as Record<string, unknown>],
  ])('leaves %s to Ajv', (_label, schema) => {
    expect(isPlainSchema(schema, knowledge)).toBe(false);
  });
});
