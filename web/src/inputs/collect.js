// Lists what the user dropped or chose as [relativePath, File] pairs; the files are read by the
// Rust side (gloo-file, web/src/inputs/mod.rs). Folders are walked with webkitGetAsEntry, keeping
// their relative paths; version-control and dependency folders are skipped (reported back as
// `skipped`; the same list as SKIP_DIRS in zip.rs). `extraSkip` names more folders to skip (the
// agent dir's sessions/: pi's sessions of every project, which can be gigabytes).

const SKIP_DIRS = new Set([".git", "node_modules", "target", ".venv", "__pycache__", ".hg", ".svn"]);

// The node_modules folders pi reads packages from are kept (as in zip.rs `pi_reads`): its own
// installs (`<agent>/npm/node_modules`, `.pi/npm/node_modules`), those of `-e`
// (`<agent>/tmp/extensions/npm/HASH/node_modules`) and npm's global root (`PREFIX/lib/node_modules`).
function piReads(parents) {
  const n = parents.length;
  if (n >= 1 && (parents[n - 1] === "npm" || parents[n - 1] === "lib")) return true;
  return n >= 2 && parents[n - 2] === "npm" && /^[0-9a-fA-F]{8}$/.test(parents[n - 1]);
}

function skipDir(dirs, i, extra) {
  const seg = dirs[i];
  return (SKIP_DIRS.has(seg) && !(seg === "node_modules" && piReads(dirs.slice(0, i)))) || extra.has(seg);
}

function skipPath(path, extra) {
  const dirs = path.split("/").slice(0, -1);
  return dirs.some((_, i) => skipDir(dirs, i, extra));
}

function fileOf(entry) {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

function readBatch(reader) {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

async function walk(entry, out, skipped, extra) {
  const path = entry.fullPath.replace(/^\/+/, "");
  if (entry.isFile) {
    out.push([path, await fileOf(entry)]);
  } else if (entry.isDirectory) {
    const dirs = path.split("/");
    if (skipDir(dirs, dirs.length - 1, extra)) { skipped.push(path + "/"); return; }
    const reader = entry.createReader();
    for (;;) {
      const batch = await readBatch(reader);
      if (batch.length === 0) break;
      for (const e of batch) await walk(e, out, skipped, extra);
    }
  }
}

function listAll(pairs, skipped, extra) {
  const files = [];
  const folders = new Set();
  for (const [path, file] of pairs) {
    if (skipPath(path, extra)) {
      // A skipped folder is reported once, not file by file.
      const segs = path.split("/");
      const i = segs.findIndex((_, k) => k < segs.length - 1 && skipDir(segs, k, extra));
      const folder = segs.slice(0, i + 1).join("/") + "/";
      if (!folders.has(folder)) { folders.add(folder); skipped.push(folder); }
    } else files.push([path, file]);
  }
  return { files, skipped };
}

/** A drop: must be called synchronously from the drop handler (the items vanish after it). */
export function collectDrop(dataTransfer, extraSkip) {
  const extra = new Set(extraSkip ?? []);
  const items = Array.from(dataTransfer?.items ?? []);
  const entries = [];
  const loose = [];
  for (const item of items) {
    if (item.kind !== "file") continue;
    const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else { const f = item.getAsFile(); if (f) loose.push([f.name, f]); }
  }
  if (entries.length === 0 && loose.length === 0) {
    for (const f of Array.from(dataTransfer?.files ?? [])) loose.push([f.webkitRelativePath || f.name, f]);
  }
  return (async () => {
    const pairs = [...loose];
    const skipped = [];
    for (const e of entries) await walk(e, pairs, skipped, extra);
    return listAll(pairs, skipped, extra);
  })();
}

/** A file or folder chooser's FileList (webkitRelativePath keeps a chosen folder's layout). */
export function collectFileList(fileList, extraSkip) {
  const pairs = Array.from(fileList ?? []).map((f) => [f.webkitRelativePath || f.name, f]);
  return Promise.resolve(listAll(pairs, [], new Set(extraSkip ?? [])));
}
