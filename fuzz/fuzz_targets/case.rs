//! The case readers: a dropped folder found as a case, its files laid out as the oracle does
//! (case.json, env.json, models.json, settings, the session), the manifest, and the case written
//! back from the inputs.
#![no_main]
use ctxlens::{case, recognize};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let files = ctxlens_fuzz::files(data);
    let dropped = ctxlens_fuzz::dropped(&files);
    let found = recognize::find_case(&dropped);
    let _ = case::manifest(&files);
    let _ = case::find_env_dir(&files);
    if let Ok(inputs) = case::inputs_from_case(&files, None) {
        let _ = case::calls_on_active_branch(&inputs);
        let back = case::case_from_inputs(&inputs, None);
        let _ = case::inputs_from_case(&back, None);
    }
    if let Some((_, found, _)) = found {
        let _ = case::inputs_from_case(&found, None);
    }
});
