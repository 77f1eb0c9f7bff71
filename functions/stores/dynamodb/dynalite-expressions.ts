/**
 * dynalite parses the expressions of every request (key conditions, conditions, filters, updates, projections) with
 * its PEG parsers again, request after request: in a first load of the 35 real titles, whose key histories are each a
 * conditional put, that was 1.6 s of the embedded DynamoDB's 11.7 s, and a metered call's conditional update spent a
 * third of that thread parsing. A parse depends on the expression, whether it is a key condition, the attribute names
 * and the attribute values it may refer to: of the values, on their types only (the parsers check operand types), but
 * for two checks that read a value itself (`attribute_type`'s type name, `BETWEEN`'s bounds). So a parse is kept
 * under the expression, the names and the values' types, as a template in which each value it took is a placeholder,
 * and a request gets the template with its own values in their places; an expression naming `attribute_type` or
 * `BETWEEN` is kept under its values themselves. dynalite then checks, with the names and values the parse used, that
 * none given is left unused. Expressions that fail to parse are not kept (they throw again, as before).
 */
import { createRequire } from 'node:module';

interface ParseContext {
  attrNames?: Record<string, string>;
  attrVals?: Record<string, unknown>;
  unusedAttrNames: Record<string, true>;
  unusedAttrVals: Record<string, true>;
  isKeyCondition?: boolean;
}

interface PegParser {
  parse(expression: string, options: { context: ParseContext }): unknown;
  remembers?: true;
}

interface Parsed {
  /** The parse, each attribute value it took replaced by a Placeholder naming it. */
  template: unknown;
  usedNames: string[];
  usedValues: string[];
}

/** Where a parse took an attribute value: `name` is its key in ExpressionAttributeValues. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** Distinct parses kept; the whole memory is dropped when it fills (a store's expressions are few). */
const MAX_KEPT = 2_000;

const ATTRIBUTE_TYPES = ['S', 'N', 'B', 'NULL', 'BOOL', 'SS', 'NS', 'BS', 'L', 'M'];
/** An attribute value's type, as the parsers read it (their getImmediateType). */
const typeOf = (value: unknown): string | null =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? (ATTRIBUTE_TYPES.find((t) => (value as Record<string, unknown>)[t] != null) ?? null)
    : null;

/** The checks that read a value itself, not only its type. */
const READS_VALUES = /attribute_type|between/i;

/** What a parse depends on: the values' types, or the values themselves where a check reads them. */
function parseKey(expression: string, context: ParseContext): string {
  const values = context.attrVals ?? null;
  const byValue = READS_VALUES.test(expression);
  const dependsOn = values && !byValue ? Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeOf(value)])) : values;
  return JSON.stringify([expression, context.isKeyCondition === true, context.attrNames ?? null, byValue, dependsOn]);
}

/** The parse with each value it took (the very objects of `values`) replaced by a Placeholder. */
function templateOf(parsed: unknown, values: Record<string, unknown>): unknown {
  const names = new Map<unknown, string>();
  for (const [name, value] of Object.entries(values)) if (value && typeof value === 'object') names.set(value, name);
  const walk = (node: unknown): unknown => {
    if (!node || typeof node !== 'object') return node;
    const name = names.get(node);
    if (name !== undefined) return new Placeholder(name);
    if (Array.isArray(node)) return node.map(walk);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(parsed);
}

/** A fresh copy of a template with `values` in its placeholders' places. */
function instantiate(template: unknown, values: Record<string, unknown>): unknown {
  if (!template || typeof template !== 'object') return template;
  if (template instanceof Placeholder) return values[template.name];
  if (Array.isArray(template)) return template.map((t) => instantiate(t, values));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(template)) out[k] = instantiate(v, values);
  return out;
}

export function letDynaliteRememberItsConditions(): void {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  for (const parser of ['conditionParser', 'updateParser', 'projectionParser']) rememberParses(fromDynalite(`./db/${parser}`) as PegParser);
}

function rememberParses(parser: PegParser): void {
  if (parser.remembers) return;
  parser.remembers = true;
  const parse = parser.parse.bind(parser);
  const known = new Map<string, Parsed>();
  parser.parse = (expression, options) => {
    const context = options.context;
    const values = context.attrVals ?? {};
    const id = parseKey(expression, context);
    let parsed = known.get(id);
    if (!parsed) {
      // Parsed against every name and value given, so that what it uses does not depend on what other expressions
      // of the same request used before it.
      const names = Object.keys(context.attrNames ?? {});
      const valueNames = Object.keys(values);
      const fresh: ParseContext = {
        ...context,
        unusedAttrNames: Object.fromEntries(names.map((n) => [n, true as const])),
        unusedAttrVals: Object.fromEntries(valueNames.map((v) => [v, true as const])),
      };
      const result = parse(expression, { ...options, context: fresh });
      parsed = {
        template: templateOf(result, values),
        usedNames: names.filter((n) => !(n in fresh.unusedAttrNames)),
        usedValues: valueNames.filter((v) => !(v in fresh.unusedAttrVals)),
      };
      if (known.size >= MAX_KEPT) known.clear();
      known.set(id, parsed);
    }
    for (const name of parsed.usedNames) delete context.unusedAttrNames[name];
    for (const value of parsed.usedValues) delete context.unusedAttrVals[value];
    return instantiate(parsed.template, values);
  };
}
