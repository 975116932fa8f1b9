//! The diagnostics panel: problems in the inputs with their file and line.

use ctxlens::js::Value;
use ctxlens::Diagnostic;
use yew::prelude::*;

use crate::shared::Shared;
use crate::state::Laid;

#[derive(Properties, PartialEq)]
pub(super) struct DiagnosticsProps {
    pub(super) notes: Vec<Diagnostic>,
    pub(super) report: Option<Shared<Value>>,
    pub(super) failure: Option<String>,
    pub(super) api: String,
    pub(super) laid: Shared<Laid>,
}

/// A message worded for the page: ctxlens's own CLI wording replaced by what to drop or pick
/// here; pi's own words (what it prints) kept, with what to do on the page after them.
pub(crate) fn for_the_page(message: &str) -> String {
    const PICK: &str = "On this page: pick a model in the settings (Model), or drop your agent dir's models.json on the Agent dir target when the session's model is a custom one; no key is needed (a placeholder stands in).";
    if message.starts_with("no model: pass --model") {
        return format!(
            "no model: the session names no model pi knows, and none is picked. {PICK}"
        );
    }
    if let Some(i) = message.find("pass --model ") {
        // A call's model that these files do not define (the core's advice is the CLI's flag).
        let model = message[i + "pass --model ".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        return format!(
            "{}drop your agent dir's models.json that defines {model} on the Agent dir target, or pick the model in the settings (Model)",
            &message[..i]
        );
    }
    if message.contains("No models available") || message.contains("No API key found") {
        return format!("{message}\n{PICK}");
    }
    if message.contains("Cannot continue from message role: assistant")
        || message.contains("No messages to continue from")
    {
        // pi's words, without the CLI's flags.
        let pi_words = match message.find(" (no prompt: pi's continue;") {
            Some(i) => &message[..i],
            None => message,
        };
        return format!(
            "{pi_words}\nOn this page: pi's continue needs a session that ends with tool results: type a next prompt in the settings (Next prompt), or pick a call of the session to see the request pi sent for it."
        );
    }
    message.to_string()
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
            <span class="what">{for_the_page(message)}</span>
            if let Some(s) = skipped { <span class="skipped">{format!("skipped: {s}")}</span> }
        </li>
    }
}

/// Problems with the inputs: recognising the files, then the assembly's own.
#[function_component(DiagnosticsPanel)]
pub(super) fn diagnostics_panel(p: &DiagnosticsProps) -> Html {
    let from_report: Vec<Value> = p
        .report
        .as_ref()
        .and_then(|r| r.get("diagnostics").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    let count = p.notes.len() + from_report.len() + p.failure.iter().count();
    html! {
        <section class="panel diagnostics-panel" aria-labelledby="diag-h">
            <h2 id="diag-h">{"Diagnostics"}<span class="count">{count}</span></h2>
            <ul class="diagnostics" data-testid="diagnostics">
                if let Some(f) = &p.failure { { diag_row(&p.laid, "error", &p.api, None, f, None) } }
                { for p.notes.iter().map(|d| diag_row(&p.laid, d.severity.as_str(), &d.file, d.line.map(f64::from), &d.message, d.skipped.as_deref())) }
                { for from_report.iter().map(|d| diag_row(&p.laid, d.get_str("severity").unwrap_or("info"), d.get_str("file").unwrap_or(""), d.get("line").and_then(Value::as_f64), d.get_str("message").unwrap_or(""), d.get_str("skipped"))) }
                if count == 0 { <li class="diag none">{"No problems with the inputs."}</li> }
            </ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::for_the_page;

    #[test]
    fn cli_wording_is_replaced_and_pi_s_words_are_kept() {
        let m = for_the_page(
            "no model: pass --model provider/id or a session whose model is configured",
        );
        assert!(!m.contains("--model"), "{m}");
        assert!(m.contains("pick a model in the settings"));
        let pi = "pi would fail here: it prints this and exits with status 1 before sending a request:\nNo models available. Use /login to log into a provider";
        let m = for_the_page(pi);
        assert!(m.starts_with(pi) && m.contains("models.json on the Agent dir target"));
        let m = for_the_page("pi would fail here: Error: Cannot continue from message role: assistant (no prompt: pi's continue; --prompt gives the next request, --call a past one)");
        assert!(
            m.starts_with(
                "pi would fail here: Error: Cannot continue from message role: assistant\n"
            ),
            "{m}"
        );
        assert!(!m.contains("--prompt") && !m.contains("--call"), "{m}");
        assert!(m.contains("type a next prompt") && m.contains("pick a call"));
        let m = for_the_page("call 1: the model that answered it, acme/acme-1, is not one pi can restore from these files (pi finds no model): pi may have made it from --model at the time; pass --model acme/acme-1 to rebuild the call with it");
        assert!(!m.contains("pass --model"), "{m}");
        assert!(m.ends_with("drop your agent dir's models.json that defines acme/acme-1 on the Agent dir target, or pick the model in the settings (Model)"), "{m}");
        assert_eq!(for_the_page("other"), "other");
    }
}
