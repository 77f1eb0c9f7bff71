/** A path segment's percent-escapes decoded, or null when they are malformed (`%ZZ`, a cut or overlong UTF-8 sequence). */
export function decodePathSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
