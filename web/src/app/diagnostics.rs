//! The diagnostics panel: problems in the inputs with their file and line.

use ctxlens::Diagnostic;
use yew::prelude::*;

use crate::shared::Shared;
use crate::state::Laid;

#[derive(Properties, PartialEq)]
pub(super) struct DiagnosticsProps {
    pub(super) notes: Vec<Diagnostic>,
    pub(super) report: Option<Shared<crate::report::Report>>,
    pub(super) failure: Option<String>,
    pub(super) api: String,
    pub(super) laid: Shared<Laid>,
}

pub(super) fn diag_row(
    laid: &Laid,
    severity: &str,
    file: &str,
    line: Option<f64>,
    message: &str,
    skipped: Option<&str>,
) -> Html {
    // A dropped file is named as the user dropped it; the title says where it was laid.
    let (shown, title) = match laid.origins.get(file) {
        Some(original) => (original.as_str(), format!("laid out at {file}")),
        None => (file, String::new()),
    };
    let loc = match line {
        Some(l) => format!("{shown}:{l}"),
        None => shown.to_string(),
    };
    html! {
        <li class={classes!("diag", severity.to_string())}>
            <span class="sev">{severity}</span>
            <code class="where" title={title}>{loc}</code>
            <span class="what">{crate::words::for_the_page(message)}</span>
            if let Some(s) = skipped { <span class="skipped">{format!("skipped: {s}")}</span> }
        </li>
    }
}

/// Problems with the inputs: recognising the files, then the assembly's own.
#[function_component(DiagnosticsPanel)]
pub(super) fn diagnostics_panel(p: &DiagnosticsProps) -> Html {
    let from_report = p.report.as_ref().map_or(&[][..], |r| &r.diagnostics[..]);
    let unread = p.report.as_ref().map_or(&[][..], |r| &r.unread[..]);
    let count = p.notes.len() + from_report.len() + unread.len() + p.failure.iter().count();
    html! {
        <section class="panel diagnostics-panel" aria-labelledby="diag-h">
            <h2 id="diag-h">{"Diagnostics"}<span class="count">{count}</span></h2>
            <ul class="diagnostics" data-testid="diagnostics">
                if let Some(f) = &p.failure { { diag_row(&p.laid, "error", &p.api, None, f, None) } }
                { for p.notes.iter().map(|d| diag_row(&p.laid, d.severity.as_str(), &d.file, d.line.map(f64::from), &d.message, d.skipped.as_deref())) }
                { for from_report.iter().map(|d| diag_row(&p.laid, d.severity.as_str(), &d.file, d.line.map(|l| l as f64), &d.message, d.skipped.as_deref())) }
                { for unread.iter().map(|part| diag_row(&p.laid, "error", "report", None, &unread_message(part), Some(part))) }
                if count == 0 { <li class="diag none">{"No problems with the inputs."}</li> }
            </ul>
        </section>
    }
}

/// Why a part of the report is missing ([`crate::report::Report::unread`]).
fn unread_message(part: &str) -> String {
    match part {
        // Sent after the report, it did not come (the worker stopped) or did not read.
        "session" => "the session's entries, calls and usage timeline did not reach the page (the worker stopped before it sent them, or they did not read): the Session, Transcript and Usage views leave them out".into(),
        _ => format!("the report's {part} did not read as this page expects them (the worker and the page are from different builds?): the views leave them out"),
    }
}
