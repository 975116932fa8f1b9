//! The JSON parser every input goes through (JSON.parse's port), with the error's position.
#![no_main]
use ctxlens::js;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let a = js::parse(&text);
    let b = js::parse_with_position(&text);
    assert_eq!(a.is_ok(), b.is_ok());
    // A character of U+10F800–U+10FFFF in the text is read as the lone surrogate it stands for
    // (`js::LONE_SURROGATE_BASE`; the session reader says so): written as `\udXXX`, two of them
    // read back as a pair. The round trip holds for every other text.
    let stand_in = text.chars().any(|c| c as u32 >= js::LONE_SURROGATE_BASE);
    if let (Ok(v), false) = (&a, stand_in) {
        // Every member of a parsed object is found at a line of the text.
        let lines = text.matches('\n').count() as u32 + 1;
        for (k, _) in v.as_object().into_iter().flat_map(|o| o.iter()).take(8) {
            let line = js::locate::line_of(&text, &[js::locate::Step::Key(k.as_str())]);
            assert!(line.is_some_and(|l| (1..=lines).contains(&l)), "{k:?}: {line:?}");
        }
    }
    if let (Ok(v), false) = (a, stand_in) {
        // JSON.stringify's text reads back to a value that writes the same text (the first
        // write may differ from the input: 1e400 is Infinity, written null).
        let once = v.to_json();
        let back = js::parse(&once).expect("written JSON reads back");
        assert_eq!(back.to_json(), once);
    }
});
