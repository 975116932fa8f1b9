//! The module's wasm stack: 16 MB. The tiktoken crate's encoder needs more than the default
//! 1 MB (it traps, "memory access out of bounds"; docs/tokenizers.md). Set here, as a link
//! argument of this crate's cdylib only, so no other wasm build of the workspace (the app, the
//! npm package's core wasm) sees it, and no RUSTFLAGS change invalidates the shared target dir.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-cdylib-link-arg=-zstack-size=16777216");
    }
}
