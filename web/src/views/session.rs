//! The session: the entry tree with the active branch highlighted (compactions, branch
//! summaries, labels), and the messages it yields. Both lists are virtualized. 0.86 on, system
//! messages (the sections and tools they set or remove), compaction checkpoints, context edits
//! and usage records show as what they are, with the selected one's details.

use ctxlens::calls::CallRef;
use std::collections::HashMap;
use std::rc::Rc;

use ctxlens::report::types::{EntryNode, SessionInfo};
use yew::prelude::*;

use super::components::thousands;
use super::components::vlist::VList;
use super::util::not_available;
use super::ViewProps;

/// One row of the tree: index into `entries`, indentation, and whether it starts a branch.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeRow {
    pub entry: usize,
    pub depth: usize,
    pub fork: bool,
}

/// Depth-first order (children in file order), iterative (sessions can be 10⁵ entries deep).
/// Indentation grows only below a node with several children, so a linear session stays flat.
pub fn tree_rows(entries: &[EntryNode]) -> Vec<TreeRow> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(id) = e.id.as_deref() {
            index.entry(id).or_insert(i);
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); entries.len()];
    let mut roots = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match e.parent_id.as_deref().and_then(|p| index.get(p)).copied() {
            Some(pi)
                if pi != i
                    && e.id
                        .as_deref()
                        .map(|id| index.get(id) == Some(&i))
                        .unwrap_or(false) =>
            {
                children[pi].push(i)
            }
            _ => roots.push(i),
        }
    }
    let mut out = Vec::with_capacity(entries.len());
    let mut seen = vec![false; entries.len()];
    let mut stack: Vec<(usize, usize, bool)> = roots.iter().rev().map(|&r| (r, 0, false)).collect();
    while let Some((i, depth, fork)) = stack.pop() {
        if seen[i] {
            continue;
        }
        seen[i] = true;
        out.push(TreeRow {
            entry: i,
            depth,
            fork,
        });
        let kids = &children[i];
        let many = kids.len() > 1;
        for &k in kids.iter().rev() {
            stack.push((k, if many { depth + 1 } else { depth }, many));
        }
    }
    // Anything unreachable (a cycle) still shows, at the end.
    for (i, done) in seen.iter().enumerate() {
        if !done {
            out.push(TreeRow {
                entry: i,
                depth: 0,
                fork: false,
            });
        }
    }
    out
}

fn type_class(t: &str) -> &'static str {
    match t {
        "message" => "t-message",
        "compaction" => "t-compaction",
        "branch_summary" => "t-branch",
        "label" => "t-label",
        "custom_message" => "t-custom",
        "model_change" | "thinking_level_change" => "t-setting",
        "system" => "t-system",
        "context_edit" => "t-edit",
        "usage" => "t-usage",
        _ => "t-other",
    }
}

/// What an entry type is, for its tooltip (pi's names explained).
fn type_help(t: &str) -> &'static str {
    match t {
        "system" => "a system message: pi (0.86 on) keeps the system prompt and the tool declarations in the session as system messages; the first holds every section and tool, a later one only what changed (a section set or removed, tools added or removed)",
        "compaction" => "a compaction: a summary that stands in for the conversation before it",
        "branch_summary" => "a summary of a branch you left",
        "context_edit" => "a context edit: pi leaves one message out of what it sends (or replaces its content) without changing the history",
        "usage" => "a usage record (cache warming: a request pi sent to keep the provider's cache warm); no message comes from it",
        "custom_message" => "a message an extension added",
        "label" => "a label you put on an entry",
        "model_change" | "thinking_level_change" => "a model or thinking-level change",
        "message" => "a message: yours, the model's or a tool result",
        _ => "",
    }
}

/// The details of a selected 0.86 entry: a system message's changes, a compaction's checkpoint,
/// a context edit's target, a usage record's tokens.
fn entry_detail(e: &EntryNode, on_select: &Callback<Option<AttrValue>>) -> Html {
    if let Some(m) = e.system.as_ref() {
        return html! {
            <div class="detail" data-testid="entry-detail">
                <h4>{format!("System message · line {}", e.line)}</h4>
                <p class="small muted">{"What it stores: the sections it sets (or removes) and the tools it declares (or takes away). pi replays every system message on the branch into the prompt it sends."}</p>
                {super::sysmsg::changes_chips(m)}
            </div>
        };
    }
    if let Some(m) = e.checkpoint.as_ref() {
        return html! {
            <div class="detail" data-testid="entry-detail">
                <h4>{format!("Compaction · line {}", e.line)}</h4>
                <p class="small muted" title="the compaction's systemMessage: pi stores the replayed system prompt with the compaction, and the system messages before it (and in the range it keeps) are no longer read">{"Its checkpoint: the system prompt and tools as they stood, in place of the system messages before it."}</p>
                {super::sysmsg::changes_chips(m)}
            </div>
        };
    }
    if let Some(x) = e.edit.as_ref() {
        let target = x.target_id.clone();
        let omitted = x.omitted;
        let cb = on_select.clone();
        let key = target.clone();
        return html! {
            <div class="detail" data-testid="entry-detail">
                <h4>{format!("Context edit · line {}", e.line)}</h4>
                <p class="small">
                    { if omitted { "Leaves entry " } else { "Replaces the content of entry " } }
                    <button class="link mono" onclick={Callback::from(move |_: MouseEvent| cb.emit(Some(AttrValue::from(format!("entry:{key}")))))}>{target.clone()}</button>
                    { if omitted { " out of what pi sends; the history keeps it.".to_string() } else { format!(" with {} chars; the history keeps the original.", thousands(x.chars as f64)) } }
                </p>
            </div>
        };
    }
    if let Some(u) = e.usage.as_ref() {
        return html! {
            <div class="detail" data-testid="entry-detail">
                <h4>{format!("Usage record · line {}", e.line)}</h4>
                <p class="small">{format!("{} · {}/{} · {} input, {} read from the cache, {} written to it, {} output tokens. Not part of the conversation.",
                    if u.kind.is_empty() { "usage" } else { u.kind.as_str() },
                    u.provider.as_deref().unwrap_or(""), u.model.as_deref().unwrap_or(""),
                    thousands(u.input), thousands(u.cache_read),
                    thousands(u.cache_write), thousands(u.output))}</p>
            </div>
        };
    }
    Html::default()
}

#[function_component]
pub fn SessionView(p: &ViewProps) -> Html {
    let rows = use_memo(p.report.clone(), |r| {
        let session = r.session.clone().unwrap_or_default();
        let rows = tree_rows(&session.entries);
        (session, Rc::new(rows))
    });
    let only_branch = use_state(|| false);
    let file = super::transcript::use_session_file(p.laid.clone());
    if let Some(h) = super::util::session_placeholder(&p.report) {
        return html! { <section class="session-view">{h}</section> };
    }
    let Some(sess) = p.report.session.as_ref() else {
        return html! { <section class="session-view">{not_available("No session: this request starts a new conversation.")}</section> };
    };
    let (session, all_rows) = (rows.0.clone(), rows.1.clone());
    let entries = &session.entries;
    let shown: Rc<Vec<TreeRow>> = if *only_branch {
        Rc::new(
            all_rows
                .iter()
                .filter(|r| entries[r.entry].on_active_branch)
                .map(|r| TreeRow {
                    depth: 0,
                    ..r.clone()
                })
                .collect(),
        )
    } else {
        all_rows.clone()
    };
    let selected_id = p
        .selection
        .as_deref()
        .and_then(|k| k.strip_prefix("entry:"))
        .map(str::to_string);
    let scroll_to = selected_id.as_ref().and_then(|id| {
        shown
            .iter()
            .position(|r| entries[r.entry].id.as_deref() == Some(id.as_str()))
    });
    let selected_entry: Option<EntryNode> = selected_id
        .as_ref()
        .and_then(|id| {
            entries
                .iter()
                .find(|e| e.id.as_deref() == Some(id.as_str()))
        })
        .cloned();
    let leaf = sess.leaf_id.clone().unwrap_or_default();
    let compaction = sess.compaction_id.clone().unwrap_or_default();
    let on_branch = entries.iter().filter(|e| e.on_active_branch).count();
    let in_ctx = entries.iter().filter(|e| e.in_context).count();
    let forks = all_rows.iter().filter(|r| r.fork).count();
    let render = {
        // Entries whose tool calls name tools the request does not define.
        let flagged: Vec<f64> = p
            .report
            .undefined_tool_calls
            .iter()
            .filter_map(|u| u.line.map(|l| l as f64))
            .collect();
        let tree = Rc::new(Tree {
            session: session.clone(),
            shown: shown.clone(),
            on_select: p.on_select.clone(),
            selected: selected_id.clone(),
            leaf: leaf.clone(),
            compaction: compaction.clone(),
            report: p.report.clone(),
            on_call: p.on_call.clone(),
            picked: p.call.clone(),
            flagged,
        });
        Callback::from(move |i: usize| entry_row(&tree, i))
    };
    let sources = &sess.message_sources;
    let by_id: Rc<HashMap<String, usize>> = Rc::new(
        entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.id.as_ref().map(|id| (id.clone(), i)))
            .collect(),
    );
    let render_msg = {
        let messages = Rc::new(Messages {
            session: session.clone(),
            on_select: p.on_select.clone(),
            selected: selected_id.clone(),
            by_id: by_id.clone(),
        });
        Callback::from(move |i: usize| message_row(&messages, i))
    };
    let toggle = {
        let only_branch = only_branch.clone();
        Callback::from(move |_: Event| only_branch.set(!*only_branch))
    };
    html! {
        <section class="session-view" data-testid="session-view">
            <h3>{"Session"}<span class="muted small mono">{format!(" {}", sess.name)}</span></h3>
            <p class="muted small">
                {format!("{} entries · {} on the active branch · {} in the context · {} branch points · version {}",
                    thousands(entries.len() as f64), thousands(on_branch as f64), thousands(in_ctx as f64), forks, sess.version)}
            </p>
            <div class="two-col session-cols">
                <div>
                    <div class="list-head">
                        <h4>{"Entry tree"}</h4>
                        <label class="small"><input type="checkbox" checked={*only_branch} onchange={toggle} data-testid="session-branch-only" />{" active branch only"}</label>
                    </div>
                    <VList count={shown.len()} render={render} testid="session-tree" row_height={26.0} height={520.0} scroll_to={scroll_to} />
                    <p class="legend-note small muted"><span class="key active"></span>{" active branch "}<span class="key cut"></span>{" on the branch but cut by a compaction"}</p>
                    { selected_entry.as_ref().map(|e| entry_detail(e, &p.on_select)).unwrap_or_default() }
                    if let Some(e) = selected_entry.clone() {
                        <super::transcript::EntryReader report={p.report.clone()} file={file.clone()} entry={e} />
                    }
                </div>
                <div>
                    <h4>{format!("Messages it yields ({})", sources.len())}</h4>
                    <VList count={sources.len()} render={render_msg} testid="session-messages" row_height={26.0} height={520.0} />
                </div>
            </div>
        </section>
    }
}

/// What a row of the entry tree reads, besides its row.
struct Tree {
    session: Rc<SessionInfo>,
    shown: Rc<Vec<TreeRow>>,
    on_select: Callback<Option<AttrValue>>,
    /// The selected entry's id.
    selected: Option<String>,
    leaf: String,
    compaction: String,
    report: crate::shared::Shared<crate::report::Report>,
    on_call: Callback<Option<CallRef>>,
    /// The call the request views rebuild.
    picked: Option<CallRef>,
    /// The lines of entries whose tool calls name tools the request does not define.
    flagged: Vec<f64>,
}

/// Row `i` of the entry tree: the entry's line, its place in the tree, its type and chips (a
/// checkpoint, a label, an undefined tool, the call it answers, the leaf, the compaction in
/// effect), its preview and id; a click selects it.
fn entry_row(t: &Tree, i: usize) -> Html {
    let Some(row) = t.shown.get(i) else {
        return Html::default();
    };
    let e = &t.session.entries[row.entry];
    let id = e.id.clone().unwrap_or_default();
    let kind = e.entry_type.as_str();
    let (active, in_ctx) = (e.on_active_branch, e.in_context);
    let cb = t.on_select.clone();
    let key = id.clone();
    let onclick = Callback::from(move |_: MouseEvent| {
        if !key.is_empty() {
            cb.emit(Some(AttrValue::from(format!("entry:{key}"))))
        }
    });
    let indent = row.depth.min(30);
    html! {
        <div class={classes!("entry", active.then_some("active"), (!in_ctx && active).then_some("cut"), (t.selected.as_deref() == Some(id.as_str()) && !id.is_empty()).then_some("sel"))}
             onclick={onclick} data-entry={id.clone()} title={e.preview.clone()}>
            <span class="line mono">{format!("{}", e.line)}</span>
            <span class="indent" style={format!("width:{}px", indent * 14)}>
                if row.depth > 30 { <span class="deep">{format!("{}", row.depth)}</span> }
            </span>
            <span class={classes!("node", row.fork.then_some("fork"))}>{ if row.fork { "├" } else { "•" } }</span>
            <span class={classes!("type", type_class(kind))} title={type_help(kind)}>{kind}</span>
            if e.checkpoint.is_some() { <span class="chip checkpoint" title="this compaction stores a checkpoint of the system prompt and tools, which stands in for the system messages before it">{"checkpoint"}</span> }
            if let Some(l) = e.label.as_deref() { <span class="chip label">{l}</span> }
            if t.flagged.contains(&(e.line as f64)) { <span class="chip flag" title="calls a tool the request does not define">{"undefined tool"}</span> }
            if let Some(k) = super::call_of_entry(&t.report, &id) {
                <button class={classes!("chip", "call", (t.picked == Some(CallRef::Index(k)) || t.picked == Some(CallRef::Entry(id.clone()))).then_some("on"))} data-testid={format!("tree-call-{k}")} aria-pressed={(t.picked == Some(CallRef::Index(k)) || t.picked == Some(CallRef::Entry(id.clone()))).to_string()}
                    title={format!("rebuild call {k}: the request pi sent for this answer")}
                    onclick={{ let on_call = t.on_call.clone(); Callback::from(move |e: MouseEvent| { e.stop_propagation(); on_call.emit(Some(CallRef::Index(k))) }) }}>{format!("call {k}")}</button>
            } else if e.role.as_deref() == Some("assistant") && !id.is_empty() {
                <button class={classes!("chip", "call", "off-branch", (t.picked == Some(CallRef::Entry(id.clone()))).then_some("on"))} data-testid={format!("tree-call-{id}")} aria-pressed={(t.picked == Some(CallRef::Entry(id.clone()))).to_string()}
                    title="rebuild the request pi sent for this answer, on its own branch (the path from the root to it)"
                    onclick={{ let on_call = t.on_call.clone(); let id = id.clone(); Callback::from(move |e: MouseEvent| { e.stop_propagation(); on_call.emit(Some(CallRef::Entry(id.clone()))) }) }}>{"call (other branch)"}</button>
            }
            if id == t.leaf { <span class="chip leaf">{"leaf"}</span> }
            if !t.compaction.is_empty() && id == t.compaction { <span class="chip compaction">{"compaction in effect"}</span> }
            <span class="preview">{&e.preview}</span>
            <span class="id mono">{id.clone()}</span>
        </div>
    }
}

/// What a row of the messages list reads.
struct Messages {
    session: Rc<SessionInfo>,
    on_select: Callback<Option<AttrValue>>,
    selected: Option<String>,
    by_id: Rc<HashMap<String, usize>>,
}

/// Row `i` of the messages the session yields: its entry's type, whether a context edit
/// replaced it, its preview and line; a click selects its entry.
fn message_row(m: &Messages, i: usize) -> Html {
    let Some(src) = m.session.message_sources.get(i) else {
        return Html::default();
    };
    let id = src.entry_id.clone().unwrap_or_default();
    let preview = m
        .by_id
        .get(&id)
        .map(|&k| m.session.entries[k].preview.clone())
        .unwrap_or_default();
    let cb = m.on_select.clone();
    let key = id.clone();
    let onclick = Callback::from(move |_: MouseEvent| {
        if !key.is_empty() {
            cb.emit(Some(AttrValue::from(format!("entry:{key}"))))
        }
    });
    // 0.86 on a system message is shown as one.
    let system = src.role.as_deref() == Some("system");
    let t = if system && src.entry_type == "message" {
        "system"
    } else {
        src.entry_type.as_str()
    };
    let t = if system && t == "compaction" {
        "checkpoint"
    } else {
        t
    };
    html! {
        <div class={classes!("entry", "msg", (m.selected.as_deref() == Some(id.as_str()) && !id.is_empty()).then_some("sel"))} onclick={onclick} title={preview.clone()}>
            <span class="line mono">{format!("#{}", i + 1)}</span>
            <span class={classes!("type", type_class(if t == "checkpoint" { "system" } else { t }))} title={type_help(if t == "checkpoint" { "compaction" } else { t })}>{t}</span>
            if src.edited.unwrap_or(false) { <span class="chip edited" title="a context edit replaces this message's content in what pi sends (the preview shows the stored original)">{"edited"}</span> }
            <span class="preview">{preview}</span>
            <span class="id mono">{format!("line {}", src.line)}</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, parent: Option<&str>) -> EntryNode {
        EntryNode {
            id: Some(id.to_string()),
            parent_id: parent.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn linear_is_flat_and_forks_indent() {
        let entries = vec![
            e("a", None),
            e("b", Some("a")),
            e("c", Some("b")),
            e("d", Some("b")),
            e("x", Some("d")),
        ];
        let rows = tree_rows(&entries);
        let got: Vec<(usize, usize)> = rows.iter().map(|r| (r.entry, r.depth)).collect();
        assert_eq!(got, vec![(0, 0), (1, 0), (2, 1), (3, 1), (4, 1)]);
    }

    #[test]
    fn deep_chain_does_not_recurse() {
        let mut entries = vec![e("0", None)];
        for i in 1..200_000 {
            entries.push(e(&i.to_string(), Some(&(i - 1).to_string())));
        }
        assert_eq!(tree_rows(&entries).len(), 200_000);
    }
}
