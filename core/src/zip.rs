//! Zip archives of case folders: the writer behind the app's **Export case (.zip)** and the
//! CLI's `export` (STORE only, CRC-32, UTF-8 names, a fixed date so an export is reproducible;
//! enough for `unzip`, every file manager and the app's reader to open the case folder again).
//! Pure: bytes in, bytes out. The reader lives with the app's drop handling
//! (`web/src/inputs/zip.rs`), which reopens what this writes.

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::case::CaseFiles;

/// CRC-32 (IEEE 802.3, reflected, as zip uses it).
pub fn crc32(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    let mut c = 0xFFFF_FFFFu32;
    for &b in data {
        c = table[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    c ^ 0xFFFF_FFFF
}

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A zip archive of `(path, bytes)` entries, stored. Paths use `/`. Sizes beyond 4 GiB are not
/// supported (no zip64): such an entry is cut off by the caller's limits long before.
pub fn write<'a>(entries: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    // DOS date 1980-01-01 00:00: the export is reproducible.
    const TIME: u16 = 0;
    const DATE: u16 = (1 << 5) | 1;
    const UTF8: u16 = 1 << 11;
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut count: u16 = 0;
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let size = data.len() as u32;
        // Local file header.
        u32le(&mut out, 0x0403_4b50);
        u16le(&mut out, 20);
        u16le(&mut out, UTF8);
        u16le(&mut out, 0);
        u16le(&mut out, TIME);
        u16le(&mut out, DATE);
        u32le(&mut out, crc);
        u32le(&mut out, size);
        u32le(&mut out, size);
        u16le(&mut out, name.len() as u16);
        u16le(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Central directory record.
        u32le(&mut central, 0x0201_4b50);
        u16le(&mut central, 0x0314); // made by: unix, 2.0
        u16le(&mut central, 20);
        u16le(&mut central, UTF8);
        u16le(&mut central, 0);
        u16le(&mut central, TIME);
        u16le(&mut central, DATE);
        u32le(&mut central, crc);
        u32le(&mut central, size);
        u32le(&mut central, size);
        u16le(&mut central, name.len() as u16);
        u16le(&mut central, 0);
        u16le(&mut central, 0);
        u16le(&mut central, 0);
        u16le(&mut central, 0);
        u32le(&mut central, 0o100644 << 16);
        u32le(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
        count = count.saturating_add(1);
    }
    let cd_offset = out.len() as u32;
    let cd_size = central.len() as u32;
    out.extend_from_slice(&central);
    u32le(&mut out, 0x0605_4b50);
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    u16le(&mut out, count);
    u16le(&mut out, count);
    u32le(&mut out, cd_size);
    u32le(&mut out, cd_offset);
    u16le(&mut out, 0);
    out
}

/// The name of the folder an export puts the case in: the scenario's name with anything but
/// ASCII letters, digits, `-`, `_` and `.` made `-`, trimmed of `-`; `ctxlens-case` when
/// nothing is left.
pub fn folder_name(name: &str) -> String {
    let folder: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .trim_matches('-')
        .to_string();
    if folder.is_empty() || folder.chars().all(|c| c == '.') {
        "ctxlens-case".to_string()
    } else {
        folder
    }
}

/// A case folder as the export writes it: every file under `folder/`, in path order.
pub fn case_zip(folder: &str, files: &CaseFiles) -> Vec<u8> {
    let entries: Vec<(String, &[u8])> = files
        .iter()
        .map(|(k, v)| (format!("{folder}/{k}"), v.as_slice()))
        .collect();
    write(entries.iter().map(|(k, v)| (k.as_str(), *v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_known_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn archive_layout() {
        let z = write([("a/b.txt", &b"hello"[..]), ("c.json", &b"{}"[..])]);
        assert_eq!(&z[..4], b"PK\x03\x04");
        let eocd = &z[z.len() - 22..];
        assert_eq!(&eocd[..4], b"PK\x05\x06");
        assert_eq!(u16::from_le_bytes([eocd[10], eocd[11]]), 2);
        // The first entry's data follows its 30-byte header and name.
        assert_eq!(&z[30 + 7..30 + 7 + 5], b"hello");
    }

    #[test]
    fn folder_names() {
        assert_eq!(folder_name("my session (2).jsonl"), "my-session--2-.jsonl");
        assert_eq!(folder_name("  "), "ctxlens-case");
        assert_eq!(folder_name(".."), "ctxlens-case");
        let mut files = CaseFiles::new();
        files.insert("case.json".into(), b"{}".to_vec());
        let z = case_zip("c", &files);
        assert_eq!(&z[30..30 + 11], b"c/case.json");
    }
}
