#!/usr/bin/env node
// `npx ctxlens SESSION`: the ctxlens command line with Node alone (the same commands as the
// native `ctxlens`, compiled to wasm: ctxlens --help lists them).
import { runCli } from "../node.js";

process.exitCode = runCli(process.argv.slice(2));
