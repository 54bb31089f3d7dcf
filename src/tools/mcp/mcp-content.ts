// What an MCP tool returns, in the shape the journal's tool_result holds: text, and images
// the model APIs take. Anything else (audio, blobs, links, an image of another type) is
// said in text, so the model knows something was left out rather than that nothing came.
// What is past the output limit is cut off with a marker, as a command tool's output is.
import type { ToolOutput } from "../tool.js";

/** The content items of an MCP CallToolResult, as loosely as the protocol allows. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** The answer of a server of the protocol's first version. */
  toolResult?: unknown;
}

type OutputBlock = Exclude<ToolOutput["content"], string>[number];

/** The image types the Anthropic API accepts in a tool result. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** The result as a tool output, its text and images held to `limitBytes` (an image's base64 counts). */
export function toolOutputOf(result: McpCallResult, limitBytes = Number.POSITIVE_INFINITY): ToolOutput {
  const items = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const blocks: OutputBlock[] = items.map(blockOf);
  // A tool that answers only in structured content still answers.
  const structured = result.structuredContent ?? result.toolResult;
  if (blocks.length === 0 && structured !== undefined) blocks.push({ type: "text", text: JSON.stringify(structured) });
  const isError = result.isError === true;
  const content = blocks.every((block) => block.type === "text")
    ? cappedText(blocks.map((block) => (block as { text: string }).text).join("\n"), limitBytes).text
    : cappedBlocks(blocks, limitBytes);
  return isError ? { content, is_error: true } : { content };
}

/** The first `limit` bytes of `text`, and a line saying how many more there were. */
function cappedText(text: string, limit: number): { text: string; used: number } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return { text, used: bytes };
  const kept = Buffer.from(text).subarray(0, limit).toString("utf8");
  return { text: `${kept}\n[output truncated: ${bytes - limit} more bytes]`, used: limit };
}

/** Text and images in order until the limit; a text is cut at it, an image that does not fit is left out, each said so. */
function cappedBlocks(blocks: readonly OutputBlock[], limit: number): OutputBlock[] {
  let room = limit;
  return blocks.map((block) => {
    if (block.type === "text") {
      const capped = cappedText(block.text, room);
      room -= capped.used;
      return { type: "text", text: capped.text };
    }
    const data = block.source.data;
    const size = typeof data === "string" ? data.length : JSON.stringify(block.source).length;
    if (size <= room) {
      room -= size;
      return block;
    }
    return { type: "text", text: `[output truncated: an image of ${size} bytes left out, past the output limit]` };
  });
}

function blockOf(item: unknown): OutputBlock {
  const entry = (item !== null && typeof item === "object" ? item : {}) as Record<string, unknown>;
  const type = typeof entry.type === "string" ? entry.type : "unknown";
  const mime = typeof entry.mimeType === "string" ? entry.mimeType : "of no stated type";
  switch (type) {
    case "text":
      return { type: "text", text: typeof entry.text === "string" ? entry.text : "" };
    case "image":
      if (IMAGE_TYPES.has(mime) && typeof entry.data === "string") {
        return { type: "image", source: { type: "base64", media_type: mime, data: entry.data } };
      }
      return leftOut(`an image ${mime}`);
    case "resource": {
      const resource = (entry.resource ?? {}) as Record<string, unknown>;
      const uri = typeof resource.uri === "string" ? resource.uri : "(no uri)";
      if (typeof resource.text === "string") return { type: "text", text: `[resource ${uri}]\n${resource.text}` };
      return leftOut(`the binary resource ${uri}`);
    }
    case "resource_link":
      return leftOut(`a link to the resource ${typeof entry.uri === "string" ? entry.uri : "(no uri)"}, not fetched`);
    default:
      return leftOut(type === "audio" ? `audio ${mime}` : `content of type ${type}`);
  }
}

function leftOut(what: string): OutputBlock {
  return { type: "text", text: `[left out: ${what}; a tool result holds only text and images]` };
}
