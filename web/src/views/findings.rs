//! The findings view (placeholder).

use yew::prelude::*;

use super::ViewProps;

#[function_component]
pub fn FindingsView(_p: &ViewProps) -> Html {
    html! { <section class="placeholder"><p class="na">{"Coming soon."}</p></section> }
}
