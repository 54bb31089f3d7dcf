// `fisk-ai replay`: parses its flags, picks the sessions, calls the library's replaySessions
// and prints the reports (replay-text.ts). The replaying is the library's (src/replay/).
import { writeFileSync } from "node:fs";
import { ageMs, AGE_FORM } from "../../config/age.js";
import { loadAgent, type LoadedAgent } from "../../config/load-agent.js";
import type { RelaxedArguments } from "../../replay/call-matching.js";
import type { ReplayReport } from "../../replay/replay-report.js";
import { replaySessions } from "../../replay/replay-sessions.js";
import { selectSessions, type SessionFilters } from "../../replay/select-sessions.js";
import { PRUNABLE_STATUSES, type RunStatus } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import { replayJunit, replayText } from "./replay-text.js";
import type { CommandIO } from "../context/command-io.js";
import { pricesFrom } from "../text/session-ledger.js";
import { openStore, sessionStoreConfig, storeFlagsOf, storeFromFlags } from "../context/stores.js";
import { recordedSessionWhere, storeWhere } from "../context/session-context.js";
import { resumeCommand } from "../context/resume-hint.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import type { StoreConfig } from "../../backends/store-config.js";

/** replay's flags as commander gives them. */
export interface ReplayFlags {
  config?: string;
  all?: boolean;
  since?: string;
  status?: string;
  relax?: string[];
  keepGoing?: boolean;
  judge?: string;
  concurrency?: string;
  json?: boolean;
  junit?: string;
  fork?: boolean;
  forkName?: string;
  forkTo?: string;
  stateDir?: string;
  store?: string;
}

export async function replayCommand(sessions: string[], flags: ReplayFlags, io: CommandIO): Promise<number> {
  if (flags.config === undefined) throw new UsageError("replay needs the agent to replay against: give --config NEW.yaml");
  const filters = filtersOf(flags, Date.now());
  const selecting = flags.all === true || flags.since !== undefined || flags.status !== undefined;
  if (sessions.length > 0 && selecting) throw new UsageError("replay takes session ids or --all (with --since, --status), not both");
  if (sessions.length === 0 && !selecting) throw new UsageError("replay needs sessions: give their ids, or --all (with --since D or --status S to narrow it)");
  const concurrency = concurrencyOf(flags.concurrency);
  const relax = relaxOf(flags.relax ?? []);
  checkForkFlags(flags, sessions);
  const store = await openStore(await sessionStoreConfig(flags), io.stderr);
  const forkTo = flags.forkTo === undefined ? undefined : await openStore(storeFromFlags(storeFlagsOf(flags.forkTo)) as StoreConfig, io.stderr);
  try {
    const runIds = sessions.length > 0 ? sessions : selectSessions(await store.list(), filters);
    if (runIds.length === 0) {
      io.stderr.write("fisk-ai: no session matches: nothing was replayed\n");
      return EXIT.completed;
    }
    const fork =
      flags.fork === true ? { store: forkTo ?? store, keys: { env: io.env }, ...(flags.forkName === undefined ? {} : { name: flags.forkName }) } : undefined;
    const prices = { ...(flags.judge === undefined ? {} : await pricesFrom(flags.judge)), ...(await pricesFrom(flags.config)) };
    const agent = await loadAgent(flags.config, { env: io.env });
    let reports: ReplayReport[];
    let judge: LoadedAgent | undefined;
    try {
      judge = flags.judge === undefined ? undefined : await loadAgent(flags.judge, { env: io.env });
      const options = { concurrency, relax, keepGoing: flags.keepGoing === true, prices, judge: judge?.spec, fork };
      reports = await replaySessions(store, runIds, agent.spec, options);
    } finally {
      await judge?.close();
      await agent.close();
    }
    const resume = await resumeOf(flags, io.env);
    io.stdout.write(
      flags.json === true
        ? `${JSON.stringify(
            reports.map((report) => withResume(report, resume)),
            null,
            2,
          )}\n`
        : replayText(reports, resume),
    );
    if (flags.junit !== undefined) writeFileSync(flags.junit, replayJunit(reports, resume));
    return exitOf(reports);
  } finally {
    await forkTo?.close();
    await store.close();
  }
}

function checkForkFlags(flags: ReplayFlags, sessions: readonly string[]): void {
  const without = flags.forkName === undefined ? (flags.forkTo === undefined ? undefined : "--fork-to") : "--fork-name";
  if (without !== undefined && flags.fork !== true) throw new UsageError(`${without} says where a departing replay is forked: give --fork with it`);
  if (flags.forkName !== undefined && sessions.length !== 1)
    throw new UsageError("--fork-name names one fork: replay one session with it, or leave it out for new ids");
  if (flags.forkName !== undefined) assertRunId(flags.forkName);
}

/** The command that resumes a fork, as it can be pasted: it finds the store the fork is in, and the fork's meta names NEW.yaml. */
async function resumeOf(flags: ReplayFlags, env: NodeJS.ProcessEnv): Promise<(forkId: string) => string> {
  const where = flags.forkTo === undefined ? await recordedSessionWhere(flags, flags.config) : storeWhere(storeFlagsOf(flags.forkTo));
  return (forkId) => resumeCommand(forkId, where, env);
}

/** The report as --json prints it: a fork with the command that resumes it. */
function withResume(report: ReplayReport, resume: (forkId: string) => string): ReplayReport | (ReplayReport & { fork: { resume: string } }) {
  const forkId = report.fork?.runId;
  return forkId === undefined ? report : { ...report, fork: { ...report.fork, resume: resume(forkId) } };
}

/** 1 when a fork asked for was not written; else 17 when any session departs; else 1 when any was refused; else 0. */
export function exitOf(reports: readonly ReplayReport[]): number {
  if (reports.some((report) => report.fork?.refusal !== undefined)) return EXIT.error;
  if (reports.some((report) => report.result === "departs")) return EXIT.departs;
  return reports.some((report) => report.result === "refused") ? EXIT.error : EXIT.completed;
}

function filtersOf(flags: ReplayFlags, now: number): SessionFilters {
  const filters: { since?: number; statuses?: RunStatus[] } = {};
  if (flags.since !== undefined) {
    const age = ageMs(flags.since);
    const date = Date.parse(flags.since);
    if (age === undefined && Number.isNaN(date))
      throw new UsageError(`--since ${JSON.stringify(flags.since)}: expected an age (${AGE_FORM}) or a date (2026-12-01)`);
    filters.since = age === undefined ? date : now - age;
  }
  if (flags.status !== undefined) {
    const statuses = flags.status.split(",").map((status) => status.trim());
    const unknown = statuses.find((status) => !(PRUNABLE_STATUSES as readonly string[]).includes(status));
    if (unknown !== undefined) throw new UsageError(`--status: '${unknown}' is not a status; give a comma-separated list of ${PRUNABLE_STATUSES.join(", ")}`);
    filters.statuses = statuses as RunStatus[];
  }
  return filters;
}

function concurrencyOf(text: string | undefined): number {
  if (text === undefined) return 1;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--concurrency takes a number of sessions replayed at once, 1 or more, not '${text}'`);
  return value;
}

/** `--relax TOOL:PATH` flags as the library takes them. */
function relaxOf(given: readonly string[]): RelaxedArguments {
  const relax: Record<string, string[]> = {};
  for (const flag of given) {
    const colon = flag.indexOf(":");
    const tool = flag.slice(0, colon);
    const path = flag.slice(colon + 1);
    if (colon < 1 || path === "" || path.split(".").includes("")) {
      throw new UsageError(
        `--relax ${JSON.stringify(flag)}: expected TOOL:PATH, a tool's name and an argument's dotted path, such as lookup:at or fetch:options.since`,
      );
    }
    (relax[tool] ??= []).push(path);
  }
  return relax;
}
