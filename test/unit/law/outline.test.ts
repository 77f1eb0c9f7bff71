import { describe, expect, it } from 'vitest';
import { outlineDepths } from '#law/outline.ts';

const depths = (text: string) => outlineDepths(text.split('\n'));

describe('outlineDepths: how deep each line of a section sits', () => {
  it('nests (a) (1) (A) (i) (I) (aa) as the codes do, siblings at their depth, and a line opening with two at the first', () => {
    const text = [
      '(a)(1) First.',
      '(2) Second.',
      '(A) Sub.',
      '(i) Clause.',
      '(I) Subclause.',
      '(aa) Item.',
      '(ii) Clause.',
      '(B) Sub.',
      '(b) Next.',
    ];
    expect(depths(text.join('\n'))).toEqual([0, 1, 2, 3, 4, 5, 3, 2, 0]);
  });

  it('reads (i) after (h) as a letter, and under a subparagraph as a numeral', () => {
    expect(depths('(h) Eighth.\n(1) Para.\n(i) Ninth.')).toEqual([0, 1, 0]);
    expect(depths('(h) Eighth.\n(1) Para.\n(A) Sub.\n(i) Clause.')).toEqual([0, 1, 2, 3]);
    expect(depths('(a) One.\n(1) Para.\n(i) Clause.\n(ii) Clause.\n(v) Clause?')).toEqual([0, 1, 2, 2, 2]);
  });

  it('keeps a line without a designation at the depth above it, a bullet one deeper, a leading note flush', () => {
    expect(depths('NOTE: temporary.\n(a) The term:\n(1) one;\nand more.\n• a bullet')).toEqual([0, 0, 1, 1, 2]);
  });
});
