//! The whole assembly from a case: session, files, settings, models.json, tool set (tools.json),
//! pi's flags (case.json `args`), under the release the input picks or the one detected; then
//! the report as the CLI and the app write it.
#![no_main]
use ctxlens::{assemble, case, report};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files = ctxlens_fuzz::files(data);
    let Ok(mut inputs) = case::inputs_from_case(&files, None) else {
        return;
    };
    if data.len() % 2 == 1 {
        inputs.pi = Some(ctxlens_fuzz::release(data.len() / 2));
    }
    let a = assemble(&inputs);
    for d in &a.diagnostics {
        assert!(!d.file.is_empty(), "a diagnostic without its file: {d:?}");
    }
    let _ = report::assembly_json(&a).to_json();
    let _ = report::summary::text(&a);
});
