// `session mv ID --to STORE`: the session moved to the store STORE names, through the
// library's moveSession; and, for a resume, whether the store a session moved to holds it.
import { resolve } from "node:path";
import { maskUrlCredentials, urlHoldsSecret } from "../../../errors/masked-url.js";
import { holdsSession, moveSession, type MoveOutcome, type MoveStep } from "../../../session/move-session.js";
import type { StoreConfig } from "../../../backends/store-config.js";
import { defaultStateDir } from "../../../runstate/state-dir.js";
import type { Store } from "../../../runstate/store/store.js";
import { storeFlag, UsageError } from "../../cli-errors.js";
import type { ResumeWhere } from "../../context/resume-hint.js";
import { openStore, storeFromFlags, type StoreFlags } from "../../context/stores.js";

/** The store flags `--to STORE` stands for: a URL is read by the store parser (its scheme's backend), anything else is a directory. */
function flagsOf(to: string): StoreFlags {
  return storeFlag(to) === "--store" ? { store: to } : { stateDir: to };
}

/** Moves the session; the outcome, and where a resume finds it now. */
export async function moveStoredSession(
  from: { store: Store; config: StoreConfig },
  openTo: (flags: StoreFlags) => Promise<Store>,
  runId: string,
  to: string,
  step: ((step: MoveStep) => void) | undefined,
): Promise<{ outcome: MoveOutcome; where: ResumeWhere }> {
  const flags = flagsOf(to);
  const toConfig = storeFromFlags(flags) as StoreConfig;
  // The moved record names where the session went, and a record never holds a secret.
  if (urlHoldsSecret(to))
    throw new UsageError(
      `--to ${JSON.stringify(maskUrlCredentials(to))}: a store URL with a password would be journaled in the moved record: give the backend its credentials another way (its environment)`,
    );
  if (sameStore(from.config, toConfig)) throw new UsageError(`session ${runId} is in ${to} already: --to names the store it goes to`);
  // Recorded so that it reaches the same store from any directory.
  const where: ResumeWhere = flags.store !== undefined ? { store: flags.store } : { stateDir: resolve(to) };
  const target = await openTo(flags);
  const outcome = await moveSession(from.store, target, runId, where.store ?? (where.stateDir as string), step);
  return { outcome, where };
}

/** Whether the store `to` (as a moved record names it) holds the session: then the move counts. */
export async function storeHolds(to: string, runId: string, stderr: NodeJS.WritableStream): Promise<boolean> {
  const config = storeFromFlags(flagsOf(to));
  const store = await openStore(config as NonNullable<typeof config>, stderr);
  try {
    return await holdsSession(store, runId);
  } finally {
    await store.close();
  }
}

function sameStore(a: StoreConfig, b: StoreConfig): boolean {
  if (a.backend === "file" && b.backend === "file") return resolve(a.dir ?? defaultStateDir()) === resolve(b.dir ?? defaultStateDir());
  if (a.backend === "jetstream" && b.backend === "jetstream") return a.servers === b.servers && a.stream === b.stream;
  if (a.backend === undefined && b.backend === undefined) return a.url === b.url;
  return false;
}
