//! The transcript: every session entry in a virtualized list, and the chosen one in full — the
//! whole text of a message, tool calls with their arguments, tool results, thinking, system
//! messages, compaction and branch summaries, custom entries — always as text. The list comes
//! from the report (`session.entries`: line, type, preview); the full entry is read from the
//! session file the page holds (`ViewProps::laid`), by its line, only when it is opened, so a
//! large session costs one line's parse per click.

use std::rc::Rc;

use ctxlens::js::Value;
use ctxlens::report::types::EntryNode;
use yew::prelude::*;

use super::components::thousands;
use super::components::vlist::VList;
use super::util::{arr, not_available, num, s};
use super::ViewProps;

/// Where each line of a text starts (byte offsets), for reading line `n` without splitting the
/// whole file.
pub fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    starts
}

/// Line `n` (1-based) of `bytes`, without its line break.
pub fn line_of<'a>(bytes: &'a [u8], starts: &[usize], n: usize) -> Option<&'a [u8]> {
    let start = *starts.get(n.checked_sub(1)?)?;
    let end = starts.get(n).map_or(bytes.len(), |e| e - 1);
    let line = bytes.get(start..end.max(start))?;
    Some(line.strip_suffix(b"\r").unwrap_or(line))
}

/// The stored entry on `line` of the session file, parsed (`Err`: why not).
pub fn stored_entry(bytes: &[u8], starts: &[usize], line: usize) -> Result<Value, String> {
    let raw = line_of(bytes, starts, line).ok_or_else(|| format!("no line {line} in the file"))?;
    let text = String::from_utf8_lossy(raw);
    ctxlens::js::parse(&text).map_err(|e| format!("line {line} is not JSON: {e:?}"))
}

fn pre(text: &str, class: &'static str) -> Html {
    html! { <pre class={classes!("entry-text", class)}>{text.to_string()}</pre> }
}

fn pretty(v: &Value) -> String {
    v.to_json_pretty(2)
}

/// A message's content: a string, or blocks (text, thinking, tool calls, images).
fn content(v: Option<&Value>, undefined: &[String]) -> Html {
    match v {
        None | Some(Value::Null) => html! { <p class="muted small">{"(no content)"}</p> },
        Some(Value::String(t)) => pre(t, "text"),
        Some(Value::Array(blocks)) => html! {
            <>{ for blocks.iter().map(|b| block(b, undefined)) }</>
        },
        Some(other) => pre(&pretty(other), "json"),
    }
}

fn block(b: &Value, undefined: &[String]) -> Html {
    match b.get_str("type") {
        Some("text") => html! {
            <div class="block b-text"><div class="block-head">{"text"}<span class="muted small">{format!(" · {} chars", thousands(ctxlens::js::utf16_len(s(b, "text")) as f64))}</span></div>{pre(s(b, "text"), "text")}</div>
        },
        Some("thinking") => html! {
            <div class="block b-thinking"><div class="block-head">{"thinking"}
                if b.get("redacted").and_then(Value::as_bool) == Some(true) { <span class="chip">{"redacted"}</span> }
                if b.get_str("thinkingSignature").is_some() { <span class="muted small">{" · signed"}</span> }
            </div>{pre(s(b, "thinking"), "thinking")}</div>
        },
        Some("toolCall") => {
            let name = s(b, "name");
            let missing = undefined.iter().any(|n| n == name);
            html! {
                <div class="block b-tool" data-testid="tool-call">
                    <div class="block-head">{"tool call "}<strong class="mono">{name}</strong><span class="muted small mono">{format!(" {}", s(b, "id"))}</span>
                        if missing { <span class="chip flag" data-testid="undefined-tool" title="the request defines no tool of this name: the model sees a call to a tool it cannot call">{"not defined in this request"}</span> }
                    </div>
                    {pre(&b.get("arguments").map(pretty).unwrap_or_else(|| "(no arguments)".into()), "json")}
                </div>
            }
        }
        Some("image") => html! {
            <div class="block b-image"><div class="block-head">{"image"}<span class="muted small">{format!(" · {} · {} base64 chars", s(b, "mimeType"), thousands(s(b, "data").len() as f64))}</span></div></div>
        },
        _ => {
            html! { <div class="block"><div class="block-head">{s(b, "type").to_string()}</div>{pre(&pretty(b), "json")}</div> }
        }
    }
}

fn field(label: &'static str, value: String) -> Html {
    if value.is_empty() {
        return Html::default();
    }
    html! { <><dt>{label}</dt><dd class="mono">{value}</dd></> }
}

/// A message entry's `message` in full.
fn message(m: &Value, undefined: &[String]) -> Html {
    let role = s(m, "role");
    match role {
        "assistant" => {
            let u = m.get("usage").cloned().unwrap_or_default();
            html! {
                <>
                    <dl class="facts">
                        {field("model", format!("{}/{}", s(m, "provider"), s(m, "model")).trim_matches('/').to_string())}
                        {field("protocol", s(m, "api").to_string())}
                        {field("stop", s(m, "stopReason").to_string())}
                        {field("error", s(m, "errorMessage").to_string())}
                        if m.get("usage").is_some() {
                            {field("usage", format!("{} input · {} cache read · {} cache write · {} output", thousands(num(&u, "input")), thousands(num(&u, "cacheRead")), thousands(num(&u, "cacheWrite")), thousands(num(&u, "output"))))}
                        }
                    </dl>
                    {content(m.get("content"), undefined)}
                </>
            }
        }
        "toolResult" => html! {
            <>
                <dl class="facts">
                    {field("tool", s(m, "toolName").to_string())}
                    {field("call", s(m, "toolCallId").to_string())}
                    if m.get("isError").and_then(Value::as_bool) == Some(true) { {field("result", "an error".to_string())} }
                </dl>
                {content(m.get("content"), undefined)}
                if let Some(d) = m.get("details").filter(|d| !d.is_null()) {
                    <details class="block"><summary class="block-head">{"details (kept by pi, not sent)"}</summary>{pre(&pretty(d), "json")}</details>
                }
            </>
        },
        "bashExecution" => html! {
            <>
                <dl class="facts">
                    {field("exit code", m.get("exitCode").map(super::util::text_of).unwrap_or_default())}
                    if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) { {field("context", "left out (!! command)".to_string())} }
                </dl>
                <div class="block"><div class="block-head">{"command"}</div>{pre(s(m, "command"), "text")}</div>
                <div class="block"><div class="block-head">{"output"}</div>{pre(s(m, "output"), "text")}</div>
            </>
        },
        "branchSummary" | "compactionSummary" => pre(s(m, "summary"), "text"),
        "custom" => html! {
            <>
                <dl class="facts">{field("custom type", s(m, "customType").to_string())}</dl>
                {content(m.get("content"), undefined)}
            </>
        },
        "system" => system_message(m),
        _ => content(m.get("content"), undefined),
    }
}

/// A 0.86+ system message (or a compaction's checkpoint): each section it sets or removes, in
/// full, and the tools it declares or removes.
fn system_message(m: &Value) -> Html {
    let sections: Vec<(String, Value)> = m
        .get("sections")
        .and_then(Value::as_object)
        .map(|o| o.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
        .unwrap_or_default();
    let tools = |k: &str| -> Vec<String> {
        arr(m, k)
            .iter()
            .map(|t| t.get_str("name").unwrap_or("?").to_string())
            .collect()
    };
    let (added, removed) = (tools("toolsAdded"), tools("toolsRemoved"));
    html! {
        <>
            if let Some(c) = m.get("content").filter(|c| !c.is_null()) { {content(Some(c), &[])} }
            { for sections.iter().map(|(k, v)| html! {
                <div class="block b-system"><div class="block-head">{"section "}<strong class="mono">{k.clone()}</strong>
                    if v.is_null() { <span class="chip">{"removed"}</span> }</div>
                    if let Some(t) = v.as_str() { {pre(t, "text")} } else if !v.is_null() { {pre(&pretty(v), "json")} }
                </div>
            }) }
            if !added.is_empty() { <p class="small">{format!("Tools declared: {}", added.join(", "))}</p> }
            if !removed.is_empty() { <p class="small">{format!("Tools removed: {}", removed.join(", "))}</p> }
        </>
    }
}

/// A stored session entry in full, as text.
pub fn entry_full(e: &Value, undefined: &[String]) -> Html {
    let t = s(e, "type");
    let body = match t {
        "message" => e
            .get("message")
            .map(|m| message(m, undefined))
            .unwrap_or_default(),
        "compaction" => html! {
            <>
                <dl class="facts">
                    {field("first kept entry", s(e, "firstKeptEntryId").to_string())}
                    {field("tokens before", e.get("tokensBefore").map(super::util::text_of).unwrap_or_default())}
                </dl>
                <div class="block"><div class="block-head">{"summary"}</div>{pre(s(e, "summary"), "text")}</div>
                if let Some(cp) = e.get("systemMessage").filter(|v| !v.is_null()) {
                    <div class="block"><div class="block-head">{"checkpoint: the system prompt and tools as they stood"}</div>{system_message(cp)}</div>
                }
            </>
        },
        "branch_summary" => html! {
            <>
                <dl class="facts">{field("from entry", s(e, "fromId").to_string())}</dl>
                <div class="block"><div class="block-head">{"summary"}</div>{pre(s(e, "summary"), "text")}</div>
            </>
        },
        "custom_message" => html! {
            <>
                <dl class="facts">
                    {field("custom type", s(e, "customType").to_string())}
                    {field("shown", e.get("display").map(super::util::text_of).unwrap_or_default())}
                </dl>
                {content(e.get("content"), undefined)}
            </>
        },
        "custom" => html! {
            <>
                <dl class="facts">{field("custom type", s(e, "customType").to_string())}</dl>
                <div class="block"><div class="block-head">{"data (extensions' state: pi does not send it)"}</div>{pre(&e.get("data").map(pretty).unwrap_or_default(), "json")}</div>
            </>
        },
        "model_change" => {
            html! { <dl class="facts">{field("model", format!("{}/{}", s(e, "provider"), s(e, "modelId")))}</dl> }
        }
        "thinking_level_change" => {
            html! { <dl class="facts">{field("thinking", s(e, "thinkingLevel").to_string())}</dl> }
        }
        "label" => {
            html! { <dl class="facts">{field("label", s(e, "label").to_string())}{field("on entry", s(e, "targetId").to_string())}</dl> }
        }
        _ => pre(&pretty(e), "json"),
    };
    html! {
        <>
            {body}
            <details class="block raw-entry"><summary class="block-head">{"the entry as stored (JSON)"}</summary>{pre(&pretty(e), "json")}</details>
        </>
    }
}

/// The names of the tools called on `line` that the request does not define
/// (`report.undefinedToolCalls`).
pub fn undefined_on_line(report: &crate::report::Report, line: usize) -> Vec<String> {
    report
        .undefined_tool_calls
        .iter()
        .filter(|u| u.line == Some(line))
        .map(|u| u.name.clone())
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct EntryReaderProps {
    pub report: crate::shared::Shared<crate::report::Report>,
    /// The session file's bytes and line starts.
    pub file: Option<Rc<SessionFile>>,
    /// The report's entry (`session.entries[i]`).
    pub entry: EntryNode,
}

/// The chosen entry in full (read from the file by its line).
#[function_component]
pub fn EntryReader(p: &EntryReaderProps) -> Html {
    let line = p.entry.line;
    let undefined = undefined_on_line(&p.report, line);
    let stored = p.file.as_ref().map(|f| f.entry(line));
    html! {
        <article class="entry-full" data-testid="entry-full" data-line={line.to_string()} tabindex="-1">
            <h4>{format!("{} · line {}", p.entry.entry_type, line)}<span class="muted small mono">{format!(" {}", p.entry.id.as_deref().unwrap_or(""))}</span>
                if !undefined.is_empty() { <span class="chip flag" title="this entry calls tools the request does not define">{"calls an undefined tool"}</span> }
            </h4>
            { match stored {
                Some(Ok(v)) => entry_full(&v, &undefined),
                Some(Err(why)) => html! { <p class="na">{why}</p> },
                None => html! { <p class="na">{"The session file is not on this page."}</p> },
            } }
        </article>
    }
}

/// The session file on the page (in the laid-out files) and where its lines start.
pub struct SessionFile {
    laid: crate::shared::Shared<crate::state::Laid>,
    starts: Vec<usize>,
}

impl PartialEq for SessionFile {
    fn eq(&self, other: &Self) -> bool {
        self.laid == other.laid
    }
}

impl SessionFile {
    fn bytes(&self) -> &[u8] {
        self.laid
            .files
            .get("session.jsonl")
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The stored entry on `line`, parsed.
    pub fn entry(&self, line: usize) -> Result<Value, String> {
        stored_entry(self.bytes(), &self.starts, line)
    }
}

/// The session file with its line starts (computed once per file).
#[hook]
pub fn use_session_file(
    laid: Option<crate::shared::Shared<crate::state::Laid>>,
) -> Option<Rc<SessionFile>> {
    let memo = use_memo(laid, |laid| {
        laid.as_ref().and_then(|l| {
            l.files.get("session.jsonl").map(|b| {
                Rc::new(SessionFile {
                    starts: line_starts(b),
                    laid: l.clone(),
                })
            })
        })
    });
    (*memo).clone()
}

#[function_component]
pub fn TranscriptView(p: &ViewProps) -> Html {
    let branch_only = use_state(|| false);
    let file = use_session_file(p.laid.clone());
    if let Some(h) = super::util::session_placeholder(&p.report) {
        return html! { <section class="transcript-view" data-testid="transcript-view">{h}</section> };
    }
    let Some(session) = p.report.session.clone() else {
        return html! { <section class="transcript-view" data-testid="transcript-view">{not_available("No session: this request starts a new conversation.")}</section> };
    };
    let (sess, entries) = (&session, &session.entries);
    let shown: Rc<Vec<usize>> = Rc::new(
        (0..entries.len())
            .filter(|&i| !*branch_only || entries[i].on_active_branch)
            .collect(),
    );
    let selected_id = p
        .selection
        .as_deref()
        .and_then(|k| k.strip_prefix("entry:"))
        .map(str::to_string);
    let selected = selected_id.as_ref().and_then(|id| {
        shown
            .iter()
            .position(|&i| entries[i].id.as_deref() == Some(id.as_str()))
    });
    let flagged: Rc<Vec<f64>> = Rc::new(
        p.report
            .undefined_tool_calls
            .iter()
            .filter_map(|u| u.line.map(|l| l as f64))
            .collect(),
    );
    let render = {
        let (session, shown, cb, flagged) = (
            session.clone(),
            shown.clone(),
            p.on_select.clone(),
            flagged.clone(),
        );
        let sel = selected;
        Callback::from(move |row: usize| {
            let Some(&i) = shown.get(row) else {
                return Html::default();
            };
            let e = &session.entries[i];
            let id = e.id.clone().unwrap_or_default();
            let line = e.line as f64;
            let cb = cb.clone();
            let key = id.clone();
            let choose = Callback::from(move |_: ()| {
                if !key.is_empty() {
                    cb.emit(Some(AttrValue::from(format!("entry:{key}"))))
                }
            });
            let onclick = choose.reform(|_: MouseEvent| ());
            let onkeydown = Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    choose.emit(());
                }
            });
            let in_ctx = e.in_context;
            html! {
                <div class={classes!("entry", "t-row", (sel == Some(row)).then_some("sel"), (!in_ctx).then_some("cut"))}
                     role="button" tabindex="0" aria-pressed={(sel == Some(row)).to_string()}
                     onclick={onclick} onkeydown={onkeydown} data-entry={id.clone()} data-line={line.to_string()}>
                    <span class="line mono">{format!("{line}")}</span>
                    <span class={classes!("type")}>{e.entry_type.clone()}</span>
                    if flagged.contains(&line) { <span class="chip flag" title="calls a tool the request does not define">{"undefined tool"}</span> }
                    <span class="preview">{e.preview.clone()}</span>
                </div>
            }
        })
    };
    let toggle = {
        let branch_only = branch_only.clone();
        Callback::from(move |_: Event| branch_only.set(!*branch_only))
    };
    let chosen = selected.map(|row| entries[shown[row]].clone());
    html! {
        <section class="transcript-view" data-testid="transcript-view">
            <h3>{"Transcript"}<span class="muted small mono">{format!(" {}", sess.name)}</span></h3>
            <p class="muted small">{"Every entry of the session in file order; choose one to read it in full (its whole text, tool calls with their arguments, results, thinking, summaries), as pi stored it. Dimmed: not in what this request sends."}</p>
            <div class="two-col transcript-cols">
                <div>
                    <div class="list-head">
                        <h4>{format!("{} entries", thousands(shown.len() as f64))}</h4>
                        <label class="small" title="the branch of the request on screen (a past call's ends at its answer's parent)"><input type="checkbox" checked={*branch_only} onchange={toggle} data-testid="transcript-branch-only" />{" active branch only"}</label>
                    </div>
                    <VList count={shown.len()} render={render} testid="transcript-list" row_height={28.0} height={560.0} scroll_to={selected} />
                </div>
                <div class="reader">
                    if let Some(e) = chosen {
                        <EntryReader report={p.report.clone()} file={file.clone()} entry={e} />
                    } else {
                        <p class="muted">{"Choose an entry to open it in full."}</p>
                    }
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_by_number() {
        let text = b"{\"a\":1}\n{\"b\":2}\r\n\n{\"c\":3}";
        let starts = line_starts(text);
        assert_eq!(line_of(text, &starts, 1), Some(&b"{\"a\":1}"[..]));
        assert_eq!(line_of(text, &starts, 2), Some(&b"{\"b\":2}"[..]));
        assert_eq!(line_of(text, &starts, 3), Some(&b""[..]));
        assert_eq!(line_of(text, &starts, 4), Some(&b"{\"c\":3}"[..]));
        assert_eq!(line_of(text, &starts, 5), None);
        assert_eq!(line_of(text, &starts, 0), None);
        assert!(stored_entry(text, &starts, 3).is_err());
        assert_eq!(
            stored_entry(text, &starts, 4)
                .unwrap()
                .get("c")
                .and_then(Value::as_f64),
            Some(3.0)
        );
    }
}
