// One Ajv (JSON Schema 2020-12) per router: checks each schema at registration, compiles each distinct one once, and words failures for a model.

import AjvDraft07 from 'ajv';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { McpConfigError } from '../../options/config-error';
import { BoundedMap } from '../bounded-map';
import { compilesSurely, type AjvKnowledge } from './compile-check';
import { isPlainSchema } from './plain-schema';

/** The outcome of validating one value. */
export type ValidationResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A compiled schema: call it with a value. */
export type CompiledSchema = (value: unknown) => ValidationResult;

/** A schema checked for one router: a frozen copy of it (identical schemas share one), its JSON text, its validator. */
export interface CheckedSchema {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly json: string;
  readonly validate: CompiledSchema;
}

/** Checks and compiles JSON Schemas for one router. */
export interface SchemaValidator {
  /**
   * Checks `schema` now and returns a copy of it with its validator: every schema Ajv would refuse is refused here,
   * at registration. Ajv's generated function is built on the validator's first call, once per distinct schema
   * (identical schemas share the copy and the function), except where the check cannot vouch for the compile
   * (`$id`s, anchors, dynamic references, a caller's own Ajv): then at once.
   *
   * @param schema - a JSON Schema (2020-12 unless it says otherwise with `$schema`), as JSON data
   * @param label - what the schema belongs to, for error messages (`tool "add" inputSchema`)
   * @throws {McpConfigError} `ERR_MCP_INVALID_SCHEMA` when the schema does not compile
   */
  check(schema: Record<string, unknown>, label: string): CheckedSchema;
  /** {@link SchemaValidator.check}'s validator alone. */
  compile(schema: Record<string, unknown>, label: string): CompiledSchema;
}

/** At most this many problems are listed in one message: enough to fix, short enough to read. */
const MAX_LISTED_ERRORS = 8;

/**
 * Distinct schemas whose validators are kept for sharing: registering a schema seen before (a gateway refreshing
 * an upstream's tools, a second tool with the same arguments) costs one lookup and no memory; past this many, the
 * least recently registered is forgotten (the tools holding it keep it).
 */
const SHARED_SCHEMAS = 1024;

/**
 * Creates the validator of one router. Each router has its own Ajv, so two routers share nothing.
 *
 * @param ajv - an Ajv2020 instance of the caller's (custom keywords, formats); one is made otherwise
 */
export function createSchemaValidator(ajv?: Ajv2020): SchemaValidator {
  const instance = ajv ?? withFormats(new Ajv2020(AJV_OPTIONS));
  // Schemas written for MCP before 2025-11-25 (draft-07 by default) may say so with `$schema`; their
  // `items` arrays and `additionalItems` mean what draft-07 says, so they get a draft-07 Ajv, made on first use.
  let draft07: AjvDraft07 | undefined;
  // What the first call compiles was checked at registration: an Ajv that does not check it against the meta-schema
  // again (compiling the meta-schema alone takes longer than registering thousands of tools), made on first use.
  let checked: Ajv2020 | undefined;
  const shared = new BoundedMap<string, CheckedSchema>({ max: SHARED_SCHEMAS, refreshOnGet: true });
  const knowledge: AjvKnowledge = {
    hasFormat: (format) => instance.formats[format] !== undefined,
    hasKeyword: (key) => Boolean(instance.getKeyword(key)),
  };
  const check = (given: Record<string, unknown>, label: string): CheckedSchema => {
    // The JSON text is the key: the same keywords in the same order validate, and word errors, the same way.
    // A schema naming an `$id` is compiled on its own every time, as Ajv sees it (a caller's Ajv may keep ids).
    const json = JSON.stringify(given);
    const sharable = !json.includes('"$id"');
    const known = sharable ? shared.get(json) : undefined;
    if (known !== undefined) return known;
    const schema = deepFreeze(JSON.parse(json) as Record<string, unknown>);
    const draft = ajv === undefined && DRAFT_07.test(String(schema.$schema));
    const compiler = draft ? (draft07 ??= withFormats(new AjvDraft07(AJV_OPTIONS))) : instance;
    // A caller's Ajv may have keywords and options the check does not know: compiled now.
    const validate =
      ajv === undefined &&
      !draft &&
      sharable &&
      !RESOLVED_BY_AJV.test(json) &&
      (isPlainSchema(schema, knowledge) || checksOut(instance, schema, knowledge))
        ? lazyValidator(
            () => (checked ??= withFormats(new Ajv2020({ ...AJV_OPTIONS, validateSchema: false }))),
            schema,
            label,
          )
        : wordedValidator(compileNow(compiler, schema, label));
    const result = { schema, json, validate };
    if (sharable) shared.set(json, result);
    return result;
  };
  return { check, compile: (schema, label) => check(schema, label).validate };
}

/**
 * Keywords Ajv collects from every key of a schema, known keyword or not (a vendor extension's `$anchor` counts), and
 * resolves at compile time: a schema naming any of them anywhere is compiled at once, where Ajv words its errors.
 */
const RESOLVED_BY_AJV = /"\$(?:anchor|dynamicAnchor|dynamicRef|recursiveAnchor|recursiveRef)"/;

/** `value`, with every object and array in it frozen: a schema copy that tools share must not change under them. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

/** True when `schema` passes the meta-schema and is sure to compile (else Ajv's compile, now, words what is wrong). */
function checksOut(instance: Ajv2020, schema: Record<string, unknown>, knowledge: AjvKnowledge): boolean {
  try {
    return instance.validateSchema(schema) === true && compilesSurely(schema, knowledge);
  } catch {
    // An unknown `$schema`: the compile says so.
    return false;
  }
}

/** Ajv's compile of `schema`, its failure worded for the one who registered it; Ajv keeps no copy of its own. */
function compileNow(compiler: AjvDraft07, schema: Record<string, unknown>, label: string): ValidateFunction {
  let validate: ValidateFunction;
  try {
    validate = compiler.compile(schema);
  } catch (err) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_SCHEMA',
      `${label} is not a valid JSON Schema: ${(err as Error).message}`,
    );
  }
  // Ajv caches every schema object it compiled, for the life of the instance: the shared map is the cache here.
  if (schema.$id === undefined) compiler.removeSchema(schema);
  return validate;
}

function wordedValidator(validate: ValidateFunction): CompiledSchema {
  return (value) => (validate(value) ? VALID : { ok: false, message: describeErrors(validate.errors ?? []) });
}

/** A validator whose Ajv function is generated on its first call (the compile is sure to succeed: compile-check.ts). */
function lazyValidator(compiler: () => AjvDraft07, schema: Record<string, unknown>, label: string): CompiledSchema {
  let run: CompiledSchema | undefined;
  return (value) => (run ??= wordedValidator(compileNow(compiler(), schema, label)))(value);
}

const VALID: ValidationResult = Object.freeze({ ok: true });

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

const AJV_OPTIONS = {
  allErrors: true,
  // Tool schemas in the wild carry annotations Ajv does not know (`example`, vendor keys): accept them.
  strict: false,
  // Schemas with an `$id` are not added to the instance, so two tools may share one schema object.
  addUsedSchema: false,
} as const;

function withFormats<T extends AjvDraft07>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** "a: must be number; (root): must have required property 'b'" — what a model needs to retry. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = new Set<string>();
  for (const error of errors) {
    const at = error.instancePath === '' ? '(root)' : error.instancePath.slice(1).replace(/\//g, '.');
    let text = `${at}: ${error.message ?? 'is invalid'}`;
    if (error.keyword === 'enum')
      text += ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`;
    if (error.keyword === 'additionalProperties') {
      text += ` '${String((error.params as { additionalProperty?: unknown }).additionalProperty)}'`;
    }
    lines.add(text);
  }
  const listed = [...lines].slice(0, MAX_LISTED_ERRORS);
  const more = lines.size - listed.length;
  return listed.join('; ') + (more > 0 ? `; and ${more} more` : '');
}
