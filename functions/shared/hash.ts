import { createHash } from 'node:crypto';

/** Text as hashed and stored: NFC, `\n` line ends, no trailing spaces on lines, no blank runs, trimmed. */
export function normalizeText(text: string): string {
  return (
    text
      .normalize('NFC')
      .replace(/\r\n?/g, '\n')
      // C0 controls carry no law and would collide with the search highlight markers.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
      .replace(/[ \t\u00a0]+/g, ' ')
      .replace(/ *\n */g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** `sha256:` + hex SHA-256 of the body text (NFC, `\n` line ends): the provenance content hash and the format-record pin. */
export const contentHash = (bodyText: string): string => `sha256:${sha256Hex(bodyText.normalize('NFC').replace(/\r\n?/g, '\n'))}`;
