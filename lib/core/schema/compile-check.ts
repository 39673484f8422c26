// Whether Ajv will compile a schema that passed the meta-schema: a walk of its subschemas, so the compile can wait.

/** What the walk needs to know of the Ajv instance: its formats and its keywords. */
export interface AjvKnowledge {
  /** True when Ajv knows `format` (an unknown one is logged at compile: that must stay at registration). */
  hasFormat(format: string): boolean;
  /** True when Ajv has a keyword of this name (a key it does not know is an annotation, ignored with `strict: false`). */
  hasKeyword(key: string): boolean;
}

/**
 * Keywords whose values the JSON Schema 2020-12 meta-schema checks as fully as Ajv's compile does, so a meta-valid
 * schema cannot fail on them; `$ref`, `pattern`, `patternProperties`, `enum` and `format` are checked below.
 */
const PLAIN_KEYWORDS = new Set([
  'type',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'contentEncoding',
  'contentMediaType',
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  '$comment',
]);

/** Keywords that hold one subschema. */
const ONE_SCHEMA = new Set([
  'additionalProperties',
  'propertyNames',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
/** Keywords that hold an array of subschemas. */
const SCHEMA_ARRAY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords that hold subschemas by name. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** Deeper than this, the walk stops vouching (Ajv's own recursion decides). */
const MAX_DEPTH = 64;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A pattern as Ajv compiles it (`unicodeRegExp` is on by default: the `u` flag). */
function compilesAsPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The subschema a local JSON Pointer `$ref` (`#/$defs/point`, `#/properties/a`) names, walking subschema
 * keywords only; undefined when it names anything else (an `enum` value, a missing definition, an anchor or
 * another document), which only Ajv resolves.
 */
function pointed(root: Node, ref: string): unknown {
  // `#` alone names the document, which the router's Ajv (`addUsedSchema: false`) cannot resolve: Ajv words it.
  if (!ref.startsWith('#/') || ref.includes('%')) return undefined;
  const parts = ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at: unknown = root;
  for (let i = 0; i < parts.length; i++) {
    const keyword = parts[i]!;
    if (!isNode(at)) return undefined;
    const held = Object.hasOwn(at, keyword) ? at[keyword] : undefined;
    if (ONE_SCHEMA.has(keyword)) at = held;
    else if (SCHEMA_MAP.has(keyword) || SCHEMA_ARRAY.has(keyword)) {
      const name = parts[++i];
      if (name === undefined) return undefined;
      if (SCHEMA_ARRAY.has(keyword) && !/^(0|[1-9][0-9]*)$/.test(name)) return undefined;
      at =
        isNode(held) || Array.isArray(held)
          ? Object.hasOwn(held, name)
            ? (held as Node)[name]
            : undefined
          : undefined;
    } else return undefined;
  }
  return isNode(at) || typeof at === 'boolean' ? at : undefined;
}

/**
 * True for a `$ref` Ajv resolves and compiles: a local pointer to a subschema that is neither the one holding it
 * (Ajv cannot resolve a schema that is only a reference to itself) nor another reference (a chain may loop).
 */
function refCompiles(holder: Node, root: Node, ref: unknown): boolean {
  if (typeof ref !== 'string') return false;
  const target = pointed(root, ref);
  return target !== undefined && target !== holder && !(isNode(target) && Object.hasOwn(target, '$ref'));
}

/** One subschema's own keywords: true when none of them can make the compile fail. */
function keywordsCompile(schema: Node, root: Node, ajv: AjvKnowledge): boolean {
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (PLAIN_KEYWORDS.has(key) || ONE_SCHEMA.has(key) || SCHEMA_ARRAY.has(key) || SCHEMA_MAP.has(key)) {
      if (key === 'patternProperties' && !Object.keys(value as Node).every(compilesAsPattern)) return false;
      continue;
    }
    switch (key) {
      case '$ref':
        if (!refCompiles(schema, root, value)) return false;
        break;
      case 'pattern':
        if (!compilesAsPattern(value)) return false;
        break;
      // Ajv refuses an empty enum, which the 2020-12 meta-schema allows.
      case 'enum':
        if (!Array.isArray(value) || value.length === 0) return false;
        break;
      case '$schema':
        if (schema !== root) return false;
        break;
      case 'format':
        if (typeof value !== 'string' || !ajv.hasFormat(value)) return false;
        break;
      default:
        // `$id`, `$anchor`, `$dynamicRef`, `nullable`, `id`, `discriminator`, `$async`…: Ajv's own checks decide.
        if (key.startsWith('$') || ajv.hasKeyword(key)) return false;
    }
  }
  return true;
}

/** Every subschema under `schema`, with `schema` itself first. */
function walk(schema: unknown, root: Node, ajv: AjvKnowledge, depth: number): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isNode(schema) || depth > MAX_DEPTH || !keywordsCompile(schema, root, ajv)) return false;
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (ONE_SCHEMA.has(key)) {
      if (!walk(value, root, ajv, depth + 1)) return false;
    } else if (SCHEMA_ARRAY.has(key)) {
      if (!(value as unknown[]).every((item) => walk(item, root, ajv, depth + 1))) return false;
    } else if (SCHEMA_MAP.has(key)) {
      for (const name of Object.keys(value as Node)) {
        // Names Ajv's generated code treats specially are left to it.
        if (name === '__proto__' || !walk((value as Node)[name], root, ajv, depth + 1)) return false;
      }
    }
  }
  return true;
}

/**
 * True when Ajv (JSON Schema 2020-12, `strict: false`) is sure to compile `schema`, which has passed the meta-schema:
 * what the meta-schema leaves to the compile is checked here (local `$ref`s resolve, patterns are valid regular
 * expressions with the `u` flag Ajv uses, enums are not empty, formats are known). A schema with anything else
 * Ajv acts on at compile time (`$id`, anchors, dynamic references, Ajv's own keywords such as `nullable`) is not
 * vouched for: false, and the caller compiles it at once.
 *
 * @param schema - the root schema, meta-valid against JSON Schema 2020-12
 */
export function compilesSurely(schema: Node, ajv: AjvKnowledge): boolean {
  if (schema.$schema !== undefined && !META_2020.test(String(schema.$schema))) return false;
  return walk(schema, schema, ajv, 0);
}

const META_2020 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
