/** Control characters (C0, DEL, C1): PostgreSQL refuses NUL in text, and none of them belongs in a name. */
const CONTROL_CHARACTERS = /\p{Cc}/gu;

/** A name, id or value from a file as the catalog stores it: control characters dropped, surrounding blanks trimmed. */
export function cleanText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '').trim();
}
