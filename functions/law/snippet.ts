/** Highlight markers an index puts around matched terms; never present in stored text (normalizeText strips C0). */
export const HIT_OPEN = '\u0001';
export const HIT_CLOSE = '\u0002';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * Turn an index's marked excerpt into a snippet that is safe to embed: everything escaped, then the markers become
 * <b>…</b>. Unbalanced markers are dropped rather than left as open tags.
 */
export function renderSnippet(marked: string): string {
  let out = '';
  let open = false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the highlight markers are these control characters on purpose
  for (const part of marked.split(/([\u0001\u0002])/)) {
    if (part === HIT_OPEN) {
      if (!open) out += '<b>';
      open = true;
    } else if (part === HIT_CLOSE) {
      if (open) out += '</b>';
      open = false;
    } else {
      out += escapeHtml(part.replace(/\s+/g, ' '));
    }
  }
  return open ? `${out}</b>` : out;
}
