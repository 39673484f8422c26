// Form fields generated from a JSON Schema object (tool inputs, prompt arguments, template variables), read back typed.

import { el } from './dom.js';

let formCount = 0;

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`) against the root schema; other refs stay as they are. */
function resolve(schema, root) {
  let current = schema;
  for (
    let depth = 0;
    depth < 10 && current && typeof current.$ref === 'string' && current.$ref.startsWith('#/');
    depth++
  ) {
    const target = current.$ref
      .slice(2)
      .split('/')
      .reduce(
        (node, key) =>
          node && typeof node === 'object' ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined,
        root,
      );
    if (!target) break;
    const { $ref, ...rest } = current;
    current = { ...target, ...rest };
  }
  return current && typeof current === 'object' ? current : {};
}

/** Choices of an enum-like schema: `enum`, or `oneOf`/`anyOf` of `const` (titled enums), else undefined. */
function choicesOf(schema) {
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum.map((value) => ({ value, label: String(value) }));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every((alt) => alt && 'const' in alt)) {
    return alternatives.map((alt) => ({
      value: alt.const,
      label: alt.title ? `${alt.title} (${alt.const})` : String(alt.const),
    }));
  }
  return undefined;
}

/** Which widget a property gets. */
function kindOf(schema) {
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter(
    (t) => t !== 'null',
  );
  if (choicesOf(schema) && types.length <= 1) return 'enum';
  if (types.length !== 1) return 'json';
  const [type] = types;
  if (type === 'array') {
    const items = schema.items && typeof schema.items === 'object' ? schema.items : {};
    return choicesOf(items) ? 'multi' : 'json';
  }
  return ['string', 'number', 'integer', 'boolean'].includes(type) ? type : 'json';
}

/** A short description of the constraints, shown next to the label ("integer · 0–1000 · default 100"). */
function constraintText(schema, kind) {
  const choices = kind === 'enum' ? choicesOf(schema) : kind === 'multi' ? choicesOf(schema.items) : undefined;
  const listed =
    choices &&
    (choices.length <= 8 ? choices.map((c) => JSON.stringify(c.value)).join(', ') : `${choices.length} values`);
  const items =
    schema.items && typeof schema.items === 'object' && schema.items.type
      ? ` of ${[].concat(schema.items.type).join(' | ')}`
      : '';
  const parts = [
    kind === 'enum'
      ? `one of ${listed}`
      : kind === 'multi'
        ? `any of ${listed}`
        : kind === 'json'
          ? schema.type
            ? `${[].concat(schema.type).join(' | ')}${items} as JSON`
            : 'JSON'
          : kind,
  ];
  if (schema.format) parts.push(`format ${schema.format}`);
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  if (min !== undefined || max !== undefined) parts.push(`${min ?? '…'}–${max ?? '…'}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    parts.push(`length ${schema.minLength ?? 0}–${schema.maxLength ?? '…'}`);
  if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(' · ');
}

const INPUT_TYPE_BY_FORMAT = {
  email: 'email',
  uri: 'url',
  url: 'url',
  date: 'date',
  time: 'time',
  'date-time': 'datetime-local',
};

/** The value of a `datetime-local` default ("2025-01-02T03:04:05Z" → local "2025-01-02T04:04:05"). */
function toLocalDateTime(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
}

function buildControl(id, schema, kind, root) {
  if (kind === 'enum' || kind === 'multi') {
    const choices = kind === 'enum' ? choicesOf(schema) : choicesOf(schema.items);
    const select = el('select', { id, multiple: kind === 'multi' });
    if (kind === 'enum') select.append(el('option', { value: '' }, '(not set)'));
    const defaults = kind === 'enum' ? [schema.default] : Array.isArray(schema.default) ? schema.default : [];
    choices.forEach((choice, index) => {
      const option = el('option', { value: String(index) }, choice.label);
      option.selected = defaults.some((d) => JSON.stringify(d) === JSON.stringify(choice.value));
      select.append(option);
    });
    return select;
  }
  if (kind === 'boolean') {
    const box = el('input', { id, type: 'checkbox' });
    box.checked = schema.default === true;
    box.addEventListener('change', () => (box.dataset.touched = 'true'));
    return box;
  }
  if (kind === 'number' || kind === 'integer') {
    const input = el('input', {
      id,
      type: 'number',
      step: kind === 'integer' ? '1' : 'any',
      inputmode: kind === 'integer' ? 'numeric' : 'decimal',
    });
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    if (typeof min === 'number') input.min = String(min);
    if (typeof max === 'number') input.max = String(max);
    if (typeof schema.default === 'number') input.value = String(schema.default);
    return input;
  }
  if (kind === 'string') {
    const input = el('input', { id, type: INPUT_TYPE_BY_FORMAT[schema.format] ?? 'text', autocomplete: 'off' });
    if (typeof schema.maxLength === 'number') input.maxLength = schema.maxLength;
    if (typeof schema.pattern === 'string') input.pattern = schema.pattern;
    if (typeof schema.default === 'string')
      input.value = schema.format === 'date-time' ? toLocalDateTime(schema.default) : schema.default;
    if (Array.isArray(schema.examples) && typeof schema.examples[0] === 'string')
      input.placeholder = `e.g. ${schema.examples[0]}`;
    return input;
  }
  const area = el('textarea', { id, rows: '3', spellcheck: 'false', class: 'json' });
  if (schema.default !== undefined) area.value = JSON.stringify(schema.default, null, 2);
  else {
    const example = skeleton(schema, root, 0);
    area.placeholder = example === undefined ? 'any JSON value' : `e.g. ${JSON.stringify(example)}`;
  }
  return area;
}

/** An example value of a schema's shape, shown as the placeholder of JSON fields (`[{"productId":"","quantity":1}]`). */
function skeleton(raw, root, depth) {
  const schema = resolve(raw, root);
  if (depth > 4) return undefined;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  const choices = choicesOf(schema);
  if (choices) return choices[0].value;
  const type = [].concat(schema.type ?? []).find((t) => t !== 'null');
  if (type === 'object' || (!type && schema.properties)) {
    const entries = Object.entries(schema.properties ?? {}).map(([key, value]) => [
      key,
      skeleton(value, root, depth + 1),
    ]);
    return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
  }
  if (type === 'array') {
    const item = schema.items && typeof schema.items === 'object' ? skeleton(schema.items, root, depth + 1) : undefined;
    return item === undefined ? [] : [item];
  }
  if (type === 'string') return '';
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 0;
  if (type === 'boolean') return false;
  return undefined;
}

/** Reads one control as the schema's type: `{ present: false }` when left empty, throws with a message when unreadable. */
function readControl(control, schema, kind, required) {
  if (kind === 'enum') {
    if (control.value === '') return { present: false };
    return { present: true, value: choicesOf(schema)[Number(control.value)].value };
  }
  if (kind === 'multi') {
    const choices = choicesOf(schema.items);
    const value = [...control.selectedOptions].map((option) => choices[Number(option.value)].value);
    return value.length > 0 || required ? { present: true, value } : { present: false };
  }
  if (kind === 'boolean') {
    const present = required || schema.default !== undefined || control.dataset.touched === 'true';
    return present ? { present: true, value: control.checked } : { present: false };
  }
  if (kind === 'number' || kind === 'integer') {
    if (control.validity.badInput) throw new Error('is not a number');
    if (control.value === '') return { present: false };
    return { present: true, value: Number(control.value) };
  }
  if (kind === 'string') {
    if (control.value === '') return { present: false };
    if (schema.format === 'date-time' && control.type === 'datetime-local') {
      const date = new Date(control.value);
      return { present: true, value: Number.isNaN(date.getTime()) ? control.value : date.toISOString() };
    }
    return { present: true, value: control.value };
  }
  if (control.value.trim() === '') return { present: false };
  try {
    return { present: true, value: JSON.parse(control.value) };
  } catch (err) {
    throw new Error(`is not valid JSON (${err instanceof Error ? err.message : err})`);
  }
}

/**
 * Builds the fields of an object schema.
 *
 * @param {object} schema - a JSON Schema with `type: 'object'` (tool inputSchema), or any schema
 * @param {{ complete?: (name: string, value: string, values: object) => Promise<string[]> }} [options] - when
 *   given, string fields get `completion/complete` suggestions through a datalist
 * @returns {{ element: HTMLElement, read: () => { value: object, errors: string[] } }}
 */
export function createSchemaForm(schema, { complete } = {}) {
  const prefix = `f${++formCount}`;
  const root = schema && typeof schema === 'object' ? schema : {};
  const properties = root.properties && typeof root.properties === 'object' ? root.properties : {};
  const required = new Set(Array.isArray(root.required) ? root.required : []);
  const element = el('div', { class: 'schema-form' });
  const fields = [];

  for (const [name, raw] of Object.entries(properties)) {
    const propSchema = resolve(raw, root);
    const kind = kindOf(propSchema);
    const id = `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const control = buildControl(id, propSchema, kind, root);
    control.name = name;
    control.dataset.testid = `field-${name}`;
    const isRequired = required.has(name);
    if (isRequired) control.setAttribute('aria-required', 'true');
    const helpId = `${id}-help`;
    control.setAttribute('aria-describedby', helpId);
    const label = el('label', { for: id }, el('code', {}, name));
    if (propSchema.title) label.append(` ${propSchema.title}`);
    if (isRequired)
      label.append(
        el('span', { class: 'required', title: 'required' }, ' *'),
        el('span', { class: 'visually-hidden' }, ' (required)'),
      );
    const help = el('div', { class: 'help', id: helpId });
    if (propSchema.description) help.append(el('span', {}, propSchema.description), ' ');
    help.append(el('span', { class: 'constraints' }, constraintText(propSchema, kind)));
    const row = el('div', { class: `field field-${kind}` });
    if (kind === 'boolean') row.append(el('div', { class: 'checkbox' }, control, label), help);
    else row.append(label, control, help);
    if (complete && kind === 'string') attachCompletion(control, name, complete, () => readAll().value);
    element.append(row);
    fields.push({ name, control, schema: propSchema, kind, required: isRequired });
  }

  // No declared properties but open to any (`{ type: 'object' }`): one JSON box for the whole arguments object.
  let rest;
  if (fields.length === 0 && root.additionalProperties !== false) {
    const id = `${prefix}-arguments`;
    rest = el('textarea', { id, rows: '4', class: 'json', spellcheck: 'false', placeholder: '{}' });
    rest.dataset.testid = 'field-arguments';
    element.append(el('div', { class: 'field field-json' }, el('label', { for: id }, 'Arguments (JSON object)'), rest));
  }
  if (fields.length === 0 && !rest) element.append(el('p', { class: 'muted' }, 'No arguments.'));

  function readAll() {
    const value = {};
    const errors = [];
    if (rest && rest.value.trim() !== '') {
      try {
        Object.assign(value, JSON.parse(rest.value));
      } catch (err) {
        errors.push(`arguments: not valid JSON (${err instanceof Error ? err.message : err})`);
      }
    }
    for (const field of fields) {
      try {
        const read = readControl(field.control, field.schema, field.kind, field.required);
        if (read.present) value[field.name] = read.value;
        field.control.removeAttribute('aria-invalid');
      } catch (err) {
        field.control.setAttribute('aria-invalid', 'true');
        errors.push(`${field.name}: ${err instanceof Error ? err.message : err}`);
      }
    }
    return { value, errors };
  }

  return { element, read: readAll };
}

/** Suggestions from `completion/complete` in a datalist, refreshed as the user types (debounced). */
function attachCompletion(input, name, complete, values) {
  const list = el('datalist', { id: `${input.id}-suggestions` });
  input.setAttribute('list', list.id);
  input.after(list);
  let timer;
  let generation = 0;
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const mine = ++generation;
      try {
        const suggestions = await complete(name, input.value, values());
        if (mine !== generation) return;
        list.replaceChildren(...suggestions.map((value) => el('option', { value })));
        input.dataset.suggestions = String(suggestions.length);
      } catch {
        // Completion is a convenience: the failure is in the traffic panel.
      }
    }, 150);
  };
  input.addEventListener('input', refresh);
  input.addEventListener('focus', refresh);
}
