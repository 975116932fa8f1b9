//! The selected pipeline stage (placeholder).

use yew::prelude::*;

use super::util::{arr, s};
use super::ViewProps;

#[function_component]
pub fn StageView(p: &ViewProps) -> Html {
    let stages = arr(&p.report, "stages");
    let Some(st) = stages.get(p.stage) else { return html! { <p class="na">{"No stage."}</p> } };
    html! {
        <section class="stage" data-testid="stage-view">
            <h3>{s(st, "title")}</h3>
            <code>{s(st, "piSource")}</code>
            <p>{s(st, "summary")}</p>
        </section>
    }
}
