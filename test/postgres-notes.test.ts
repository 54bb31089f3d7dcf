// covers: src/backends/postgres/postgres-note-store.ts
// Memory notes on Postgres pass the note-store conformance suite on a real server (a
// cluster this file starts), each case in a namespace of its own.
import { after, before, describe } from "node:test";
import { runNoteStoreConformance } from "../src/conformance/index.js";
import { PostgresNoteStore } from "../src/backends/postgres/postgres-note-store.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";

const skip = skipWithout("postgres");

describe("postgres note store", { skip }, () => {
  let server: PostgresServer;
  let store: PostgresStore;
  let namespaces = 0;
  before(async () => {
    server = await startPostgres();
    store = await connectPostgresStore({ backend: "postgres", url: `${server.url}?schema=notes` });
  });
  after(async () => {
    await store.close();
    await server.stop();
  });
  runNoteStoreConformance({ makeStore: async () => new PostgresNoteStore(store, `agent-${++namespaces}`) });
});
