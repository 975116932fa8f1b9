//! What the fuzz targets share: a fuzz input read as a case folder's files, and the release a
//! target runs under.
//!
//! The files format (the seeds in `corpus/` are written in it by `make-seeds.py`): the bytes up
//! to the first `\n@@@ ` are `case.json`; each `\n@@@ PATH\n` starts the file `PATH`, which runs
//! to the next separator. Any bytes read this way: a mutation that breaks a separator only moves
//! bytes from one file to another.

use ctxlens::case::CaseFiles;
use ctxlens::PiVersion;

/// What starts a file: `\n@@@ PATH\n`.
pub const SEPARATOR: &[u8] = b"\n@@@ ";

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The files `bytes` holds (see the module's doc).
pub fn files(bytes: &[u8]) -> CaseFiles {
    let mut out = CaseFiles::new();
    let (first, mut rest) = match find(bytes, SEPARATOR) {
        Some(i) => (&bytes[..i], Some(&bytes[i + SEPARATOR.len()..])),
        None => (bytes, None),
    };
    out.insert("case.json".into(), first.to_vec());
    while let Some(chunk) = rest {
        let (file, next) = match find(chunk, SEPARATOR) {
            Some(i) => (&chunk[..i], Some(&chunk[i + SEPARATOR.len()..])),
            None => (chunk, None),
        };
        let (path, body) = match file.iter().position(|&b| b == b'\n') {
            Some(i) => (&file[..i], &file[i + 1..]),
            None => (file, &[][..]),
        };
        out.insert(String::from_utf8_lossy(path).into_owned(), body.to_vec());
        rest = next;
    }
    out
}

/// The files as the app gets a dropped folder: `(path, bytes)` under a folder named `case/`.
pub fn dropped(files: &CaseFiles) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .map(|(p, b)| (format!("case/{p}"), b.clone()))
        .collect()
}

/// A release chosen by a number taken from the input (its length): every release gets inputs.
pub fn release(n: usize) -> PiVersion {
    PiVersion::ALL[n % PiVersion::ALL.len()]
}
