// The stream the runs live on: what it must be (write-once slots, nothing expiring,
// nothing overwritten), binding it, and making it for `fisk-ai session init-stream`.
import { DiscardPolicy, jetstreamManager, JetStreamApiError, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { RunStateError } from "../../runstate/errors.js";
import { connectTo, DEFAULT_TIMEOUT_MS, ioError, type JetStreamStoreConfig } from "./connection.js";
import { leaseBucket } from "./leases.js";

/** The prefix a new stream binds when none is configured. */
const DEFAULT_PREFIX = "fisk-ai.runs";
const STREAM_NOT_FOUND = 10059;

/** The `nats stream add` command that makes a stream this backend accepts. */
function streamAddCommand(stream: string, prefix: string): string {
  return `nats stream add ${stream} --subjects "${prefix}.>" --storage file --retention limits --max-msgs-per-subject=1 --discard new --discard-per-subject --max-age=0 --dupe-window=2m --defaults`;
}

/** What a stream for runs must be: write-once slots, nothing expiring, nothing overwritten. */
export function runStreamConfig(stream: string, prefix: string): Partial<StreamConfig> & { name: string } {
  return {
    name: stream,
    subjects: [`${prefix}.>`],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    max_age: 0,
  };
}

/**
 * What `fisk-ai session init-stream` does: creates the stream for runs, or checks the
 * one already there as binding would. Says whether it created it.
 */
export async function initRunStream(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<{ created: boolean; prefix: string }> {
  const nc = await connectTo(config, env);
  try {
    const jsm = await jetstreamManager(nc, { timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    const exists = await jsm.streams.info(config.stream).then(
      () => true,
      (error: unknown) => {
        if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return false;
        throw ioError(`reading the stream ${config.stream}`, error);
      },
    );
    if (!exists) {
      await jsm.streams.add(runStreamConfig(config.stream, config.prefix ?? DEFAULT_PREFIX)).catch((error: unknown) => {
        throw ioError(`creating the stream ${config.stream}`, error);
      });
    }
    const prefix = await checkStream(jsm, config.stream, config.prefix);
    await leaseBucket(nc, config);
    return { created: !exists, prefix };
  } finally {
    await nc.close();
  }
}

/** The store's URL as `--store` takes it, for a store of one server: what a missing stream's error names. */
export function storeUrlOf(config: JetStreamStoreConfig): string | undefined {
  const servers = typeof config.servers === "string" ? [config.servers] : config.servers;
  return servers.length === 1 ? `${(servers[0] as string).replace(/\/+$/, "")}/${config.stream}` : undefined;
}

/** Binds the stream, or refuses one that could lose or overwrite a record, naming the fix (`store`: its URL). Returns its prefix. */
export async function checkStream(jsm: JetStreamManager, stream: string, wanted: string | undefined, store?: string): Promise<string> {
  let config: StreamConfig;
  try {
    config = (await jsm.streams.info(stream)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) {
      const prefix = wanted ?? DEFAULT_PREFIX;
      const command = streamAddCommand(stream, prefix);
      throw new RunStateError("ERR_NO_STREAM", `no JetStream stream ${stream}: create it, for example with: ${command}`, {
        expected: command,
        stream,
        ...(store === undefined ? {} : { store }),
      });
    }
    throw ioError(`binding the stream ${stream}`, error);
  }
  const wildcards = config.subjects.filter((subject) => subject.split(".").some((token) => token === "*" || token === ">"));
  const only = wildcards.length === 1 ? (wildcards[0] as string) : undefined;
  const prefix =
    only?.endsWith(".>") &&
    !only
      .slice(0, -2)
      .split(".")
      .some((token) => token === "*" || token === ">" || token === "")
      ? only.slice(0, -2)
      : undefined;
  const command = streamAddCommand(stream, prefix ?? wanted ?? DEFAULT_PREFIX);
  const fix = (problem: string) =>
    new RunStateError("ERR_STORE_CONFIG", `stream ${stream} ${problem}, so a record could be lost or overwritten: recreate it with: ${command}`, {
      expected: command,
      stream,
    });
  if (prefix === undefined) throw fix(`must bind exactly one subject of the form <prefix>.> (it binds ${config.subjects.join(", ")})`);
  if (wanted !== undefined && wanted !== prefix) throw fix(`binds ${prefix}.>, not the configured prefix ${wanted}.>`);
  if (config.max_msgs_per_subject !== 1) throw fix(`keeps ${config.max_msgs_per_subject} messages per subject, not 1`);
  if (config.discard !== DiscardPolicy.New || config.discard_new_per_subject !== true) throw fix("does not discard new messages per subject");
  if (config.max_age !== 0) throw fix(`expires messages after ${config.max_age / 1e9} s`);
  return prefix;
}
