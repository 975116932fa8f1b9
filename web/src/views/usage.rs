//! The usage view (placeholder).

use yew::prelude::*;

use super::ViewProps;

#[function_component]
pub fn UsageView(_p: &ViewProps) -> Html {
    html! { <section class="placeholder"><p class="na">{"Coming soon."}</p></section> }
}
