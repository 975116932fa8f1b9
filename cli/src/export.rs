//! `ctxlens export … -o case.zip [--redact]`: the inputs as the app's case zip
//! (`ctxlens::case::case_from_inputs` + `ctxlens::zip::case_zip`, the app's own writer), which the
//! app's drop reopens as the same case; `--redact` first replaces what identifies the machine and
//! every key-like string (`ctxlens::redact`) and says what it replaced, never the values.

use ctxlens::case::{case_from_inputs, inputs_from_case, CaseFiles};
use ctxlens::redact::{redact, Identity, Report};
use ctxlens::{Assembly, Inputs};

use crate::host::Host;

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
/// component when the home is in a folder of homes) and the host name
/// (`/proc/sys/kernel/hostname`, `/etc/hostname`, `$HOSTNAME`, and each one's short form).
pub fn identity(host: &dyn Host, inputs: &Inputs) -> Identity {
    let env = |k: &str| host.env().get(k).filter(|v| !v.is_empty()).cloned();
    let user = env("USER").or_else(|| env("LOGNAME")).or_else(|| {
        let home = inputs.home.trim_end_matches('/');
        let (parent, name) = home.rsplit_once('/')?;
        (matches!(parent, "/home" | "/Users") && !name.is_empty()).then(|| name.to_string())
    });
    let mut hosts: Vec<String> = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|p| host.fs().read_head(p, 256).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .chain(env("HOSTNAME"))
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .collect();
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

/// Where a case keeps the body pi sent (a capture's first request).
pub const SENT: &str = "expected/request-1.json";

/// The case folder of `inputs` (the release `a` rebuilt recorded in it), with the body pi sent
/// when given, redacted or not (the body with the same stand-ins as the rest).
pub fn case_files(
    inputs: &Inputs,
    a: &Assembly,
    who: Option<&Identity>,
    sent: Option<Vec<u8>>,
) -> (CaseFiles, Option<Report>) {
    let mut files = case_from_inputs(inputs, a.pi.as_ref().map(|p| p.version));
    if let Some(body) = sent {
        files.insert(SENT.into(), body);
    }
    match who {
        Some(who) => {
            let (files, report) = redact(&files, who);
            (files, Some(report))
        }
        None => (files, None),
    }
}

/// Writes the case zip of `inputs` to `out` (through the host).
pub fn export(
    host: &mut dyn Host,
    inputs: &Inputs,
    a: &Assembly,
    out: &str,
    who: Option<&Identity>,
    sent: Option<Vec<u8>>,
) -> Result<Exported, String> {
    let (files, redacted) = case_files(inputs, a, who, sent);
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
    let name = out.rsplit('/').next().unwrap_or(out);
    let stem = name.strip_suffix(".zip").unwrap_or(name);
    let zip = ctxlens::zip::case_zip(&ctxlens::zip::folder_name(stem), &files);
    host.write_file(out, &zip)?;
    Ok(Exported {
        files: files.len(),
        bytes: zip.len(),
        redacted,
        keys_kept,
        rebuilt,
    })
}

/// What `export` prints: the file, and what was replaced (or, without `--redact`, a warning on
/// stderr when the case holds key-like strings).
pub fn said(host: &mut dyn Host, path: &str, x: &Exported) -> String {
    let mut out = format!(
        "wrote {path}: {} files, {} bytes\n",
        x.files,
        ctxlens::analysis::findings::thousands(x.bytes)
    );
    match &x.redacted {
        Some(r) => {
            out.push_str(&format!("replaced: {}\n", r.summary()));
            for n in &r.notes {
                out.push_str(&format!("note: {n}\n"));
            }
            if let Err(e) = &x.rebuilt {
                host.stderr(&format!(
                    "ctxlens: warning: the redacted case builds no request: {e}\n"
                ));
            }
        }
        None if x.keys_kept > 0 => host.stderr(&format!(
            "ctxlens: warning: the case holds {} key-like {}; --redact replaces {}\n",
            x.keys_kept,
            if x.keys_kept == 1 {
                "string"
            } else {
                "strings"
            },
            if x.keys_kept == 1 { "it" } else { "them" }
        )),
        None => {}
    }
    out
}
