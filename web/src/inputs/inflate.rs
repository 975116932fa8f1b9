//! A small inflater (raw DEFLATE, RFC 1951) for opening zip archives: stored, fixed and dynamic
//! Huffman blocks. Decoding uses a 10-bit lookup table with a bit-by-bit fallback for longer
//! codes. The output is capped by the caller (`limit`), so a zip bomb stops at the cap instead of
//! filling the memory; every loop consumes input or produces capped output, so it cannot hang.

/// Why inflating stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InflateError {
    /// The data ended before the last block did.
    Truncated,
    /// The output would pass `limit` bytes.
    Limit,
    /// Not valid DEFLATE data (what is wrong).
    Invalid(&'static str),
}

impl std::fmt::Display for InflateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InflateError::Truncated => f.write_str("the compressed data is cut off"),
            InflateError::Limit => f.write_str("it inflates beyond the size allowed"),
            InflateError::Invalid(why) => write!(f, "corrupt deflate data ({why})"),
        }
    }
}

/// What inflating gave: the bytes, and how many input bytes the stream used (the last block's
/// end, rounded up to a byte).
pub struct Inflated {
    pub data: Vec<u8>,
    pub consumed: usize,
}

const FAST_BITS: u32 = 10;
const MAX_BITS: usize = 15;

/// A canonical Huffman code: a lookup table for codes up to `FAST_BITS` long (`symbol << 4 |
/// length`, 0 = longer or unused) and the counts and sorted symbols for the longer ones.
struct Huffman {
    fast: Vec<u16>,
    counts: [u16; MAX_BITS + 1],
    symbols: Vec<u16>,
}

impl Huffman {
    /// From code lengths (0 = symbol unused). Over-subscribed codes are refused; incomplete ones
    /// are allowed (an unused code is refused when it is met).
    fn new(lengths: &[u8]) -> Result<Huffman, InflateError> {
        let mut counts = [0u16; MAX_BITS + 1];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        counts[0] = 0;
        let mut left: i32 = 1;
        for &c in &counts[1..] {
            left = (left << 1) - c as i32;
            if left < 0 {
                return Err(InflateError::Invalid("over-subscribed Huffman code"));
            }
        }
        let mut offs = [0u16; MAX_BITS + 2];
        for len in 1..=MAX_BITS {
            offs[len + 1] = offs[len] + counts[len];
        }
        let mut symbols = vec![0u16; offs[MAX_BITS + 1] as usize];
        for (sym, &l) in lengths.iter().enumerate() {
            if l != 0 {
                symbols[offs[l as usize] as usize] = sym as u16;
                offs[l as usize] += 1;
            }
        }
        // The lookup table: canonical codes, bit-reversed (DEFLATE sends Huffman codes MSB first
        // into an LSB-first stream).
        let mut fast = vec![0u16; 1 << FAST_BITS];
        let mut code: u32 = 0;
        let mut index = 0usize;
        for len in 1..=MAX_BITS as u32 {
            for _ in 0..counts[len as usize] {
                if len <= FAST_BITS {
                    let rev = code.reverse_bits() >> (32 - len);
                    let sym = symbols[index];
                    let mut i = rev;
                    while i < (1 << FAST_BITS) {
                        fast[i as usize] = (sym << 4) | len as u16;
                        i += 1 << len;
                    }
                }
                code += 1;
                index += 1;
            }
            code <<= 1;
        }
        Ok(Huffman {
            fast,
            counts,
            symbols,
        })
    }
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl Bits<'_> {
    fn refill(&mut self) {
        while self.count <= 56 {
            match self.data.get(self.pos) {
                Some(&b) => {
                    self.buf |= (b as u64) << self.count;
                    self.pos += 1;
                    self.count += 8;
                }
                None => break,
            }
        }
    }

    fn bits(&mut self, n: u32) -> Result<u32, InflateError> {
        if n == 0 {
            return Ok(0);
        }
        if self.count < n {
            self.refill();
            if self.count < n {
                return Err(InflateError::Truncated);
            }
        }
        let v = (self.buf & ((1u64 << n) - 1)) as u32;
        self.buf >>= n;
        self.count -= n;
        Ok(v)
    }

    fn decode(&mut self, h: &Huffman) -> Result<u16, InflateError> {
        if self.count < MAX_BITS as u32 {
            self.refill();
        }
        let e = h.fast[(self.buf & ((1 << FAST_BITS) - 1)) as usize];
        if e != 0 {
            let len = (e & 15) as u32;
            if len > self.count {
                return Err(InflateError::Truncated);
            }
            self.buf >>= len;
            self.count -= len;
            return Ok(e >> 4);
        }
        // A longer code: walk it bit by bit (puff's canonical decoding).
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..=MAX_BITS {
            if len as u32 > self.count {
                return Err(InflateError::Truncated);
            }
            code |= ((self.buf >> (len - 1)) & 1) as i32;
            let count = h.counts[len] as i32;
            if code - first < count {
                self.buf >>= len;
                self.count -= len as u32;
                return Ok(h.symbols[(index + code - first) as usize]);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(InflateError::Invalid(
            "a Huffman code that is not in the table",
        ))
    }

    /// Drops the bits up to the next byte boundary and gives the buffered whole bytes back.
    fn align(&mut self) {
        let whole = self.count / 8;
        self.pos -= whole as usize;
        self.buf = 0;
        self.count = 0;
    }
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

fn fixed() -> (Huffman, Huffman) {
    let mut l = [0u8; 288];
    l[..144].fill(8);
    l[144..256].fill(9);
    l[256..280].fill(7);
    l[280..].fill(8);
    (
        Huffman::new(&l).expect("the fixed code is valid"),
        Huffman::new(&[5u8; 30]).expect("the fixed code is valid"),
    )
}

fn dynamic(bits: &mut Bits) -> Result<(Huffman, Huffman), InflateError> {
    let nlen = bits.bits(5)? as usize + 257;
    let ndist = bits.bits(5)? as usize + 1;
    let ncode = bits.bits(4)? as usize + 4;
    if nlen > 286 || ndist > 30 {
        return Err(InflateError::Invalid("too many length or distance codes"));
    }
    let mut cl = [0u8; 19];
    for &i in &CL_ORDER[..ncode] {
        cl[i] = bits.bits(3)? as u8;
    }
    let clh = Huffman::new(&cl)?;
    let mut lengths = [0u8; 286 + 30];
    let mut i = 0;
    while i < nlen + ndist {
        let sym = bits.decode(&clh)?;
        let (value, repeat) = match sym {
            0..=15 => (sym as u8, 1),
            16 => {
                if i == 0 {
                    return Err(InflateError::Invalid("a repeat with no length before it"));
                }
                (lengths[i - 1], 3 + bits.bits(2)? as usize)
            }
            17 => (0, 3 + bits.bits(3)? as usize),
            _ => (0, 11 + bits.bits(7)? as usize),
        };
        if i + repeat > nlen + ndist {
            return Err(InflateError::Invalid("code lengths run past their count"));
        }
        lengths[i..i + repeat].fill(value);
        i += repeat;
    }
    if lengths[256] == 0 {
        return Err(InflateError::Invalid("no end-of-block code"));
    }
    Ok((
        Huffman::new(&lengths[..nlen])?,
        Huffman::new(&lengths[nlen..nlen + ndist])?,
    ))
}

/// Inflates raw DEFLATE `data`, producing at most `limit` bytes. `size_hint` (the size the
/// archive states) only sizes the first allocation, never beyond what `data` could inflate to.
pub fn inflate(data: &[u8], limit: usize, size_hint: usize) -> Result<Inflated, InflateError> {
    // DEFLATE cannot expand more than ~1032:1: a stated size beyond that is not allocated.
    let cap = size_hint
        .min(limit)
        .min(data.len().saturating_mul(1032).saturating_add(1024));
    let mut out: Vec<u8> = Vec::with_capacity(cap);
    let mut bits = Bits {
        data,
        pos: 0,
        buf: 0,
        count: 0,
    };
    loop {
        let last = bits.bits(1)? == 1;
        match bits.bits(2)? {
            0 => {
                bits.align();
                let head = data
                    .get(bits.pos..bits.pos + 4)
                    .ok_or(InflateError::Truncated)?;
                let len = u16::from_le_bytes([head[0], head[1]]);
                let nlen = u16::from_le_bytes([head[2], head[3]]);
                if len != !nlen {
                    return Err(InflateError::Invalid(
                        "a stored block's length does not match its complement",
                    ));
                }
                bits.pos += 4;
                let block = data
                    .get(bits.pos..bits.pos + len as usize)
                    .ok_or(InflateError::Truncated)?;
                if out.len() + block.len() > limit {
                    return Err(InflateError::Limit);
                }
                out.extend_from_slice(block);
                bits.pos += len as usize;
            }
            kind @ (1 | 2) => {
                let (lit, dist) = if kind == 1 {
                    fixed()
                } else {
                    dynamic(&mut bits)?
                };
                loop {
                    let sym = bits.decode(&lit)?;
                    if sym < 256 {
                        if out.len() >= limit {
                            return Err(InflateError::Limit);
                        }
                        out.push(sym as u8);
                        continue;
                    }
                    if sym == 256 {
                        break;
                    }
                    let s = (sym - 257) as usize;
                    if s >= 29 {
                        return Err(InflateError::Invalid("a length code out of range"));
                    }
                    let len = LEN_BASE[s] as usize + bits.bits(LEN_EXTRA[s] as u32)? as usize;
                    let d = bits.decode(&dist)? as usize;
                    if d >= 30 {
                        return Err(InflateError::Invalid("a distance code out of range"));
                    }
                    let distance =
                        DIST_BASE[d] as usize + bits.bits(DIST_EXTRA[d] as u32)? as usize;
                    if distance > out.len() {
                        return Err(InflateError::Invalid(
                            "a distance before the start of the data",
                        ));
                    }
                    if out.len() + len > limit {
                        return Err(InflateError::Limit);
                    }
                    let start = out.len() - distance;
                    if distance >= len {
                        out.extend_from_within(start..start + len);
                    } else {
                        for k in 0..len {
                            out.push(out[start + k]);
                        }
                    }
                }
            }
            _ => return Err(InflateError::Invalid("a block of the reserved type 3")),
        }
        if last {
            break;
        }
    }
    let consumed = bits.pos - (bits.count / 8) as usize;
    Ok(Inflated {
        data: out,
        consumed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_fixed_and_dynamic_blocks() {
        // Stored: "hello" in one final stored block.
        let stored = [0x01, 0x05, 0x00, 0xfa, 0xff, b'h', b'e', b'l', b'l', b'o'];
        let r = inflate(&stored, 100, 5).unwrap();
        assert_eq!(r.data, b"hello");
        assert_eq!(r.consumed, stored.len());
        // Fixed Huffman: zlib's raw deflate (level 9) of "hello hello hello hello".
        let fixed = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01];
        assert_eq!(
            inflate(&fixed, 100, 0).unwrap().data,
            b"hello hello hello hello"
        );
        // Empty input of a fixed block: just end-of-block.
        assert_eq!(inflate(&[0x03, 0x00], 10, 0).unwrap().data, b"");
    }

    #[test]
    fn bad_data_is_an_error_not_a_panic() {
        assert_eq!(inflate(&[], 10, 0).err(), Some(InflateError::Truncated));
        assert_eq!(
            inflate(&[0x07], 10, 0).err(),
            Some(InflateError::Invalid("a block of the reserved type 3"))
        );
        assert!(matches!(
            inflate(&[0x01, 0x05, 0x00, 0x00, 0x00], 10, 0),
            Err(InflateError::Invalid(_))
        ));
        assert_eq!(
            inflate(&[0x01, 0x05, 0x00, 0xfa, 0xff, b'h'], 10, 0).err(),
            Some(InflateError::Truncated)
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
    fn the_limit_stops_a_bomb() {
        // A fixed block: 'a', then a run of 258 copies of the last byte, repeated: far more
        // output than input.
        let mut w = BitWriter::default();
        w.put(1, 1);
        w.put(1, 2);
        w.code(0x30 + b'a' as u32, 8); // literal 'a' (0x30 + sym, 8 bits)
        for _ in 0..10_000 {
            w.code(0xc5, 8); // length symbol 285 (258): 0xc0 + (285 - 280), 8 bits
            w.code(0, 5); // distance code 0 (distance 1)
        }
        w.code(0, 7); // end of block
        let data = w.finish();
        let full = inflate(&data, usize::MAX, 0).unwrap();
        assert_eq!(full.data.len(), 1 + 258 * 10_000);
        assert!(full.data.iter().all(|&b| b == b'a'));
        assert_eq!(
            inflate(&data, 100_000, usize::MAX).err(),
            Some(InflateError::Limit)
        );
    }

    /// Writes DEFLATE bits (LSB first; Huffman codes MSB first).
    #[derive(Default)]
    struct BitWriter {
        out: Vec<u8>,
        acc: u64,
        n: u32,
    }

    impl BitWriter {
        fn put(&mut self, v: u32, bits: u32) {
            self.acc |= (v as u64) << self.n;
            self.n += bits;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }
        fn code(&mut self, code: u32, len: u32) {
            self.put(code.reverse_bits() >> (32 - len), len);
        }
        fn finish(mut self) -> Vec<u8> {
            if self.n > 0 {
                self.out.push(self.acc as u8);
            }
            self.out
        }
    }
}
