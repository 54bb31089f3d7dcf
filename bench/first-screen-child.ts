// One side of the viewer's first-screen comparison, in a fresh process forked by
// show.bench.ts so that its peak RSS is its own. Usage: node first-screen-child.js viewer|fold <dir> <runId>.
//   viewer: what `session show --transcript` does on a terminal before its first screen:
//           the run's summary from the journal's tail, then the first records read and laid out in rows.
//   fold:   what a viewer that rendered the whole transcript would need first: load() folds every record.
import { performance } from "node:perf_hooks";
import { FileStore } from "../src/index.js";
import { TranscriptPager } from "../src/cli/viewer/transcript-pager.js";

export interface FirstScreenResult {
  ms: number;
  /** Rows laid out (viewer) or messages folded (fold), so the parent sees the work was done. */
  items: number;
  peakRssKb: number;
}

const [mode, dir, runId] = process.argv.slice(2);
if ((mode !== "viewer" && mode !== "fold") || dir === undefined || runId === undefined || process.send === undefined) {
  throw new Error("usage: first-screen-child.js viewer|fold <dir> <runId>, forked with an IPC channel");
}
const store = new FileStore({ dir });
const started = performance.now();
let items: number;
if (mode === "viewer") {
  const summary = await store.summarize(runId, { digest: false });
  const pager = new TranscriptPager(store, runId, summary.lastSeq, { width: 120, height: 40 });
  await pager.start();
  items = pager.rows().filter((row) => row.text !== "").length;
} else {
  items = (await store.load(runId)).history.length;
}
const result: FirstScreenResult = { ms: performance.now() - started, items, peakRssKb: process.resourceUsage().maxRSS };
process.send(result, () => process.disconnect());
