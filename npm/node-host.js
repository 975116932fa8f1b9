// The Node host of the package's second wasm (wasm/src/node.rs `NodeHost`): synchronous reads of
// the real filesystem, never throwing (a failed call returns null and `lastError()` says why).
// Read-only: nothing here writes, and nothing is read that the wasm did not ask for.
import fs from "node:fs";

export function nodeFs() {
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
    lastError() {
      return last;
    },
  };
}
