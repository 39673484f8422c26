// Type-level only: the TypeScript type of the values a JSON Schema literal accepts, so handlers get typed arguments.

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The properties an object schema lists as required. */
type RequiredKeys<S> = S extends { required: readonly (infer K)[] } ? K & string : never;

type ObjectOf<S> = S extends { properties: infer P }
  ? Writable<
      { [K in keyof P as K extends RequiredKeys<S> ? K : never]: InferSchema<P[K]> } & {
        [K in keyof P as K extends RequiredKeys<S> ? never : K]?: InferSchema<P[K]>;
      }
    > extends infer O
    ? { [K in keyof O]: O[K] }
    : never
  : Record<string, unknown>;

/**
 * The type a JSON Schema literal describes (declared inline, or `as const`): `type` string, number, integer,
 * boolean, null, array (`items`) and object (`properties`, `required`), plus `enum` and `const`. Anything it cannot
 * read (`$ref`, `oneOf`, …) is `unknown`.
 *
 * @example
 * ```ts
 * type Args = InferSchema<{ type: 'object'; properties: { a: { type: 'number' } }; required: ['a'] }>; // { a: number }
 * ```
 */
export type InferSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: 'string' }
      ? string
      : S extends { type: 'number' | 'integer' }
        ? number
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'null' }
            ? null
            : S extends { type: 'array'; items: infer I }
              ? InferSchema<I>[]
              : S extends { type: 'array' }
                ? unknown[]
                : S extends { type: 'object' }
                  ? ObjectOf<S>
                  : unknown;

/** The arguments a tool's handler receives for `inputSchema` S: inferred from a literal schema, else any JSON object. */
export type InferToolArgs<S> = string extends keyof S
  ? Record<string, unknown>
  : InferSchema<S> extends infer T extends Record<string, unknown>
    ? T
    : Record<string, unknown>;
