//! Base64 as the JS runtime does it: Node's `atob` (the WHATWG "forgiving-base64 decode") and
//! the canonical encoder that the AWS SDK's JSON serializer uses for blob members
//! (`JsonShapeSerializer2.writeBase64`, @smithy/core protocols). Bedrock decodes pi's base64
//! image data and redacted-thinking signatures to bytes, and the SDK re-encodes them on the
//! wire, so a non-canonical input (whitespace, missing padding, stray low bits) comes out
//! canonical.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why `atob` threw (`InvalidCharacterError` in both cases).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtobError {
    /// "Invalid character": a character outside the alphabet, `=` not at the end, or too many.
    InvalidCharacter,
    /// "The string to be decoded is not correctly encoded.": one character too many.
    NotCorrectlyEncoded,
}

impl std::fmt::Display for AtobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AtobError::InvalidCharacter => "Invalid character",
            AtobError::NotCorrectlyEncoded => "The string to be decoded is not correctly encoded.",
        })
    }
}

fn sextet(c: char) -> Option<u8> {
    match c {
        'A'..='Z' => Some(c as u8 - b'A'),
        'a'..='z' => Some(c as u8 - b'a' + 26),
        '0'..='9' => Some(c as u8 - b'0' + 52),
        '+' => Some(62),
        '/' => Some(63),
        _ => None,
    }
}

/// The ASCII whitespace that forgiving-base64 skips (tab, LF, FF, CR, space).
fn is_ascii_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{c}' | '\r' | ' ')
}

/// Node 22's `atob(input)` (lib/buffer.js), returning the bytes of the binary string: ASCII
/// whitespace is skipped, at most two `=` and only at the end, padding optional when the
/// length is a multiple of four without it; a remainder of one character throws. Leftover
/// low bits of the last character are discarded.
pub fn atob(input: &str) -> Result<Vec<u8>, AtobError> {
    let mut non_whitespace = 0usize;
    let mut equals = 0usize;
    let mut sextets: Vec<u8> = Vec::with_capacity(input.len());
    for c in input.chars() {
        if is_ascii_whitespace(c) {
            continue;
        }
        non_whitespace += 1;
        if c == '=' {
            equals += 1;
            if equals > 2 {
                return Err(AtobError::InvalidCharacter);
            }
            continue;
        }
        let Some(v) = sextet(c) else {
            return Err(AtobError::InvalidCharacter);
        };
        if equals > 0 {
            return Err(AtobError::InvalidCharacter);
        }
        sextets.push(v);
    }
    let mut remainder = non_whitespace % 4;
    if remainder == 0 {
        remainder = (non_whitespace - equals) % 4;
    } else if equals > 0 {
        return Err(AtobError::InvalidCharacter);
    }
    if remainder == 1 {
        return Err(AtobError::NotCorrectlyEncoded);
    }
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for v in sextets {
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    Ok(out)
}

/// Canonical padded base64 of `data` (`JsonShapeSerializer2.writeBase64`).
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let a = chunk[0] as usize;
        let b = chunk.get(1).copied().unwrap_or(0) as usize;
        let c = chunk.get(2).copied().unwrap_or(0) as usize;
        out.push(ALPHABET[a >> 2] as char);
        out.push(ALPHABET[((a & 0x03) << 4) | (b >> 4)] as char);
        out.push(if chunk.len() > 1 {
            ALPHABET[((b & 0x0f) << 2) | (c >> 6)] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            ALPHABET[c & 0x3f] as char
        } else {
            '='
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node 22's answers, checked with the oracle's node binary.
    #[test]
    fn atob_matches_node() {
        let ok = [
            ("QQ==", "QQ=="),
            ("QQ", "QQ=="),
            ("QR==", "QQ=="),
            ("QUJD", "QUJD"),
            ("QU JD", "QUJD"),
            ("QU\nJD", "QUJD"),
            ("QQ==\n", "QQ=="),
            ("QQ= =", "QQ=="),
            ("", ""),
            ("  ", ""),
        ];
        for (input, canonical) in ok {
            assert_eq!(
                atob(input).map(|b| encode(&b)),
                Ok(canonical.to_string()),
                "{input:?}"
            );
        }
        for bad in ["QQ=", "Q=Q=", "-_", "QUJD=", "QUJDRA===", "AB\u{e9}"] {
            assert_eq!(atob(bad), Err(AtobError::InvalidCharacter), "{bad:?}");
        }
        assert_eq!(atob("Q"), Err(AtobError::NotCorrectlyEncoded));
    }

    #[test]
    fn encode_pads() {
        assert_eq!(encode(b"A"), "QQ==");
        assert_eq!(encode(b"AB"), "QUI=");
        assert_eq!(encode(b"ABC"), "QUJD");
        assert_eq!(encode(&[0xff, 0xfe, 0xfd, 0xfc]), "//79/A==");
    }
}
