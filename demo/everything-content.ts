// The fixed data of the conformance fixture (demo/everything.ts): media payloads and the JSON Schemas its tools
// and elicitations carry, exactly as the conformance scenarios check them.

/** A 1×1 red PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

/** A minimal WAV file: RIFF header, PCM 8 kHz mono 16-bit, one silent sample. */
function minimalWav(): Buffer {
  const data = Buffer.alloc(2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // channels
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000 * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
export const WAV = minimalWav();

/**
 * SEP-1613 and SEP-2106: listed verbatim by tools/list ($schema, $defs with an $anchor, $ref, allOf/anyOf,
 * if/then/else and additionalProperties preserved). Conformance 0.2 checks the SEP-2106 keywords too.
 */
export const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
} as const;

/**
 * SEP-2243: `region` is mirrored into the `Mcp-Param-Region` header of a 2026 request, `level` is not. The keyword is
 * an annotation to the router's Ajv (`strict: false`), so the schema compiles whether or not the router checks headers.
 */
export const X_MCP_HEADER_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
    level: { type: 'integer', description: 'Not mirrored' },
  },
} as const;

/** SEP-1034: a default for every primitive type. */
export const DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

/** SEP-1330: the five enum shapes (untitled/titled single, legacy enumNames, untitled/titled multi). */
export const ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Pick one', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Pick one (titled)',
      oneOf: [
        { const: 'value1', title: 'First option' },
        { const: 'value2', title: 'Second option' },
        { const: 'value3', title: 'Third option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Pick one (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option one', 'Option two', 'Option three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Pick several',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Pick several (titled)',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First choice' },
          { const: 'value2', title: 'Second choice' },
          { const: 'value3', title: 'Third choice' },
        ],
      },
    },
  },
  required: [],
};
