// What `queue ls` and `queue rm` are given: the worker pool's backend the store flags name,
// opened when the handler asks for it (after it checked its words) and closed when it ends.
import type { RunQueue } from "../../queue/run-queue.js";
import type { Store } from "../../runstate/store/store.js";
import type { Options } from "./options.js";
import type { SubcommandContext, SubcommandModule } from "./subcommands.js";
import { openSessionBackend, sessionStoreConfig, type StoreFlags } from "./stores.js";

export interface QueueContext<O extends Options = Options> extends SubcommandContext<O> {
  /** The store and the worker pool's queue (ERR_STORE_CONFIG for a backend without one). */
  poolBackend(): Promise<{ store: Store; queue: RunQueue }>;
}

export async function queueCommand(
  module: SubcommandModule<QueueContext>,
  positionals: string[],
  values: StoreFlags,
  io: SubcommandContext["io"],
): Promise<number> {
  let opened: { store: Store; queue: RunQueue } | undefined;
  const poolBackend = async () => {
    const pool = await import("../../backends/pool-queue.js");
    opened = await pool.poolBackend(openSessionBackend(await sessionStoreConfig(values), io.stderr));
    return opened;
  };
  try {
    return await module.run({ positionals, values, io, poolBackend });
  } finally {
    await opened?.queue.close();
    await opened?.store.close();
  }
}
