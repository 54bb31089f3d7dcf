// `fisk-ai session compact ID [--undo]`: compacts a stored session by hand, or journals the
// undo of its latest compaction. The session is taken as a resume takes it (its lock), with
// the configuration a resume would use: --config, else the one the session recorded.
import { compactSession, undoCompaction } from "../../../session/compact-session.js";
import { loadAgentConfig } from "../../../config/agent-config.js";
import { runOptionsFromConfig } from "../../../config/run-options.js";
import type { Store } from "../../../runstate/store/store.js";
import { compactionLine } from "../../text/compaction.js";
import { sessionConfigPath } from "../../context/stores.js";

export async function compactStoredSession(
  store: Store,
  runId: string,
  flags: { config?: string; undo: boolean },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
): Promise<void> {
  if (flags.undo) {
    const { compactionSeq, seq } = await undoCompaction({ store, session: runId });
    io.stdout.write(`undid the compaction at seq ${compactionSeq} (record seq ${seq}): the next model call is sent the conversation it replaced\n`);
    return;
  }
  const recorded = (await store.summarize(runId)).meta?.config;
  const config = loadAgentConfig(sessionConfigPath(flags.config, recorded));
  // The session's own model, prompt and tools (not its MCP servers', which this does not start).
  const { provider, model, system, tools, budget } = await runOptionsFromConfig(config, io.env);
  await compactSession({
    store,
    session: runId,
    provider,
    model,
    system,
    tools,
    maxOutputTokens: budget?.maxOutputTokens,
    ...(config.compaction === undefined ? {} : { window: config.compaction.window, keepRecent: config.compaction.keepRecent }),
    events: {
      // Progress is for a person watching, as the run's narration is: on a terminal only.
      compactionStarted: ({ tokensBefore }) => {
        if ((io.stderr as { isTTY?: boolean }).isTTY === true)
          io.stderr.write(`fisk-ai: compacting session ${runId} (about ${tokensBefore} tokens): asking ${config.model} for a summary\n`);
      },
      compaction: ({ seq, compaction }) => io.stdout.write(`${compactionLine(seq, compaction)}\n`),
    },
  });
}
