const MB = 1024 * 1024;

/** Runs `op` over `texts` until `minMs` has passed; MB/s of UTF-16 text (chars × 2 bytes would overstate it: chars). */
export function mbPerSec(texts: readonly string[], op: (t: string) => unknown, minMs: number): number {
  const chars = texts.reduce((n, t) => n + t.length, 0);
  for (const t of texts) op(t); // warm
  let rounds = 0;
  const began = performance.now();
  do {
    for (const t of texts) op(t);
    rounds++;
  } while (performance.now() - began < minMs);
  const seconds = (performance.now() - began) / 1000;
  return (chars * rounds) / MB / seconds;
}
