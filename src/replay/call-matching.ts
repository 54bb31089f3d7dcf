// How a call the new agent makes is matched to a recorded call of the same turn
// (docs/replay.md, matching): the same tool and the same arguments after normalization,
// which is canonical JSON (object keys sorted, no whitespace) with the argument paths the
// tool's `relax` list names left out on both sides. Identical calls are taken in recorded order.
import type { ToolUseBlock } from "../runstate/records/records.js";
import type { RecordedCall } from "./recording.js";

/** Per tool name, the argument paths left out when calls are compared: `when`, `options.at`, `items.*.id` (`*` is any key or index). */
export type RelaxedArguments = Readonly<Record<string, readonly string[]>>;

/** A turn's calls, matched. */
export interface TurnMatch {
  /** Each call of the new agent that matched a recorded call, with it. */
  pairs: { made: ToolUseBlock; recorded: RecordedCall }[];
  /** Calls of the new agent the recorded turn does not have. */
  unexpected: ToolUseBlock[];
  /** Recorded calls of the turn the new agent did not make. */
  missing: RecordedCall[];
}

/** Matches the calls of one turn: each made call takes the first recorded call not yet taken that it equals. */
export function matchTurn(recorded: readonly RecordedCall[], made: readonly ToolUseBlock[], relax: RelaxedArguments = {}): TurnMatch {
  const open = recorded.map((call) => ({ call, key: callKey(call.name, call.input, relax) }));
  const pairs: TurnMatch["pairs"] = [];
  const unexpected: ToolUseBlock[] = [];
  for (const use of made) {
    const key = callKey(use.name, use.input, relax);
    const index = open.findIndex((candidate) => candidate.key === key);
    if (index === -1) {
      unexpected.push(use);
      continue;
    }
    pairs.push({ made: use, recorded: (open[index] as (typeof open)[number]).call });
    open.splice(index, 1);
  }
  return { pairs, unexpected, missing: open.map((entry) => entry.call) };
}

function callKey(name: string, input: Record<string, unknown>, relax: RelaxedArguments): string {
  return `${name}\u0000${canonicalArguments(input, relax[name] ?? [])}`;
}

/** The arguments as the comparison sees them: `paths` left out, then canonical JSON. */
export function canonicalArguments(input: Record<string, unknown>, paths: readonly string[] = []): string {
  let value: unknown = input;
  for (const path of paths) value = without(value, path.split("."));
  return canonicalJson(value);
}

/** JSON with every object's keys sorted and no whitespace: two equal values give one text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A copy of `value` without what `path` names; the value itself where the path leads nowhere. */
function without(value: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || value === null || typeof value !== "object") return value;
  const hit = (key: string): boolean => head === "*" || head === key;
  if (Array.isArray(value)) {
    if (rest.length === 0) return value.filter((_item, index) => !hit(String(index)));
    return value.map((item, index) => (hit(String(index)) ? without(item, rest) : item));
  }
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (hit(key) && rest.length === 0) continue;
    copy[key] = hit(key) ? without(item, rest) : item;
  }
  return copy;
}
