//! The visualizer's page. Everything lives in the library (`src/lib.rs`); the worker that runs
//! the core is the other binary, `src/bin/ctxlens-worker.rs`.

fn main() {
    ctxlens_web::app::run();
}
