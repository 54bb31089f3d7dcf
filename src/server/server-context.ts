// What every route of a server works with: the store and its queue, the agents it serves,
// how a session's tenant is read, and the principal of the request being answered.
import type { AgentSpec } from "../agent/agent-spec.js";
import type { RunQueue } from "../queue/run-queue.js";
import type { Store } from "../runstate/store/store.js";
import type { ConsoleTickets } from "./console/console-tickets.js";
import type { RequestCheck } from "./auth/host-guard.js";
import type { Authenticate, Principal } from "./principal.js";
import type { StreamSlots } from "./stream-slots.js";
import type { TextDeltas } from "./text-deltas.js";

/** An agent the server starts runs of, under the name clients give. */
export interface ServedAgent {
  /** What a client names it by (its agent.yaml's base name, without `.yaml`). */
  name: string;
  /** The agent (loadAgent's `.spec`, or agentSpec() of options built by hand). */
  spec: AgentSpec;
}

/** What createServer serves. */
export interface ServerOptions {
  /** The sessions. */
  store: Store;
  /** Its backend's queue: runs started over HTTP wait there for a worker. */
  queue: RunQueue;
  /** The agents a client may start runs of. */
  agents: readonly ServedAgent[];
  /** Who a request speaks for (default: everyone is the local principal, for a server on loopback only). */
  authenticate?: Authenticate;
  /**
   * Whether a principal `authenticate` made still holds (its key not revoked): asked before
   * each event of an open stream, which ends once the answer is no (default: always).
   */
  stillValid?: (principal: Principal) => boolean;
  /** The model's text as the workers of this process stream it (their `runEvents`): sent to a session's followers as `delta` events. */
  textDeltas?: TextDeltas;
  /** Refuses a request before it is authenticated, with a 403 saying why (hostGuard: a loopback server's Host and Origin check). */
  checkRequest?: RequestCheck;
  /** The largest JSON body taken, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** The event streams open at once; past it a new one is a 503 (default 1000). */
  maxStreams?: number;
  /** The largest journal POST /v1/sessions/import takes, in bytes (default 256 MiB). */
  importLimit?: number;
  /** Where the keys that sign decisions are found (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The directory runs started here are recorded as submitted from, where their tools run (default: this process's). */
  cwd?: string;
  /** Serves the console at / (docs/console.md), its sign-ins sealed with `tickets` (openConsoleTickets); `secure`: reached over TLS, so its cookie is Secure. */
  console?: {
    /** Seals and opens the console's sign-ins (openConsoleTickets). */
    tickets: ConsoleTickets;
    /** Reached over TLS, so its cookie is Secure. */
    secure?: boolean;
  };
  /** Hears of each error that is the server's fault (a 500), which the response does not describe (default: written to stderr). */
  onInternalError?: (error: unknown) => void;
}

/** The variables of a request the routes read. */
export type ServerEnv = { Variables: { principal: Principal } };

/** The server's options with their defaults in place, as the routes use them. */
export interface ServerContext {
  store: Store;
  queue: RunQueue;
  agents: ReadonlyMap<string, ServedAgent>;
  stillValid: (principal: Principal) => boolean;
  textDeltas: TextDeltas | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  streams: StreamSlots;
}
