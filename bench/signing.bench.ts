// Signed decisions benchmark (issue 54): from a decision to the approved tool starting on
// resume (approve() then runAgent's resume until the tool's handler runs), with signing (this build:
// the approval signed, verified at each step that reads it, the meta signed and checked)
// beside the same path without it (the build before signing, compiled from its commit into
// SIGNING_BEFORE). File store, one process, rounds alternating their order. Then the signing
// work of one decision path alone, timed in a loop: what a loaded machine's noise cannot hide.
//   npm run bench:signing    SIGNING_ROUNDS=<n> (default 30); SIGNING_BEFORE=<dist of the build without>
// Without signing, two ways: `node scripts/build-signing-off.mjs` builds this tree with signing
// off into .test-build/signing-off/dist (signing's cost alone); or the build before signing,
// git archive 367bf9a src tsconfig.json | tar -x -C .test-build/before, then tsc -p
// .test-build/before/tsconfig.json (367bf9a is main just before trust-signing merged; it also
// lacks everything merged since).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createKeyring } from "../src/trust/keyring.js";
import { installationKeys } from "../src/trust/installation-keys.js";
import { decisionSignatureProblem, metaSignatureProblem, signDecision, signMeta } from "../src/trust/signatures.js";
import type { Store } from "../src/runstate/store/store.js";
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
    const work = signingWork(sides.signed.store, `signed-${session - 1}`);
    console.log(
      `\nSigning's work on one decision path alone (keys read twice, the decision signed and verified twice, the meta verified), ` +
        `CPU time, mean of ${WORK_LOOPS}: ${(work * 1000).toFixed(0)} µs, ${((work / unsigned.cpu) * 100).toFixed(1)}% of the path's median CPU without signing`,
    );
  } finally {
    for (const { store } of Object.values(sides)) await store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const WORK_LOOPS = 2000;

/** Mean CPU ms (user and system) of the trust calls one approve() and its resume make, on a session of `store` the timed rounds made. */
function signingWork(store: Store, runId: string): number {
  const meta = signMeta(installationKeys(store).signing(), {
    version: 5,
    run_id: runId,
    created: new Date().toISOString(),
    fingerprint: {
      provider: "script",
      model: "script-demo",
      system_hash: "a".repeat(64),
      tools_hash: "b".repeat(64),
      thinking_mode: "off",
      max_tokens: 1_000_000,
      max_iterations: 10,
    },
    prompt: "act",
    cwd: process.cwd(),
  } as Parameters<typeof signMeta>[1]);
  const call = { runId, name: "act", input: { n: 1 } };
  const started = process.cpuUsage();
  for (let loop = 0; loop < WORK_LOOPS; loop++) {
    const signing = installationKeys(store).signing();
    const fields = { tool_use_id: "toolu_1", decision: "approve" as const, decided_by: "bench", decided_at: new Date().toISOString() };
    const decision = { ...fields, signature: signDecision(signing, call, fields) };
    const trusted = installationKeys(store).trusted;
    if (metaSignatureProblem(trusted, meta) !== undefined) throw new Error("the meta does not verify");
    for (let check = 0; check < 2; check++)
      if (decisionSignatureProblem(trusted, call, decision) !== undefined) throw new Error("the decision does not verify");
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000 / WORK_LOOPS;
}

await main();
