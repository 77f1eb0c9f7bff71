import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIT_CLOSE, HIT_OPEN, renderSnippet } from '#law/snippet.ts';

describe('renderSnippet', () => {
  it('wraps marked terms in <b> and escapes everything else', () => {
    expect(renderSnippet(`the ${HIT_OPEN}strangulation${HIT_CLOSE} of <script>alert("x")</script> & co`)).toBe(
      'the <b>strangulation</b> of &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co',
    );
  });

  it('makes each run of whitespace one space and drops unbalanced markers', () => {
    const marked = `${HIT_CLOSE} a \t\n b${HIT_OPEN} c${HIT_OPEN}\u00a0d ${HIT_CLOSE}${HIT_CLOSE}e\u3000${HIT_OPEN}f`;
    expect(renderSnippet(marked)).toBe(' a b<b> c d </b>e <b>f</b>');
  });

  it('never emits a tag other than balanced <b>…</b>, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.string(), fc.constant(HIT_OPEN), fc.constant(HIT_CLOSE), fc.constantFrom('<', '>', '&', '"', "'", '<b>', '</b>')),
        ),
        (parts) => {
          const out = renderSnippet(parts.join(''));
          const tags = out.match(/<[^>]*>/g) ?? [];
          expect(tags.every((t) => t === '<b>' || t === '</b>')).toBe(true);
          let depth = 0;
          for (const t of tags) {
            depth += t === '<b>' ? 1 : -1;
            expect(depth === 0 || depth === 1).toBe(true);
          }
          expect(depth).toBe(0);
        },
      ),
    );
  });
});
