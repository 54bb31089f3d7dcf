// Record version 3, the Go implementation's current journal (its PR #24): content blocks
// in a provider-neutral shape, `{"text":{...}}`, `{"thinking":{"text","signature":base64}}`,
// `{"tool_use":{...}}`, `{"tool_result":{...}}`, and `{"provider":{"kind","raw"}}` for a
// block of the provider's own (server tools and the like, kept as the API sent it). Read
// here into the shape of versions 1 and 2, the Anthropic API's blocks, which the rest of
// fisk-ai works in. A version 1 or 2 block always has a `type`, a version 3 block never does,
// so a line is translated by its shape alone, without knowing its journal's meta.
import { isUtf8 } from "node:buffer";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A parsed record line in version 3's shape, in ours; anything else as it came, for the schema to judge. */
export function fromV3Record(value: unknown): unknown {
  if (!isObject(value)) return value;
  for (const kind of ["assistant", "user"] as const) {
    const payload = value[kind];
    if (isObject(payload) && isObject(payload.message) && Array.isArray(payload.message.content)) {
      return { ...value, [kind]: { ...payload, message: { ...payload.message, content: payload.message.content.map(fromV3Block) } } };
    }
  }
  const toolResult = value.tool_result;
  if (isObject(toolResult) && isObject(toolResult.result) && !("type" in toolResult.result)) {
    return { ...value, tool_result: { ...toolResult, result: fromV3Block({ tool_result: toolResult.result }) } };
  }
  return value;
}

function fromV3Block(block: unknown): unknown {
  if (!isObject(block) || "type" in block) return block;
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
      return { type: "tool_result", tool_use_id: body.tool_use_id, content: body.content, ...(body.is_error === true ? { is_error: true } : {}) };
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
