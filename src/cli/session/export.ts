// `fisk-ai session export`: the journal as it is, or as a page.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
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
    await exportHtml(store, runId, values.output, io.stdout, await sessionPrices(values.config, (await store.summarize(runId)).meta?.config));
    return EXIT.completed;
  }
  const [{ exportJournal }, { writeFileSync, renameSync, rmSync }, { fileErrorText }] = await Promise.all([
    import("../../session/transfer.js"),
    import("node:fs"),
    import("../text/file-error.js"),
  ]);
  const { journal, tornTail } = await exportJournal(await sessionStore(values), runId);
  if (tornTail) io.stderr.write(`fisk-ai: left out the torn final line of session ${runId}\n`);
  if (values.output === undefined) {
    io.stdout.write(journal);
    return EXIT.completed;
  }
  // Written aside and renamed, so FILE is never half an export; 0600, as it holds the prompts.
  const temporary = `${values.output}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, journal, { mode: 0o600, flag: "wx" });
    renameSync(temporary, values.output);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new UsageError(`cannot write ${values.output}: ${fileErrorText(error)}`);
  }
  return EXIT.completed;
}
