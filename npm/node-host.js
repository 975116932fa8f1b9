// The Node host of the package's second wasm (wasm/src/node.rs `NodeHost`): synchronous reads of
// the real filesystem, the environment, the clock, stdout and stderr; never throwing (a failed
// call returns null or false and `lastError()` says why). Read-only: no file is written, and
// nothing is read that the wasm did not ask for. The one program it runs is the one pi runs to
// find npm's global packages (`npm root -g`, or the settings' npmCommand), when the wasm asks.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import tty from "node:tty";
import { fileURLToPath } from "node:url";

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * The host: `env` (default `process.env`) and `cwd` (default `process.cwd()`) are the machine
 * the commands see; `output` says whether writes go to the process's descriptors (the bin) or
 * nowhere (assembleSession, whose output is its result); `sink(fd, bytes)`, when given, takes
 * stdout's and stderr's writes instead (the pi extension shows them in pi), and files may be
 * written.
 */
export function nodeHost({ env = process.env, cwd = process.cwd(), output = true, sink } = {}) {
  let last = "";
  const fail = (e) => {
    last = e && e.message ? e.message : String(e);
    return null;
  };
  return {
    stat(path) {
      try {
        const s = fs.statSync(path);
        return s.isFile() ? s.size : s.isDirectory() ? -2 : -1;
      } catch (e) {
        fail(e);
        return -1;
      }
    },
    read(path) {
      try {
        return fs.readFileSync(path);
      } catch (e) {
        return fail(e);
      }
    },
    /**
     * The file's bytes read straight into `into` (a view of the wasm memory, the size `stat`
     * gave): how many were read, one more when the file has grown past it, or -1.
     */
    readInto(path, into) {
      let fd;
      try {
        fd = fs.openSync(path, "r");
        let at = 0;
        while (at < into.length) {
          const n = fs.readSync(fd, into, at, into.length - at, at);
          if (n === 0) break;
          at += n;
        }
        if (at === into.length && fs.readSync(fd, Buffer.alloc(1), 0, 1, at) > 0) at += 1;
        return at;
      } catch (e) {
        fail(e);
        return -1;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    },
    readHead(path, max) {
      let fd;
      try {
        fd = fs.openSync(path, "r");
        const buf = Buffer.alloc(Math.min(max, fs.fstatSync(fd).size));
        let at = 0;
        while (at < buf.length) {
          const n = fs.readSync(fd, buf, at, buf.length - at, at);
          if (n === 0) break;
          at += n;
        }
        return buf.subarray(0, at);
      } catch (e) {
        return fail(e);
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    },
    readDir(path) {
      try {
        return fs.readdirSync(path).join("\0");
      } catch (e) {
        return fail(e);
      }
    },
    realpath(path) {
      try {
        return fs.realpathSync(path);
      } catch (e) {
        return fail(e);
      }
    },
    /** `[program, ...args]` (JSON) run with the host's env and cwd: its stdout, or null when it fails. */
    run(commandJson) {
      try {
        const [program, ...args] = JSON.parse(commandJson);
        const r = spawnSync(program, args, { env, cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10000 });
        return r.status === 0 ? r.stdout : fail(r.error ?? new Error(`${program} exited ${r.status}`));
      } catch (e) {
        return fail(e);
      }
    },
    lastError() {
      return last;
    },
    envJson() {
      const o = {};
      for (const [k, v] of Object.entries(env)) if (typeof v === "string") o[k] = v;
      return JSON.stringify(o);
    },
    cwd() {
      return cwd;
    },
    now() {
      return Date.now();
    },
    write(fd, bytes) {
      if (sink) {
        sink(fd, bytes);
        return true;
      }
      if (!output) return true;
      // A pipe may be non-blocking: EAGAIN means "not now", so try again; EPIPE means the
      // reader is gone, which stops the command.
      let at = 0;
      while (at < bytes.length) {
        try {
          at += fs.writeSync(fd, bytes, at, bytes.length - at);
        } catch (e) {
          if (e.code === "EAGAIN") {
            Atomics.wait(pause, 0, 0, 1); // a millisecond for the reader to drain the pipe
            continue;
          }
          fail(e);
          return false;
        }
      }
      return true;
    },
    isTTY(fd) {
      return !sink && output && tty.isatty(fd);
    },
    writeFile(path, bytes) {
      if (!output && !sink) return fail(new Error("this host writes no files"));
      try {
        fs.writeFileSync(path, bytes);
        return true;
      } catch (e) {
        fail(e);
        return false;
      }
    },
    appDir() {
      return appDir;
    },
    listen() {
      fail(new Error("this host cannot serve the visualizer"));
      return false;
    },
  };
}

/** The package's visualizer (`app/`, Trunk's build of the ctxlens app): `open` serves it by default. */
const appDir = fileURLToPath(new URL("./app", import.meta.url));
