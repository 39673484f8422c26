// One Ajv (JSON Schema 2020-12) per router: compiles each schema once and words failures for a model.

import AjvDraft07 from 'ajv';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { McpConfigError } from '../../options/config-error';

/** The outcome of validating one value. */
export type ValidationResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A compiled schema: call it with a value. */
export type CompiledSchema = (value: unknown) => ValidationResult;

/** Compiles JSON Schemas for one router. */
export interface SchemaValidator {
  /**
   * Compiles `schema` now, so requests only run the generated function.
   *
   * @param schema - a JSON Schema (2020-12 unless it says otherwise with `$schema`)
   * @param label - what the schema belongs to, for error messages (`tool "add" inputSchema`)
   * @throws {McpConfigError} `ERR_MCP_INVALID_SCHEMA` when the schema does not compile
   */
  compile(schema: Record<string, unknown>, label: string): CompiledSchema;
}

/** At most this many problems are listed in one message: enough to fix, short enough to read. */
const MAX_LISTED_ERRORS = 8;

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
  return {
    compile(schema, label) {
      const compiler =
        ajv === undefined && DRAFT_07.test(String(schema.$schema))
          ? (draft07 ??= withFormats(new AjvDraft07(AJV_OPTIONS)))
          : instance;
      let validate: ValidateFunction;
      try {
        validate = compiler.compile(schema);
      } catch (err) {
        throw new McpConfigError(
          'ERR_MCP_INVALID_SCHEMA',
          `${label} is not a valid JSON Schema: ${(err as Error).message}`,
        );
      }
      return (value) =>
        validate(value) ? { ok: true } : { ok: false, message: describeErrors(validate.errors ?? []) };
    },
  };
}

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
