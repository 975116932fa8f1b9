//! The JSON parser every input goes through (JSON.parse's port), with the error's position.
#![no_main]
use ctxlens::js;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let a = js::parse(&text);
    let b = js::parse_with_position(&text);
    assert_eq!(a.is_ok(), b.is_ok());
    if let Ok(v) = a {
        // JSON.stringify's text reads back to a value that writes the same text (the first
        // write may differ from the input: 1e400 is Infinity, written null).
        let once = v.to_json();
        let back = js::parse(&once).expect("written JSON reads back");
        assert_eq!(back.to_json(), once);
    }
});
