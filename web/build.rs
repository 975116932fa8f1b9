//! Embeds the demo case (www/demo) into the app: generates a list of (relative path, bytes).

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    // The checkout's folder as cargo gives it to this run, not as it was when this script was
    // compiled (`env!`): a build folder shared by checkouts in other folders reruns the script
    // without compiling it again, and the folder it was compiled in may be gone.
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let demo = Path::new(&manifest_dir).join("../www/demo");
    let demo = demo
        .canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", demo.display()));
    // Absolute paths: when the checkout moves, the old ones are missing and cargo reruns this.
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
