//! The settings panel: the editable overrides of the scenario (model, thinking, tools, prompts,
//! paths), each a field that keeps its draft until it is committed.

use std::collections::BTreeSet;
use std::rc::Rc;

use ctxlens::js::Value;
use yew::prelude::*;

use super::reducer::*;
use super::util::*;
use crate::shared::Shared;
use crate::state::Overrides;

#[derive(Properties, PartialEq)]
pub(super) struct TextFieldProps {
    pub(super) id: AttrValue,
    /// The committed value: what the scenario's overrides say.
    pub(super) value: AttrValue,
    pub(super) placeholder: AttrValue,
    #[prop_or_default]
    pub(super) multiline: bool,
    /// A `<datalist>` id (inputs only).
    #[prop_or_default]
    pub(super) list: Option<AttrValue>,
    /// The value, when the field's `change` event commits it (Enter in an input, leaving the field).
    pub(super) on_commit: Callback<String>,
    #[prop_or_default]
    pub(super) onfocus: Option<Callback<FocusEvent>>,
}

/// A text input or textarea that keeps what is typed (its draft) until it is committed.
///
/// Yew sets a field's DOM value whenever it differs from the value rendered, so a field rendered
/// straight from the committed value lost the text typed so far at any render of the panel —
/// and the page renders each time a background report arrives from the worker. The draft is
/// rendered instead while there is one; it is dropped when the committed value changes (the edit
/// landed, or a reset or another scenario replaced it).
#[function_component]
pub(super) fn TextField(p: &TextFieldProps) -> Html {
    let draft = use_state_eq(|| None::<String>);
    {
        let draft = draft.clone();
        use_effect_with(p.value.clone(), move |_| {
            draft.set(None);
            || ()
        });
    }
    let oninput = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| draft.set(Some(input_value(&e))))
    };
    let onchange = {
        let cb = p.on_commit.clone();
        Callback::from(move |e: Event| cb.emit(input_value(&e)))
    };
    let value: AttrValue = (*draft)
        .clone()
        .map(AttrValue::from)
        .unwrap_or_else(|| p.value.clone());
    let onfocus = p.onfocus.clone();
    if p.multiline {
        html! { <textarea id={p.id.clone()} rows="3" spellcheck="false" {value} placeholder={p.placeholder.clone()} {oninput} {onchange} {onfocus} /> }
    } else {
        html! { <input id={p.id.clone()} type="text" list={p.list.clone()} spellcheck="false" {value} placeholder={p.placeholder.clone()} {oninput} {onchange} {onfocus} /> }
    }
}

#[derive(Properties, PartialEq)]
pub(super) struct SettingsProps {
    pub(super) overrides: Overrides,
    pub(super) base: crate::state::EnvView,
    pub(super) report: Option<Shared<crate::report::Report>>,
    pub(super) catalog: Option<Rc<Vec<CatalogModel>>>,
    /// Edits are applied by the reducer to the overrides on screen then (never to this render's
    /// copy: two edits in a row both count).
    pub(super) on_edit: Callback<OverridesEdit>,
    pub(super) on_want_catalog: Callback<()>,
}

pub(super) const THINKING: [&str; 6] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/// The editable settings: they become env.json values and pi flags of the laid-out case.
#[function_component(SettingsPanel)]
pub(super) fn settings_panel(p: &SettingsProps) -> Html {
    let o = &p.overrides;
    // A field's committed text → an edit of the overrides.
    let commit = |set: fn(&mut Overrides, String)| {
        let cb = p.on_edit.clone();
        Callback::from(move |v: String| cb.emit(Box::new(move |o: &mut Overrides| set(o, v))))
    };
    let field = |label: &'static str,
                 id: &'static str,
                 value: Option<String>,
                 placeholder: String,
                 set: fn(&mut Overrides, String)| {
        html! {
            <label class="field" for={id}><span>{label}</span>
                <TextField id={id} value={value.unwrap_or_default()} placeholder={placeholder} on_commit={commit(set)} />
            </label>
        }
    };
    let textarea = |label: &'static str,
                    id: &'static str,
                    value: Option<String>,
                    placeholder: &'static str,
                    set: fn(&mut Overrides, String)| {
        html! {
            <label class="field" for={id}><span>{label}</span>
                <TextField id={id} multiline=true value={value.unwrap_or_default()} placeholder={placeholder} on_commit={commit(set)} />
            </label>
        }
    };
    /// Blank text = as the scenario says.
    fn text(v: String) -> Option<String> {
        (!v.trim().is_empty()).then_some(v)
    }
    let report_model = p.report.as_ref().and_then(|r| r.model.as_ref());
    let model_placeholder = report_model
        .map(|m| m.key())
        .unwrap_or_else(|| p.base.model.clone());
    let want = p.on_want_catalog.clone();
    let on_model_focus = Callback::from(move |_: FocusEvent| want.emit(()));
    let on_thinking = {
        let cb = p.on_edit.clone();
        Callback::from(move |e: Event| {
            let v = input_value(&e);
            cb.emit(Box::new(move |o: &mut Overrides| {
                o.thinking = (!v.is_empty()).then_some(v)
            }));
        })
    };
    // Tools: pi's built-ins, then whatever else the report has (extension tools).
    let active: Vec<String> = p
        .report
        .as_ref()
        .and_then(|r| {
            r.get("tools").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|t| t.get_str("name").map(String::from))
                    .collect()
            })
        })
        .unwrap_or_default();
    // The release's built-in tools (the report's `pi.builtinTools`), then the active ones.
    let mut candidates: Vec<String> = p
        .report
        .as_ref()
        .and_then(|r| r.pi.as_ref())
        .map(|pi| pi.builtin_tools.clone())
        .unwrap_or_default();
    for t in active.iter().chain(o.tools.iter().flatten()) {
        if !candidates.contains(t) {
            candidates.push(t.clone());
        }
    }
    let active_set: BTreeSet<String> = o
        .tools
        .clone()
        .unwrap_or_else(|| active.clone())
        .into_iter()
        .collect();
    let tool_box = |name: &String| {
        let (cb, name2, cands, shown) = (
            p.on_edit.clone(),
            name.clone(),
            candidates.clone(),
            active.clone(),
        );
        let onchange = Callback::from(move |_: Event| {
            let (name2, cands, shown) = (name2.clone(), cands.clone(), shown.clone());
            cb.emit(Box::new(move |o: &mut Overrides| {
                let mut set: BTreeSet<String> =
                    o.tools.clone().unwrap_or(shown).into_iter().collect();
                if !set.remove(&name2) {
                    set.insert(name2);
                }
                o.tools = Some(cands.iter().filter(|c| set.contains(*c)).cloned().collect());
            }));
        });
        html! { <label class="tool-check"><input type="checkbox" checked={active_set.contains(name)} {onchange} /><span>{name}</span></label> }
    };
    let reset = {
        let cb = p.on_edit.clone();
        Callback::from(move |_| cb.emit(Box::new(|o: &mut Overrides| *o = Overrides::default())))
    };
    let reset_tools = {
        let cb = p.on_edit.clone();
        Callback::from(move |_| cb.emit(Box::new(|o: &mut Overrides| o.tools = None)))
    };
    let prompt_value = o.prompt.clone().unwrap_or_else(|| p.base.prompt.clone());
    html! {
        <section class="panel settings" aria-labelledby="settings-h">
            <h2 id="settings-h">{"Settings"}<button class="link" onclick={reset} title="Back to what the loaded session and files say">{"reset"}</button></h2>
            <label class="field" for="set-model"><span>{"Model"}</span>
                <TextField id="set-model" list={Some(AttrValue::from("model-list"))} value={o.model.clone().unwrap_or_default()} placeholder={model_placeholder}
                    on_commit={commit(|o, v| o.model = text(v).map(|v| v.trim().to_string()))} onfocus={Some(on_model_focus)} />
            </label>
            <datalist id="model-list">
                { for p.base.custom_models.iter().map(|m| html! { <option value={m.clone()}>{"models.json"}</option> }) }
                { for p.catalog.iter().flat_map(|c| c.iter()).map(|m| html! { <option value={m.reference.clone()}>{format!("{} · {}", m.name, m.api)}</option> }) }
            </datalist>
            <label class="field" for="set-thinking"><span>{"Thinking level"}</span>
                <select id="set-thinking" onchange={on_thinking}>
                    <option value="" selected={o.thinking.is_none()}>{format!("as loaded ({})", if p.base.thinking.is_empty() { "pi's default" } else { p.base.thinking.as_str() })}</option>
                    { for THINKING.iter().map(|t| html! { <option value={*t} selected={o.thinking.as_deref() == Some(*t)}>{*t}</option> }) }
                </select>
            </label>
            { field("Working directory (cwd)", "set-cwd", o.cwd.clone(), p.base.cwd.clone(), |o, v| o.cwd = text(v)) }
            { field("Agent dir", "set-agent-dir", o.agent_dir.clone(), p.base.agent_dir.clone(), |o, v| o.agent_dir = text(v)) }
            { field("pi package dir", "set-pi-dir", o.pi_package_dir.clone(), p.base.pi_package_dir.clone(), |o, v| o.pi_package_dir = text(v)) }
            <fieldset class="tools-set">
                <legend>{"Active tools"}if o.tools.is_some() { <button class="link" onclick={reset_tools}>{"as loaded"}</button> }</legend>
                { for candidates.iter().map(tool_box) }
            </fieldset>
            { textarea("Custom system prompt (--system-prompt)", "set-system", o.system_prompt.clone(), "pi's own prompt", |o, v| o.system_prompt = Some(v)) }
            { textarea("Appended system prompt (--append-system-prompt)", "set-append", o.append_system_prompt.clone(), "nothing appended", |o, v| o.append_system_prompt = Some(v)) }
            { textarea("Next prompt", "set-prompt", Some(prompt_value), "empty: no new message — the session's last call, or pi's continue after tool results", |o, v| o.prompt = Some(v)) }
        </section>
    }
}
