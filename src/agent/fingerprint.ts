// The resume guard (docs/cli-and-sessions.md, `--resume`): what a run was started with, hashed where it could
// leak, compared on resume. Computed from the configuration alone, before cache markers,
// the memory index or the resume reminder touch the system prompt.
import { createHash } from "node:crypto";
import type { ProviderName, ThinkingConfig, ToolSpec } from "../llm/model-provider.js";
import { goEscaped } from "../runstate/records/record-v3.js";
import type { Fingerprint, MetaPayload } from "../runstate/records/records.js";

export interface FingerprintInput {
  provider: ProviderName;
  model: string;
  system: string;
  tools: readonly ToolSpec[];
  /** The tools of each MCP server (already among `tools`), hashed apart so a refusal can name the server. */
  mcpTools?: Readonly<Record<string, readonly ToolSpec[]>>;
  thinking: ThinkingConfig;
  maxTokens: number;
  maxIterations: number;
}

/**
 * Whose hashes a journal holds: ours, or the Go implementation's, which hashes its
 * encoding/json bytes of the system prompt parts and tool definitions (version 3), or of
 * the Anthropic SDK's request types (versions 1 and 2, which also write no provider).
 */
export type FingerprintStyle = "fisk-ai" | "go-v3" | "go-v2";

/** The style of the fingerprint a journal holds. */
export function fingerprintStyle(meta: Pick<MetaPayload, "version" | "fingerprint">): FingerprintStyle {
  return meta.version !== 3 && meta.fingerprint.provider === undefined ? "go-v2" : writtenStyle(meta.version);
}

/** The style a journal of `version` is written in here: version 3 holds Go's hashes, so either side can resume it. */
export function writtenStyle(version: number): FingerprintStyle {
  return version === 3 ? "go-v3" : "fisk-ai";
}

/** The fingerprint of `input` as a journal of `style` records it, so a resume compares like with like. */
export function computeFingerprint(input: FingerprintInput, style: FingerprintStyle = "fisk-ai"): Fingerprint {
  if (style !== "fisk-ai") return goFingerprint(input, style);
  const servers = Object.entries(input.mcpTools ?? {});
  return {
    provider: input.provider,
    model: input.model,
    system_hash: sha256(input.system),
    tools_hash: toolsHash(input.tools),
    thinking_mode: thinkingMode(input.thinking),
    max_tokens: input.maxTokens,
    max_iterations: input.maxIterations,
    // Only with MCP servers, so a journal without them keeps the shape the Go implementation writes.
    ...(servers.length === 0 ? {} : { mcp_tools_hashes: Object.fromEntries(servers.map(([server, tools]) => [server, toolsHash(tools)])) }),
  };
}

function goFingerprint(input: FingerprintInput, style: "go-v3" | "go-v2"): Fingerprint {
  return {
    ...(style === "go-v3" ? { provider: input.provider } : {}),
    model: input.model,
    system_hash: sha256(goSystemJson(style, [input.system])),
    // Version 2 hashed the SDK's own encoding of its tool params, which is not reproduced:
    // nothing stands for it, and diffFingerprints says the two cannot be compared.
    tools_hash: style === "go-v3" ? sha256(goToolsJson(input.tools, input.provider === "anthropic" && input.tools.length >= GO_TOOL_SEARCH_THRESHOLD)) : "",
    thinking_mode: input.thinking.mode === "off" ? "off" : "summarized",
    max_tokens: input.maxTokens,
    max_iterations: input.maxIterations,
  };
}

/** What the Go implementation hashes for its system prompt parts: `[]string` in version 3, `[]TextBlockParam` before. */
export function goSystemJson(style: "go-v3" | "go-v2", parts: readonly string[]): string {
  return goEscaped(JSON.stringify(style === "go-v3" ? parts : parts.map((text) => ({ text, type: "text" }))));
}

/**
 * From this many tools on, the Go implementation defers them behind the API's tool search
 * (with Anthropic, by default), and its hash says so: the same tools hash the same here.
 */
const GO_TOOL_SEARCH_THRESHOLD = 10;

/** What the Go implementation's version 3 hashes for its tools: `[]llm.ToolDef`, field names as Go spells them, schema keys sorted. */
export function goToolsJson(specs: readonly ToolSpec[], deferred: boolean): string {
  const defs = specs.map(
    (spec) =>
      `{"Name":${JSON.stringify(spec.name)},"Description":${JSON.stringify(spec.description)},"InputSchema":${canonicalJson(spec.input_schema)},"DeferLoading":${deferred}}`,
  );
  return goEscaped(`[${defs.join(",")}]`);
}

function toolsHash(specs: readonly ToolSpec[]): string {
  const tools = [...specs]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, description, input_schema }) => ({ name, description, input_schema }));
  return sha256(canonicalJson(tools));
}

/** The MCP servers whose tools differ between two fingerprints, as a parenthesis for the refusal. */
function changedServers(saved: Fingerprint, current: Fingerprint): string {
  const before = saved.mcp_tools_hashes ?? {};
  const after = current.mcp_tools_hashes ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = names.flatMap((name) => {
    if (before[name] === after[name]) return [];
    if (before[name] === undefined) return [`MCP server ${name} was added`];
    if (after[name] === undefined) return [`MCP server ${name} is gone`];
    return [`MCP server ${name} offers other tools`];
  });
  return changed.length === 0 ? "" : ` (${changed.join("; ")})`;
}

function thinkingMode(thinking: ThinkingConfig): string {
  return thinking.mode === "enabled" ? `enabled:${thinking.budget_tokens}` : thinking.mode;
}

/** A journal without a provider (version 1, or the Go implementation's) was anthropic. */
export function providerOf(fingerprint: Fingerprint): string {
  return fingerprint.provider ?? "anthropic";
}

export interface FingerprintDiff {
  /** One line per change, in the order docs/cli-and-sessions.md lists the fields under `--resume`. */
  changes: string[];
  /** A provider change, which even a forced resume does not cross. */
  providerChanged: boolean;
}

export function diffFingerprints(saved: Fingerprint, current: Fingerprint, style: FingerprintStyle = "fisk-ai"): FingerprintDiff {
  const changes: string[] = [];
  const providerChanged = providerOf(saved) !== providerOf(current);
  if (providerChanged) changes.push(`provider: ${providerOf(saved)} -> ${providerOf(current)}`);
  if (saved.model !== current.model) changes.push(`model: ${saved.model} -> ${current.model}`);
  if (saved.system_hash !== current.system_hash) changes.push("system prompt: changed");
  if (style === "go-v2")
    changes.push("tool set: not comparable (the journal holds the Go implementation's version 2 hash of it, which this fisk-ai cannot compute)");
  else if (saved.tools_hash !== current.tools_hash) changes.push(`tool set: changed${changedServers(saved, current)}`);
  if (saved.thinking_mode !== current.thinking_mode) changes.push(`thinking: ${saved.thinking_mode} -> ${current.thinking_mode}`);
  if (saved.max_tokens !== current.max_tokens) changes.push(`max_tokens: ${saved.max_tokens} -> ${current.max_tokens}`);
  if (saved.max_iterations !== current.max_iterations) {
    changes.push(`max_iterations: ${saved.max_iterations} -> ${current.max_iterations}`);
  }
  return { changes, providerChanged };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** JSON with object keys sorted at every depth, so equal tool sets hash equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
