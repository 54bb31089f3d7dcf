// `fisk-ai session compact`: summarize all but the latest messages of a session, or undo that.
// The session is taken as a resume takes it (its lock), with the configuration a resume would
// use: --config, else the one the session recorded.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  undo: { flag: "--undo", help: "journal the undo of the latest compaction: the next model call is sent the whole conversation again" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "compact", { atMostOne: true }) as [string];
  const [{ compactSession, undoCompaction }, { compactionLine }] = await Promise.all([
    import("../../session/compact-session.js"),
    import("../text/compaction.js"),
  ]);
  assertRunId(runId);
  const store = await sessionStore(values);
  if (values.undo === true) {
    const { compactionSeq, seq } = await undoCompaction({ store, session: runId });
    io.stdout.write(`undid the compaction at seq ${compactionSeq} (record seq ${seq}): the next model call is sent the conversation it replaced\n`);
    return EXIT.completed;
  }
  const [{ loadAgentConfig }, { agentSpecFromConfig }, { sessionAgentPath }, { configPathFrom }] = await Promise.all([
    import("../../config/agent-config.js"),
    import("../../config/run-options.js"),
    import("../../session/session-agent-path.js"),
    import("../context/stores.js"),
  ]);
  const path = sessionAgentPath((await store.summarize(runId)).meta, { given: values.config, fallback: configPathFrom(undefined) });
  const config = loadAgentConfig(path);
  // The session's own model, prompt and tools (not its MCP servers', which this does not start).
  const { provider, model, system, tools, budget } = await agentSpecFromConfig(config, io.env, path);
  await compactSession({
    store,
    session: runId,
    provider,
    model,
    system,
    tools,
    maxOutputTokens: budget.maxOutputTokens,
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
  return EXIT.completed;
}
