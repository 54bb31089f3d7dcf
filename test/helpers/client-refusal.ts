// What a client call refused: the status and problem code of its ClientError.
import assert from "node:assert/strict";
import { ClientError } from "../../src/client/fisk-client.js";

/** The status and code of the ClientError `pending` rejects with; fails if it resolves or rejects with anything else. */
export async function refusal(pending: Promise<unknown>): Promise<[number, string]> {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ClientError, `expected a refusal, got ${String(error)}`);
  return [error.status, error.problem.code];
}
