//! The visualizer's Web Worker: parses and assembles off the page's thread (`worker::run`).

fn main() {
    ctxlens_web::worker::run();
}
