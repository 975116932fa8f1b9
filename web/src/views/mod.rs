//! The views of one assembly. Every view takes [`ViewProps`]: the report of the current protocol
//! (`ctxlens::report::assembly_json`, plus `findings`, `usage`, `provenance` when the core
//! provides them), the reports of other protocols (for the compare mode), and the selection. A
//! large body's `provenance` stays in the worker: `prov_answers` / `on_prov` ask it path by path.
//! The comparison of two protocols comes from the worker too (`compares` / `on_compare`: the
//! core's `ctxlens::report::compare_json`), and so does the comparison of two pi releases
//! (`upgrades` / `on_upgrade`: `ctxlens::report::upgrade::to_json`), and so do the what-ifs
//! (`whatifs` / `on_whatif`: `ctxlens::report::whatif::to_json`; the changes on screen are
//! `whatif`, kept in the URL hash).
//!
//! The shell calls [`view_nav`] (the list of views for its navigation), [`ViewSwitch`] (renders
//! the chosen view) and [`StageView`] (the selected pipeline stage, for the stepper slot).

use ctxlens::calls::CallRef;
use std::collections::BTreeMap;

use ctxlens::js::Value;
use yew::prelude::*;

use crate::report::Report;
use crate::shared::Shared;

#[path = "../components/mod.rs"]
pub mod components;

pub(crate) mod util;

mod findings;

/// Rows of the History view's message table: the largest messages. The worker sends no more of
/// a report's `byMessage` than these.
pub const MESSAGE_ROWS: usize = 200;
/// The events a stage lists one by one; the worker sends the rest of a stage's events counted
/// and grouped (`eventsLeft`).
pub const STAGE_EVENTS: usize = 200;
mod history;
mod overview;
mod prompt;
mod protocols;
mod request;
mod session;
mod stage;
mod sysmsg;
mod tokens;
mod tools;
mod transcript;
mod upgrade;
mod usage;
pub(crate) mod whatif;

pub use components::thousands;
pub use request::{prov_answer, provenance_map, OriginIndex, ProvLookup};
pub use stage::StageView;
pub use util::{body_pending, expect_parsed_body, forget_parsed_body, prime_parsed_body};

/// `old` is now `new` (the same report with its session parts, which came after it): what the
/// views keep for a report (its body parsed, its origins read) goes with it.
pub fn report_replaced(
    old: &crate::shared::Shared<crate::report::Report>,
    new: &crate::shared::Shared<crate::report::Report>,
) {
    util::rekey_parsed_body(old, new);
    request::rekey_provenance(old, new);
}

/// The worker's comparison of two protocols, as the Protocols view sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    /// Asked for; the answer is on its way.
    Pending,
    /// The core's comparison of the two assemblies (`ctxlens::report::compare::report`).
    Ready(Shared<ctxlens::report::types::Comparison>),
    /// Why there is none (the worker stopped or crashed, or could not compare).
    Failed(String),
}

/// The worker's upgrade comparison (the same inputs under another pi release), as the Protocols
/// view sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Upgrading {
    /// Asked for: what the worker is doing (fetching the release's data, rebuilding, counting).
    Pending { stage: String, done: f64 },
    /// `ctxlens::report::upgrade::to_json` of the two assemblies.
    Ready(Shared<Value>),
    /// Why there is none.
    Failed(String),
}

impl Upgrading {
    pub fn pending(&self) -> bool {
        matches!(self, Upgrading::Pending { .. })
    }

    /// What a comparison view shows for `key` among `answers`: its answer once ready; before,
    /// the same comparison without tokens if that one is ready (it stays on screen while the
    /// one with tokens comes); else what there is of `key` (pending, failed, or nothing).
    pub fn shown<K: Ord>(
        answers: &BTreeMap<K, Upgrading>,
        key: &K,
        without_tokens: &K,
    ) -> Option<Upgrading> {
        let ready = |k: &K| {
            answers
                .get(k)
                .filter(|u| matches!(u, Upgrading::Ready(_)))
                .cloned()
        };
        ready(key)
            .or_else(|| ready(without_tokens))
            .or_else(|| answers.get(key).cloned())
    }
}

/// Whether the report on screen has been counted with its model's vocabulary (the worker then
/// has it, and a comparison asked for now comes with tokens).
pub fn counted(tokens: &Option<crate::worker::TokenUpdate>) -> bool {
    matches!(
        tokens,
        Some(crate::worker::TokenUpdate::Ready {
            vocabulary: crate::worker::Vocabulary::Known { .. },
            ..
        })
    )
}

/// A what-if asked of the worker: (protocol, the changes in order, with tokens).
pub type WhatIfKey = (String, Vec<String>, bool);

#[derive(Clone, PartialEq, Properties)]
pub struct ViewProps {
    /// The report of the protocol on screen.
    pub report: Shared<crate::report::Report>,
    /// Reports by api (the current one included), filled as they are assembled.
    pub reports: Shared<BTreeMap<String, Shared<crate::report::Report>>>,
    /// The current protocol.
    pub api: AttrValue,
    /// The selected pipeline stage (index into `report.stages`).
    pub stage: usize,
    pub on_stage: Callback<usize>,
    /// The selected item, as a key: `section:<i>`, `tool:<name>`, `entry:<id>`, `path:<json path>`,
    /// `finding:<id>`, ...
    pub selection: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
    /// `None`: the report carries its own `provenance`. `Some`: it was left out (a large body)
    /// and the worker answers for one body path at a time: the answers so far, path →
    /// [`prov_answer`] (Null while asked), asked for with `on_prov`.
    #[prop_or_default]
    pub prov_answers: Option<Shared<BTreeMap<String, Value>>>,
    #[prop_or_default]
    pub on_prov: Callback<AttrValue>,
    /// The comparisons asked of the worker, by (current api, other api).
    #[prop_or_default]
    pub compares: Shared<BTreeMap<(String, String), Comparison>>,
    /// Asks the worker to compare (current api, other api) (again, after a failure).
    #[prop_or_default]
    pub on_compare: Callback<(String, String)>,
    /// The upgrade comparisons asked of the worker, by (current api, pi release, with tokens).
    #[prop_or_default]
    pub upgrades: Shared<BTreeMap<(String, String, bool), Upgrading>>,
    /// Asks the worker what the request of (api) becomes under pi release (version), with
    /// tokens (when the model's vocabulary is loaded) or not.
    #[prop_or_default]
    pub on_upgrade: Callback<(String, String, bool)>,
    /// The what-ifs asked of the worker (the request with changes made), by [`WhatIfKey`].
    #[prop_or_default]
    pub whatifs: Shared<BTreeMap<WhatIfKey, Upgrading>>,
    /// Says which what-if the view wants now (each time it changes; empty changes: none; again
    /// after a failure): the reducer asks the worker, one what-if at a time.
    #[prop_or_default]
    pub on_whatif: Callback<WhatIfKey>,
    /// The What-if view's changes (`ViewState::whatif`, in the hash), and how to set them.
    #[prop_or_default]
    pub whatif: Vec<String>,
    #[prop_or_default]
    pub on_set_whatif: Callback<Vec<String>>,
    /// What the Protocols view compares with (`ViewState::with`: a protocol, or `pi-<version>`).
    #[prop_or_default]
    pub with: Option<AttrValue>,
    #[prop_or_default]
    pub on_with: Callback<Option<String>>,
    /// The files laid out on the page (the transcript reads an opened entry in full from the
    /// session file, by its line).
    #[prop_or_default]
    pub laid: Option<Shared<crate::state::Laid>>,
    /// The call picker: the call asked for (its index on the active branch, `report.calls`, or
    /// an answer on another branch by its entry id), `None` for the next request; `on_call` asks
    /// for another (the worker rebuilds it).
    #[prop_or_default]
    pub call: Option<CallRef>,
    #[prop_or_default]
    pub on_call: Callback<Option<CallRef>>,
    /// The token counts of this report (the worker's, when asked for): `None` until asked.
    #[prop_or_default]
    pub tokens: Option<crate::worker::TokenUpdate>,
    /// Whether the report's body parsed is here (false while it comes from the worker after the
    /// report: [`util::parsed_body`] is `None` until then), so the views that show it render
    /// again when it comes.
    #[prop_or_default]
    pub body_ready: bool,
}

/// The call of `report.calls` answered on session line `line`: its index (1-based).
pub fn call_on_line(report: &Report, line: f64) -> Option<usize> {
    report
        .calls
        .iter()
        .find(|c| c.line as f64 == line)
        .map(|c| c.index)
}

/// The index of the call of `report.calls` that is entry `id`.
pub fn call_of_entry(report: &Report, id: &str) -> Option<usize> {
    report
        .calls
        .iter()
        .find(|c| c.entry_id.as_deref() == Some(id))
        .map(|c| c.index)
}

/// The views, in navigation order: (key, label). Keys are stable (they go into the hash).
pub fn view_nav() -> Vec<(&'static str, &'static str)> {
    vec![
        ("overview", "Overview"),
        ("session", "Session"),
        ("transcript", "Transcript"),
        ("prompt", "System prompt"),
        ("tools", "Tools"),
        ("history", "History"),
        ("request", "Request"),
        ("protocols", "Protocols"),
        ("usage", "Usage & cache"),
        ("findings", "Findings"),
        ("whatif", "What if"),
    ]
}

/// The view that shows a selection key best (`tool:edit` → `tools`, `section:3` → `prompt`,
/// `entry:…` → `session`, `path:…` → `request`, `kind:…`/`role:…` → `history`), so the shell can
/// switch to it when a finding's subject is chosen.
pub fn view_for_selection(key: &str) -> Option<&'static str> {
    let (prefix, _) = key.split_once(':')?;
    Some(match prefix {
        "tool" => "tools",
        "section" => "prompt",
        "entry" => "session",
        "path" => "request",
        "kind" | "role" => "history",
        "finding" => "findings",
        _ => return None,
    })
}

/// A selection key for people: `tool:edit` → `tool edit`, `section:3` → `system prompt section 4`.
pub fn subject_label(key: &str) -> String {
    match key.split_once(':') {
        Some(("tool", n)) => format!("tool {n}"),
        Some(("section", i)) => match i.parse::<usize>() {
            Ok(i) => format!("system prompt section {}", i + 1),
            Err(_) => format!("system prompt section {i}"),
        },
        Some(("entry", id)) => format!("session entry {id}"),
        Some(("path", p)) => format!("body {p}"),
        Some(("kind", k)) => format!("history: {k}"),
        _ => key.to_string(),
    }
}

#[derive(Properties, PartialEq)]
pub struct ViewSwitchProps {
    /// A key from [`view_nav`] (or `stage`); an unknown key shows the overview.
    pub view: AttrValue,
    pub props: ViewProps,
}

/// Renders the view named by `view`.
#[function_component]
pub fn ViewSwitch(p: &ViewSwitchProps) -> Html {
    let props = p.props.clone();
    let inner = match p.view.as_str() {
        "stage" => html! { <StageView ..props /> },
        "session" => html! { <session::SessionView ..props /> },
        "transcript" => html! { <transcript::TranscriptView ..props /> },
        "prompt" => html! { <prompt::PromptView ..props /> },
        "tools" => html! { <tools::ToolsView ..props /> },
        "history" => html! { <history::HistoryView ..props /> },
        "request" => html! { <request::RequestView ..props /> },
        "protocols" => html! { <protocols::ProtocolsView ..props /> },
        "usage" => html! { <usage::UsageView ..props /> },
        "findings" => html! { <findings::FindingsView ..props /> },
        "whatif" => html! { <whatif::WhatIfView ..props /> },
        _ => html! { <overview::OverviewView ..props /> },
    };
    html! { <div class="view" data-testid={format!("view-{}", p.view)}>{inner}</div> }
}

#[cfg(test)]
mod tests {
    #[test]
    fn selections_and_their_views() {
        assert_eq!(super::view_for_selection("tool:edit"), Some("tools"));
        assert_eq!(super::view_for_selection("section:3"), Some("prompt"));
        assert_eq!(super::view_for_selection("nothing"), None);
        assert_eq!(
            super::subject_label("section:24"),
            "system prompt section 25"
        );
    }
}
