/** The text each side of an edit script makes: the old text (kept + removed) and the new (kept + added). */
export const sides = (ops: readonly { op: string; text: string }[]) => ({
  from: ops
    .filter((o) => o.op !== 'add')
    .map((o) => o.text)
    .join(''),
  to: ops
    .filter((o) => o.op !== 'remove')
    .map((o) => o.text)
    .join(''),
});
