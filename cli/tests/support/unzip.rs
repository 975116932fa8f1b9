//! Test support: the entries of a stored zip, read by its central directory (what
//! `ctxlens::zip` writes; the app's reader is `web/src/inputs/zip.rs`).

/// The entries of a stored zip, by its central directory (what the writer writes).
pub fn unzip(z: &[u8]) -> Vec<(String, Vec<u8>)> {
    let le16 = |at: usize| u16::from_le_bytes([z[at], z[at + 1]]) as usize;
    let le32 = |at: usize| u32::from_le_bytes([z[at], z[at + 1], z[at + 2], z[at + 3]]) as usize;
    let eocd = z.len() - 22;
    assert_eq!(&z[eocd..eocd + 4], b"PK\x05\x06");
    let (count, mut at) = (le16(eocd + 10), le32(eocd + 16));
    let mut out = Vec::new();
    for _ in 0..count {
        assert_eq!(&z[at..at + 4], b"PK\x01\x02");
        assert_eq!(le16(at + 10), 0, "stored");
        let (size, name_len, extra, comment, local) = (
            le32(at + 20),
            le16(at + 28),
            le16(at + 30),
            le16(at + 32),
            le32(at + 42),
        );
        let name = String::from_utf8(z[at + 46..at + 46 + name_len].to_vec()).unwrap();
        let data = local + 30 + le16(local + 26) + le16(local + 28);
        out.push((name, z[data..data + size].to_vec()));
        at += 46 + name_len + extra + comment;
    }
    out
}
