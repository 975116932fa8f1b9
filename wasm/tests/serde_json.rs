//! Why the binding keeps `ctxlens::js` (JS-semantics JSON) and passes JSON text and bytes rather
//! than serde values: serde_json cannot give the bytes `JSON.stringify(JSON.parse(text))` gives.
//! Each expected string is what Node prints for that input. (The sizes and timings that decided,
//! measured with serde_json and serde-wasm-bindgen in the binding, are in ARCHITECTURE.md.)

fn js(text: &str) -> String {
    ctxlens::js::parse(text).unwrap().to_json()
}

fn serde(text: &str) -> Result<String, serde_json::Error> {
    serde_json::from_str::<serde_json::Value>(text).map(|v| v.to_string())
}

#[test]
fn key_order_integer_like_keys_first_then_insertion() {
    let text = r#"{"b":1,"a":2,"1":3,"0":4}"#;
    let node = r#"{"0":4,"1":3,"b":1,"a":2}"#;
    assert_eq!(js(text), node);
    // serde_json's map is sorted (a BTreeMap), or in insertion order with `preserve_order`:
    // neither is JS's order.
    let s = serde(text).unwrap();
    assert_ne!(s, node);
    assert!(s == r#"{"0":4,"1":3,"a":2,"b":1}"# || s == text, "{s}");
}

#[test]
fn numbers_print_as_js_prints_them() {
    let text = "[1.0,1e21,1e-7,0.000001,-0,12345678901234567890,5e-324,1.5e300]";
    let node = "[1,1e+21,1e-7,0.000001,0,12345678901234567000,5e-324,1.5e+300]";
    assert_eq!(js(text), node);
    // serde_json writes floats its own way (1.0, 1e-6, -0.0) and keeps a u64 exact.
    let s = serde(text).unwrap();
    assert_eq!(
        s,
        "[1.0,1e+21,1e-7,1e-6,-0.0,12345678901234567890,5e-324,1.5e+300]"
    );
}

#[test]
fn lone_surrogates_survive_a_round_trip() {
    let text = r#"["\ud800","a\udc00b"]"#;
    assert_eq!(js(text), text);
    // A Rust String cannot hold a lone surrogate: serde_json refuses the text, a leading or a
    // trailing one alike.
    assert!(serde(r#"["\ud800"]"#).is_err());
    assert!(serde(r#"["a\udc00b"]"#).is_err());
}
