//! `ctxlens export … -o case.zip [--redact]`: the inputs as the app's case zip
//! (`ctxlens::case::case_from_inputs` + `ctxlens::zip::case_zip`, the app's own writer), which the
//! app's drop reopens as the same case; `--redact` first replaces what identifies the machine and
//! every key-like string (`ctxlens::redact`) and says what it replaced, never the values.

use std::path::Path;

use ctxlens::case::{case_from_inputs, inputs_from_case, CaseFiles};
use ctxlens::redact::{redact, Identity, Report};
use ctxlens::{Assembly, Inputs};

/// What an export wrote.
pub struct Exported {
    pub files: usize,
    pub bytes: usize,
    /// With `--redact`: what was replaced.
    pub redacted: Option<Report>,
    /// Without `--redact`: how many key-like strings the case holds (that `--redact` would replace).
    pub keys_kept: usize,
    /// With `--redact`: why the redacted case no longer builds a request, if it does not.
    pub rebuilt: Result<(), String>,
}

/// Who this machine's files belong to: the inputs' home, `$USER` (else the home's last
/// component) and the host name (`/proc/sys/kernel/hostname`, `/etc/hostname`, `$HOSTNAME`).
pub fn identity(inputs: &Inputs) -> Identity {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    // `$USER`, else the home's last component when the home is in a folder of homes.
    let user = env("USER").or_else(|| env("LOGNAME")).or_else(|| {
        let home = inputs.home.trim_end_matches('/');
        let (parent, name) = home.rsplit_once('/')?;
        (matches!(parent, "/home" | "/Users") && !name.is_empty()).then(|| name.to_string())
    });
    let mut hosts: Vec<String> = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .chain(env("HOSTNAME"))
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .collect();
    // The short name too (`box` of `box.corp.example.com`).
    let short: Vec<String> = hosts
        .iter()
        .filter_map(|h| h.split_once('.').map(|(s, _)| s.to_string()))
        .collect();
    hosts.extend(short);
    hosts.sort();
    hosts.dedup();
    Identity {
        home: Some(inputs.home.clone()),
        user,
        hosts,
    }
}

/// The case folder of `inputs` (the release `a` rebuilt recorded in it), redacted or not.
pub fn case_files(
    inputs: &Inputs,
    a: &Assembly,
    who: Option<&Identity>,
) -> (CaseFiles, Option<Report>) {
    let files = case_from_inputs(inputs, a.pi.as_ref().map(|p| p.version));
    match who {
        Some(who) => {
            let (files, report) = redact(&files, who);
            (files, Some(report))
        }
        None => (files, None),
    }
}

/// Writes the case zip of `inputs` to `out`.
pub fn export(
    inputs: &Inputs,
    a: &Assembly,
    out: &Path,
    who: Option<&Identity>,
) -> Result<Exported, String> {
    let (files, redacted) = case_files(inputs, a, who);
    let keys_kept = match &redacted {
        Some(_) => 0,
        None => {
            // Only the key kinds: the home path and names are not secrets.
            let (_, r) = redact(&files, &Identity::default());
            r.replaced.iter().map(|k| k.distinct).sum()
        }
    };
    let rebuilt = match &redacted {
        None => Ok(()),
        Some(_) => match inputs_from_case(&files, None) {
            Err(e) => Err(e.0),
            Ok(back) => {
                let b = ctxlens::assemble(&back);
                match (&a.request, &b.request) {
                    (Some(_), None) => Err(b
                        .diagnostics
                        .iter()
                        .find(|d| d.severity == ctxlens::Severity::Error)
                        .map_or_else(|| "no request".to_string(), |d| d.to_string())),
                    _ => Ok(()),
                }
            }
        },
    };
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let zip = ctxlens::zip::case_zip(&ctxlens::zip::folder_name(&stem), &files);
    std::fs::write(out, &zip).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(Exported {
        files: files.len(),
        bytes: zip.len(),
        redacted,
        keys_kept,
        rebuilt,
    })
}
