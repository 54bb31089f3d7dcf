// Which agent.yaml applies to a stored session: one rule for a resume, a compaction, the
// policies `session show` prints and the server's choice among the agents it serves.
import { existsSync } from "node:fs";
import type { MetaPayload } from "../runstate/records/records.js";

/** What besides the session's own meta decides its agent.yaml. */
export interface SessionAgentChoice {
  /** The agent.yaml the caller names (the CLI's --config): it always applies. */
  given?: string | undefined;
  /** Why the session is foreign (docs/security.md), if it is: its journal then chooses no agent.yaml. */
  foreign?: string | undefined;
  /** Whether the agent.yaml the session recorded is at hand: by default, whether the file exists; a server asks whether it serves it. */
  available?: ((path: string) => boolean) | undefined;
  /** What applies when neither does: the caller's default (the CLI's ./agent.yaml when there is one). */
  fallback?: string | undefined;
}

/**
 * The agent.yaml that applies to the session whose meta is `meta`: the one given, else the
 * one the session recorded (while it is available, and unless the session is foreign), else
 * the fallback. Undefined: the defaults.
 */
export function sessionAgentPath(meta: Pick<MetaPayload, "config"> | undefined, choice: SessionAgentChoice = {}): string | undefined {
  if (choice.given !== undefined) return choice.given;
  const recorded = meta?.config;
  if (recorded !== undefined && choice.foreign === undefined && (choice.available ?? existsSync)(recorded)) return recorded;
  return choice.fallback;
}
