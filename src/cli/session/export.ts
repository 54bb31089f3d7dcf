// `fisk-ai session export`: the journal as it is, or as a page.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  output: { flag: "-o, --output <FILE>", help: "write it to FILE (default: stdout)" },
  format: {
    flag: "--format <FORMAT>",
    help: "jsonl: the journal; html: a page with the conversation, its folds, a search and the tokens per call",
    choices: ["jsonl", "html"],
    default: "jsonl",
  },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "export", { atMostOne: true }) as [string];
  assertRunId(runId);
  if (values.format === "html") {
    const [{ exportHtml }, { sessionPrices }] = await Promise.all([import("../text/session-html.js"), import("../text/session-ledger.js")]);
    const store = await sessionStore(values);
    await exportHtml(
      store,
      runId,
      values.output,
      io.stdout,
      await sessionPrices(values.config, (await store.summarize(runId, { digest: false })).meta?.config),
    );
    return EXIT.completed;
  }
  const [{ exportJournal }, { writeOutput }] = await Promise.all([import("../../session/transfer.js"), import("../text/write-output.js")]);
  const { pieces, tornTail } = await exportJournal(await sessionStore(values), runId);
  if (tornTail) io.stderr.write(`fisk-ai: left out the torn final line of session ${runId}\n`);
  await writeOutput(values.output, io.stdout, async (out) => {
    for await (const piece of pieces()) await out.writeBytes(piece);
  });
  return EXIT.completed;
}
