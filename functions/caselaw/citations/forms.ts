/**
 * reporters-db's citation patterns (`regexes` of an edition, written over the variables of regexes.json) compiled
 * into what the extractor tries once the abbreviation trie has found the reporter: what may stand before the reporter
 * (a volume of a given shape, or nothing) and what must follow it (the page in the edition's own shape, a year in
 * parentheses, a paragraph mark…). The reporter itself is left to the trie, so white space and spelling variations
 * are handled once, there. Expansion follows reporters-db's own (`process_variables`, `recursive_substitute`).
 *
 * The plain `$full_cite` (`volume reporter page`) and the format-neutral `2000-Ohio-123` are read by the extractor's
 * own fast path and are not compiled here.
 */

export interface CitationForm {
  /** The reporters-db template, as written (`$full_cite_illinois_neutral`). */
  readonly template: string;
  /**
   * `none`: the citation starts at the reporter (`T.C. Memo. 2019-233`); `optional`: a volume may stand before it
   * (`Blue Sky L. Rep. (CCH) ¶ 71,399`); `required`: it must; `prefix`: what stands before is more than a volume
   * (Louisiana's `2009-1359 (La.App. 1 Cir. 5/10/10)`), read by `before` from the citation's start.
   */
  readonly volumeRule: 'none' | 'optional' | 'required' | 'prefix';
  /** The volume may run straight into the reporter (`2021COA112`: Colorado's pattern makes the space optional). */
  readonly glued: boolean;
  /** The volume token, anchored at both ends (`volumeRule` optional/required); for `prefix`, sticky from the start. */
  readonly before: RegExp | undefined;
  /** Sticky, from the end of the reporter; its `page` group (or the `before`'s) is the page. */
  readonly after: RegExp;
}

type Variables = Record<string, string>;

const STANDARD = new Set(['$full_cite', '$full_cite_format_neutral', '$full_cite_format_neutral_3_4']);

/** regexes.json flattened as reporters-db does it: nested keys joined by `_`, `#` keys dropped, `_optional` variants. */
export function flattenVariables(tree: Record<string, unknown>): Variables {
  const flat: Variables = {};
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(node)) {
      if (key.endsWith('#')) continue;
      const name = [prefix, key].filter(Boolean).join('_');
      if (typeof value === 'string') flat[name] = value;
      else if (value && typeof value === 'object') walk(value as Record<string, unknown>, name);
    }
  };
  walk(tree, '');
  for (const [name, value] of Object.entries(flat)) flat[`${name}_optional`] = `(?:${value} ?)?`;
  return flat;
}

/** Python's `Template.safe_substitute` until nothing changes; `$reporter` is kept as the split point. */
function substitute(template: string, variables: Variables): string {
  let current = template;
  for (let depth = 0; depth < 20; depth++) {
    const next = current.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (whole, name: string) =>
      name !== 'reporter' && variables[name] !== undefined ? variables[name] : whole,
    );
    if (next === current) return current;
    current = next;
  }
  throw new Error(`reporters-db template does not settle: ${template}`);
}

/** Python regex syntax to JavaScript's, and a space in a pattern to any run of white space (citations wrap). */
function toJs(source: string): string {
  return source
    .replace(/\(\?P<(\w+)>/g, '(?<$1>')
    .replace(/ \?/g, '\\s*')
    .replace(/ /g, '\\s+');
}

/** A page, volume or paragraph number does not run on into a word or a number. (No `u` flag: reporters-db escapes `,`.) */
const END = '(?![A-Za-z0-9\\u00c0-\\u024f])';

function compile(template: string, variables: Variables): CitationForm | undefined {
  const expanded = substitute(template, variables);
  const at = expanded.indexOf('$reporter');
  if (at < 0 || expanded.indexOf('$reporter', at + 1) >= 0) return undefined; // an edition spelling its own reporter out
  const head = expanded.slice(0, at);
  const after = new RegExp(`${toJs(expanded.slice(at + '$reporter'.length))}${END}`, 'y');
  if (head === '') return { template, volumeRule: 'none', glued: false, before: undefined, after };
  const separator = /(?: \?|,\? | |\\s)$/.exec(head);
  const volume = separator ? head.slice(0, separator.index) : head;
  const glued = separator?.[0] === ' ?';
  const optional = /^\(\?:(.*?) \??\)\?$/.exec(volume);
  if (optional) return { template, volumeRule: 'optional', glued, before: new RegExp(`^(?:${toJs(optional[1]!)})$`), after };
  if (separator && volume.startsWith('(?P<volume>') && volume.endsWith(')')) {
    return { template, volumeRule: 'required', glued, before: new RegExp(`^(?:${toJs(volume)})$`), after };
  }
  // As reporters-db writes it: a docket number printed with a pin inside (`95-0754, p. 3 (La.App. 1 Cir. …)`) is
  // not read, as eyecite and CourtListener's citation lookup do not read it (docs/DECISIONS.md, Case citations).
  return { template, volumeRule: 'prefix', glued: false, before: new RegExp(toJs(head), 'y'), after };
}

/**
 * The forms of one edition's templates that the fast path does not read. A template that cannot be compiled (an
 * edition that spells its own reporter inside the pattern) is left out; the fast path still reads its plain form.
 */
export function compileForms(templates: readonly string[], variables: Variables): CitationForm[] {
  const forms: CitationForm[] = [];
  for (const template of templates) {
    if (STANDARD.has(template)) continue;
    const form = compile(template, variables);
    if (form) forms.push(form);
  }
  return forms;
}
