// Who a request is from, as the server's handlers see it: the one interface between the
// HTTP server and whatever authenticates (the key file's authenticator, or a program's own hook).

/** What a key may do: read sessions, start and follow up runs, decide calls, administer the service. */
export type Role = "read" | "run" | "approve" | "admin";

/** An authenticated caller: the name decisions are journaled with, the tenant whose sessions it sees, its roles. */
export interface Principal {
  /** Who it is: a key's name, journaled as the decider of what it decides. */
  name: string;
  /** Whose sessions it sees. */
  tenant: string;
  /** What it may do. */
  roles: ReadonlySet<Role>;
}

/** Who sent `request`; undefined when nobody valid did (the server answers 401). */
export type Authenticate = (request: Request) => Promise<Principal | undefined>;
