/** The part of @beshkenadze/eyecite (which ships no types) that the benchmark calls. */
declare module '@beshkenadze/eyecite' {
  export function getCitations(text: string): Array<{ constructor: { name: string } }>;
}
