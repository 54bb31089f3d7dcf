// HMAC-SHA256 signatures over RFC 8785 (JCS) encodings: of a decision with everything it
// decides (the run, the call, the tool, its exact input, the decision, the answer, who and
// when), and of a session's meta (where a resume runs its tools and finds its agent.yaml).
// The key's id is signed too, so a signature cannot be moved to another key. Why HMAC and
// not a public-key signature: docs/security.md.
import { createHmac, timingSafeEqual } from "node:crypto";
import canonicalize from "canonicalize";
import type { ApprovalDecisionPayload, MetaPayload, RecordSignature } from "../runstate/records/records.js";
import type { Keyring } from "./keyring.js";
import { TrustError } from "./trust-error.js";

/** What a decision decides: the call as parked, and the decision's own fields. */
export interface DecidedCall {
  /** The session. */
  runId: string;
  /** The tool's name, as the call names it. */
  name: string;
  /** The call's input, exactly as the model sent it. */
  input: unknown;
}

/** The signature of `decision` on `call`, made with the keyring's current key. */
export function signDecision(keyring: Keyring, call: DecidedCall, decision: Omit<ApprovalDecisionPayload, "signature">): RecordSignature {
  const key = signingKey(keyring);
  return { key_id: key.id, hmac_sha256: mac(key.secret, signable(decisionBytes(call, decision, key.id))) };
}

/** Why `decision` on `call` does not verify with `keyring`, or undefined when it does. */
export function decisionSignatureProblem(keyring: Keyring, call: DecidedCall, decision: ApprovalDecisionPayload): string | undefined {
  const { signature, ...signed } = decision;
  if (signature === undefined) return "it is not signed";
  return signatureProblem(keyring, signature, () => decisionBytes(call, signed, signature.key_id));
}

/** The meta with its signature, made with the keyring's current key over every other field. */
export function signMeta(keyring: Keyring, meta: MetaPayload): MetaPayload {
  const { signature: _old, ...unsigned } = meta;
  const key = signingKey(keyring);
  return { ...unsigned, signature: { key_id: key.id, hmac_sha256: mac(key.secret, signable(metaBytes(unsigned, key.id))) } };
}

/** Why the meta does not verify with `keyring`, or undefined when it does. */
export function metaSignatureProblem(keyring: Keyring, meta: MetaPayload): string | undefined {
  const { signature, ...signed } = meta;
  if (signature === undefined) return "its meta is not signed";
  const problem = signatureProblem(keyring, signature, () => metaBytes(signed, signature.key_id));
  return problem === undefined ? undefined : `its meta ${problem.replace(/^it /, "")}`;
}

function signingKey(keyring: Keyring): { id: string; secret: Buffer } {
  if (keyring.current === undefined) throw new TrustError("ERR_NO_SIGNING_KEY", "no signing key is configured to sign with");
  return keyring.current;
}

function signatureProblem(keyring: Keyring, signature: RecordSignature, bytes: () => string | undefined): string | undefined {
  const secret = keyring.keys.get(signature.key_id);
  if (secret === undefined) return `it is signed with key ${signature.key_id}, which this installation does not trust`;
  const signed = bytes();
  if (signed === undefined) return "what it signs has no canonical encoding (a lone surrogate in a string)";
  const expected = Buffer.from(mac(secret, signed), "base64url");
  const given = Buffer.from(signature.hmac_sha256, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return `its signature (key ${signature.key_id}) does not match what it signs: it was edited or forged`;
  return undefined;
}

function mac(secret: Buffer, bytes: string): string {
  return createHmac("sha256", secret).update(bytes, "utf8").digest("base64url");
}

function decisionBytes(call: DecidedCall, decision: Omit<ApprovalDecisionPayload, "signature">, keyId: string): string | undefined {
  return jcs({
    signs: "fisk-ai approval_decision",
    run_id: call.runId,
    tool_use_id: decision.tool_use_id,
    name: call.name,
    input: call.input,
    decision: decision.decision,
    text: decision.text ?? null,
    decided_by: decision.decided_by,
    decided_at: decision.decided_at,
    key_id: keyId,
  });
}

function metaBytes(meta: Omit<MetaPayload, "signature">, keyId: string): string | undefined {
  return jcs({ signs: "fisk-ai meta", meta, key_id: keyId });
}

/** The RFC 8785 encoding, or undefined for a value it has none for: a lone surrogate, which a JSON escape can carry. */
function jcs(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

function signable(bytes: string | undefined): string {
  if (bytes === undefined)
    throw new TrustError("ERR_UNSIGNABLE", "the call cannot be signed: its input holds a lone surrogate, which has no canonical encoding");
  return bytes;
}
