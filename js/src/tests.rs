//! Expected values were printed by Node 22 (the runtime pi 0.85.1 runs on).
use super::*;

#[test]
fn short_hash_matches_pi() {
    let cases = [
        ("", "k4n83c7h0j2b"),
        ("a", "m8735310ae7sx"),
        ("call_abc|fc_123", "jp01dsxufnom"),
        ("héllo wörld 🙈", "18pfjaipnd5ky"),
        ("\u{10F83D}", "18lfc671o48onq"), // a lone \ud83d
        (
            "toolu_01ABCDEFGHIJKLMNOPQRSTUV|fc_0123456789abcdef0123456789abcdef",
            "1123mvk1mh53k4",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(short_hash(input), want, "shortHash({input:?})");
    }
}

#[test]
fn numbers_print_like_js() {
    let cases: [(f64, &str); 13] = [
        (0.0, "0"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (123456789012345680000.0, "123456789012345680000"),
        (1.5, "1.5"),
        (-2.25e-10, "-2.25e-10"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (0.1 + 0.2, "0.30000000000000004"),
        (100.0, "100"),
        (1795980794743.0, "1795980794743"),
    ];
    for (n, want) in cases {
        assert_eq!(Value::Number(n).to_json(), want);
    }
}

#[test]
fn strings_escape_like_json_stringify() {
    let v = parse(r#""a\u0001\b\f\n\r\t\"\\\/\u2028\u007f\ud800x\udc00""#).unwrap();
    assert_eq!(
        v.to_json(),
        "\"a\\u0001\\b\\f\\n\\r\\t\\\"\\\\/\u{2028}\u{7f}\\ud800x\\udc00\""
    );
}

#[test]
fn object_keys_order_like_js() {
    let v =
        parse(r#"{"b":1,"2":2,"a":3,"1":4,"b":5,"01":6,"4294967295":7,"4294967294":8}"#).unwrap();
    assert_eq!(
        v.to_json(),
        r#"{"1":4,"2":2,"4294967294":8,"b":5,"a":3,"01":6,"4294967295":7}"#
    );
}

#[test]
fn surrogate_pairs_from_escapes_combine() {
    let v = parse(r#""\ud83d\ude48 \ud83d""#).unwrap();
    let s = v.as_str().unwrap();
    assert!(s.starts_with('🙈'));
    assert_eq!(utf16_len(s), 4);
    assert_eq!(sanitize_surrogates(s), "🙈 ");
    assert_eq!(v.to_json(), "\"🙈 \\ud83d\"");
}

#[test]
fn utf16_lengths_and_slices() {
    assert_eq!(utf16_len("héllo"), 5);
    assert_eq!(utf16_len("🙈x"), 3);
    assert_eq!(js_slice("a🙈b", 0, Some(2)), "a\u{10F83D}"); // cuts the pair: a lone high surrogate
    assert_eq!(utf16_len(&js_slice("a🙈b", 0, Some(2))), 2);
    assert_eq!(js_slice("abcdef", 2, Some(4)), "cd");
    assert_eq!(js_trim("\u{feff} x \u{2028}"), "x");
}

/// The byte-counting `utf16_len` against counting the characters one by one, for texts whose
/// non-ASCII characters fall at every offset of its 32- and 8-byte blocks and in the tail.
#[test]
fn utf16_len_counts_as_js_does_at_every_offset() {
    let lone = js_slice("🙈", 0, Some(1));
    for odd in ["é", "€", "🙈", lone.as_str()] {
        for len in [0usize, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100] {
            for at in (0..=len).step_by(3) {
                let s = format!("{}{odd}{}", "a".repeat(at), "b".repeat(len - at));
                let expected: usize = s
                    .chars()
                    .map(|c| match crate::string::is_lone_surrogate_char(c) {
                        Some(_) => 1,
                        None => c.len_utf16(),
                    })
                    .sum();
                assert_eq!(utf16_len(&s), expected, "{odd:?} at {at} of {len}");
            }
        }
    }
}

#[test]
fn parse_errors_are_located_not_panics() {
    for bad in [
        "",
        "{",
        "[1,]",
        "{\"a\" 1}",
        "\"abc",
        "01x",
        "nul",
        "\"\u{1}\"",
        "[1 2]",
        "-",
    ] {
        let err = parse(bad).unwrap_err();
        assert!(err.offset <= bad.len(), "{bad:?}: {err}");
    }
    let deep = "[".repeat(100_000);
    assert!(parse(&deep).is_err());
    let (_, line, col) = parse_with_position("{\n  \"a\": x\n}").unwrap_err();
    assert_eq!((line, col), (2, 8));
}

#[test]
fn pretty_matches_json_stringify_indent_2() {
    let v = parse(r#"{"a":[1,{"b":[]}],"c":{}}"#).unwrap();
    assert_eq!(
        v.to_json_pretty(2),
        "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ],\n  \"c\": {}\n}"
    );
}

#[test]
fn byte_level_fast_paths_agree_with_char_by_char() {
    // Lengths, escaping and parsing across the 8-byte chunk boundaries, with every kind of
    // character: ASCII, 2/3/4-byte UTF-8, escapes, control characters and lone surrogates.
    let pieces = [
        "a",
        "é",
        "✓",
        "🙈",
        "\"",
        "\\",
        "\n",
        "\u{1}",
        "\u{7f}",
        "\u{10F800}",
        "\u{10FBFF}",
        "\u{10FFFF}",
        "\u{F8FF}",
        "\u{100000}",
    ];
    for n in 0..400usize {
        let mut s = String::new();
        for k in 0..(n % 23) {
            s.push_str(pieces[(n * 7 + k * 3 + k * k) % pieces.len()]);
        }
        let reference: usize = s
            .chars()
            .map(|c| {
                if (0x10000..LONE_SURROGATE_BASE).contains(&(c as u32)) {
                    2
                } else {
                    1
                }
            })
            .sum();
        assert_eq!(utf16_len(&s), reference, "{s:?}");
        let json = Value::str(s.as_str()).to_json();
        assert_eq!(parse(&json).unwrap().as_str(), Some(s.as_str()), "{json:?}");
        assert!(!json.contains('\n') && !json.contains('\u{1}') && !json.contains('\u{10F800}'));
        let lone = json.matches("\\ud8").count()
            + json.matches("\\udb").count()
            + json.matches("\\udf").count();
        assert_eq!(
            lone,
            s.chars()
                .filter(|c| is_lone_surrogate_char(*c).is_some())
                .count(),
            "{json:?}"
        );
    }
}

#[test]
fn to_json_is_written_at_its_exact_size() {
    let text = r#"{"a":[1,2.5,-0,1e21,null,true,false,"x\"\\\b\f\n\r\t\u0001\ud800é🙈"],"":{},"k\n":[],"n":{"m":"\udfff"}}"#;
    let v = parse(text).unwrap();
    let out = v.to_json();
    assert_eq!(out.len(), super::json::compact_len(&v));
    assert_eq!(out.capacity(), out.len());
}

#[test]
fn parsed_strings_are_ranges_of_the_text_and_plain_ones_skip_escaping() {
    let text = Str::from(r#"{"a":"plain text","b":"line\nbreak","c":"caf\u00e9","d":"naïve ✓"}"#);
    let v = parse_str(&text).unwrap();
    let o = v.as_object().unwrap();
    let s = |k: &str| match o.get(k) {
        Some(Value::String(s)) => s.clone(),
        _ => panic!("{k}"),
    };
    // Verbatim strings are plain (written back as their bytes), and so is a short decoded one
    // with nothing to escape; one holding a line break is not.
    assert!(s("a").is_plain() && s("d").is_plain() && s("c").is_plain());
    assert!(!s("b").is_plain());
    assert!(
        !Str::from("a\"b").is_plain()
            && !Str::from("x\u{10F800}").is_plain()
            && Str::from("role").is_plain()
    );
    // Short strings made in Rust are shared: the same buffer, not a copy.
    assert_eq!(
        Str::from("content").as_str().as_ptr(),
        Str::from("content").as_str().as_ptr()
    );
    assert_eq!(s("b").as_str(), "line\nbreak");
    assert_eq!(s("c").as_str(), "café");
    // The writer gives the same bytes either way, and so does the measured length.
    assert_eq!(
        v.to_json(),
        r#"{"a":"plain text","b":"line\nbreak","c":"café","d":"naïve ✓"}"#
    );
    // A range outlives the text it was cut from.
    let a = s("a");
    drop(v);
    drop(text);
    assert_eq!(a.as_str(), "plain text");
    assert_eq!(a.clone(), Str::from("plain text"));
}

#[test]
fn a_plain_string_with_a_lone_surrogate_char_is_not_plain() {
    // U+10F800 is how a lone surrogate is stored: JSON.stringify writes it as \ud800.
    let text = Str::from("[\"x\u{10F800}y\"]");
    let v = parse_str(&text).unwrap();
    let Some(Value::String(s)) = v.as_array().and_then(|a| a.first()) else {
        panic!()
    };
    assert!(!s.is_plain());
    assert_eq!(v.to_json(), "[\"x\\ud800y\"]");
}

#[test]
fn slices_off_char_boundaries_or_out_of_range_fall_back() {
    let s = Str::from("é✓");
    assert_eq!(s.slice(0, 2, false).as_str(), "é");
    assert_eq!(s.slice(2, 5, true).as_str(), "✓");
    assert!(s.slice(2, 5, true).is_plain());
    assert_eq!(s.slice(1, 2, false).as_str(), "");
    assert_eq!(s.slice(3, 99, false).as_str(), "");
    let sub = s.slice(2, 5, false);
    assert_eq!(sub.slice(0, 3, false).as_str(), "✓");
}

#[test]
fn a_builder_checks_its_bytes() {
    let mut b = StrBuilder::new(4);
    unsafe { std::ptr::copy_nonoverlapping("abé".as_ptr(), b.as_mut_ptr(), 4) };
    assert_eq!(b.finish().as_str(), "abé");
    let mut bad = StrBuilder::new(3);
    unsafe { std::ptr::copy_nonoverlapping([b'a', 0xFF, b'b'].as_ptr(), bad.as_mut_ptr(), 3) };
    assert_eq!(bad.finish().as_str(), "a\u{FFFD}b");
    drop(StrBuilder::new(10));
    assert_eq!(StrBuilder::new(0).finish().as_str(), "");
}

#[test]
fn a_builder_filled_a_slice_at_a_time_checks_as_it_goes_and_a_cut_character_with_what_follows() {
    let text = "ab✓é😀z";
    let bytes = text.as_bytes();
    // Every way to cut it in two, checked after each part (a cut inside a character included).
    for cut in 0..=bytes.len() {
        let mut b = StrBuilder::new(bytes.len());
        b.slice_mut(0, cut).copy_from_slice(&bytes[..cut]);
        b.check(cut);
        b.slice_mut(cut, bytes.len()).copy_from_slice(&bytes[cut..]);
        b.check(bytes.len());
        assert_eq!(b.finish().as_str(), text, "cut at {cut}");
    }
    // A bad byte in a checked part, or in the part left for `finish`: the lossy copy.
    let mut b = StrBuilder::new(3);
    b.slice_mut(0, 2).copy_from_slice(&[b'a', 0xFF]);
    b.check(2);
    b.slice_mut(2, 3).copy_from_slice(b"b");
    assert_eq!(b.finish().as_str(), "a\u{FFFD}b");
    let mut b = StrBuilder::new(3);
    b.slice_mut(0, 1).copy_from_slice(b"a");
    b.check(1);
    b.slice_mut(1, 3).copy_from_slice(&[0xFF, b'b']);
    assert_eq!(b.finish().as_str(), "a\u{FFFD}b");
    // A part written again after it was checked is checked again.
    let mut b = StrBuilder::new(2);
    b.slice_mut(0, 2).copy_from_slice(b"ok");
    b.check(2);
    b.slice_mut(0, 1).copy_from_slice(&[0xFF]);
    assert_eq!(b.finish().as_str(), "\u{FFFD}k");
    // Slice by slice, each check starts where the one before stopped: a whole slice is checked
    // once (a character cut at a slice's end waits for the next).
    let mut b = StrBuilder::new(bytes.len());
    let cut = 3 + 1; // inside ✓ (3 bytes from byte 2)
    b.slice_mut(0, cut).copy_from_slice(&bytes[..cut]);
    b.check(cut);
    assert_eq!(b.checked_len(), 2, "up to the cut character");
    b.slice_mut(cut, bytes.len()).copy_from_slice(&bytes[cut..]);
    assert_eq!(
        b.checked_len(),
        2,
        "a write after the checked bytes keeps them checked"
    );
    b.check(bytes.len());
    assert_eq!(b.checked_len(), bytes.len());
    assert_eq!(b.finish().as_str(), text);
    // Slices past the end are clamped.
    let mut b = StrBuilder::new(2);
    assert_eq!(b.slice_mut(1, 9).len(), 1);
    assert_eq!(b.slice_mut(5, 9).len(), 0);
}

#[test]
fn integers_parse_exactly_on_the_fast_path_and_the_rest_as_floats() {
    for (text, expected) in [
        ("0", 0.0),
        ("-0", -0.0),
        ("7", 7.0),
        ("-42", -42.0),
        ("1767225600000", 1767225600000.0),
        ("999999999999999", 999999999999999.0),
        ("9007199254740993", 9007199254740992.0),
        ("12345678901234567890", 12345678901234567000.0),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("-2.5E-3", -0.0025),
    ] {
        let Value::Number(n) = parse(text).unwrap() else {
            panic!("{text}")
        };
        assert_eq!(n.to_bits(), f64::to_bits(expected), "{text}");
    }
    assert!(parse("-").is_err() && parse("01").is_err() && parse("1.").is_err());
}

/// `Number(s)` as Node prints it (values taken from Node 22).
#[test]
fn string_to_number_matches_node() {
    use super::string_to_number as n;
    let cases: &[(&str, f64)] = &[
        ("5.", 5.0),
        (".5", 0.5),
        ("1.e5", 100000.0),
        ("1e5", 100000.0),
        ("+.5e-3", 0.0005),
        ("0x1F", 31.0),
        ("0X1f", 31.0),
        (" 12 ", 12.0),
        ("Infinity", f64::INFINITY),
        ("-Infinity", f64::NEG_INFINITY),
        ("+Infinity", f64::INFINITY),
        ("0o17", 15.0),
        ("0x1fffffffffffffffff", 590295810358705700000.0),
        ("\u{a0} 7 \u{feff}", 7.0),
        ("", 0.0),
    ];
    for (s, want) in cases {
        assert_eq!(n(s), *want, "{s:?}");
    }
    for s in [
        "0x+1f", "0x", "-0x10", "1_000", "infinity", "1e", "e5", ".", "+", "0b102", "00x1", "1,5",
        "nan", "inf",
    ] {
        assert!(n(s).is_nan(), "{s:?}");
    }
}

/// A regex over an ASCII class without the `u` flag replaces per UTF-16 unit.
#[test]
fn replace_units_outside_counts_utf16_units() {
    let id_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    assert_eq!(
        super::replace_units_outside("call_1|fc-2", id_char, "_"),
        "call_1_fc-2"
    );
    assert_eq!(super::replace_units_outside("a🔧b", id_char, "_"), "a__b");
    assert_eq!(super::replace_units_outside("é", id_char, "_"), "_");
    let lone = char::from_u32(super::LONE_SURROGATE_BASE + 5).unwrap();
    assert_eq!(
        super::replace_units_outside(&format!("x{lone}"), id_char, "_"),
        "x_"
    );
    assert_eq!(super::replace_units_outside("a🔧", |b| b == b'a', ""), "a");
}

/// V8's `JSON.parse` has no depth limit: a line nested 100,000 levels parses, without recursion;
/// the part below `MAX_BUILT_DEPTH` is kept as its text and written back exactly.
#[test]
fn deep_nesting_parses_without_recursion() {
    use super::json::MAX_BUILT_DEPTH;
    for (open, close) in [("{\"a\":", "}"), ("[", "]")] {
        let n = 100_000;
        let text = format!(
            "{{\"type\":\"custom\",\"data\":{}1{}}}",
            open.repeat(n),
            close.repeat(n)
        );
        let (v, depth) = super::parse_str_with_depth(&Str::from(text.as_str())).expect("parses");
        assert_eq!(depth, n + 1);
        assert_eq!(v.to_json(), text);
        // The deep part is text from the first unbuilt level on.
        let mut cur = v.get("data").expect("data");
        let mut levels = 1;
        loop {
            match cur {
                Value::Object(o) => cur = o.get("a").expect("a"),
                Value::Array(a) => cur = &a[0],
                Value::Deep(t) => {
                    assert!(t.starts_with(open));
                    break;
                }
                other => panic!("unexpected {other:?}"),
            }
            levels += 1;
        }
        assert_eq!(levels + 1, MAX_BUILT_DEPTH + 1);
        drop(v);
    }
    // Errors inside the unbuilt part are still errors, at their offset.
    let bad = format!("{}1,]{}", "[".repeat(3000), "]".repeat(2999));
    assert!(super::parse(&bad).is_err());
    let bad = format!("{}\"a\" 1}}{}", "{\"k\":".repeat(3000), "}".repeat(2999));
    assert!(super::parse(&bad).is_err());
    // Empty containers and siblings below the cut.
    let text = format!(
        "{}[{{}},[],{{\"x\":[1,2]}}]{}",
        "[".repeat(2100),
        "]".repeat(2100)
    );
    assert_eq!(super::parse(&text).expect("parses").to_json(), text);
}
