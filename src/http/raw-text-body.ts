import iconv from 'iconv-lite';
import { ToolError } from '../errors.js';

const UTF8 = new Set(['utf-8', 'utf8']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The `charset` parameter of a Content-Type, lowercase and unquoted; null when absent. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return match ? match[2]!.toLowerCase() : null;
}

function refused(message: string): ToolError {
  return new ToolError('INVALID_INPUT', message, { fields: [{ field: 'body', message }] });
}

/**
 * A raw text body (ApplyPatch's text/x-diff) decoded by its `charset` (UTF-8 when none). Bytes
 * are never silently replaced: a body that is not valid in its charset, or a charset this
 * server does not know, is refused with INVALID_INPUT.
 */
export function decodeRawText(bytes: Buffer, contentType: string | undefined): string {
  const charset = charsetOf(contentType);
  if (charset === null || UTF8.has(charset)) {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw refused('The body is not valid UTF-8. Send UTF-8, or name its encoding with a charset parameter.');
    }
  }
  if (!iconv.encodingExists(charset)) {
    throw refused(`The body's charset "${charset}" is not supported. Send UTF-8 (charset=utf-8).`);
  }
  const text = iconv.decode(bytes, charset, { stripBOM: false });
  // A decoder that met bytes it cannot map puts U+FFFD in their place: refuse instead.
  if (text.includes('\uFFFD') && !iconv.encode(text, charset, { addBOM: false }).equals(bytes)) {
    throw refused(`The body is not valid ${charset}: some bytes do not map to characters.`);
  }
  return text;
}
