// A run's summary as the tables keep it (schema.ts, version 3): its meta in `metas`, written
// once; in its row of `runs` the bytes, the time and the last seq, which every append changes,
// and last the digest without its bytes, which changes only with its counts (after a model
// call, a title). An append's new row version differs from the last only in a few bytes,
// which are all the WAL carries of it.
import type { MetaPayload } from "../../runstate/records/records.js";
import { corruptSummary, summaryAt } from "../../runstate/store/store-contract.js";
import type { RunSummary } from "../../runstate/store/store.js";
import type { RunDigest } from "../../runstate/views/run-digest.js";

/** The query of every run's summary row in schema `s` (quoted), to which a WHERE may be added. */
export function summaryRows(s: string): string {
  return `SELECT r.run_id, m.meta, r.bytes, r.updated, r.last_seq, r.digest FROM ${s}.runs r LEFT JOIN ${s}.metas m USING (run_id)`;
}

/** A summary row as read: meta and digest are null for a run written by hand, whose summary is read from its records. */
export interface SummaryRow {
  run_id: string;
  meta: string | null;
  digest: string | null;
  /** A bigint, which pg gives as text. */
  bytes: string | null;
  last_seq: number;
  updated: Date;
}

/** The digest column: the digest without its bytes, which a column of their own holds, so that it changes only when the digest's counts do. */
export function digestColumn(digest: RunDigest): string {
  const { bytes, ...counts } = digest;
  return JSON.stringify(counts);
}

/** The meta column. */
export function metaColumn(meta: MetaPayload): string {
  return JSON.stringify(meta);
}

/** The summary the row keeps; undefined when it keeps none; a corrupt summary when its columns are not JSON. */
export function summaryOfRow(row: SummaryRow): RunSummary | undefined {
  if (row.meta === null || row.digest === null) return undefined;
  try {
    const meta = JSON.parse(row.meta) as MetaPayload;
    const digest = { ...(JSON.parse(row.digest) as RunDigest), bytes: Number(row.bytes) };
    return summaryAt(row.run_id, meta, { seq: row.last_seq }, row.updated, digest);
  } catch (error) {
    return corruptSummary(row.run_id, row.updated, `the summary row of session ${row.run_id} is not JSON: ${(error as Error).message}`);
  }
}
