// covers: src/runstate/errors.ts, src/runstate/records/journal-codec.ts, src/runstate/views/fold.ts
// covers: src/runstate/views/journal-verify.ts, src/runstate/views/run-tally.ts
// process: shared
// Every reader of a whole session refuses a journal that breaks a rule of the fold, as
// `session verify` does: exit 8 and one line naming the line the rule breaks on. The real
// CLI, its first call spawned and the rest in this process, over the malformed journals of
// the fold and verify tests.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isRunStateError } from "../src/index.js";
import { fold } from "../src/runstate/views/fold.js";
import { decodeJournal } from "../src/runstate/records/journal-codec.js";
import { verifyJournal } from "../src/runstate/views/journal-verify.js";
import { tallyRecords } from "../src/runstate/views/run-tally.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { malformedJournals } from "./helpers/malformed-journals.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);
const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-every-reader-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const STORE = join(ROOT, "state");
mkdirSync(STORE, { mode: 0o700 });
writeFileSync(join(ROOT, "script.yaml"), "turns:\n  - text: done\n");
writeFileSync(join(ROOT, "agent.yaml"), `provider: script\nmodel: script-test\nscript: ./script.yaml\nsession: { state_dir: ./state }\n`);
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };

const JOURNALS = malformedJournals();
for (const journal of JOURNALS) writeFileSync(join(STORE, `${journal.name}.json`), journal.text, { mode: 0o600 });

/** Each reader's command line for a session; `verify` says its problems on stdout, the rest on stderr. */
const READERS: Record<string, (runId: string) => string[]> = {
  verify: (runId) => ["session", "verify", runId],
  show: (runId) => ["session", "show", runId],
  "show --json": (runId) => ["session", "show", runId, "--json"],
  "show --transcript": (runId) => ["session", "show", runId, "--transcript"],
  export: (runId) => ["session", "export", runId],
  "export --format html": (runId) => ["session", "export", runId, "--format", "html"],
  "run --resume": (runId) => ["run", "--resume", runId],
};

describe("every reader of a whole session checks the fold's rules", () => {
  it("the library: verify, load's fold and the streaming tally refuse each journal at its line", async () => {
    for (const { name, text, line } of JOURNALS) {
      const problems = verifyJournal(Buffer.from(text), name).problems;
      assert.equal(problems[0]?.line, line, `${name}: verify names line ${line}: ${JSON.stringify(problems)}`);
      assert.equal(problems[0]?.repairable, false, name);
      const { records } = decodeJournalOrNone(text);
      if (records === undefined) continue;
      // A repeated seq is named by the seq it repeats, on the line it is repeated on.
      assert.throws(
        () => fold(records),
        (error: unknown) => isRunStateError(error),
        `${name}: fold`,
      );
      // readRecords refuses a line whose seq is not its number before the tally sees it: only then is a seq its line.
      const numbered = records.every((record, index) => record.seq === index + 1);
      await assert.rejects(
        tallyRecords(name, toAsync(records)),
        (error: unknown) => isRunStateError(error) && (!numbered || error.line === line),
        `${name}: tally`,
      );
    }
  });

  it(`session ls --json: each of ${JOURNALS.length} malformed journals is corrupt, its problem naming the line, listed twice (the cache keeps no corrupt one)`, async () => {
    for (const pass of ["first listing", "second listing"]) {
      const result = await cli(["session", "ls", "--json"], { cwd: ROOT, env: ENV });
      assert.equal(result.code, 0, result.stderr);
      const rows = new Map((JSON.parse(result.stdout) as { id: string; status: string; problem: string | null }[]).map((row) => [row.id, row]));
      for (const { name, line } of JOURNALS) {
        const row = rows.get(name);
        assert.equal(row?.status, "corrupt", `${pass}: ${name}: ${JSON.stringify(row)}`);
        assert.match(row?.problem ?? "", new RegExp(`^session ${name}: line ${line}\\b`), `${pass}: ${name}`);
      }
    }
  });

  it("session search: a journal that holds the text and does not fold is refused, exit 8 naming its line, for each malformed journal with a prompt", async () => {
    // Each journal alone in a store, so the one refused is the one searched; the text is in the meta's prompt.
    const searched = JOURNALS.filter(({ text }) => text.includes("notes file"));
    assert.ok(searched.length >= JOURNALS.length - 2, `${searched.length} of ${JOURNALS.length} hold the prompt`);
    const results = await Promise.all(
      searched.map(async (journal) => {
        const root = join(ROOT, `search-${journal.name}`);
        mkdirSync(join(root, "state"), { recursive: true, mode: 0o700 });
        writeFileSync(join(root, "state", `${journal.name}.json`), journal.text, { mode: 0o600 });
        return { journal, result: await cli(["session", "search", "notes file", "--state-dir", join(root, "state")], { cwd: ROOT, env: ENV }) };
      }),
    );
    for (const { journal, result } of results) {
      assert.equal(result.code, 8, `search ${journal.name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, `search ${journal.name}: one line: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`session ${journal.name}: line ${journal.line}\\b`), `search ${journal.name}: ${result.stderr}`);
    }
  });

  for (const [reader, argv] of Object.entries(READERS)) {
    it(`${reader}: exit 8, one line naming the line, for each of ${JOURNALS.length} malformed journals`, async () => {
      const results = await Promise.all(
        JOURNALS.map(async (journal) => ({
          journal,
          result: await cli(argv(journal.name), { cwd: ROOT, env: ENV }),
        })),
      );
      for (const { journal, result } of results) {
        const said = reader === "verify" ? result.stdout : result.stderr;
        assert.equal(result.code, 8, `${reader} ${journal.name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
        assert.doesNotMatch(result.stderr, /^\s+at /m, `${reader} ${journal.name}: no stack`);
        if (reader !== "verify") assert.equal(result.stderr.trimEnd().split("\n").length, 1, `${reader} ${journal.name}: one line: ${result.stderr}`);
        // Line and seq are one number on a journal whose seqs are in order: the meta's absence is named by either.
        assert.match(said, new RegExp(`(line|seq) ${journal.line}\\b`), `${reader} ${journal.name} names line ${journal.line}: ${said}`);
      }
    });
  }
});

/** The records of a journal whose every line decodes, or undefined for one with a bad line (fold never sees it). */
function decodeJournalOrNone(text: string): { records: ReturnType<typeof decodeJournal>["records"] | undefined } {
  try {
    return { records: decodeJournal(Buffer.from(text)).records };
  } catch {
    return { records: undefined };
  }
}

async function* toAsync<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}
