/** Highlight markers an index puts around matched terms; never present in stored text (normalizeText strips C0). */
export const HIT_OPEN = '\u0001';
export const HIT_CLOSE = '\u0002';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** What renderSnippet rewrites: a marker, a run of whitespace (one space), or a character HTML must see escaped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the highlight markers are these control characters on purpose
const SNIPPET_PARTS = /[\u0001\u0002]|\s+|[&<>"']/g;

/**
 * Turn an index's marked excerpt into a snippet that is safe to embed: everything escaped, then the markers become
 * <b>…</b>. Unbalanced markers are dropped rather than left as open tags. One pass over the excerpt: it runs for
 * every hit on the event loop.
 */
export function renderSnippet(marked: string): string {
  let open = false;
  const out = marked.replace(SNIPPET_PARTS, (part) => {
    if (part === HIT_OPEN) {
      if (open) return '';
      open = true;
      return '<b>';
    }
    if (part === HIT_CLOSE) {
      if (!open) return '';
      open = false;
      return '</b>';
    }
    return ESCAPES[part] ?? ' ';
  });
  return open ? `${out}</b>` : out;
}
