//! The system prompt: its text with the sections coloured, the seed's table (offset, section,
//! chars, share), and which context files were read, in which order, and which were shadowed.
//! 0.86 on, the sections are pi's named ones (`preamble`, `tools`, `rules`, …), each span says
//! which stored system message set it (a session line, the compaction's checkpoint, this run),
//! and a prompt sent as several system messages (kept in place) is shown message by message.

use ctxlens::js::LONE_SURROGATE_BASE;
use ctxlens::report::types::{ModelInfo, PackageCost, SentSystemMessage, SystemPromptInfo};
use yew::prelude::*;

use super::components::charts::{Seg, StackedBar};
use super::components::dom::scroll_into_view;
use super::components::{color, pct, thousands};
use super::overview::section_label;
use super::sysmsg::{placement_text, section_help, source_help, stored_help, stored_label};
use super::tokens::{TokenNote, Tokens};
use super::util::{not_available, select, short_path};
use super::ViewProps;

/// The prompt's text split by sections, grouped by the system message that carried it: one
/// group (no header) for a single prompt, else one per message of `systemPrompt.messages`.
type Groups = Vec<(Option<SentSystemMessage>, Vec<(Option<usize>, String)>)>;

fn groups_of(sp: &SystemPromptInfo) -> Groups {
    let text = sp.text.as_str();
    let spans: Vec<(usize, usize)> = sp.sections.iter().map(|x| (x.start, x.end)).collect();
    let msgs = sp.messages.as_deref().unwrap_or(&[]);
    if msgs.len() < 2 {
        return vec![(None, split_sections(text, &spans))];
    }
    msgs.iter()
        .map(|m| {
            let (a, b) = (m.start, m.end);
            let bytes = utf16_to_bytes(text, &[a, b]);
            let slice = &text[bytes[0]..bytes[1]];
            // This message's spans, relative to its text; the indices stay the prompt's.
            let local: Vec<(usize, usize)> = spans
                .iter()
                .map(|&(x, y)| {
                    if x >= a && y <= b {
                        (x - a, y - a)
                    } else {
                        (usize::MAX, usize::MAX)
                    }
                })
                .collect();
            let pieces = split_sections(slice, &local)
                .into_iter()
                .filter(|(_, t)| !t.is_empty())
                .collect();
            (Some(m.clone()), pieces)
        })
        .collect()
}

/// Fixed colours for pi's section names; others hash.
pub fn section_color(name: &str) -> String {
    let i = match name {
        "intro" | "preamble" => 0,
        "tools" => 1,
        "guidelines" | "rules" => 2,
        "pi-docs" | "docs" => 3,
        "project-context" | "project_context" => 4,
        "context-file" => 5,
        "skills" => 6,
        "cwd" => 7,
        "custom" | "custom-prompt" => 8,
        "append" | "append-prompt" | "addendum" => 9,
        other => super::components::color_of(other),
    };
    color(i)
}

/// Byte offsets of UTF-16 offsets in `text`. An offset inside a surrogate pair moves to the end
/// of that character; offsets past the end clamp to the end.
pub fn utf16_to_bytes(text: &str, offsets: &[usize]) -> Vec<usize> {
    // (utf16 start, byte start) of every char, then the end.
    let mut starts: Vec<(usize, usize)> = Vec::with_capacity(text.len() + 1);
    let mut u = 0usize;
    for (b, c) in text.char_indices() {
        starts.push((u, b));
        let cp = c as u32;
        u += if (0x10000..LONE_SURROGATE_BASE).contains(&cp) {
            2
        } else {
            1
        };
    }
    starts.push((u, text.len()));
    offsets
        .iter()
        .map(|&o| {
            let i = starts.partition_point(|(su, _)| *su < o);
            starts.get(i).map(|(_, b)| *b).unwrap_or(text.len())
        })
        .collect()
}

/// Splits `text` by the sections' UTF-16 spans: (section index or None for uncovered text, text).
pub fn split_sections(text: &str, spans: &[(usize, usize)]) -> Vec<(Option<usize>, String)> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, spans[i].1));
    let flat: Vec<usize> = spans.iter().flat_map(|(a, b)| [*a, *b]).collect();
    let bytes = utf16_to_bytes(text, &flat);
    let mut out = Vec::new();
    let mut pos = 0usize;
    for i in order {
        let (a, b) = (bytes[2 * i].max(pos), bytes[2 * i + 1].max(pos));
        if a > pos {
            out.push((None, text[pos..a].to_string()));
        }
        if b > a {
            out.push((Some(i), text[a..b].to_string()));
        }
        pos = pos.max(b);
    }
    if pos < text.len() {
        out.push((None, text[pos..].to_string()));
    }
    out
}

#[function_component]
pub fn PromptView(p: &ViewProps) -> Html {
    let r = &*p.report;
    let text_ref = use_node_ref();
    let sp = &r.system_prompt;
    let sections = &sp.sections;
    let text_empty = sp.text.is_empty();
    let groups = use_memo(p.report.clone(), |r| groups_of(&r.system_prompt));
    let placement = placement_text(sp);
    let any_stored = sections.iter().any(|x| x.stored.is_some());
    // The table's rows are the text's spans: the stored origin is the span's.
    let stored_of = |i: usize| sections.get(i).and_then(|x| x.stored.as_ref());
    let sel_section: Option<usize> = p
        .selection
        .as_deref()
        .and_then(|k| k.strip_prefix("section:"))
        .and_then(|i| i.parse().ok());
    {
        let text_ref = text_ref.clone();
        use_effect_with(sel_section, move |sel| {
            if let Some(i) = sel {
                scroll_into_view(&text_ref, &format!("[data-section=\"{i}\"]"));
            }
        });
    }
    let (table, total) = match &r.stats {
        Some(st) => (
            st.system_prompt.sections.as_slice(),
            st.system_prompt.chars as f64,
        ),
        None => (&[][..], 0.0),
    };
    // Shares by section name, in first-seen order.
    let mut by_name: Vec<(String, f64, usize)> = Vec::new();
    for (i, x) in table.iter().enumerate() {
        match by_name.iter_mut().find(|(k, _, _)| *k == x.name) {
            Some(e) => e.1 += x.chars as f64,
            None => by_name.push((x.name.clone(), x.chars as f64, i)),
        }
    }
    let segs: Vec<Seg> = by_name
        .iter()
        .map(|(n, v, i)| Seg::new(n.clone(), *v, section_color(n)).key(format!("section:{i}")))
        .collect();
    let t = Tokens::of(p);
    let model = r.model.as_ref().map(ModelInfo::key).unwrap_or_default();
    if text_empty && table.is_empty() {
        return html! { <section class="prompt-view">{not_available("No system prompt.")}</section> };
    }
    html! {
        <section class="prompt-view" data-testid="prompt-view">
            <div class="prompt-top">
                <div>
                    <h3>{format!("System prompt · {} chars", thousands(total))}<span class="muted small" data-testid="prompt-tokens">{format!(" · {}", t.phrase(t.read(|s| *s.system_prompt.tokens)))}</span></h3>
                    <TokenNote tokens={p.tokens.clone()} model={model.clone()} />
                    if let Some((line, help)) = &placement {
                        <p class="small placement" data-testid="prompt-placement" title={*help}>{line.clone()}</p>
                    }
                    <StackedBar segs={segs} testid="prompt-shares" selected={p.selection.clone()} on_select={p.on_select.clone()} />
                </div>
            </div>
            <div class="prompt-grid">
                <div class="prompt-text-wrap">
                    <pre class="prompt-text" data-testid="prompt-text" ref={text_ref}>
                    { for groups.iter().enumerate().map(|(k, (m, pieces))| html! { <>
                        if let Some(m) = m {
                            <span class={classes!("sys-msg-head", (k > 0).then_some("later"))} data-testid="prompt-message"
                                  title={m.stored.as_ref().map(stored_help).unwrap_or_default()}>
                                {format!("system message {} · {} · {}",
                                    k + 1,
                                    if sp.placement.as_deref() == Some("raw") { "sent as stored" } else if m.update { "an update, sent where it is stored" } else { "the prompt" },
                                    m.stored.as_ref().map(stored_label).unwrap_or_default())}
                            </span>
                        }
                        { for pieces.iter().map(|(i, t)| match i {
                            None => html! { <span class="gap">{t}</span> },
                            Some(i) => {
                                let x = &sections[*i];
                                let sel = sel_section == Some(*i);
                                let stored = x.stored.as_ref().map(|st| format!(" · stored: {}", stored_label(st))).unwrap_or_default();
                                html! {
                                    <span class={classes!("sec", sel.then_some("sel"))} data-section={i.to_string()}
                                          style={format!("--c:{}", section_color(&x.name))}
                                          title={format!("#{} {} ({}){stored}", i + 1, x.name, x.source)}
                                          onclick={select(&p.on_select, format!("section:{i}"))}>{t}</span>
                                }
                            }
                        }) }
                    </> }) }
                    </pre>
                </div>
                <div class="prompt-side">
                    <table class="sections" data-testid="prompt-sections">
                        <thead><tr><th>{"#"}</th><th class="num" title="where it starts in the prompt, in characters (UTF-16 units, as JavaScript counts them)">{"offset"}</th>
                            <th title="the part of the system prompt, and where its text comes from (a tool, a file, or pi itself)">{"section"}</th>
                            if any_stored { <th title="which system message stored in the session set this text (pi keeps the system prompt in the session as system messages)">{"stored"}</th> }
                            <th class="num">{"chars"}</th><th class="num" title={super::tokens::VOCABULARY_HELP}>{t.head()}</th><th class="num">{"share"}</th></tr></thead>
                        <tbody>
                        { for table.iter().enumerate().map(|(i, x)| {
                            let sel = sel_section == Some(i);
                            html! {
                                <tr class={classes!("clickable", sel.then_some("sel"))} data-chars={x.chars.to_string()} onclick={select(&p.on_select, format!("section:{i}"))}>
                                    <td class="muted">{i + 1}</td>
                                    <td class="num">{thousands(x.offset as f64)}</td>
                                    <td title={[section_help(&x.name).unwrap_or(""), &source_help(&x.source)].iter().filter(|t| !t.is_empty()).cloned().collect::<Vec<_>>().join(" · ")}>
                                        <span class="sw" style={format!("background:{}", section_color(&x.name))}></span>{section_label(&x.name, &x.source)}</td>
                                    if any_stored {
                                        <td class="stored" data-testid="section-stored" title={stored_of(i).map(stored_help).unwrap_or_default()}>
                                            {stored_of(i).map(stored_label).unwrap_or_default()}
                                        </td>
                                    }
                                    <td class="num">{thousands(x.chars as f64)}</td>
                                    <td class="num" data-testid="section-tokens">{t.cell(t.read(|s| *s.system_prompt.sections.get(i)?.tokens))}</td>
                                    <td class="num share">{pct(x.chars as f64, total)}</td>
                                </tr>
                            }
                        }) }
                        </tbody>
                        <tfoot><tr><td></td><td></td><th>{"total"}</th>if any_stored { <td></td> }<th class="num" data-testid="prompt-sections-total">{thousands(table.iter().map(|x| x.chars as f64).sum())}</th><th class="num" data-testid="prompt-sections-tokens">{t.cell(t.read(|s| *s.system_prompt.tokens))}</th><td class="num">{"100%"}</td></tr></tfoot>
                    </table>
                    { resources_html(r) }
                </div>
            </div>
        </section>
    }
}

/// What the prompt is made of besides pi's own text: the context files in prompt order (with
/// those shadowed), the skills, the pi packages, a custom prompt and appended ones.
fn resources_html(r: &crate::report::Report) -> Html {
    let res = &r.resources;
    let (files, skills) = (&res.context_files, &res.skills);
    html! {
        <>
        <h4>{"Context files, in prompt order"}</h4>
        if files.is_empty() {
            <p class="muted small">{"No AGENTS.md or CLAUDE.md was found."}</p>
        } else {
            <ol class="files" data-testid="context-files">
            { for files.iter().map(|f| html! {
                <li>
                    <span class="mono" title={f.path.clone()}>{short_path(&f.path, 3)}</span>
                    <span class="muted">{format!(" · {} chars", thousands(f.chars as f64))}</span>
                    { for f.shadowed.iter().map(|x| html! {
                        <div class="shadowed" data-testid="shadowed-file" title="in the same folder, but not read: the file above takes precedence">
                            <span class="badge dropped">{"shadowed"}</span>{" "}<s class="mono">{short_path(x, 3)}</s>
                        </div>
                    }) }
                </li>
            }) }
            </ol>
        }
        if !skills.is_empty() {
            <h4>{"Skills"}</h4>
            <ul class="files">
            { for skills.iter().map(|k| html! {
                <li title={k.description.clone()}>
                    <span class="mono">{&k.name}</span>
                    <span class="muted">{format!(" · {}", k.source)}</span>
                    if k.hidden { <span class="badge note">{"hidden from the model"}</span> }
                </li>
            }) }
            </ul>
        }
        { packages_html(&r.packages) }
        if let Some(c) = &res.custom_prompt {
            <p class="small"><span class="badge replaced">{"custom prompt"}</span>{format!(" {} replaces pi's base prompt", c.path.as_deref().unwrap_or("--system-prompt"))}</p>
        }
        { for res.append_prompts.iter().map(|a| html! { <p class="small"><span class="badge inserted">{"appended"}</span>{format!(" {}", a.path.as_deref().unwrap_or("--append-system-prompt"))}</p> }) }
        </>
    }
}

/// What a package brings to this request, one phrase per kind (its skills, prompt templates and
/// tools by name; its extensions counted).
fn brings(p: &PackageCost) -> Vec<String> {
    let mut brings = Vec::new();
    let names = [
        (
            "skill",
            p.skills.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        ),
        (
            "prompt template",
            p.prompt_templates.iter().map(|x| x.name.as_str()).collect(),
        ),
        ("tool", p.tools.iter().map(|x| x.name.as_str()).collect()),
    ];
    for (what, n) in names {
        if !n.is_empty() {
            brings.push(format!("{what}s: {}", n.join(", ")));
        }
    }
    if !p.extensions.is_empty() {
        brings.push(format!(
            "{} extension(s): code ctxlens does not run",
            p.extensions.len()
        ));
    }
    brings
}

/// The pi packages (settings `packages`): what each brings to this request — its skills'
/// entries in the prompt, the prompt template this prompt called, its extensions (code ctxlens
/// does not run) — or, not loaded, the settings line that names it.
fn packages_html(packages: &[PackageCost]) -> Html {
    if packages.is_empty() {
        return Html::default();
    }
    html! { <>
        <h4>{"pi packages"}</h4>
        <table class="sections" data-testid="prompt-packages">
            <thead><tr><th>{"package"}</th><th>{"brings"}</th><th class="num">{"chars"}</th></tr></thead>
            <tbody>
            { for packages.iter().map(|p| {
                let at = match (p.scope.as_str(), p.line) {
                    ("temporary", _) => "given with -e on pi's command line".to_string(),
                    (_, Some(l)) => format!("{}:{l}", p.settings_file),
                    (_, None) => p.settings_file.clone(),
                };
                let brings = brings(p);
                html! {
                    <tr data-source={p.source.clone()}>
                        <td class="mono" title={at.clone()}>{&p.source}</td>
                        if p.installed.is_some() {
                            <td class="small">{ if brings.is_empty() { "nothing in this request".to_string() } else { brings.join(" · ") } }</td>
                            <td class="num">{thousands(p.chars as f64)}</td>
                        } else {
                            <td class="small" colspan="2"><span class="badge note">{"not loaded"}</span>{format!(" pi skips it ({at})")}</td>
                        }
                    </tr>
                }
            }) }
            </tbody>
        </table>
    </> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_offsets_map_to_char_boundaries() {
        let t = "a😀b\u{e9}c";
        // a=0, 😀=1..3, b=3, é=4, c=5
        assert_eq!(
            utf16_to_bytes(t, &[0, 1, 2, 3, 4, 5, 6, 99]),
            vec![0, 1, 5, 5, 6, 8, 9, 9]
        );
        let parts = split_sections(t, &[(1, 3), (3, 5)]);
        assert_eq!(
            parts,
            vec![
                (None, "a".into()),
                (Some(0), "😀".into()),
                (Some(1), "b\u{e9}".into()),
                (None, "c".into())
            ]
        );
    }
}
