// `fisk-ai/client`: a typed client of `fisk-ai serve` (docs/server.md).
export { ClientError, FiskClient } from "./fisk-client.js";
export type { ClientOptions, SessionEvent } from "./fisk-client.js";
export type * from "./api-types.js";
