// A strict reader for the YAML frontmatter of a SKILL.md: the subset Agent Skills use, refused line by line beyond it.

/** A frontmatter value: a string, or (one level down, as `metadata:` is) a map of strings. */
export type FrontmatterValue = string | Readonly<Record<string, string>>;

/** What a SKILL.md holds: its frontmatter as a YAML parser reads it, or why it cannot be read. */
export type FrontmatterResult =
  | { readonly ok: true; readonly frontmatter: Readonly<Record<string, FrontmatterValue>> }
  | { readonly ok: false; readonly reason: string };

// A key of the subset: Agent Skills' own (name, description, license, compatibility, metadata, allowed-tools) and the like.
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
// Plain scalars YAML would not read as a string (YAML 1.2 core and the 1.1 words many parsers still honour, `y` and
// `n` among them: YAML 1.1 bool type), or would read differently (numbers, dates): they must be quoted for the
// entry to equal what a host parses.
const NOT_A_PLAIN_STRING = /^(?:[-+.]?[0-9].*|~|null|true|false|y|n|yes|no|on|off|\.inf|\.nan|[-+]\.inf)$/i;
// A plain scalar may not start with a YAML indicator, nor hold `: ` or ` #` (a mapping, a comment).
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;

/**
 * Reads the frontmatter block that opens a SKILL.md (Agent Skills: `---`, YAML, `---`): top-level `key: value`
 * pairs and one level of indented `key: value` pairs under a key with no value. Values are plain, single-quoted or
 * double-quoted scalars on one line. Anything else YAML allows (block scalars, flow collections, lists, anchors,
 * multi-line plain scalars, plain scalars YAML reads as numbers, booleans, null or dates) is refused, so what is
 * accepted is read exactly as a full YAML parser reads it: the skills/list entry equals the host's parse
 * (SEP-2640: "identical in content to the frontmatter of the SKILL.md").
 */
export function readFrontmatter(text: string): FrontmatterResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0] !== '---') return fail('it does not start with a --- line opening its YAML frontmatter');
  const end = lines.indexOf('---', 1);
  if (end < 0) return fail('its frontmatter has no closing --- line');
  const top: Record<string, FrontmatterValue> = {};
  let nested: { key: string; map: Record<string, string>; indent: string } | undefined;
  for (let index = 1; index < end; index++) {
    const line = lines[index]!;
    const at = `line ${index + 1}`;
    if (/^\s*(#.*)?$/.test(line)) continue;
    if (line.includes('\t')) return fail(`${at}: tabs are not allowed in YAML indentation`);
    const indent = /^ */.exec(line)![0];
    const pair = splitPair(line.slice(indent.length));
    if (typeof pair === 'string') return fail(`${at}: ${pair}`);
    const [key, raw] = pair;
    if (indent !== '') {
      if (nested === undefined) return fail(`${at}: an indented line belongs under a key with no value`);
      if (nested.indent !== '' && indent !== nested.indent) return fail(`${at}: inconsistent indentation`);
      nested.indent = indent;
      if (raw === '') return fail(`${at}: only one level of nesting is supported`);
      const value = scalar(raw);
      if (value.error !== undefined) return fail(`${at}: ${value.error}`);
      if (Object.hasOwn(nested.map, key)) return fail(`${at}: '${nested.key}.${key}' appears twice`);
      nested.map[key] = value.text;
      continue;
    }
    if (nested !== undefined && Object.keys(nested.map).length === 0) return fail(`'${nested.key}' has no value`);
    nested = undefined;
    if (Object.hasOwn(top, key)) return fail(`${at}: '${key}' appears twice`);
    if (raw === '') {
      nested = { key, map: {}, indent: '' };
      top[key] = nested.map;
      continue;
    }
    const value = scalar(raw);
    if (value.error !== undefined) return fail(`${at}: ${value.error}`);
    top[key] = value.text;
  }
  if (nested !== undefined && Object.keys(nested.map).length === 0) return fail(`'${nested.key}' has no value`);
  return { ok: true, frontmatter: top };
}

function fail(reason: string): FrontmatterResult {
  return { ok: false, reason };
}

/** `key: value` (the value trimmed, possibly empty), or why the line is not one. */
function splitPair(line: string): [string, string] | string {
  const colon = line.indexOf(':');
  if (colon < 0 || (colon + 1 < line.length && line[colon + 1] !== ' '))
    return 'expected "key: value" (lists, flow collections and multi-line values are not supported)';
  const key = line.slice(0, colon);
  if (!KEY.test(key)) return `the key ${JSON.stringify(key)} is not a plain name`;
  // An object's prototype setter, not a key: the entry would lose it, unlike a YAML parser's map.
  if (key === '__proto__') return 'the key "__proto__" is not supported';
  return [key, line.slice(colon + 1).trim()];
}

/** One scalar on one line, as YAML reads it, or why it is refused. */
function scalar(raw: string): { text: string; error?: undefined } | { text?: undefined; error: string } {
  if (raw.startsWith('"')) {
    // YAML's double-quoted escapes include JSON's, so a JSON string is read the same by both.
    if (!raw.endsWith('"') || raw.length < 2) return { error: 'an unterminated double-quoted value' };
    try {
      const text: unknown = JSON.parse(raw);
      if (typeof text === 'string') return { text };
    } catch {
      // falls through to the refusal below
    }
    return { error: 'a double-quoted value with escapes other than JSON ones, or text after it' };
  }
  if (raw.startsWith("'")) {
    const body = raw.slice(1, -1);
    if (raw.length < 2 || !raw.endsWith("'") || body.replace(/''/g, '').includes("'"))
      return { error: "an unterminated single-quoted value (write '' for a quote inside)" };
    return { text: body.replace(/''/g, "'") };
  }
  if (INDICATOR_START.test(raw) || raw.includes(': ') || raw.includes(' #') || raw.endsWith(':'))
    return { error: `the value ${JSON.stringify(raw)} needs quotes (YAML reads its first character or ': ' or ' #')` };
  if (NOT_A_PLAIN_STRING.test(raw))
    return {
      error: `the value ${JSON.stringify(raw)} is not a string to YAML (a number, boolean, null or date): quote it`,
    };
  return { text: raw };
}
