// Record version 3, the Go implementation's current journal (its PR #24): content blocks
// in a provider-neutral shape, `{"text":{...}}`, `{"thinking":{"text","signature":base64}}`,
// `{"tool_use":{...}}`, `{"tool_result":{...}}`, and `{"provider":{"kind","raw"}}` for a
// block of the provider's own (server tools and the like, kept as the API sent it). Read
// here into the shape of versions 1 and 2, the Anthropic API's blocks, which the rest of
// fisk-ai works in. A version 1 or 2 block always has a `type`, a version 3 block never does,
// so a line is translated by its shape alone, without knowing its journal's meta. Written
// back into it, as Go's encoding/json writes it, for a session that is version 3.
import { isUtf8 } from "node:buffer";
import { isDeepStrictEqual } from "node:util";
import {
  kindOfProtocol,
  PROTOCOLS,
  type AssistantPayload,
  type ImageBlock,
  type JournalRecord,
  type MetaPayload,
  type ToolResultBlock,
  type ToolResultPayload,
} from "./records.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A parsed record line in version 3's shape, in ours; anything else as it came, for the schema to judge. */
export function fromV3Record(value: unknown): unknown {
  if (!isObject(value)) return value;
  for (const kind of ["assistant", "user"] as const) {
    const payload = value[kind];
    if (isObject(payload) && isObject(payload.message) && Array.isArray(payload.message.content)) {
      // Versions 1 and 2, every journal's lines but the Go implementation's: read as they are, no copy.
      if (!payload.message.content.some(isV3Block)) return value;
      return { ...value, [kind]: { ...payload, message: { ...payload.message, content: payload.message.content.map(fromV3Block) } } };
    }
  }
  const toolResult = value.tool_result;
  if (isObject(toolResult) && isV3Block(toolResult.result)) {
    return { ...value, tool_result: { ...toolResult, result: fromV3Block({ tool_result: toolResult.result }) } };
  }
  return value;
}

/** A version 1 or 2 block always has a type; a version 3 block never does. */
function isV3Block(block: unknown): block is Json {
  return isObject(block) && !("type" in block);
}

function fromV3Block(block: unknown): unknown {
  if (!isV3Block(block)) return block;
  const kinds = Object.keys(block);
  const kind = kinds[0];
  const body = kind === undefined ? undefined : block[kind];
  if (kinds.length !== 1 || !isObject(body)) return block;
  switch (kind) {
    case "text":
      return { type: "text", text: body.text };
    case "thinking": {
      // Go's []byte signature is base64 of the signature the API gave.
      const signature = typeof body.signature === "string" ? base64Text(body.signature) : body.signature === undefined ? "" : undefined;
      return signature === undefined ? block : { type: "thinking", thinking: body.text ?? "", signature };
    }
    case "tool_use":
      return { type: "tool_use", id: body.id, name: body.name, input: body.input };
    case "tool_result":
      // Text only in version 3: anything else stays as it is and is refused as a block.
      if (typeof body.content !== "string") return block;
      return {
        type: "tool_result",
        tool_use_id: body.tool_use_id,
        content: body.content,
        ...(body.is_error === undefined || body.is_error === false ? {} : { is_error: body.is_error }),
      };
    case "provider":
      // The provider's block as it sent it: the kind is its type.
      return isObject(body.raw) && body.raw.type === body.kind ? body.raw : block;
    default:
      return block;
  }
}

/** The text base64 encodes, or undefined when it is not canonical base64 of UTF-8. */
function base64Text(encoded: string): string | undefined {
  const bytes = Buffer.from(encoded, "base64");
  return bytes.toString("base64") === encoded && isUtf8(bytes) ? bytes.toString("utf8") : undefined;
}

/**
 * The line a version 3 journal holds for a record, as the Go implementation's encoding/json
 * writes it: its structs' field order, empty optional fields left out, `<`, `>`, `&`, U+2028
 * and U+2029 escaped. Blocks the neutral shape names are written in it; any other block, or
 * one carrying fields the neutral shape has no place for, as `{"provider":{"kind","raw"}}`
 * with the block as the API sent it, which the Go implementation sends back as it is.
 */
export function encodeV3Record(record: JournalRecord): string {
  return `${goEscaped(JSON.stringify(toV3Record(record)))}\n`;
}

/**
 * What a version 3 journal gives back for a record: the record as read from its v3 line.
 * A tool result in v3 is text, so a result of blocks becomes their text, an image a note
 * saying it was not kept; the meta has no place for where the run started (cwd, config) or
 * the MCP servers' own tool hashes.
 */
export function heldByV3<R extends JournalRecord>(record: R): R {
  return fromV3Record(JSON.parse(encodeV3Record(record))) as R;
}

/** Why a version 3 journal cannot hold a record as it is, or undefined when it can; `line` is its encodeV3Record. */
export function v3Problem(record: JournalRecord, line: string): string | undefined {
  const asGiven: unknown = JSON.parse(JSON.stringify(record));
  if (isDeepStrictEqual(fromV3Record(JSON.parse(line)), asGiven)) return undefined;
  return `a record version 3 journal cannot hold this ${kindOfProtocol(record.protocol) ?? "record"} record as it is (its tool results are text only, its meta has no cwd, config or mcp_tools_hashes)`;
}

/** JSON text as Go's encoding/json writes it: it escapes these inside strings, where alone they can occur. */
export function goEscaped(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** An RFC 3339 time as Go's time.Time writes one: no trailing zeros in the fraction, no empty fraction. */
function goTime(time: string): string {
  return time.replace(/(\.\d*?)0+(?=Z|[+-])/, "$1").replace(/\.(?=Z|[+-])/, "");
}

/** Only the fields that are set, as Go's `omitempty` writes them. */
function present(fields: Json): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== "" && value !== 0 && value !== false));
}

function toV3Record(record: JournalRecord): Json {
  const envelope = { seq: record.seq, protocol: record.protocol };
  switch (record.protocol) {
    case PROTOCOLS.meta:
      return { ...envelope, meta: toV3Meta(record.meta) };
    case PROTOCOLS.assistant:
      return { ...envelope, assistant: toV3Assistant(record.assistant) };
    case PROTOCOLS.user:
      return { ...envelope, user: { message: { role: "user", content: record.user.message.content.map((block) => toV3Block(block as Json)) } } };
    case PROTOCOLS.tool_result:
      return { ...envelope, tool_result: toV3ToolResult(record.tool_result) };
    case PROTOCOLS.terminal:
      return { ...envelope, terminal: { reason: record.terminal.reason, ...present({ message: record.terminal.message }) } };
    default:
      // The kinds of version 4 hold no content blocks: they are written as they are.
      return { ...record };
  }
}

/** The meta as Go's struct holds it: no cwd, config or MCP tool hashes, the provider always named. */
function toV3Meta(meta: MetaPayload): Json {
  const { fingerprint } = meta;
  return {
    version: meta.version,
    run_id: meta.run_id,
    created: goTime(meta.created),
    fingerprint: {
      provider: fingerprint.provider ?? "anthropic",
      model: fingerprint.model,
      system_hash: fingerprint.system_hash,
      tools_hash: fingerprint.tools_hash,
      thinking_mode: fingerprint.thinking_mode,
      max_tokens: fingerprint.max_tokens,
      max_iterations: fingerprint.max_iterations,
    },
    prompt: meta.prompt,
    ...present({ interactive: meta.interactive }),
  };
}

function toV3Assistant(assistant: AssistantPayload): Json {
  return {
    iteration: assistant.iteration,
    message: { role: "assistant", content: assistant.message.content.map((block) => toV3Block(block as Json)) },
    ...present({ stop_reason: assistant.stop_reason }),
    in_tokens: assistant.in_tokens,
    out_tokens: assistant.out_tokens,
    ...present({ cache_read_tokens: assistant.cache_read_tokens, cache_create_tokens: assistant.cache_create_tokens }),
  };
}

/** A tool result as text, which is all version 3 keeps of one. */
function toV3ToolResult(toolResult: ToolResultPayload): Json {
  const { result } = toolResult;
  return {
    tool_use_id: toolResult.tool_use_id,
    result: { tool_use_id: result.tool_use_id, content: resultText(result.content), ...present({ is_error: result.is_error }) },
    ...present({ remote: toolResult.remote }),
  };
}

/** Whether every field of a block beyond `names` is empty (the API sends `citations: null`). */
function onlyFields(block: Json, names: readonly string[]): boolean {
  return Object.entries(block).every(([key, value]) => names.includes(key) || value === null || value === undefined);
}

function toV3Block(block: Json): Json {
  switch (block.type) {
    case "text":
      if (typeof block.text === "string" && onlyFields(block, ["type", "text"])) return { text: { text: block.text } };
      break;
    case "thinking": {
      // Base64 of the signature's UTF-8; a lone surrogate has no such bytes and would not come back.
      const signature = typeof block.signature === "string" ? Buffer.from(block.signature, "utf8") : undefined;
      if (
        typeof block.thinking === "string" &&
        signature !== undefined &&
        signature.toString("utf8") === block.signature &&
        onlyFields(block, ["type", "thinking", "signature"])
      ) {
        return { thinking: present({ text: block.thinking, signature: signature.toString("base64") }) };
      }
      break;
    }
    case "tool_use":
      if (onlyFields(block, ["type", "id", "name", "input"])) return { tool_use: { id: block.id, name: block.name, input: block.input } };
      break;
    case "tool_result": {
      // As the Go implementation decides: one text block, or text, is the neutral form.
      const text = plainText(block.content);
      if (text !== undefined && onlyFields(block, ["type", "tool_use_id", "content", "is_error"])) {
        return { tool_result: { tool_use_id: block.tool_use_id, content: text, ...present({ is_error: block.is_error }) } };
      }
      break;
    }
  }
  return { provider: { kind: block.type, raw: block } };
}

function plainText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const only = content[0] as Json;
  return only.type === "text" && typeof only.text === "string" && onlyFields(only, ["type", "text"]) ? only.text : undefined;
}

/** A tool result's content as the text a version 3 journal holds. */
function resultText(content: ToolResultBlock["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => (part.type === "text" ? part.text : `[${imageLabel(part)} not kept: a record version 3 journal holds tool results as text]`))
    .join("\n");
}

function imageLabel(image: ImageBlock): string {
  const mediaType = image.source.media_type;
  return typeof mediaType === "string" ? `image (${mediaType})` : "image";
}
