// Lists what the user dropped or chose as [relativePath, File] pairs; the files are read by the
// Rust side (gloo-file, web/src/inputs/mod.rs). Folders are walked with webkitGetAsEntry, keeping
// their relative paths; version-control and dependency folders are skipped (reported back as
// `skipped`; the same list as SKIP_DIRS in zip.rs). `extraSkip` names more folders to skip (the
// agent dir's sessions/: pi's sessions of every project, which can be gigabytes).

const SKIP_DIRS = new Set([".git", "node_modules", "target", ".venv", "__pycache__", ".hg", ".svn"]);

// pi's own package installs (`<agent>/npm/node_modules`, `.pi/npm/node_modules`) are kept: pi
// reads the packages there.
function skipPath(path, extra) {
  const dirs = path.split("/").slice(0, -1);
  return dirs.some((seg, i) => (SKIP_DIRS.has(seg) && !(seg === "node_modules" && dirs[i - 1] === "npm")) || extra.has(seg));
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
    if (SKIP_DIRS.has(entry.name) || extra.has(entry.name)) { skipped.push(path + "/"); return; }
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
      const i = segs.findIndex((seg, k) => k < segs.length - 1 && (SKIP_DIRS.has(seg) || extra.has(seg)));
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
