// Finding text in a journal as a person means it: in the prompt, the title, what the user
// and the model wrote, and the tools' inputs and results; not in signatures, ids, image
// data or the fingerprint. The bytes are searched first, as they are stored (JSON text),
// and only a line that holds the text is parsed, so a search costs about what a byte
// search of the files costs.
import { PROTOCOLS } from "../runstate/records/records.js";

/** Where in a session the text was found. */
export type SearchField = "prompt" | "title" | "user" | "assistant" | "tool_result";

/** The first place a journal holds the text. */
export interface SearchHit {
  /** The record's seq. */
  seq: number;
  /** What kind of text holds it (a tool's input is the assistant's). */
  field: SearchField;
  /** The line of that text that holds it, whole. */
  line: string;
  /** Where in `line` it starts. */
  at: number;
}

/**
 * How a search matches: smart case, as ripgrep's: text all in lower case (and ASCII) matches
 * any case, text with a capital matches exactly.
 */
export class SearchText {
  /** The text searched for, as given. */
  readonly text: string;
  readonly #anyCase: boolean;
  /** The text as a JSON string holds it: what the stored bytes are searched for. */
  readonly #stored: Buffer;
  readonly #storedPattern: RegExp | undefined;

  /** A search for `text`. */
  constructor(text: string) {
    this.text = text;
    this.#anyCase = text === text.toLowerCase() && text !== text.toUpperCase() && /^[\x20-\x7e]*$/.test(text);
    const stored = JSON.stringify(text).slice(1, -1);
    this.#stored = Buffer.from(stored);
    this.#storedPattern = this.#anyCase ? new RegExp(escapeRegExp(stored), "gi") : undefined;
  }

  /** Where `text` holds it, or -1. */
  indexIn(text: string): number {
    return this.#anyCase ? text.toLowerCase().indexOf(this.text) : text.indexOf(this.text);
  }

  /** The offset of the stored form in `bytes` at or after `from`, or -1. */
  storedIndex(bytes: Buffer, latin1: string | undefined, from: number): number {
    if (this.#storedPattern === undefined) return bytes.indexOf(this.#stored, from);
    // ASCII text any case: over the bytes read as latin1, one character a byte.
    this.#storedPattern.lastIndex = from;
    return this.#storedPattern.exec(latin1 as string)?.index ?? -1;
  }

  /** Whether storedIndex needs the bytes as a latin1 string. */
  get needsLatin1(): boolean {
    return this.#storedPattern !== undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The first place `bytes`, whole lines of a journal, holds `search` as a person means it; undefined when none does. */
export function searchJournal(bytes: Buffer, search: SearchText): SearchHit | undefined {
  const latin1 = search.needsLatin1 ? bytes.toString("latin1") : undefined;
  for (let from = 0; from < bytes.length; ) {
    const found = search.storedIndex(bytes, latin1, from);
    if (found < 0) return undefined;
    const start = bytes.lastIndexOf(0x0a, found) + 1;
    let end = bytes.indexOf(0x0a, found);
    if (end < 0) end = bytes.length;
    const hit = hitInLine(bytes.subarray(start, end), search);
    if (hit !== undefined) return hit;
    from = end + 1;
  }
  return undefined;
}

/** Keys whose strings are not text a person wrote or read: signatures, ids, encoded data, block types. */
const NOT_TEXT = new Set(["signature", "data", "id", "tool_use_id", "type", "media_type", "kind"]);

function hitInLine(line: Buffer, search: SearchText): SearchHit | undefined {
  let record: Record<string, unknown> & { seq?: unknown; protocol?: unknown };
  try {
    record = JSON.parse(line.toString("utf8")) as typeof record;
  } catch {
    return undefined;
  }
  const seq = typeof record.seq === "number" ? record.seq : 0;
  const fields: [SearchField, unknown][] = [];
  switch (record.protocol) {
    case PROTOCOLS.meta:
      fields.push(["prompt", (record.meta as { prompt?: unknown } | undefined)?.prompt]);
      break;
    case PROTOCOLS.title:
      fields.push(["title", (record.title as { title?: unknown } | undefined)?.title]);
      break;
    case PROTOCOLS.user:
      fields.push(["user", record.user]);
      break;
    case PROTOCOLS.assistant:
      fields.push(["assistant", (record.assistant as { message?: unknown } | undefined)?.message]);
      break;
    case PROTOCOLS.tool_result:
      fields.push(["tool_result", (record.tool_result as { result?: unknown } | undefined)?.result]);
      break;
  }
  for (const [field, value] of fields) {
    for (const text of texts(value)) {
      const at = search.indexIn(text);
      if (at < 0) continue;
      const lineStart = text.lastIndexOf("\n", at) + 1;
      const lineEnd = text.indexOf("\n", at);
      return { seq, field, line: text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd), at: at - lineStart };
    }
  }
  return undefined;
}

/** Every string a person wrote or read in `value`, depth first. */
function* texts(value: unknown): Generator<string> {
  if (typeof value === "string") {
    yield value;
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) yield* texts(item);
    return;
  }
  for (const [key, item] of Object.entries(value)) if (!NOT_TEXT.has(key)) yield* texts(item);
}
