/**
 * dynalite parses the condition of every conditional write (and the key condition of every Query) with its PEG parser
 * again, item after item: in a first load of the 35 real titles, whose key histories are each a conditional put,
 * that was 1.6 s of the embedded DynamoDB's 11.7 s. A parse depends only on the expression, whether it is a key
 * condition, and the attribute names and values it may refer to, so its result is kept under exactly those, with the
 * names and values it uses (dynalite then checks that none given is left unused), and each caller gets a copy of its
 * own.
 * Expressions that fail to parse are not kept (they throw again, as before).
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
  result: unknown;
  usedNames: string[];
  usedValues: string[];
}

/** Distinct parses kept; the whole memory is dropped when it fills (a store's expressions are few). */
const MAX_KEPT = 2_000;

export function letDynaliteRememberItsConditions(): void {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const parser = fromDynalite('./db/conditionParser') as PegParser;
  if (parser.remembers) return;
  parser.remembers = true;
  const parse = parser.parse.bind(parser);
  const known = new Map<string, Parsed>();
  parser.parse = (expression, options) => {
    const context = options.context;
    const id = JSON.stringify([expression, context.isKeyCondition === true, context.attrNames ?? null, context.attrVals ?? null]);
    let parsed = known.get(id);
    if (!parsed) {
      // Parsed against every name and value given, so that what it uses does not depend on what other expressions
      // of the same request used before it.
      const names = Object.keys(context.attrNames ?? {});
      const values = Object.keys(context.attrVals ?? {});
      const fresh: ParseContext = {
        ...context,
        unusedAttrNames: Object.fromEntries(names.map((n) => [n, true as const])),
        unusedAttrVals: Object.fromEntries(values.map((v) => [v, true as const])),
      };
      const result = parse(expression, { ...options, context: fresh });
      parsed = {
        result,
        usedNames: names.filter((n) => !(n in fresh.unusedAttrNames)),
        usedValues: values.filter((v) => !(v in fresh.unusedAttrVals)),
      };
      if (known.size >= MAX_KEPT) known.clear();
      known.set(id, parsed);
    }
    for (const name of parsed.usedNames) delete context.unusedAttrNames[name];
    for (const value of parsed.usedValues) delete context.unusedAttrVals[value];
    return structuredClone(parsed.result);
  };
}
