import type { SaxesTagNS } from 'saxes';
import type { SectionStatus } from '#law/model.ts';
import type { SkippedSection } from '#law/ports.ts';
import { normalizeText } from '#shared/hash.ts';
import { placeholderStatus, STATUS_ATTRIBUTES } from '../placeholder.ts';
import type { SourceDocument } from '../source.ts';
import { courtRuleKey, isSkip, reorganizationPlanKey, ruleSetCollection, type Skip, sectionKeys } from './identifiers.ts';

/**
 * Turns the parser's events over a title into units: one SourceDocument per key of each `<section>`,
 * `<reorganizationPlan>` and `<courtRule>` of the title's hierarchy, or a SkippedSection naming why one could not be
 * read. Sections quoted in notes are not units. A unit's `target` is the collection whose edition it belongs to:
 * `usc`, or the rules collection of its `<courtRules>` (`frbp`, `frcrp` …).
 */
export type Unit = { target: string; doc: SourceDocument } | { target: string; skipped: SkippedSection };

/** Levels of a title's hierarchy (and of an appendix's: acts, court rules, plans) around its units. */
const HIERARCHY: ReadonlySet<string> = new Set([
  'uscDoc',
  'main',
  'title',
  'subtitle',
  'chapter',
  'subchapter',
  'part',
  'subpart',
  'division',
  'subdivision',
  'article',
  'subarticle',
  'level',
  'appendix',
  'compiledAct',
  'courtRules',
  'reorganizationPlans',
]);
const UNITS: ReadonlySet<string> = new Set(['section', 'reorganizationPlan', 'courtRule']);
/** Editorial apparatus, not the section's enacted text. */
const APPARATUS: ReadonlySet<string> = new Set(['notes', 'note', 'toc', 'sourceCredit']);
const LEVELS: ReadonlySet<string> = new Set([
  'subsection',
  'paragraph',
  'subparagraph',
  'clause',
  'subclause',
  'item',
  'subitem',
  'subsubitem',
  'level',
]);
const BLOCKS: ReadonlySet<string> = new Set([
  ...LEVELS,
  'chapeau',
  'content',
  'continuation',
  'proviso',
  'p',
  'table',
  'tr',
  'br',
  'layout',
  'header',
  'row',
]);
const CELLS: ReadonlySet<string> = new Set(['td', 'th', 'column']);

/** An element around the current unit: a level of the title's hierarchy, or anything else (notes, toc …). */
interface OuterFrame {
  local: string;
  identifier?: string;
  /** The value of the level's `<num>`. */
  num?: string;
  /** For `<courtRules>`: the collection of its rules. */
  rules?: string | Skip;
}

export class UnitReader {
  private readonly outer: OuterFrame[] = [];
  private unit: { tag: SaxesTagNS; builder: SectionBuilder } | null = null;
  private ready: Unit[] = [];
  /** Keys given so far, per target: a second unit with the same key is skipped. */
  private readonly given = new Map<string, Set<string>>();

  constructor(private readonly title: string) {}

  take(): Unit[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  open(tag: SaxesTagNS): void {
    if (this.unit) {
      this.unit.builder.open(tag);
      return;
    }
    const parent = this.outer[this.outer.length - 1];
    if (tag.local === 'num' && parent) parent.num = attr(tag, 'value');
    if (UNITS.has(tag.local) && this.outer.every((f) => HIERARCHY.has(f.local))) {
      this.unit = { tag, builder: new SectionBuilder(attr(tag, 'status'), this.chapter()) };
      return;
    }
    const identifier = attr(tag, 'identifier');
    this.outer.push({
      local: tag.local,
      ...(identifier && { identifier }),
      ...(tag.local === 'courtRules' && { rules: ruleSetCollection(identifier) }),
    });
  }

  close(_tag: SaxesTagNS): void {
    if (!this.unit) {
      this.outer.pop();
      return;
    }
    if (!this.unit.builder.close()) return;
    const { tag, builder } = this.unit;
    this.unit = null;
    this.finish(tag, builder);
  }

  text(text: string): void {
    this.unit?.builder.text(text);
  }

  private finish(tag: SaxesTagNS, builder: SectionBuilder): void {
    const identifier = attr(tag, 'identifier');
    const where = identifier ?? (builder.numValue ? `number ${builder.numValue}` : `<${tag.local} id="${attr(tag, 'id') ?? ''}">`);
    const { target, keys } = this.keysOf(tag, identifier, builder.numValue);
    if (isSkip(keys)) {
      this.ready.push({ target, skipped: skipped(where, keys) });
      return;
    }
    const doc = builder.build();
    const given = this.given.get(target) ?? new Set<string>();
    this.given.set(target, given);
    for (const key of keys) {
      if (given.has(key)) {
        this.ready.push({
          target,
          skipped: skipped(where, { skip: 'duplicate-key', detail: `${key} was given by an earlier unit of this file (kept)`, key }),
        });
        continue;
      }
      given.add(key);
      this.ready.push({ target, doc: { ...doc, key } });
    }
  }

  private keysOf(tag: SaxesTagNS, identifier: string | undefined, numValue: string | undefined): { target: string; keys: string[] | Skip } {
    if (tag.local === 'section') return { target: 'usc', keys: sectionKeys(this.title, identifier, numValue) };
    if (tag.local === 'reorganizationPlan') {
      const key = reorganizationPlanKey(this.title, identifier);
      return { target: 'usc', keys: isSkip(key) ? key : [key] };
    }
    const rules = [...this.outer].reverse().find((f) => f.local === 'courtRules');
    const collection: string | Skip = rules?.rules ?? {
      skip: 'unknown-rule-set',
      detail: `court rule '${identifier ?? ''}' outside any <courtRules>`,
    };
    if (isSkip(collection)) return { target: 'usc', keys: collection };
    // OLRC sets supplemental rule sets (e.g. for Social Security actions) inside a set, in an unnumbered <level>.
    const inRules = this.outer.slice(this.outer.lastIndexOf(rules!) + 1);
    if (inRules.some((f) => f.local === 'level' && !f.identifier)) {
      return {
        target: collection,
        keys: { skip: 'supplemental-rules', detail: `'${identifier ?? ''}' belongs to a supplemental rule set of ${rules!.identifier}` },
      };
    }
    const key = courtRuleKey(collection, identifier);
    return { target: collection, keys: isSkip(key) ? key : [key] };
  }

  private chapter(): string | undefined {
    for (let i = this.outer.length - 1; i >= 0; i--) if (this.outer[i]!.local === 'chapter') return this.outer[i]!.num;
    return undefined;
  }
}

const skipped = (where: string, s: Skip): SkippedSection => ({ where, reason: s.skip, detail: s.detail, ...(s.key && { key: s.key }) });

/** Where an element's text goes while a unit is read. */
type Sink = 'body' | 'catchline' | 'credit' | 'skip';

interface Frame {
  local: string;
  sink: Sink;
}

/** One unit's texts: catchline, body lines, source credit, and the value of its own `<num>`. */
class SectionBuilder {
  private readonly frames: Frame[] = [];
  private readonly body = new BodyLines();
  private catchline = '';
  private credit = '';
  numValue: string | undefined;

  constructor(
    private readonly statusAttribute: string | undefined,
    private readonly chapter: string | undefined,
  ) {}

  open(tag: SaxesTagNS): void {
    const sink = this.sinkFor(tag);
    if (this.frames.length === 0 && tag.local === 'num') this.numValue = attr(tag, 'value');
    this.frames.push({ local: tag.local, sink });
    if (sink !== 'body') return;
    if (BLOCKS.has(tag.local)) this.body.block();
    else if (CELLS.has(tag.local)) this.body.text(' ');
    else if (tag.local === 'num' || tag.local === 'heading') this.body.beginLead(tag.local);
  }

  /** True when the unit itself closes. */
  close(): boolean {
    const frame = this.frames.pop();
    if (!frame) return true;
    if (frame.sink === 'body') {
      if (BLOCKS.has(frame.local)) this.body.endBlock();
      else if (frame.local === 'num' || frame.local === 'heading') this.body.endLead();
    }
    return false;
  }

  text(text: string): void {
    const sink = this.frames[this.frames.length - 1]?.sink ?? 'body';
    if (sink === 'body') this.body.text(text);
    else if (sink === 'catchline') this.catchline += text;
    else if (sink === 'credit') this.credit += text;
  }

  /** The document, keyed later (a list of sections gives one document per key). */
  build(): SourceDocument {
    const catchline = squash(this.catchline);
    const bodyText = normalizeText(this.body.toText());
    const status =
      this.statusAttribute && STATUS_ATTRIBUTES.has(this.statusAttribute)
        ? (this.statusAttribute as SectionStatus)
        : placeholderStatus(catchline, bodyText);
    return {
      key: '',
      catchline,
      bodyText,
      historyNote: squash(this.credit),
      status,
      parts: this.chapter ? { chapter: this.chapter } : {},
    };
  }

  private sinkFor(tag: SaxesTagNS): Sink {
    const parent = this.frames[this.frames.length - 1];
    if (parent && parent.sink !== 'body') return parent.sink;
    const direct = this.frames.length === 0;
    if (direct && tag.local === 'num') return 'skip';
    if (direct && tag.local === 'heading') return 'catchline';
    if (tag.local === 'sourceCredit') return 'credit';
    if (APPARATUS.has(tag.local)) return 'skip';
    // An OLRC footnote marker ("force,1") points into a `<note type="footnote">`: both are editorial.
    if (tag.local === 'ref' && attr(tag, 'class')?.split(/\s+/).includes('footnoteRef')) return 'skip';
    return 'body';
  }
}

/**
 * Lines of a section's text. Structure, not the file's whitespace, decides line breaks (the two converters lay out
 * whitespace differently): every block starts a line, except that a level's text continues the line its `<num>`
 * and heading began, as printed: "(a) Waiver.—The provisions …", "(e)(1) Subject to …".
 */
class BodyLines {
  private readonly lines: string[] = [];
  private line = '';
  /** The current line holds nothing but a level's lead (its num and heading) so far. */
  private leadOnly = true;
  private inLead: 'num' | 'heading' | null = null;
  private last: 'num' | 'heading' | 'text' | null = null;

  block(): void {
    if (!this.leadOnly) this.breakLine();
  }

  endBlock(): void {
    this.breakLine();
  }

  beginLead(kind: 'num' | 'heading'): void {
    this.inLead = kind;
  }

  endLead(): void {
    this.inLead = null;
  }

  text(raw: string): void {
    const text = raw.replace(/\s+/g, ' ');
    if (!text.trim()) {
      if (this.line && !this.leadOnly) this.line += ' ';
      return;
    }
    const afterNum = this.last === 'num' && this.leadOnly;
    if (this.inLead === 'num') {
      // Labels of nested levels join without a space: "(e)(1)".
      this.line = this.leadOnly ? this.line.trimEnd() + text.trim() : this.line + text;
    } else if (afterNum) {
      this.line = `${this.line.trimEnd()} ${text.trimStart()}`;
    } else {
      this.line += this.line ? text : text.trimStart();
    }
    this.last = this.inLead ?? 'text';
    if (!this.inLead) this.leadOnly = false;
  }

  toText(): string {
    this.breakLine();
    return this.lines.join('\n');
  }

  private breakLine(): void {
    const line = this.line.replace(/ {2,}/g, ' ').trim();
    if (line) this.lines.push(line);
    this.line = '';
    this.leadOnly = true;
    this.last = null;
  }
}

export function attr(tag: SaxesTagNS, name: string): string | undefined {
  return tag.attributes[name]?.value;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
