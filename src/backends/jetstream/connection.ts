// Reaching the NATS server: the backend's configuration, credentials from the
// environment, the connection, and how the server's failures are told apart.
import { readFileSync } from "node:fs";
import { JetStreamApiError } from "@nats-io/jetstream";
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import { RunStateError } from "../../runstate/errors.js";
import { maskUrlCredentials } from "../../errors/masked-url.js";

/** Runs on a NATS JetStream stream that an operator made (`initRunStream` makes one); credentials come from the environment only. */
export interface JetStreamStoreConfig {
  /** Selects this backend in createStore. */
  backend: "jetstream";
  /** One or more `nats://host:port` URLs. */
  servers: string | string[];
  /** The operator-created stream the runs live on. */
  stream: string;
  /** The subject prefix; default the one the stream's single wildcard subject names. */
  prefix?: string | undefined;
  /** How long one call to the server may take before it fails; default 5 s. */
  timeoutMs?: number | undefined;
  /** How long a writer's lease outlives its last heartbeat; default 5 s. Set when the lease bucket is made. */
  leaseTtlMs?: number | undefined;
  /** Where reconnects and lease trouble are reported, one line each; the library never prints. */
  report?: ((line: string) => void) | undefined;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const MAX_RECONNECTS = 10;
const RECONNECT_WAIT_MS = 1000;
/** JetStream's "wrong last sequence" and "maximum messages per subject exceeded": a slot taken. */
const SLOT_TAKEN_CODES = new Set([10071, 10077]);

/** Credentials come only from the environment, never from a config file or a record. */
function natsAuthFromEnv(env: NodeJS.ProcessEnv): Partial<ConnectionOptions> {
  if (env.NATS_CREDS) {
    const path = env.NATS_CREDS;
    let creds: Uint8Array;
    try {
      creds = readFileSync(path);
    } catch (error) {
      throw new RunStateError("ERR_IO", `cannot read the NATS credentials file ${path} named by NATS_CREDS: ${(error as Error).message}`);
    }
    return { authenticator: credsAuthenticator(creds) };
  }
  if (env.NATS_USER) return { user: env.NATS_USER, pass: env.NATS_PASSWORD ?? "" };
  if (env.NATS_TOKEN) return { token: env.NATS_TOKEN };
  return {};
}

export async function connectTo(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv): Promise<NatsConnection> {
  const servers = Array.isArray(config.servers) ? config.servers : [config.servers];
  const auth = natsAuthFromEnv(env);
  try {
    return await connect({
      servers,
      timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxReconnectAttempts: MAX_RECONNECTS,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      name: `fisk-ai ${process.pid}`,
      ...auth,
    });
  } catch (error) {
    const reason = `cannot reach the NATS server at ${servers.join(", ")}: ${(error as Error).message}`;
    throw new RunStateError("ERR_IO", maskUrlCredentials(reason), { cause: error });
  }
}

export function ioError(doing: string, error: unknown): RunStateError {
  return new RunStateError("ERR_IO", `${doing} on the NATS server failed: ${(error as Error).message}`, { cause: error });
}

export function slotTaken(error: unknown): boolean {
  return error instanceof JetStreamApiError && SLOT_TAKEN_CODES.has(error.code);
}
