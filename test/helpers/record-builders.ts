// The builders live with the exported conformance suite, which needs them too.
export * from "../../src/conformance/record-builders.js";
