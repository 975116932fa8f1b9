//! Findings: the seed's conclusions as numbered checks on the user's own data, each linking to
//! its subject (the report's `findings`, `ctxlens::analysis::findings`).

use yew::prelude::*;

use super::ViewProps;

#[function_component]
pub fn FindingsView(p: &ViewProps) -> Html {
    let list = &p.report.findings;
    let stages = &p.report.stages;
    html! {
        <section class="findings-view" data-testid="findings-view">
            <h3>{format!("Findings · {}", list.len())}</h3>
            if list.is_empty() { <p class="muted">{"Nothing to report."}</p> }
            <ol class="findings" data-testid="findings">
            { for list.iter().enumerate().map(|(i, f)| {
                let key = format!("finding:{}", f.id);
                let sel = p.selection.as_deref() == Some(key.as_str()) || (f.subject.is_some() && p.selection.as_deref() == f.subject.as_deref());
                let subject = f.subject.clone().map(|sub| {
                    let cb = p.on_select.clone();
                    let label = super::subject_label(&sub);
                    html! { <button class="link" data-testid="finding-subject" onclick={Callback::from(move |_: MouseEvent| cb.emit(Some(AttrValue::from(sub.clone()))))}>{format!("→ {label}")}</button> }
                });
                let stage = f.stage.and_then(|id| stages.iter().position(|x| x.id == id)).map(|j| (j, stages[j].title.clone())).map(|(j, title)| {
                    let cb = p.on_stage.clone();
                    html! { <button class="link" onclick={Callback::from(move |_: MouseEvent| cb.emit(j))}>{format!("stage {}: {title}", j + 1)}</button> }
                });
                // Findings as actions: the what-if that tries the advice (the What-if view).
                let action = {
                    let specs: Option<(Vec<String>, String)> = match f.id.as_str() {
                        "largest-tools" | "tool-schemas" => {
                            let (specs, chars) = super::whatif::largest_extension_tools(&p.report);
                            (!specs.is_empty()).then(|| {
                                let label = super::whatif::extension_tools_label(&specs, chars);
                                (specs, label)
                            })
                        }
                        "skills-share" => {
                            let names = super::whatif::invocable_skills(&p.report);
                            (!names.is_empty()).then(|| {
                                let label = format!("What if the model were offered none of the {} skills (disable-model-invocation)", names.len());
                                (names.iter().map(|n| format!("skill-invocation:{n}")).collect(), label)
                            })
                        }
                        // The file read where another is shadowed: what removing it does (pi
                        // reads the shadowed one in its place). The finding's subject is the
                        // file's section; else its detail names it.
                        "context-file-shadowed" => {
                            let source = f.subject.as_deref().and_then(|x| x.strip_prefix("section:")).and_then(|i| i.parse::<usize>().ok())
                                .and_then(|i| p.report.system_prompt.sections.get(i))
                                .map(|x| x.source.clone());
                            super::whatif::shadowing_suggestions(&p.report).into_iter()
                                .find(|(path, _, _)| source.as_deref().map_or_else(|| f.detail.contains(path.as_str()), |x| x == path))
                                .map(|(_, spec, label)| (vec![spec], label))
                        }
                        _ => None,
                    };
                    specs.map(|(specs, label)| {
                        let next = super::whatif::with_all(&p.whatif, &specs);
                        let cb = p.on_set_whatif.clone();
                        html! { <button class="button" data-testid="finding-whatif" data-changes={specs.join(",")} onclick={Callback::from(move |_: MouseEvent| cb.emit(next.clone()))}>{label}</button> }
                    })
                };
                html! {
                    <li class={classes!("finding", f.severity.as_str(), sel.then_some("sel"))} data-id={f.id.clone()}>
                        <span class="n">{i + 1}</span>
                        <div class="f-body">
                            <div class="title"><span class={classes!("sev", f.severity.as_str())}>{f.severity.as_str()}</span>{" "}{&f.title}</div>
                            if !f.detail.is_empty() { <p class="f-detail">{super::util::with_pi_paths(&p.report, &f.detail)}</p> }
                            <div class="links">{subject}{stage}{action}</div>
                        </div>
                    </li>
                }
            }) }
            </ol>
        </section>
    }
}
