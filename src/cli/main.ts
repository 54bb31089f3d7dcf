#!/usr/bin/env node
// The fisk-ai command: a thin layer over the library that parses, calls and prints.
import { runCliProcess } from "./cli-process.js";

runCliProcess({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
