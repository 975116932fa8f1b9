//! The header's pi release picker: auto (the release the core chooses, and why) or one given.
//!
//! Auto is the CLI's choice with no `--pi`: the release that made the capture when the session
//! is the capture's own, else what the session proves (its system messages, entry types, texts,
//! dates), else the newest; a past call of a session a later pi continued is rebuilt by the
//! release that made it. The report's `pi` says which and why (`Choice::explain`), shown under
//! the picker in the page's words.

use crate::report::Report;
use ctxlens::PiVersion;
use yew::prelude::*;

use crate::shared::Shared;

#[derive(Properties, PartialEq)]
pub(super) struct PiPickerProps {
    pub(super) report: Option<Shared<crate::report::Report>>,
    /// The release given in the picker, if any.
    pub(super) asked: Option<PiVersion>,
    pub(super) on_pick: Callback<Option<PiVersion>>,
}

/// The core's reason (`Reason::as_str`) in a pi user's words, for the auto entry.
fn reason_words(reason: &str) -> &'static str {
    match reason {
        "given" => "picked",
        "captured" => "the capture's",
        "installed" => "installed",
        "detected" => "from the session",
        "call" => "this call's",
        "default" => "newest",
        _ => "",
    }
}

/// The release rebuilt, the core's reason and its explanation worded for the page.
fn rebuilt(report: Option<&Report>) -> (Option<String>, String, String) {
    let pi = report.and_then(|r| r.pi.as_ref());
    let explanation = pi
        .and_then(|p| p.explanation.as_deref())
        .map(crate::words::for_the_page)
        .unwrap_or_else(|| "the release is chosen when the report comes".into());
    (
        pi.map(|p| p.version.as_str().to_string()),
        pi.map(|p| p.reason.as_str().to_string())
            .unwrap_or_default(),
        explanation,
    )
}

#[function_component(PiPicker)]
pub(super) fn pi_picker(p: &PiPickerProps) -> Html {
    let (version, reason, explanation) = rebuilt(p.report.as_deref());
    let onchange = {
        let on_pick = p.on_pick.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target_dyn_into::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default();
            on_pick.emit(value.parse().ok());
        })
    };
    let auto_label = match (&version, p.asked) {
        (Some(v), None) => format!("auto: {v} ({})", reason_words(&reason)),
        _ => "auto".to_string(),
    };
    let asked = p.asked;
    html! {
        <div class="pi-choice">
            <label class="pi-picker" title="Auto takes the capture's release when the session is the capture's own, else the one the session proves (its system messages, entry types, texts, dates), else the newest; a past call of a session a later pi continued is rebuilt by the release that made it.">
                <span class="muted">{"pi"}</span>
                <select data-testid="pi-version" data-rebuilt={version.clone()} data-reason={reason.clone()} {onchange}>
                    <option value="auto" selected={asked.is_none()}>{auto_label}</option>
                    { for PiVersion::ALL.iter().rev().map(|v| html! {
                        <option value={v.as_str()} selected={asked == Some(*v)}>{format!("{v} ({})", v.released())}</option>
                    }) }
                </select>
            </label>
            if version.is_some() {
                <span class="pi-why muted small" data-testid="pi-why" data-reason={reason} title={explanation.clone()}>{explanation}</span>
            }
        </div>
    }
}

/// The release a past call was rebuilt with, for the call bar: `pi 0.85.1, the release that
/// made this call (a later pi continued the session from line 12)` when a later pi continued the
/// session (the report's `callRun`), else the release and its reason.
pub(super) fn call_release(report: Option<&Report>) -> Html {
    let (Some(version), reason, explanation) = rebuilt(report) else {
        return Html::default();
    };
    let run = report
        .and_then(|r| r.pi.as_ref())
        .and_then(|p| p.call_run.as_ref());
    let text = match (reason.as_str(), run) {
        ("call", Some(run)) => format!(
            "pi {version}, the release that made this call (a later pi continued the session from line {})",
            run.next_run_line
        ),
        ("call", None) => format!("pi {version}, the release that made this call"),
        (r, _) => format!("pi {version} ({})", reason_words(r)),
    };
    html! {
        <span class="call-pi" data-testid="call-pi" data-version={version} data-reason={reason} title={explanation}>{text}</span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_of_the_core_has_words() {
        use ctxlens::pi::choice::Reason;
        for r in [
            Reason::Given,
            Reason::Captured,
            Reason::Installed,
            Reason::Detected,
            Reason::Call,
            Reason::Default,
        ] {
            assert!(!reason_words(r.as_str()).is_empty(), "{r:?}");
        }
    }

    #[test]
    fn the_explanation_names_the_pi_menu_not_the_flag() {
        use ctxlens::report::types::PiRelease;
        let pi = PiRelease {
            version: PiVersion::V1_5_2,
            reason: ctxlens::pi::choice::Reason::Detected,
            explanation: Some("pi 1.5.2 (detected from the session, likely: x; pi 1.5.0, 1.5.2 write sessions alike: nothing in this one tells them apart; rebuilding pi 1.5.2 (the newest), --pi 1.5.0 for another)".into()),
            ..PiRelease::default()
        };
        let mut r = Report::default();
        r.pi = Some(pi);
        let (v, reason, e) = rebuilt(Some(&r));
        assert_eq!((v.as_deref(), reason.as_str()), (Some("1.5.2"), "detected"));
        assert!(
            !e.contains("--pi") && e.contains("pick pi 1.5.0 in the pi menu"),
            "{e}"
        );
    }
}
