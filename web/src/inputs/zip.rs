//! Zip archives: the scenario export's writer is the core's (`ctxlens::zip`, shared with the
//! CLI's `export`; re-exported here), and this is the reader for dropped or
//! chosen `.zip` files ([`expand_zips`]: stored and deflated entries, inflated by `miniz_oxide`
//! under a size limit; zip64, CRC-checked, with caps on the total inflated size and the entry
//! count). An archive the central directory of which is
//! cut off is read from its local headers as far as they go.

pub use ctxlens::zip::{crc32, write};

// ---------------------------------------------------------------------------------------------
// Reading.

use ctxlens::Diagnostic;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// Why inflating stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InflateError {
    /// The data ended before the last block did.
    Truncated,
    /// The output would pass the limit.
    Limit,
    /// Not valid DEFLATE data.
    Invalid,
}

/// Inflates raw DEFLATE `data` (miniz_oxide), producing at most `limit` bytes; gives the bytes
/// and how many input bytes the stream used (its last block's end, rounded up to a byte: where a
/// data descriptor follows). `size_hint` (the size the archive states) only sizes the first
/// allocation, never beyond what `data` could inflate to, so a zip bomb stops at the cap instead
/// of filling the memory.
fn inflate(data: &[u8], limit: usize, size_hint: usize) -> Result<(Vec<u8>, usize), InflateError> {
    // DEFLATE cannot expand more than ~1032:1: a stated size beyond that is not allocated.
    let first = size_hint
        .min(limit)
        .min(data.len().saturating_mul(1032).saturating_add(1024))
        .max(64.min(limit));
    let mut out = vec![0u8; first];
    let mut state = Box::<DecompressorOxide>::default();
    let (mut input, mut consumed, mut written) = (data, 0, 0);
    loop {
        // The whole output is one buffer (back references reach into all of it); all of the
        // input is there, so running out of it means the stream is cut off.
        let (status, used, wrote) = decompress(
            &mut state,
            input,
            &mut out,
            written,
            inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        consumed += used;
        written += wrote;
        input = input.get(used..).unwrap_or(&[]);
        match status {
            TINFLStatus::Done => {
                out.truncate(written);
                return Ok((out, consumed));
            }
            TINFLStatus::HasMoreOutput if out.len() >= limit => return Err(InflateError::Limit),
            TINFLStatus::HasMoreOutput => {
                let grown = out.len().saturating_mul(2).max(64).min(limit);
                out.resize(grown, 0);
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(InflateError::Truncated)
            }
            _ => return Err(InflateError::Invalid),
        }
    }
}

/// Caps on what opening the zips of one drop may produce.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of all entries together, inflated.
    pub total: usize,
    /// Entries of all archives together.
    pub entries: usize,
}

/// The caps the page uses: 512 MB inflated (the chooser's cap on one file) and 20,000 entries.
pub const LIMITS: Limits = Limits {
    total: 512 * 1024 * 1024,
    entries: 20_000,
};

/// The folders a folder drop leaves out (as `collect.js` does).
const SKIP_DIRS: [&str; 7] = [
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".hg",
    ".svn",
];

/// Whether `path` lies in a folder a folder drop leaves out. The `node_modules` folders pi reads
/// packages from are kept: its own installs (`<agent>/npm/node_modules`,
/// `.pi/npm/node_modules`), those of `-e` (`<agent>/tmp/extensions/npm/HASH/node_modules`) and
/// npm's global root (`PREFIX/lib/node_modules`).
fn skipped_folder(path: &str) -> bool {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    dirs.iter().enumerate().any(|(i, seg)| {
        SKIP_DIRS.contains(seg) && !(*seg == "node_modules" && pi_reads(&dirs[..i]))
    })
}

/// Whether pi reads packages from a `node_modules` folder below `parents` (see
/// [`skipped_folder`]).
fn pi_reads(parents: &[&str]) -> bool {
    let hash = |s: &str| s.len() == 8 && s.chars().all(|c| c.is_ascii_hexdigit());
    match parents {
        [.., "npm"] | [.., "lib"] => true,
        [.., "npm", h] => hash(h),
        _ => false,
    }
}

/// Code page 437 (the zip default for names not flagged UTF-8), bytes 0x80–0xFF.
const CP437: &str = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{a0}";

/// Whether a dropped file is opened as a zip archive (by its name).
pub fn is_zip(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() > 4 && b[b.len() - 4..].eq_ignore_ascii_case(b".zip")
}

fn le(data: &[u8], at: usize, n: usize) -> Option<u64> {
    let b = data.get(at..at.checked_add(n)?)?;
    Some(b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64))
}

/// Whether `data` holds the 4-byte signature `s` at `at`.
fn sig(data: &[u8], at: usize, s: &[u8; 4]) -> bool {
    at.checked_add(4).and_then(|end| data.get(at..end)) == Some(&s[..])
}

fn mb(bytes: usize) -> String {
    format!("{} MB", bytes / (1024 * 1024))
}

fn method_name(m: u16) -> String {
    let name = match m {
        1 => "shrink",
        6 => "implode",
        9 => "deflate64",
        12 => "bzip2",
        14 => "LZMA",
        93 => "Zstandard",
        95 => "xz",
        98 => "PPMd",
        99 => "AES encryption",
        _ => "",
    };
    if name.is_empty() {
        format!("compression method {m}")
    } else {
        format!("compression method {m} ({name})")
    }
}

fn entry_name(raw: &[u8], utf8_flag: bool) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) if utf8_flag => String::from_utf8_lossy(raw).into_owned(),
        Err(_) => raw
            .iter()
            .map(|&b| {
                if b < 0x80 {
                    b as char
                } else {
                    CP437.chars().nth(b as usize - 0x80).unwrap_or('?')
                }
            })
            .collect(),
    }
}

/// An entry as the central directory (or a local header) states it.
struct Entry {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    csize: u64,
    usize: u64,
    /// The local header's offset.
    offset: u64,
}

/// The zip64 extra field (0x0001) replaces the 32-bit fields that are all ones, in this order.
fn zip64_extra(extra: &[u8], usize: &mut u64, csize: &mut u64, offset: Option<&mut u64>) {
    let mut i = 0;
    while i + 4 <= extra.len() {
        let id = le(extra, i, 2).unwrap_or(0);
        let len = le(extra, i + 2, 2).unwrap_or(0) as usize;
        let body = extra
            .get(i + 4..(i + 4 + len).min(extra.len()))
            .unwrap_or(&[]);
        if id == 1 {
            let mut at = 0;
            let mut take = |v: &mut u64| {
                if *v == 0xFFFF_FFFF {
                    if let Some(x) = le(body, at, 8) {
                        *v = x;
                        at += 8;
                    }
                }
            };
            take(usize);
            take(csize);
            if let Some(o) = offset {
                take(o);
            }
            return;
        }
        i += 4 + len;
    }
}

/// The central directory's entries, or `None` when the archive has no end record where it should
/// be (cut off, or not a zip). `Err` is a reason the directory cannot be used.
fn central_directory(data: &[u8]) -> Option<Result<Vec<Entry>, String>> {
    const EOCD: [u8; 4] = *b"PK\x05\x06";
    if data.len() < 22 {
        return None;
    }
    let lowest = data.len().saturating_sub(22 + 0xFFFF);
    let eocd = (lowest..=data.len() - 22)
        .rev()
        .find(|&i| data[i..i + 4] == EOCD)?;
    let disk = le(data, eocd + 4, 2)?;
    let mut count = le(data, eocd + 10, 2)?;
    let mut size = le(data, eocd + 12, 4)?;
    let mut offset = le(data, eocd + 16, 4)?;
    if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        // zip64: the locator sits just before the end record.
        if eocd >= 20 && sig(data, eocd - 20, b"PK\x06\x07") {
            let at = usize::try_from(le(data, eocd - 12, 8)?).ok()?;
            if sig(data, at, b"PK\x06\x06") {
                count = le(data, at + 32, 8)?;
                size = le(data, at + 40, 8)?;
                offset = le(data, at + 48, 8)?;
            }
        }
    }
    if disk != 0 {
        return Some(Err("it is one part of a multi-part (split) archive".into()));
    }
    // Data before the archive (a self-extractor's stub) shifts every offset.
    let mut shift = 0u64;
    let at_sig = |o: u64| usize::try_from(o).is_ok_and(|o| sig(data, o, b"PK\x01\x02"));
    if count > 0 && !at_sig(offset) {
        let start = (eocd as u64).checked_sub(size)?;
        if start > offset && at_sig(start) {
            shift = start - offset;
        } else {
            return None;
        }
    }
    let mut entries = Vec::new();
    let mut p = usize::try_from(offset.checked_add(shift)?).ok()?;
    for _ in 0..count {
        if !sig(data, p, b"PK\x01\x02") {
            return Some(Err(format!(
                "its central directory is damaged after {} entries",
                entries.len()
            )));
        }
        let (
            Some(flags),
            Some(method),
            Some(crc),
            Some(mut csize),
            Some(mut usize),
            Some(nlen),
            Some(xlen),
            Some(clen),
            Some(mut loc),
        ) = (
            le(data, p + 8, 2),
            le(data, p + 10, 2),
            le(data, p + 16, 4),
            le(data, p + 20, 4),
            le(data, p + 24, 4),
            le(data, p + 28, 2),
            le(data, p + 30, 2),
            le(data, p + 32, 2),
            le(data, p + 42, 4),
        )
        else {
            return None;
        };
        let (nlen, xlen, clen) = (nlen as usize, xlen as usize, clen as usize);
        let raw = data.get(p + 46..p + 46 + nlen)?;
        let extra = data.get(p + 46 + nlen..p + 46 + nlen + xlen)?;
        zip64_extra(extra, &mut usize, &mut csize, Some(&mut loc));
        entries.push(Entry {
            name: entry_name(raw, flags & (1 << 11) != 0),
            flags: flags as u16,
            method: method as u16,
            crc: crc as u32,
            csize,
            usize,
            offset: loc.saturating_add(shift),
        });
        p += 46 + nlen + xlen + clen;
    }
    Some(Ok(entries))
}

/// Why an entry was not read.
enum Skip {
    /// Told as it is (encrypted, a method not supported, corrupt, cut off).
    Why(String),
    /// The total size cap was reached.
    Budget,
}

/// One entry's bytes. `data` starts at the entry's data; `limit` is what is left of the budget.
fn extract(
    e: &Entry,
    data: &[u8],
    sizes_known: bool,
    limit: usize,
) -> Result<(Vec<u8>, usize), Skip> {
    if e.flags & 1 != 0 {
        return Err(Skip::Why(
            "encrypted: ctxlens does not read encrypted entries".into(),
        ));
    }
    if sizes_known && e.usize > limit as u64 {
        return Err(Skip::Budget);
    }
    let (out, used) = match e.method {
        0 => {
            if !sizes_known {
                return Err(Skip::Why("stored with its size after the data, in an archive without its directory: cannot be read".into()));
            }
            if e.csize != e.usize {
                return Err(Skip::Why(format!(
                    "corrupt: stored, but its sizes differ ({} and {} bytes)",
                    e.csize, e.usize
                )));
            }
            let body = usize::try_from(e.csize)
                .ok()
                .and_then(|n| data.get(..n))
                .ok_or_else(|| Skip::Why("cut off: the archive ends inside it".into()))?;
            (body.to_vec(), body.len())
        }
        8 => {
            let input = if sizes_known {
                usize::try_from(e.csize)
                    .ok()
                    .and_then(|n| data.get(..n))
                    .ok_or_else(|| Skip::Why("cut off: the archive ends inside it".into()))?
            } else {
                data
            };
            let cap = if sizes_known { e.usize as usize } else { limit };
            match inflate(input, cap, cap) {
                Ok((bytes, consumed)) => {
                    let used = if sizes_known { input.len() } else { consumed };
                    (bytes, used)
                }
                Err(InflateError::Limit) if sizes_known => {
                    return Err(Skip::Why(format!(
                        "corrupt: it inflates past its stated size of {} bytes",
                        e.usize
                    )))
                }
                Err(InflateError::Limit) => return Err(Skip::Budget),
                Err(InflateError::Truncated) if !sizes_known => {
                    return Err(Skip::Why("cut off: the archive ends inside it".into()))
                }
                Err(InflateError::Truncated) => {
                    return Err(Skip::Why("corrupt: the compressed data is cut off".into()))
                }
                Err(InflateError::Invalid) => {
                    return Err(Skip::Why("corrupt: not valid deflate data".into()))
                }
            }
        }
        m => {
            return Err(Skip::Why(format!(
                "{}, which ctxlens does not read (only stored and deflate)",
                method_name(m)
            )))
        }
    };
    if sizes_known && (out.len() as u64 != e.usize || crc32(&out) != e.crc) {
        return Err(Skip::Why(
            "corrupt: its CRC-32 or size does not match the archive's".into(),
        ));
    }
    Ok((out, used))
}

/// The budget of one drop.
struct Budget {
    bytes: usize,
    entries: usize,
    limits: Limits,
}

/// Reading one archive.
struct Reader<'a> {
    zip: &'a str,
    budget: &'a mut Budget,
    out: Vec<(String, Vec<u8>)>,
    notes: &'a mut Vec<Diagnostic>,
    /// The entries left out once the size cap was reached.
    over: Vec<String>,
}

impl Reader<'_> {
    /// Reads one entry whose data starts `body`; gives how many bytes of `body` it used, or `Err`
    /// when it could not be read (a diagnostic says why).
    fn take(&mut self, e: &Entry, body: &[u8], sizes_known: bool) -> Result<usize, ()> {
        if e.name.ends_with('/') {
            return Ok(0);
        }
        if !self.over.is_empty() {
            self.over.push(e.name.clone());
            return Ok(0);
        }
        match extract(e, body, sizes_known, self.budget.bytes) {
            Ok((bytes, used)) => {
                self.budget.bytes -= bytes.len();
                self.out.push((e.name.clone(), bytes));
                Ok(used)
            }
            Err(Skip::Budget) => {
                self.over.push(e.name.clone());
                Ok(0)
            }
            Err(Skip::Why(why)) => {
                self.notes.push(
                    Diagnostic::error(self.zip, None, format!("{}: {why}", e.name))
                        .skipping(e.name.clone()),
                );
                Err(())
            }
        }
    }

    fn central(&mut self, data: &[u8], entries: Vec<Entry>) {
        let files = entries.iter().filter(|e| !e.name.ends_with('/')).count();
        if files == 0 {
            self.notes.push(Diagnostic::info(
                self.zip,
                None,
                "the archive holds no files",
            ));
        }
        let allowed = files.min(self.budget.entries);
        if allowed < files {
            self.notes.push(
                Diagnostic::error(
                    self.zip,
                    None,
                    format!(
                        "{files} entries: only the first {allowed} are read (at most {} in all)",
                        self.budget.limits.entries
                    ),
                )
                .skipping(format!("{} entries", files - allowed)),
            );
        }
        let mut n = 0;
        for e in &entries {
            if e.name.ends_with('/') {
                continue;
            }
            if n == allowed {
                break;
            }
            n += 1;
            let local = usize::try_from(e.offset)
                .ok()
                .filter(|&p| sig(data, p, b"PK\x03\x04"));
            let start = local.and_then(|p| {
                Some(p + 30 + le(data, p + 26, 2)? as usize + le(data, p + 28, 2)? as usize)
            });
            let Some(start) = start else {
                self.notes.push(
                    Diagnostic::error(
                        self.zip,
                        None,
                        format!(
                            "{}: its local header is missing (a damaged archive)",
                            e.name
                        ),
                    )
                    .skipping(e.name.clone()),
                );
                continue;
            };
            let _ = self.take(e, data.get(start..).unwrap_or(&[]), true);
        }
        self.budget.entries -= n;
    }

    /// No directory at the end: the local headers from the start, as far as they go.
    fn salvage(&mut self, data: &[u8]) {
        if !sig(data, 0, b"PK\x03\x04") {
            self.notes.push(
                Diagnostic::error(
                    self.zip,
                    None,
                    "not opened: not a zip archive (or cut off before its first entry)",
                )
                .skipping(self.zip.to_string()),
            );
            return;
        }
        let mut p = 0;
        while sig(data, p, b"PK\x03\x04") && self.over.is_empty() {
            if self.budget.entries == 0 {
                self.notes.push(
                    Diagnostic::error(
                        self.zip,
                        None,
                        format!(
                            "more than {} entries in all: the rest is left out",
                            self.budget.limits.entries
                        ),
                    )
                    .skipping("the remaining entries"),
                );
                break;
            }
            let (
                Some(flags),
                Some(method),
                Some(crc),
                Some(mut csize),
                Some(mut usize),
                Some(nlen),
                Some(xlen),
            ) = (
                le(data, p + 6, 2),
                le(data, p + 8, 2),
                le(data, p + 14, 4),
                le(data, p + 18, 4),
                le(data, p + 22, 4),
                le(data, p + 26, 2),
                le(data, p + 28, 2),
            )
            else {
                self.cut_header();
                break;
            };
            let (nlen, xlen) = (nlen as usize, xlen as usize);
            let Some(raw) = data.get(p + 30..p + 30 + nlen) else {
                self.cut_header();
                break;
            };
            let extra = data.get(p + 30 + nlen..p + 30 + nlen + xlen).unwrap_or(&[]);
            // With a zip64 field, the data descriptor's sizes have 8 bytes.
            let zip64 = extra_ids(extra).any(|id| id == 1);
            zip64_extra(extra, &mut usize, &mut csize, None);
            let descriptor = flags & 8 != 0;
            let e = Entry {
                name: entry_name(raw, flags & (1 << 11) != 0),
                flags: flags as u16,
                method: method as u16,
                crc: crc as u32,
                csize,
                usize,
                offset: p as u64,
            };
            let start = p + 30 + nlen + xlen;
            let used = match self.take(&e, data.get(start..).unwrap_or(&[]), !descriptor) {
                Ok(used) => used,
                // Its size is known: the next entry can still be found (below).
                Err(()) if !descriptor => 0,
                Err(()) => break,
            };
            if !e.name.ends_with('/') {
                self.budget.entries -= 1;
            }
            p = start.saturating_add(if descriptor {
                used
            } else {
                usize::try_from(csize).unwrap_or(usize::MAX)
            });
            if descriptor {
                // The data descriptor: an optional signature, the CRC and the two sizes.
                if sig(data, p, b"PK\x07\x08") {
                    p += 4;
                }
                let read = self
                    .out
                    .last()
                    .filter(|(n, _)| *n == e.name)
                    .map(|(_, b)| crc32(b));
                if let (Some(got), Some(stated)) = (read, le(data, p, 4)) {
                    if got != stated as u32 {
                        self.out.pop();
                        self.notes.push(
                            Diagnostic::error(
                                self.zip,
                                None,
                                format!(
                                    "{}: corrupt: its CRC-32 does not match the archive's",
                                    e.name
                                ),
                            )
                            .skipping(e.name.clone()),
                        );
                    }
                }
                p = p.saturating_add(if zip64 { 20 } else { 12 });
            }
        }
        self.notes.push(Diagnostic::warning(
            self.zip,
            None,
            format!("the archive is cut off (no central directory at its end): read {} entries from their local headers; anything after them is missing", self.out.len()),
        ));
    }
}

impl Reader<'_> {
    fn cut_header(&mut self) {
        let after = self
            .out
            .last()
            .map(|(n, _)| format!(" (the one after {n})"))
            .unwrap_or_default();
        self.notes.push(
            Diagnostic::error(
                self.zip,
                None,
                format!("an entry{after} is cut off in its header"),
            )
            .skipping("the entry cut off"),
        );
    }
}

/// The ids of an extra field's blocks.
fn extra_ids(extra: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let id = le(extra, i, 2)?;
        i += 4 + le(extra, i + 2, 2)? as usize;
        Some(id)
    })
}

/// The entries of one archive (paths as stored), with notes about what was not read.
fn read_archive(
    zip: &str,
    data: &[u8],
    budget: &mut Budget,
    notes: &mut Vec<Diagnostic>,
) -> Vec<(String, Vec<u8>)> {
    let mut r = Reader {
        zip,
        budget,
        out: Vec::new(),
        notes,
        over: Vec::new(),
    };
    match central_directory(data) {
        Some(Ok(entries)) => r.central(data, entries),
        Some(Err(why)) => r.notes.push(
            Diagnostic::error(zip, None, format!("not opened: {why}")).skipping(zip.to_string()),
        ),
        None => r.salvage(data),
    }
    if !r.over.is_empty() {
        let n = r.over.len();
        let total = mb(r.budget.limits.total);
        r.notes.push(Diagnostic::error(zip, None, format!("the entries inflate to more than {total} in all (a zip bomb?): {n} entries left out, from {}", r.over[0])).skipping(format!("{n} entries")));
        r.budget.bytes = 0;
    }
    r.out
}

/// A path inside an archive as a relative path, or why it is refused.
fn clean_path(name: &str) -> Result<String, &'static str> {
    let name = name.replace('\\', "/");
    if name.starts_with('/') || name.as_bytes().get(1) == Some(&b':') {
        return Err("an absolute path");
    }
    let segs: Vec<&str> = name
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if segs.contains(&"..") {
        return Err("a path that leaves the archive (..)");
    }
    Ok(segs.join("/"))
}

/// Replaces each `.zip` among `files` by its entries, as if the folder it holds had been dropped
/// in its place: an archive of one folder (`case/…`, as the export writes) gives that folder's
/// paths; loose entries at its top go into a folder named after the archive. Entries in the
/// folders a folder drop leaves out (`.git`, `node_modules`, …) join `skipped`; what cannot be
/// read (damaged, cut off, encrypted, another compression method, past the caps) is a
/// diagnostic naming the archive and the entry.
pub fn expand_zips(
    files: Vec<(String, Vec<u8>)>,
    skipped: &mut Vec<String>,
    notes: &mut Vec<Diagnostic>,
    limits: Limits,
) -> Vec<(String, Vec<u8>)> {
    if !files.iter().any(|(p, _)| is_zip(p)) {
        return files;
    }
    let mut budget = Budget {
        bytes: limits.total,
        entries: limits.entries,
        limits,
    };
    let mut out = Vec::new();
    for (path, bytes) in files {
        if !is_zip(&path) {
            out.push((path, bytes));
            continue;
        }
        let entries = read_archive(&path, &bytes, &mut budget, notes);
        drop(bytes);
        let (parent, base) = match path.rsplit_once('/') {
            Some((dir, b)) => (format!("{dir}/"), b),
            None => (String::new(), path.as_str()),
        };
        let stem = &base[..base.len() - 4];
        let mut kept = Vec::new();
        let mut mac = 0;
        for (name, data) in entries {
            match clean_path(&name) {
                Err(why) => notes.push(
                    Diagnostic::warning(path.as_str(), None, format!("{name}: {why}: left out"))
                        .skipping(name),
                ),
                Ok(p) if p.is_empty() => {}
                Ok(p) if p.starts_with("__MACOSX/") => mac += 1,
                Ok(p) => kept.push((p, data)),
            }
        }
        if mac > 0 {
            notes.push(
                Diagnostic::info(
                    path.as_str(),
                    None,
                    format!("{mac} macOS metadata file(s) (__MACOSX/) left out"),
                )
                .skipping("__MACOSX/"),
            );
        }
        let first = |p: &str| p.split('/').next().unwrap_or("").to_string();
        let one_folder = kept
            .first()
            .map(|(p, _)| first(p))
            .filter(|f| kept.iter().all(|(p, _)| p.contains('/') && first(p) == *f))
            .is_some();
        let prefix = if one_folder {
            parent
        } else {
            format!(
                "{parent}{}/",
                if stem.is_empty() { "archive" } else { stem }
            )
        };
        for (p, data) in kept {
            let full = format!("{prefix}{p}");
            if skipped_folder(&full) {
                skipped.push(full);
            } else {
                out.push((full, data));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflate_stored_and_fixed_blocks_and_what_the_stream_used() {
        // Stored: "hello" in one final stored block, then bytes that are not the stream's.
        let stored = [
            0x01, 0x05, 0x00, 0xfa, 0xff, b'h', b'e', b'l', b'l', b'o', b'P', b'K',
        ];
        assert_eq!(inflate(&stored, 100, 5), Ok((b"hello".to_vec(), 10)));
        // Fixed Huffman: zlib's raw deflate (level 9) of "hello hello hello hello".
        let fixed = [
            0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01, 0, 0,
        ];
        assert_eq!(
            inflate(&fixed, 100, 0),
            Ok((b"hello hello hello hello".to_vec(), 10))
        );
        // An empty fixed block (just end-of-block), into no room at all.
        assert_eq!(inflate(&[0x03, 0x00], 0, 0), Ok((Vec::new(), 2)));
    }

    #[test]
    fn inflate_bad_data_is_an_error_not_a_panic() {
        assert_eq!(inflate(&[], 10, 0), Err(InflateError::Truncated));
        assert_eq!(inflate(&[0x07], 10, 0), Err(InflateError::Invalid));
        assert_eq!(
            inflate(&[0x01, 0x05, 0x00, 0x00, 0x00], 10, 0),
            Err(InflateError::Invalid)
        );
        assert_eq!(
            inflate(&[0x01, 0x05, 0x00, 0xfa, 0xff, b'h'], 10, 0),
            Err(InflateError::Truncated)
        );
        // Every prefix of a valid stream, and every single-byte corruption, ends without a panic.
        let fixed = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01];
        for n in 0..fixed.len() {
            assert!(inflate(&fixed[..n], 100, 0).is_err());
        }
        for i in 0..fixed.len() {
            for b in [0x00, 0xff, 0x55] {
                let mut c = fixed;
                c[i] = b;
                let _ = inflate(&c, 100, 0);
            }
        }
    }

    #[test]
    fn inflate_stops_at_the_limit() {
        // A fixed block: 'a', then 10,000 copies of a 258-byte run of the last byte.
        let mut bits = (0u64, 0u32, Vec::new());
        let mut put = |v: u32, n: u32, msb_first: bool| {
            let v = if msb_first {
                v.reverse_bits() >> (32 - n)
            } else {
                v
            };
            bits.0 |= (v as u64) << bits.1;
            bits.1 += n;
            while bits.1 >= 8 {
                bits.2.push(bits.0 as u8);
                bits.0 >>= 8;
                bits.1 -= 8;
            }
        };
        put(1, 1, false); // the last block
        put(1, 2, false); // fixed Huffman
        put(0x30 + b'a' as u32, 8, true);
        for _ in 0..10_000 {
            put(0xc5, 8, true); // length symbol 285 (258)
            put(0, 5, true); // distance code 0 (distance 1)
        }
        put(0, 7, true); // end of block
        put(0, 7, false);
        let data = bits.2;
        let (full, _) = inflate(&data, usize::MAX, 0).unwrap();
        assert_eq!(full.len(), 1 + 258 * 10_000);
        assert!(full.iter().all(|&b| b == b'a'));
        assert_eq!(
            inflate(&data, full.len(), full.len()).map(|r| r.0.len()),
            Ok(full.len())
        );
        assert_eq!(
            inflate(&data, 100_000, usize::MAX),
            Err(InflateError::Limit)
        );
        assert_eq!(inflate(&data, full.len() - 1, 0), Err(InflateError::Limit));
    }

    fn big_text() -> Vec<u8> {
        (0..3000)
            .map(|i| format!("{i:05} {}\n", "abcdefghij".repeat(i % 7)))
            .collect::<String>()
            .into_bytes()
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/src/inputs/testdata/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    const BIG: Limits = Limits {
        total: usize::MAX,
        entries: usize::MAX,
    };

    type Files = Vec<(String, Vec<u8>)>;

    /// `expand_zips` of one archive: (files, skipped, notes as "severity file: message [skipped]").
    fn open(path: &str, zip: Vec<u8>, limits: Limits) -> (Files, Vec<String>, Vec<String>) {
        let (mut skipped, mut notes) = (Vec::new(), Vec::new());
        let files = expand_zips(
            vec![(path.to_string(), zip)],
            &mut skipped,
            &mut notes,
            limits,
        );
        let notes = notes
            .iter()
            .map(|d| {
                format!(
                    "{} {}: {} [{}]",
                    d.severity.as_str(),
                    d.file,
                    d.message,
                    d.skipped.as_deref().unwrap_or("")
                )
            })
            .collect();
        (files, skipped, notes)
    }

    fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
        files.iter().map(|(p, _)| p.as_str()).collect()
    }

    #[test]
    fn reads_deflated_and_stored_entries() {
        // Python's zipfile (zlib): dynamic and fixed Huffman blocks, a stored entry, an empty one,
        // a directory entry.
        let (files, skipped, notes) = open("dl/case.zip", fixture("deflate.zip"), BIG);
        assert_eq!(
            names(&files),
            [
                "dl/case/big.txt",
                "dl/case/hello.txt",
                "dl/case/stored.txt",
                "dl/case/empty.txt"
            ]
        );
        assert_eq!(files[0].1, big_text());
        assert_eq!(files[1].1, b"hello hello hello hello");
        assert_eq!(files[2].1, b"stored as it is\n");
        assert!(files[3].1.is_empty());
        assert!(skipped.is_empty() && notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn data_descriptors_and_zip64_fields() {
        // Written to a stream: sizes after the data (zip64-sized for the first entry).
        let zip = fixture("streamed.zip");
        let (files, _, notes) = open("s.zip", zip.clone(), BIG);
        assert_eq!(names(&files), ["streamed/big.txt", "streamed/hello.txt"]);
        assert_eq!(files[0].1, big_text());
        assert!(notes.is_empty(), "{notes:?}");
        // Without its central directory, the local headers are read instead.
        let cd = zip.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        let (files, _, notes) = open("s.zip", zip[..cd].to_vec(), BIG);
        assert_eq!(names(&files), ["streamed/big.txt", "streamed/hello.txt"]);
        assert_eq!(files[0].1, big_text());
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("warning s.zip: the archive is cut off")
                && notes[0].contains("read 2 entries"),
            "{notes:?}"
        );
    }

    #[test]
    fn the_export_opens_as_the_case_it_was() {
        let laid = crate::state::Scenario::demo().lay_out();
        let zip = write(
            laid.files
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_slice()))
                .collect::<Vec<_>>()
                .iter()
                .map(|(k, v)| (*k, *v)),
        );
        // As the export names them (the app's and the CLI's `export`): one folder.
        let zip2 = ctxlens::zip::case_zip(&ctxlens::zip::folder_name("demo"), &laid.files);
        for (path, z, folder) in [
            ("demo.zip", zip2, "demo"),
            ("Downloads/flat.zip", zip, "Downloads/flat"),
        ] {
            let (files, skipped, notes) = open(path, z, LIMITS);
            assert!(skipped.is_empty() && notes.is_empty(), "{notes:?}");
            assert_eq!(files.len(), laid.files.len());
            assert!(
                files
                    .iter()
                    .all(|(p, _)| p.starts_with(&format!("{folder}/"))),
                "{:?}",
                names(&files)
            );
            let mut sc = crate::state::Scenario::default();
            sc.add_files(files, skipped, 1.0);
            assert_eq!(sc.name, folder.rsplit('/').next().unwrap());
            assert_eq!(sc.lay_out().files, laid.files, "the same case folder");
        }
    }

    #[test]
    fn pi_package_installs_are_kept_other_node_modules_are_not() {
        assert!(!skipped_folder(
            "case/agent/npm/node_modules/pkg/skills/a/SKILL.md"
        ));
        assert!(!skipped_folder(
            "proj/.pi/npm/node_modules/pkg/package.json"
        ));
        assert!(skipped_folder("proj/node_modules/a/AGENTS.md"));
        assert!(!skipped_folder(
            "agent/tmp/extensions/npm/f35b2129/node_modules/kit/package.json"
        ));
        assert!(!skipped_folder("fs/usr/lib/node_modules/kit/SKILL.md"));
        assert!(skipped_folder("proj/npm/x/node_modules/kit/package.json"));
        assert!(skipped_folder("proj/.git/config"));
        assert!(!skipped_folder("node_modules"));
    }

    /// The CLI's `export` (`case_from_inputs`, zipped by the same writer), dropped on the app:
    /// every corpus case opens as a case that builds the same request.
    #[test]
    fn a_cli_export_opens_in_the_app_as_the_same_case() {
        use crate::state::{inputs_of, LayOptions, Scenario};
        let mut checked = 0;
        for case in ctxlens_corpus::cases(&ctxlens_corpus::filter_from_env()) {
            let Ok(inputs) = ctxlens::case::inputs_from_case(&case.files(), None) else {
                continue;
            };
            let a = ctxlens::assemble(&inputs);
            let files = ctxlens::case::case_from_inputs(&inputs, a.pi.as_ref().map(|p| p.version));
            let z = ctxlens::zip::case_zip("exported", &files);
            let (opened, skipped, notes) = open("Downloads/exported.zip", z, LIMITS);
            assert!(
                skipped.is_empty() && notes.is_empty(),
                "{}: {notes:?}",
                case.name
            );
            let mut sc = Scenario::default();
            sc.add_files(opened, skipped, 1.0);
            let laid = sc.lay_out();
            assert_eq!(laid.files, files, "{}: the same case folder", case.name);
            let (back, notes) = inputs_of(&laid.files, LayOptions::of(&laid), None);
            assert!(notes.is_empty(), "{}: {notes:?}", case.name);
            let b = ctxlens::assemble(&back);
            assert!(
                a.request.as_ref().map(|r| &r.body) == b.request.as_ref().map(|r| &r.body),
                "{}: the same body",
                case.name
            );
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn loose_entries_go_in_a_folder_named_after_the_archive() {
        let z = write([
            ("session.jsonl", &b"{}"[..]),
            ("proj/AGENTS.md", &b"rules"[..]),
            ("__MACOSX/proj/._AGENTS.md", &b"x"[..]),
            (".git/config", &b"x"[..]),
            ("proj/node_modules/a/AGENTS.md", &b"x"[..]),
        ]);
        let (files, skipped, notes) = open("in/My Case.zip", z, LIMITS);
        assert_eq!(
            names(&files),
            ["in/My Case/session.jsonl", "in/My Case/proj/AGENTS.md"]
        );
        assert_eq!(
            skipped,
            [
                "in/My Case/.git/config",
                "in/My Case/proj/node_modules/a/AGENTS.md"
            ]
        );
        assert_eq!(
            notes,
            ["info in/My Case.zip: 1 macOS metadata file(s) (__MACOSX/) left out [__MACOSX/]"]
        );
        // Paths that would leave the folder are refused.
        let z = write([
            ("../evil.md", &b"x"[..]),
            ("/etc/passwd", &b"x"[..]),
            ("ok/AGENTS.md", &b"x"[..]),
        ]);
        let (files, _, notes) = open("a.zip", z, LIMITS);
        assert_eq!(names(&files), ["ok/AGENTS.md"]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("../evil.md: a path that leaves the archive")
                && notes[1].contains("/etc/passwd: an absolute path"),
            "{notes:?}"
        );
    }

    #[test]
    fn other_files_pass_through_and_names_need_not_be_utf8() {
        let z = write([("d/caf\u{e9}.md", &b"x"[..])]);
        // Code page 437 when the name is not UTF-8 (0x82 = é).
        assert_eq!(entry_name(b"d/caf\x82.md", false), "d/caf\u{e9}.md");
        assert_eq!(CP437.chars().count(), 128);
        assert!(is_zip("日本.zip") && is_zip("a.ZIP") && !is_zip("日本") && !is_zip(".zip"));
        let (mut skipped, mut notes) = (Vec::new(), Vec::new());
        let files = expand_zips(
            vec![("a.jsonl".into(), b"{}".to_vec()), ("x.ZIP".into(), z)],
            &mut skipped,
            &mut notes,
            LIMITS,
        );
        assert_eq!(names(&files), ["a.jsonl", "d/caf\u{e9}.md"]);
    }

    /// Sets the compression method of every entry (local and central headers).
    fn set_method(zip: &mut [u8], method: u16) {
        for i in 0..zip.len().saturating_sub(12) {
            if &zip[i..i + 4] == b"PK\x03\x04" {
                zip[i + 8..i + 10].copy_from_slice(&method.to_le_bytes());
            } else if &zip[i..i + 4] == b"PK\x01\x02" {
                zip[i + 10..i + 12].copy_from_slice(&method.to_le_bytes());
            }
        }
    }

    #[test]
    fn unsupported_methods_and_encryption_are_reported() {
        let mut z = write([("c/a.md", &b"x"[..])]);
        set_method(&mut z, 12);
        let (files, _, notes) = open("c.zip", z, LIMITS);
        assert!(files.is_empty());
        assert_eq!(notes, ["error c.zip: c/a.md: compression method 12 (bzip2), which ctxlens does not read (only stored and deflate) [c/a.md]"]);
        let mut z = write([("c/a.md", &b"x"[..]), ("c/b.md", &b"y"[..])]);
        z[6] |= 1; // the first entry's local flags (the central ones are what counts)
        let cd = z.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        z[cd + 8] |= 1;
        let (files, _, notes) = open("c.zip", z, LIMITS);
        assert_eq!(names(&files), ["c/b.md"]);
        assert!(notes[0].contains("c/a.md: encrypted"), "{notes:?}");
    }

    #[test]
    fn damaged_archives_never_panic_and_say_what_was_skipped() {
        let good = write([
            ("c/case.json", &b"{}"[..]),
            ("c/session.jsonl", &b"{\"type\":\"session\"}\n"[..]),
        ]);
        for n in 0..good.len() {
            let (files, _, notes) = open("cut.zip", good[..n].to_vec(), LIMITS);
            assert!(files.len() <= 2);
            if files.len() < 2 {
                assert!(
                    !notes.is_empty() && notes.iter().all(|d| d.contains("cut.zip")),
                    "cut at {n}: {notes:?}"
                );
            }
        }
        // Cut inside the second entry: the first is read, the second is named as cut off.
        let second = good
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == b"PK\x03\x04")
            .nth(1)
            .unwrap()
            .0;
        let (files, _, notes) = open("cut.zip", good[..second + 50].to_vec(), LIMITS);
        assert_eq!(names(&files), ["c/case.json"]);
        assert!(
            notes
                .iter()
                .any(|d| d.starts_with("error cut.zip: c/session.jsonl: cut off")
                    && d.ends_with("[c/session.jsonl]")),
            "{notes:?}"
        );
        assert!(
            notes
                .iter()
                .any(|d| d.starts_with("warning cut.zip: the archive is cut off")),
            "{notes:?}"
        );
        // Cut inside its header.
        let (_, _, notes) = open("cut.zip", good[..second + 40].to_vec(), LIMITS);
        assert!(notes.iter().any(|d| d == "error cut.zip: an entry (the one after c/case.json) is cut off in its header [the entry cut off]"), "{notes:?}");
        // Not a zip at all.
        let (files, _, notes) = open("x.zip", b"hello, not a zip".to_vec(), LIMITS);
        assert!(files.is_empty());
        assert_eq!(notes, ["error x.zip: not opened: not a zip archive (or cut off before its first entry) [x.zip]"]);
        // Every single-byte corruption of a deflated archive: no panic.
        let zip = fixture("deflate.zip");
        for i in (0..zip.len()).step_by(7) {
            let mut z = zip.clone();
            z[i] ^= 0x5a;
            let _ = open("bad.zip", z, LIMITS);
        }
        // A corrupted deflate stream is caught (by the decoder or the CRC).
        let mut z = zip.clone();
        z[200] ^= 0xff;
        let (files, _, notes) = open("bad.zip", z, LIMITS);
        assert!(
            !names(&files).contains(&"bad/case/big.txt")
                && !names(&files).contains(&"case/big.txt")
        );
        assert!(
            notes
                .iter()
                .any(|d| d.starts_with("error bad.zip: case/big.txt: corrupt")),
            "{notes:?}"
        );
    }

    #[test]
    fn caps_stop_zip_bombs() {
        // 4 MB of one byte in 4 kB.
        let bomb = fixture("bomb.zip");
        let (files, _, notes) = open("bomb.zip", bomb.clone(), BIG);
        assert_eq!(files[0].1.len(), 4 * 1024 * 1024);
        assert!(notes.is_empty());
        let small = Limits {
            total: 1024 * 1024,
            entries: 100,
        };
        let (files, _, notes) = open("bomb.zip", bomb.clone(), small);
        assert!(files.is_empty());
        assert_eq!(notes, ["error bomb.zip: the entries inflate to more than 1 MB in all (a zip bomb?): 1 entries left out, from bomb/a.txt [1 entries]"]);
        // An entry that states a small size but inflates to more is stopped at its stated size.
        let mut z = bomb.clone();
        for i in 0..z.len() - 4 {
            let at = match &z[i..i + 4] {
                b"PK\x03\x04" => i + 22,
                b"PK\x01\x02" => i + 24,
                _ => continue,
            };
            z[at..at + 4].copy_from_slice(&100u32.to_le_bytes());
        }
        let (files, _, notes) = open("bomb.zip", z, small);
        assert!(files.is_empty());
        assert_eq!(notes, ["error bomb.zip: bomb/a.txt: corrupt: it inflates past its stated size of 100 bytes [bomb/a.txt]"]);
        // Many central entries pointing at the same data: the total cap holds.
        let cd = bomb.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        let eocd = bomb.len() - 22;
        let record = bomb[cd..eocd].to_vec();
        let mut z = bomb[..cd].to_vec();
        for _ in 0..50 {
            z.extend_from_slice(&record);
        }
        let mut end = bomb[eocd..].to_vec();
        end[8..10].copy_from_slice(&50u16.to_le_bytes());
        end[10..12].copy_from_slice(&50u16.to_le_bytes());
        end[12..16].copy_from_slice(&((record.len() * 50) as u32).to_le_bytes());
        z.extend_from_slice(&end);
        let (files, _, notes) = open(
            "overlap.zip",
            z.clone(),
            Limits {
                total: 10 * 1024 * 1024,
                entries: 1000,
            },
        );
        assert_eq!(files.len(), 2, "2 × 4 MB fit in 10 MB");
        assert_eq!(notes, ["error overlap.zip: the entries inflate to more than 10 MB in all (a zip bomb?): 48 entries left out, from bomb/a.txt [48 entries]"]);
        // The entry cap.
        let (files, _, notes) = open(
            "overlap.zip",
            z,
            Limits {
                total: usize::MAX,
                entries: 3,
            },
        );
        assert_eq!(files.len(), 3);
        assert_eq!(notes, ["error overlap.zip: 50 entries: only the first 3 are read (at most 3 in all) [47 entries]"]);
    }
}
