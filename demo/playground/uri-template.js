// RFC 6570 URI templates, levels 1–3 with string values: the variables of a template, and its expansion.

const OPERATORS = {
  '': { first: '', sep: ',', named: false, empty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, empty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, empty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, empty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, empty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, empty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, empty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, empty: '=', reserved: false },
};
const EXPRESSION = /\{([+#./;?&]?)([^}]*)\}/g;
const VARSPEC = /^([A-Za-z0-9_.]|%[0-9A-Fa-f]{2})+/;

function encode(value, reserved) {
  if (reserved) return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1');
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The variable names of a template, in order (`users://{id}/x{?q,limit}` → ['id', 'q', 'limit']). */
export function templateVariables(template) {
  const names = [];
  for (const [, , list] of template.matchAll(EXPRESSION)) {
    for (const spec of list.split(',')) {
      const name = VARSPEC.exec(spec.trim())?.[0];
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** Expands a template; variables left empty are undefined, and drop out as RFC 6570 says. */
export function expandTemplate(template, values) {
  return template.replace(EXPRESSION, (_, op, list) => {
    const operator = OPERATORS[op];
    const parts = [];
    for (const spec of list.split(',')) {
      const match = /^((?:[A-Za-z0-9_.]|%[0-9A-Fa-f]{2})+)(?::(\d+))?\*?$/.exec(spec.trim());
      if (!match || values[match[1]] === undefined) continue;
      const raw = String(values[match[1]]);
      const encoded = encode(match[2] ? raw.slice(0, Number(match[2])) : raw, operator.reserved);
      parts.push(operator.named ? `${match[1]}${encoded === '' ? operator.empty : `=${encoded}`}` : encoded);
    }
    return parts.length > 0 ? operator.first + parts.join(operator.sep) : '';
  });
}
