//! Embeds the demo case (www/demo) into the app: generates a list of (relative path, bytes).

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/demo");
    let demo = demo.canonicalize().expect("www/demo exists");
    println!("cargo:rerun-if-changed={}", demo.display());
    // The case's files, read as every test reads cases (sorted by relative path).
    let files = ctxlens_corpus::read_folder(&demo).expect("www/demo reads");
    let mut src = String::from("/// The demo case: (path relative to www/demo, bytes).\npub static DEMO_FILES: &[(&str, &[u8])] = &[\n");
    for rel in files.keys() {
        let f = demo.join(rel);
        // Only what an assembly reads: inputs and the capture's env.json.
        if rel.starts_with("expected/")
            && rel != "expected/env.json"
            && rel != "expected/request-1.meta.json"
            && rel != "expected/session.after.jsonl"
        {
            continue;
        }
        println!("cargo:rerun-if-changed={}", f.display());
        src.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?})),\n",
            f.display().to_string()
        ));
    }
    src.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("demo_files.rs");
    fs::write(out, src).unwrap();
}
