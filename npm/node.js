// The Node side of the package's Node wasm (wasm/ctxlens_node_bg.wasm, wasm/src/node.rs):
// `assembleSession` and the `ctxlens` bin, which read the real machine through Node's fs
// (node-host.js) and run the command line's own code (the `ctxlens` CLI's commands, compiled to
// wasm). The same instance as index.js's API (instantiated once, by whichever comes first); on
// first use every release's data not installed yet is installed from the package. Internal: the
// package exports these from index.js and bin/ctxlens.js.
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import * as raw from "./wasm/ctxlens_node.js";
import { dataBlob, piVersions, CtxlensError, sessionArgv, usageArgv, assemblyOf, callWasm } from "./api.js";
import { nodeHost } from "./node-host.js";
import { nodeVocabularies } from "./node-tokens.js";

let ready = false;

function init() {
  if (ready) return;
  raw.initSync({ module: readFileSync(new URL("./wasm/ctxlens_node_bg.wasm", import.meta.url)) });
  const loaded = new Set(JSON.parse(raw.releasesRaw()).filter((r) => r.loaded).map((r) => r.version));
  for (const v of piVersions) {
    if (loaded.has(v)) continue;
    const { list, blob } = dataBlob(raw, (name) => readFileSync(new URL(`./data/pi-${v}/${name}`, import.meta.url)));
    raw.installDataRaw(v, JSON.stringify({ files: list }), blob);
  }
  ready = true;
}

/**
 * A session on this machine, read as the `ctxlens` command reads it: the agent dir
 * (`PI_CODING_AGENT_DIR` or `~/.pi/agent`), the project's files from the session's cwd up, the
 * installed pi (the `pi` on `PATH`, or `piDir`). With no session (`null`) and a `prompt`: the
 * first request of a new session started in `cwd`.
 */
export function assembleSession(sessionPath, options) {
  const fn = "assembleSession";
  const newSession = sessionPath === null || sessionPath === undefined;
  if (newSession ? typeof options?.prompt !== "string" : typeof sessionPath !== "string" || sessionPath === "")
    throw new CtxlensError(`ctxlens.${fn}: the session's path must be a non-empty string (or null, with a prompt, for a new session's first request)`);
  const { argv, env, cwd, tokens } = sessionArgv(fn, options);
  const where = cwd ?? process.cwd();
  init();
  const host = nodeHost({ env: env ?? process.env, cwd: where, output: false });
  const counter = tokens ? nodeVocabularies() : undefined;
  const args = newSession ? argv : [path.resolve(where, sessionPath), ...argv];
  return callWasm(fn, () => assemblyOf(raw.assembleSessionRaw(JSON.stringify(args), host, counter), raw.takeBody()));
}

/**
 * Every call of every session below `paths` (a folder or session file, a list of them, or null:
 * pi's sessions folder), as `ctxlens usage --json` reports it: the usage pi recorded (the totals
 * ccusage gives), each call rebuilt and its prompt split over its request's blocks, grouped by
 * `by`; with `without`/`set`, what the change would have saved.
 */
export function usage(paths, options) {
  const fn = "usage";
  const { argv, env, cwd } = usageArgv(fn, paths, options);
  const r = runCliCaptured(argv, { env: env ?? process.env, cwd: cwd ?? process.cwd() });
  if (r.code !== 0) throw new CtxlensError(`ctxlens.${fn}: ${r.stderr.replace(/^ctxlens: /, "").trim()}`);
  return JSON.parse(r.stdout);
}

/**
 * The `ctxlens` command line on this machine; returns the exit status. `open` leaves its server
 * running (the process lives on until it is interrupted).
 */
export function runCli(argv) {
  init();
  const host = nodeHost();
  host.listen = (port) => {
    listen(host, port);
    return true;
  };
  return raw.runCliRaw(JSON.stringify(argv), host);
}

/**
 * The `ctxlens` command line run inside another Node program (the pi extension, pi/): its
 * stdout and stderr are returned as text instead of written, and `open`'s server is started in
 * this process, `onListening(url, server)` called once it listens (at most one server at a
 * time: the caller closes it). Returns `{code, stdout, stdoutBytes, stderr}`.
 */
export function runCliCaptured(argv, { env = process.env, cwd = process.cwd(), onListening } = {}) {
  init();
  const out = { 1: [], 2: [] };
  const host = nodeHost({ env, cwd, output: false, sink: (fd, bytes) => out[fd === 2 ? 2 : 1].push(Buffer.from(bytes)) });
  host.listen = (port) => {
    listen(host, port, onListening);
    return true;
  };
  const code = raw.runCliRaw(JSON.stringify(argv), host);
  const stdoutBytes = Buffer.concat(out[1]);
  return { code, stdout: stdoutBytes.toString("utf8"), stdoutBytes, stderr: Buffer.concat(out[2]).toString("utf8") };
}

/**
 * `open`'s server: node:http on 127.0.0.1 only; every request is answered by the wasm (the
 * command line's own routing: GET/HEAD of the app's and the case's files, this server's Host
 * only). Prints the URL once it listens (or hands it to `onListening`).
 */
function listen(host, port, onListening) {
  const server = http.createServer((req, res) => {
    const [status, type] = raw.openRespondRaw(req.method ?? "", req.url ?? "", req.headers.host ?? "", host).split("\t");
    const body = raw.takeBody() ?? new Uint8Array(0);
    const code = Number(status.split(" ")[0]);
    res.writeHead(code, status.slice(status.indexOf(" ") + 1), {
      "Content-Type": type,
      "Content-Length": body.length,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      Connection: "close",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  server.on("error", (e) => {
    if (onListening) return onListening(null, server, e);
    process.stderr.write(`ctxlens: cannot serve on 127.0.0.1:${port}: ${e.message}\n`);
    process.exitCode = 1;
  });
  server.listen(port, "127.0.0.1", () => {
    const url = raw.openListeningRaw(server.address().port);
    if (onListening) onListening(url, server);
    else process.stdout.write(`${url}\n`);
  });
}
