// Reads the zips `ctxlens export` writes (stored entries, sizes in the local headers), so that
// the live check rebuilds the request from the redacted case it saved: what whoever opens the
// case gets.

/** The entries of a stored zip, by path (the top folder the export puts them in removed) → bytes. */
export function readStoredZip(bytes) {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = {};
  let at = 0;
  while (at + 30 <= buf.length && buf.readUInt32LE(at) === 0x04034b50) {
    const flags = buf.readUInt16LE(at + 6);
    const method = buf.readUInt16LE(at + 8);
    const size = buf.readUInt32LE(at + 18);
    const nameLength = buf.readUInt16LE(at + 26);
    const extraLength = buf.readUInt16LE(at + 28);
    if (method !== 0 || flags & 8) throw new Error("not a zip ctxlens wrote (compressed or streamed entries)");
    const name = buf.toString("utf8", at + 30, at + 30 + nameLength);
    const start = at + 30 + nameLength + extraLength;
    entries[name] = new Uint8Array(buf.subarray(start, start + size));
    at = start + size;
  }
  const names = Object.keys(entries);
  const top = names.length && names.every((n) => n.startsWith(names[0].split("/")[0] + "/")) ? names[0].split("/")[0] + "/" : "";
  const files = {};
  for (const n of names) if (!n.endsWith("/")) files[n.slice(top.length)] = entries[n];
  return files;
}
