// The JSON Schema 2020-12 meta-schema's rules for the common keywords, by hand: most tool schemas need no Ajv at registration.

import type { AjvKnowledge } from './compile-check';

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

type Rule = (value: unknown) => boolean;

const isString: Rule = (value) => typeof value === 'string';
const isNumber: Rule = (value) => typeof value === 'number';
const isBoolean: Rule = (value) => typeof value === 'boolean';
const isCount: Rule = (value) => Number.isInteger(value) && (value as number) >= 0;
const isArray: Rule = (value) => Array.isArray(value);
const anything: Rule = () => true;
const uniqueStrings = (value: unknown): boolean =>
  Array.isArray(value) && value.every(isString) && new Set(value).size === value.length;

/**
 * A pattern the meta-schema accepts (ajv-formats' `regex`: no `\Z`, a valid RegExp) and Ajv compiles (with the
 * `u` flag).
 */
function isPattern(value: unknown): boolean {
  if (typeof value !== 'string' || /[^\\]\\Z/.test(value)) return false;
  try {
    new RegExp(value);
    new RegExp(value, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The keywords checked here and their rules (2020-12 meta-schema, and what Ajv's compile adds: a non-empty enum). */
const RULES: Readonly<Record<string, Rule>> = {
  type: (value) =>
    typeof value === 'string'
      ? SIMPLE_TYPES.has(value)
      : Array.isArray(value) &&
        value.length > 0 &&
        value.every((name) => typeof name === 'string' && SIMPLE_TYPES.has(name)) &&
        new Set(value).size === value.length,
  required: uniqueStrings,
  title: isString,
  description: isString,
  $comment: isString,
  pattern: isPattern,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minProperties: isCount,
  maxProperties: isCount,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  enum: (value) => Array.isArray(value) && value.length > 0,
  const: anything,
  default: anything,
  examples: isArray,
  deprecated: isBoolean,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  uniqueItems: isBoolean,
};

/** Keywords of JSON Schema 2020-12 (and the drafts Ajv still reads) that are left to Ajv when present. */
const OTHER_KEYWORDS = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'prefixItems',
  'contains',
  'patternProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'multipleOf',
  'maxContains',
  'minContains',
  'dependentRequired',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'definitions',
  'dependencies',
  'additionalItems',
]);

const isNode = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function plain(schema: unknown, ajv: AjvKnowledge, depth: number): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isNode(schema) || depth > 64) return false;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    const rule = RULES[key];
    if (rule !== undefined) {
      if (!rule(value)) return false;
    } else if (key === 'properties') {
      if (!isNode(value)) return false;
      for (const name of Object.keys(value))
        if (name === '__proto__' || !plain(value[name], ajv, depth + 1)) return false;
    } else if (key === 'items' || key === 'additionalProperties') {
      if (!plain(value, ajv, depth + 1)) return false;
    } else if (key === 'format') {
      if (typeof value !== 'string' || !ajv.hasFormat(value)) return false;
    } else if (key.startsWith('$') || OTHER_KEYWORDS.has(key) || ajv.hasKeyword(key)) return false;
  }
  return true;
}

/**
 * True for a schema written only with the common keywords (`type`, `properties`, `required`, `items`,
 * `additionalProperties`, `enum`, `const`, bounds, `pattern`, known `format`s, annotations) whose values the JSON Schema
 * 2020-12 meta-schema accepts and Ajv compiles: Ajv's meta-schema validation would pass and its compile succeed.
 * False means only "not decided here": the caller asks Ajv.
 */
export function isPlainSchema(schema: Record<string, unknown>, ajv: AjvKnowledge): boolean {
  return plain(schema, ajv, 0);
}
