// Signed decisions benchmark (issue 54): from a decision to the approved tool starting on
// resume (approve() then runAgent's resume until the tool's handler runs), with signing (this build:
// the approval signed, verified at each step that reads it, the meta signed and checked)
// beside the same path without it (the build before signing, compiled from its commit into
// SIGNING_BEFORE). File store, one process, rounds alternating their order.
//   npm run bench:signing    SIGNING_ROUNDS=<n> (default 30); SIGNING_BEFORE=<dist of the build before>
// The build before: git archive 367bf9a src tsconfig.json | tar -x -C .test-build/before, then
// tsc -p .test-build/before/tsconfig.json (367bf9a is main just before trust-signing merged).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createKeyring } from "../src/trust/keyring.js";
import { approvedSide, buildAt, THIS_BUILD, writeActScript, type AgentBuild } from "./approval-path.js";
import { formatMs, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const COMMAND = "npm run bench:signing";
const ROUNDS = Number(process.env.SIGNING_ROUNDS ?? 30);
const GOAL = 1.05;
const BEFORE = resolve(process.env.SIGNING_BEFORE ?? ".test-build/before/dist");

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-bench-signing-"));
  // The keyring this build signs with, in the scratch directory: never the user's.
  process.env.FISK_AI_SIGNING_KEYS = join(scratch, "signing-keys.json");
  createKeyring(process.env.FISK_AI_SIGNING_KEYS);
  const script = writeActScript(scratch);
  const sides: Record<"signed" | "unsigned", { build: AgentBuild; store: Awaited<ReturnType<AgentBuild["createStore"]>> }> = {
    signed: { build: THIS_BUILD, store: await THIS_BUILD.createStore({ backend: "file", dir: join(scratch, "signed") }) },
    unsigned: await (async () => {
      const build = await buildAt(BEFORE);
      return { build, store: await build.createStore({ backend: "file", dir: join(scratch, "unsigned") }) };
    })(),
  };
  try {
    console.log(`${COMMAND}: ${machineLine(scratch)}; without signing: ${BEFORE}`);
    let session = 0;
    const side = (name: "signed" | "unsigned") => () => approvedSide(sides[name].build, sides[name].store, script, `${name}-${session++}`);
    const timed = await interleave({ signed: side("signed"), unsigned: side("unsigned") }, ROUNDS, 2);
    const medians = (name: "signed" | "unsigned") => {
      const spans = timed[name];
      return {
        decide: median(spans.map((span) => span.decide)),
        resume: median(spans.map((span) => span.resume)),
        both: median(spans.map((span) => span.decide + span.resume)),
        cpu: median(spans.map((span) => span.cpu)),
      };
    };
    const [signed, unsigned] = [medians("signed"), medians("unsigned")];
    const ratio = (a: number, b: number) => goalRatio(a / b, a / b <= GOAL);
    printTable(
      `From the decision to the approved tool starting, with signing beside without; median of ${ROUNDS} rounds (goal: within ${GOAL}x)`,
      ["span", "with signing ms", "without ms", "ratio"],
      [
        ["approve() + resume", formatMs(signed.both), formatMs(unsigned.both), ratio(signed.both, unsigned.both)],
        ["approve()", formatMs(signed.decide), formatMs(unsigned.decide), ratio(signed.decide, unsigned.decide)],
        ["resume to the tool", formatMs(signed.resume), formatMs(unsigned.resume), ratio(signed.resume, unsigned.resume)],
        ["CPU of approve() + resume", formatMs(signed.cpu), formatMs(unsigned.cpu), ratio(signed.cpu, unsigned.cpu)],
      ],
      [
        "approve(): open the parked session, fold, sign and journal the decision and the terminal record, close",
        "resume to the tool: runAgent's resume until the approved tool's handler starts (the decision verified, the meta checked)",
        "CPU: this process's user and system time over the same span, which other processes' load and the disk's waits leave out",
        "file store; the goal is for the first row (and, on a loaded machine, the CPU row)",
      ],
    );
  } finally {
    for (const { store } of Object.values(sides)) await store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
