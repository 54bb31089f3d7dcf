// How `fisk-ai replay` prints its reports: a table of every session with the replay's
// tokens, cost and latency beside the recording's, then each departure with both sides and
// each refusal; and the same reports as JUnit XML, one test case a session.
import type { ReplayReport, ReplayUsage, TurnSide } from "../../replay/replay-report.js";
import { counted } from "../../transcript/counted.js";
import { durationText } from "../../transcript/duration.js";
import { cut, dollarsText, table } from "../text/ledger.js";
import { oneLine } from "../../transcript/session-name.js";

/** The command that resumes a fork, by its id. */
export type ResumeLine = (forkId: string) => string;

/** The text report: the table, then the details of what departs. */
export function replayText(reports: readonly ReplayReport[], resume: ResumeLine): string {
  const rows = [
    ["SESSION", "RESULT", "TURNS", "TOKENS", "COST", "LATENCY"],
    ...reports.map((report) => [
      report.runId,
      resultText(report),
      `${report.turns.replayed}/${report.turns.recorded}`,
      beside(report, (usage) => String(tokensOf(usage))),
      beside(report, (usage) => (usage.cost === undefined ? "-" : dollarsText(usage.cost))),
      beside(report, (usage) => durationText(usage.latencyMs)),
    ]),
  ];
  const details = reports.flatMap((report) => detailLines(report, resume));
  const departing = reports.filter((report) => report.result === "departs").length;
  const refused = reports.filter((report) => report.result === "refused").length;
  const totals = `${counted(reports.length, "session")} replayed: ${reports.length - departing - refused} same, ${departing} depart, ${refused} refused\n`;
  return `${table(rows)}${details.length === 0 ? "" : `\n${details.join("\n")}\n`}\n${totals}`;
}

function resultText(report: ReplayReport): string {
  if (report.result === "departs") return `departs at turn ${report.turn}`;
  return report.result;
}

/** The recording's figure, then the replay's: `1200 → 1180`. */
function beside(report: ReplayReport, figure: (usage: ReplayUsage) => string): string {
  return report.result === "refused" ? "-" : `${figure(report.recorded)} → ${figure(report.replayed)}`;
}

function tokensOf(usage: ReplayUsage): number {
  return usage.inTokens + usage.outTokens + usage.cacheReadTokens + usage.cacheCreateTokens;
}

function detailLines(report: ReplayReport, resume: ResumeLine): string[] {
  if (report.result === "refused") return [`${report.runId}: refused: ${report.refusal ?? ""}`];
  const lines: string[] = [];
  // The departures of one turn share its two sides: they are printed once, after them.
  report.departures.forEach((departure, index) => {
    lines.push(`${report.runId}: departs at turn ${departure.turn} (${departure.kind}): ${departure.detail}`);
    if (report.departures[index + 1]?.turn === departure.turn) return;
    lines.push(`  recorded: ${sideText(departure.recorded)}`);
    lines.push(`  replayed: ${sideText(departure.replayed)}`);
  });
  const { fork, judge } = report;
  if (fork?.runId !== undefined) lines.push(`${report.runId}: forked as ${fork.runId}; resume with: ${resume(fork.runId)}`);
  if (fork?.refusal !== undefined) lines.push(`${report.runId}: not forked: ${fork.refusal}`);
  if (judge !== undefined) {
    const cost = judge.usage.cost === undefined ? "" : `, ${dollarsText(judge.usage.cost)}`;
    lines.push(`${report.runId}: judge (${judge.usage.model}${cost}): ${judge.verdict}: ${judge.reason}`);
  }
  const text = report.textDiffers;
  if (text !== undefined) {
    lines.push(`${report.runId}: text first differs at turn ${text.turn} (reported, not judged)`);
    lines.push(`  recorded: ${quoted(text.recorded)}`);
    lines.push(`  replayed: ${quoted(text.replayed)}`);
  }
  return lines;
}

function sideText(side: TurnSide): string {
  const calls = side.calls.length === 0 ? "no calls" : side.calls.map((call) => `${call.name} ${JSON.stringify(call.input)}`).join("; ");
  return side.text === "" ? calls : `${calls}; text ${quoted(side.text)}`;
}

function quoted(text: string): string {
  return JSON.stringify(cut(oneLine(text), 200));
}

/** JUnit XML: a test suite of one test case a session; a departure is a failure, a refusal an error. */
export function replayJunit(reports: readonly ReplayReport[], resume: ResumeLine): string {
  const failures = reports.filter((report) => report.result === "departs").length;
  const errors = reports.filter((report) => report.result === "refused").length;
  const cases = reports.map((report) => {
    const time = (report.replayed.latencyMs / 1000).toFixed(3);
    const open = `  <testcase classname="fisk-ai.replay" name="${xml(report.runId)}" time="${time}"`;
    if (report.result === "same") return `${open}/>`;
    const body = detailLines(report, resume).join("\n");
    const element =
      report.result === "departs"
        ? `<failure message="${xml(`departs at turn ${report.turn}`)}" type="${xml(report.departures[0]?.kind ?? "departs")}">${xml(body)}</failure>`
        : `<error message="${xml(report.refusal ?? "refused")}" type="refused">${xml(body)}</error>`;
    return `${open}>\n    ${element}\n  </testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="fisk-ai replay" tests="${reports.length}" failures="${failures}" errors="${errors}">\n${cases.join("\n")}\n</testsuite>\n`;
}

function xml(text: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; the rest escaped.
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
