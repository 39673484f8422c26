import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { compilesSurely, type AjvKnowledge } from '../../../lib/core/schema/compile-check';

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false }));
const knowledge: AjvKnowledge = {
  hasFormat: (format) => ajv.formats[format] !== undefined,
  hasKeyword: (key) => Boolean(ajv.getKeyword(key)),
};

describe('compilesSurely', () => {
  it.each<[string, Record<string, unknown>]>([
    ['the typical tool schema', { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }],
    ['annotations Ajv does not know', { type: 'object', example: 1, 'x-vendor': true, 'x-mcp-header': 'A' }],
    ['a property named id', { type: 'object', properties: { id: { type: 'string' } } }],
    [
      'a $ref into $defs',
      { type: 'object', $defs: { p: { type: 'number' } }, properties: { a: { $ref: '#/$defs/p' } } },
    ],
    [
      'a $ref to a sibling property',
      { type: 'object', properties: { a: { type: 'string' }, b: { $ref: '#/properties/a' } } },
    ],
    [
      'a valid pattern and a known format',
      { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$', format: 'email' } } },
    ],
    ['the 2020-12 $schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }],
  ])('vouches for %s', (_label, schema) => {
    expect(compilesSurely(schema, knowledge)).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a root that is only a reference to itself', { type: 'object', $ref: '#' }],
    // The router's Ajv (addUsedSchema: false) cannot resolve `#`, wherever it is.
    ['a $ref to the root below it', { type: 'object', properties: { child: { $ref: '#' } } }],
    ['a dangling $ref', { type: 'object', $ref: '#/$defs/missing' }],
    ['a $ref to another document', { type: 'object', properties: { p: { $ref: 'https://example.com/point' } } }],
    [
      'a $ref into data (examples)',
      { type: 'object', examples: [{ type: 'bogus' }], properties: { a: { $ref: '#/examples/0' } } },
    ],
    [
      'a $ref to a $ref',
      {
        type: 'object',
        $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
        properties: { x: { $ref: '#/$defs/a' } },
      },
    ],
    ['a percent-encoded pointer', { type: 'object', $defs: { a: {} }, properties: { x: { $ref: '#/%24defs/a' } } }],
    [
      'a pattern that needs the u flag to fail',
      { type: 'object', properties: { a: { type: 'string', pattern: '\\q' } } },
    ],
    ['a patternProperties key that is not a pattern', { type: 'object', patternProperties: { '(': {} } }],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }],
    [
      'an unknown format (logged by Ajv)',
      { type: 'object', properties: { a: { type: 'string', format: 'zip-code' } } },
    ],
    ['nullable (an Ajv keyword)', { type: 'object', properties: { a: { nullable: true } } }],
    ['the draft-04 id keyword', { type: 'object', properties: { a: { id: 'x' } } }],
    ['an $id', { $id: 'https://example.com/x', type: 'object' }],
    ['an $anchor', { type: 'object', $defs: { a: { $anchor: 'a' } } }],
    ['a $dynamicRef', { type: 'object', properties: { a: { $dynamicRef: '#meta' } } }],
    ['$async', { type: 'object', $async: true }],
    [
      'a $schema below the root',
      { type: 'object', properties: { a: { $schema: 'https://json-schema.org/draft/2020-12/schema' } } },
    ],
    ['a draft-07 $schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }],
    [
      'a __proto__ property',
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>,
    ],
  ])('leaves %s to Ajv', (_label, schema) => {
    expect(compilesSurely(schema, knowledge)).toBe(false);
  });

  it('stops vouching past 64 levels of subschemas', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 70; i++) schema = { type: 'object', properties: { a: schema } };
    expect(compilesSurely(schema, knowledge)).toBe(false);
  });
});
