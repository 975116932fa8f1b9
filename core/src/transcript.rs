//! The transcript with system messages (pi-ai `dist/utils/transcript.js` and `dist/utils/text.js`,
//! 0.86 on): the system prompt, its named sections and the tool declarations live in `role:
//! "system"` messages inside the conversation. A later system message patches sections by name
//! (`null` deletes one) and changes tools (`toolsRemoved`, then `toolsAdded`). These are the
//! replays every stage and adapter shares: the current system message, the current tools, the
//! collapse into one leading message, the in-place rendering of an update.

use crate::js::{Object, Str, Value};
use crate::pi::Pi;
use crate::tools::{ToolDef, ToolSource};

fn is_system(m: &Value) -> bool {
    m.get_str("role") == Some("system")
}

/// `contentText(content, sep)` (AI/utils/text.js): a string as it is, an array's `text` blocks
/// joined by `sep`.
pub fn content_text(content: Option<&Value>, sep: &str) -> String {
    match content {
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get_str("type") == Some("text"))
            .map(|b| b.get_str("text").unwrap_or(""))
            .collect::<Vec<_>>()
            .join(sep),
        _ => String::new(),
    }
}

/// `getSystemMessageText(m)` (AI/utils/text.js:11–18): the content text, then every section
/// that is not null, the non-empty ones joined by a blank line. How the leading system message
/// reads as one prompt.
pub fn system_message_text(pi: &Pi, m: &Value) -> String {
    let s = |k: &str| pi.data.string("text", k);
    let mut parts = vec![content_text(m.get("content"), s("contentTextJoin"))];
    if let Some(sections) = m.get("sections").and_then(Value::as_object) {
        for (_, v) in sections.iter() {
            if let Value::String(t) = v {
                parts.push(t.to_string());
            }
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join(s("systemMessageTextJoin"))
}

/// `renderSystemMessageUpdate(m)` (AI/utils/text.js:24–35): how a later system message reads
/// where it is kept in place: its content text, then per section `Updated system prompt section
/// "x":\n\n…` or `Removed system prompt section "x".`.
pub fn render_system_message_update(pi: &Pi, m: &Value) -> String {
    let s = |k: &str| pi.data.string("text", k);
    let mut parts = Vec::new();
    let t = content_text(m.get("content"), s("contentTextJoin"));
    if !t.is_empty() {
        parts.push(t);
    }
    if let Some(sections) = m.get("sections").and_then(Value::as_object) {
        for (name, v) in sections.iter() {
            parts.push(match v {
                Value::Null => s("removedSection").replace("{name}", name),
                other => format!(
                    "{}{}",
                    s("updatedSectionPrefix").replace("{name}", name),
                    crate::js::to_js_string(Some(other))
                ),
            });
        }
    }
    parts.join(s("updateJoin"))
}

/// The names in a system message's `toolsAdded` or `toolsRemoved`.
fn tool_names(m: &Value, key: &str) -> Vec<Str> {
    m.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get("name").and_then(|n| n.as_str()).map(Str::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `getCurrentTools(messages)` (AI/utils/transcript.js:41–52): a Map by name over the system
/// messages in order, each first deleting its `toolsRemoved`, then setting its `toolsAdded` (a
/// name set again keeps its place; removed and added in one message, it moves to the end).
pub fn current_tools(messages: &[Value]) -> Vec<Value> {
    let mut tools: Vec<(Str, Value)> = Vec::new();
    for m in messages.iter().filter(|m| is_system(m)) {
        for name in tool_names(m, "toolsRemoved") {
            tools.retain(|(n, _)| *n != name);
        }
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = Str::from(t.get_str("name").unwrap_or(""));
            match tools.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = t.clone(),
                None => tools.push((name, t.clone())),
            }
        }
    }
    tools.into_iter().map(|(_, t)| t).collect()
}

/// `getCurrentSystemMessage(messages)` (AI/utils/transcript.js:58–86): the replay of every
/// system message into one: their content texts joined by a blank line, the sections patched
/// in order (a deleted one that comes back goes to the end), the current tools, and the first
/// system message's timestamp. `None` without any system message and without tools.
pub fn current_system_message(pi: &Pi, messages: &[Value]) -> Option<Value> {
    let mut contents: Vec<String> = Vec::new();
    let mut sections = Object::new();
    let mut timestamp: Option<Value> = None;
    for m in messages.iter().filter(|m| is_system(m)) {
        if timestamp.is_none() {
            timestamp = Some(m.get("timestamp").cloned().unwrap_or(Value::Null));
        }
        let t = content_text(m.get("content"), pi.data.string("text", "contentTextJoin"));
        if !t.is_empty() {
            contents.push(t);
        }
        if let Some(patch) = m.get("sections").and_then(Value::as_object) {
            for (name, v) in patch.iter() {
                if v.is_null() {
                    sections.remove(name);
                } else {
                    sections.insert(name.clone(), v.clone());
                }
            }
        }
    }
    let tools = current_tools(messages);
    if timestamp.is_none() && tools.is_empty() {
        return None;
    }
    let mut head = Object::new().with("role", "system").with(
        "content",
        contents.join(pi.data.string("text", "systemMessageTextJoin")),
    );
    if !sections.is_empty() {
        head.insert("sections", Value::Object(sections));
    }
    if !tools.is_empty() {
        head.insert("toolsAdded", Value::Array(tools));
    }
    // `timestamp ?? 0`: an absent first timestamp reads as undefined, then 0.
    head.insert(
        "timestamp",
        match timestamp {
            Some(Value::Null) | None => Value::Number(0.0),
            Some(t) => t,
        },
    );
    Some(Value::Object(head))
}

/// `collapseSystemMessages(ctx)` (AI/utils/transcript.js:96–100): the replayed system message
/// first, then every other message in order.
pub fn collapse(pi: &Pi, messages: &[Value]) -> Vec<Value> {
    let head = current_system_message(pi, messages);
    head.into_iter()
        .chain(messages.iter().filter(|m| !is_system(m)).cloned())
        .collect()
}

/// `resolveTranscript(ctx, supportsMidConvoSystemMessages)` (AI/utils/transcript.js:101–104):
/// kept as it is when the model takes system messages mid-conversation, else collapsed.
pub fn resolve(pi: &Pi, messages: &[Value], keep_in_place: bool) -> Vec<Value> {
    if keep_in_place {
        messages.to_vec()
    } else {
        collapse(pi, messages)
    }
}

/// What [`collapsed_context`] does to `ctx`, as an adapter's trace says it (0.86 on; `None`
/// without system messages): where the replayed prompt goes (`system`), where its tools go
/// (`tools`), and why the protocol needs it (`why`).
pub fn collapse_note(
    ctx: &crate::context::LlmContext,
    system: &str,
    tools: &str,
    why: &str,
) -> Option<String> {
    if !ctx.is_transcript() {
        return None;
    }
    let n = ctx
        .messages
        .iter()
        .filter(|m| m.get_str("role") == Some("system"))
        .count();
    let leading = ctx.messages.first().and_then(|m| m.get_str("role")) == Some("system");
    match n {
        0 => None,
        1 if leading => Some(format!(
            "the leading system message's text is {system}, its tools {tools}"
        )),
        n => Some(format!(
            "{n} system messages collapsed into one: the replayed prompt is {system}, the current tools {tools} ({why})"
        )),
    }
}

/// The context an adapter that collapses sees, in 0.85's shape: from 0.86 on, the replayed
/// system message's text as the system prompt, the other messages, and the tools the
/// transcript declares (`collapseSystemMessages` + `getCurrentTools`); before, the context as
/// it is.
pub fn collapsed_context<'a>(
    pi: &Pi,
    ctx: &'a crate::context::LlmContext,
) -> std::borrow::Cow<'a, crate::context::LlmContext> {
    if !ctx.is_transcript() {
        return std::borrow::Cow::Borrowed(ctx);
    }
    let head = current_system_message(pi, &ctx.messages);
    std::borrow::Cow::Owned(crate::context::LlmContext::prompt(
        head.as_ref()
            .map(|h| system_message_text(pi, h))
            .unwrap_or_default(),
        ctx.messages
            .iter()
            .filter(|m| !is_system(m))
            .cloned()
            .collect(),
        current_tools(&ctx.messages)
            .iter()
            .map(tool_from_declaration)
            .collect(),
    ))
}

/// `resolveTranscript(context, supportsMidConvoSystemMessages)` (AI/utils/transcript.js:
/// 101–104) as an adapter runs it (`at`: its call site): the system messages kept where they are
/// (`keep`, the model's `compat.supportsMidConvoSystemMessages`), or collapsed into one leading
/// message; the trace says which when there is more than a leading one. The context keeps no
/// prompt or tools of its own (they are in the messages).
pub fn resolve_context(
    pi: &Pi,
    ctx: &crate::context::LlmContext,
    keep: bool,
    at: &'static str,
    events: &mut crate::trace::Events,
) -> crate::context::LlmContext {
    use crate::trace::{Event, EventKind};
    let n_system = ctx.messages.iter().filter(|m| is_system(m)).count();
    let leading = ctx.messages.first().is_some_and(is_system);
    if n_system > 1 || (n_system == 1 && !leading) {
        let s = if n_system == 1 { "" } else { "s" };
        events.push(
            Event::new(
                if keep { EventKind::Note } else { EventKind::Converted },
                if keep {
                    format!("{n_system} system message{s} kept in place (compat.supportsMidConvoSystemMessages)")
                } else {
                    format!("{n_system} system message{s} collapsed into one leading system message (the model does not take them mid-conversation)")
                },
            )
            .at(at),
        );
    }
    crate::context::LlmContext::transcript(resolve(pi, &ctx.messages, keep))
}

/// The tools whose declarations decide grammar tools (`getDeclaredTools(context.messages)`, 0.86
/// on; before, `context.tools`).
pub fn declared_or_context_tools<'a>(
    ctx: &'a crate::context::LlmContext,
) -> std::borrow::Cow<'a, [ToolDef]> {
    if ctx.is_transcript() {
        std::borrow::Cow::Owned(declared_tools(&ctx.messages))
    } else {
        std::borrow::Cow::Borrowed(ctx.tools())
    }
}

/// How an adapter declares tools that change mid-conversation (`ToolChangeSupport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolChanges {
    /// Every change folds into the top-level tools.
    None,
    /// Additions after the last non-additive change are declared in place.
    Additions,
    /// Every system message declares its own tools in place; no top-level tools.
    Changes,
}

/// `findLastNonAdditiveToolChange(systemMessages)` (AI/utils/transcript.js:181–196): the index of
/// the last system message that removes a tool or adds a name declared before it.
fn last_non_additive_change(system: &[&Value]) -> Option<usize> {
    let mut declared: Vec<Str> = Vec::new();
    let mut last = None;
    for (i, m) in system.iter().enumerate() {
        let removed = !tool_names(m, "toolsRemoved").is_empty();
        let mut redeclares = false;
        for name in tool_names(m, "toolsAdded") {
            if declared.contains(&name) {
                redeclares = true;
            }
            declared.push(name);
        }
        if removed || redeclares {
            last = Some(i);
        }
    }
    last
}

/// `resolveTranscriptTools(messages, support)` (AI/utils/transcript.js:198–217): the request's
/// top-level tools and how many system messages they fold (the ones from that index on declare
/// their `toolsAdded` in place).
/// Until 1.4.0 (`fold_after_last_change` false; `anchorsAdditions`,
/// 1.3.0/AI/utils/transcript.js:198–205): additions are anchored only when no system message
/// removes or redeclares a tool; otherwise every change folds into the top-level tools.
pub fn resolve_tools(
    messages: &[Value],
    support: ToolChanges,
    fold_after_last_change: bool,
) -> (Vec<Value>, usize) {
    let system: Vec<&Value> = messages.iter().filter(|m| is_system(m)).collect();
    match support {
        ToolChanges::None => (current_tools(messages), system.len()),
        ToolChanges::Changes => (Vec::new(), 0),
        ToolChanges::Additions
            if !fold_after_last_change && last_non_additive_change(&system).is_some() =>
        {
            (current_tools(messages), system.len())
        }
        ToolChanges::Additions => {
            let leading = messages.first().is_some_and(is_system) as usize;
            let folded = leading.max(last_non_additive_change(&system).map_or(0, |i| i + 1));
            let folded_msgs: Vec<Value> =
                system.iter().take(folded).map(|m| (*m).clone()).collect();
            (current_tools(&folded_msgs), folded)
        }
    }
}

/// `getDeclaredTools(messages)` (AI/utils/transcript.js:145–154): every tool a system message
/// declares, by name in first-declaration order, each with its last definition.
pub fn declared_tools(messages: &[Value]) -> Vec<ToolDef> {
    let mut tools: Vec<(Str, &Value)> = Vec::new();
    for m in messages.iter().filter(|m| is_system(m)) {
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = Str::from(t.get_str("name").unwrap_or(""));
            match tools.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = t,
                None => tools.push((name, t)),
            }
        }
    }
    tools
        .into_iter()
        .map(|(_, t)| tool_from_declaration(t))
        .collect()
}

/// `hasToolRedefinitions(messages)` (0.86.1/AI/utils/transcript.js:159–172): whether a name was
/// declared twice with different definitions (compared as `toToolDeclaration`'s JSON:
/// name, description, parameters, constrainedSampling).
pub fn has_tool_redefinitions(messages: &[Value]) -> bool {
    let declaration = |t: &Value| {
        let mut o = Object::new();
        for k in ["name", "description", "parameters", "constrainedSampling"] {
            if let Some(v) = t.get(k) {
                o.insert(k, v.clone());
            }
        }
        Value::Object(o).to_json()
    };
    let mut declared: Vec<(String, String)> = Vec::new();
    for m in messages.iter().filter(|m| is_system(m)) {
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = t.get("name").map(Value::to_json).unwrap_or_default();
            let json = declaration(t);
            match declared.iter_mut().find(|(n, _)| *n == name) {
                Some((_, prev)) if *prev != json => return true,
                Some(slot) => slot.1 = json,
                None => declared.push((name, json)),
            }
        }
    }
    false
}

/// Every definition of a tool the system messages declare, in order, each once (a tool
/// redefined or removed later keeps its earlier definitions: the body sends them in place).
pub fn every_declaration(messages: &[Value]) -> Vec<ToolDef> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for m in messages.iter().filter(|m| is_system(m)) {
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let json = t.to_json();
            if !seen.contains(&json) {
                seen.push(json);
                out.push(tool_from_declaration(t));
            }
        }
    }
    out
}

/// `toToolDeclaration(tool)` (AI/utils/transcript.js:106–113): `{name, description, parameters,
/// constrainedSampling?}`, the parameters copied through JSON.
pub fn tool_declaration(tool: &ToolDef) -> Value {
    let mut o = Object::new()
        .with("name", tool.name.as_str())
        .with("description", tool.description.as_str())
        .with("parameters", tool.parameters.clone());
    o.insert_opt("constrainedSampling", tool.constrained_sampling.clone());
    Value::Object(o)
}

/// A tool as the adapters use it, from a declaration in a system message.
pub fn tool_from_declaration(decl: &Value) -> ToolDef {
    let name = decl.get_str("name").unwrap_or("").to_string();
    ToolDef {
        label: name.clone(),
        name,
        description: decl.get_str("description").unwrap_or("").to_string(),
        parameters: decl.get("parameters").cloned().unwrap_or(Value::Null),
        constrained_sampling: decl.get("constrainedSampling").cloned(),
        execution_mode: None,
        prompt_snippet: None,
        prompt_guidelines: None,
        source: ToolSource::Declared,
        package: None,
    }
}

/// `getToolStateChanges(previous, current)` (AI/utils/transcript.js:126–143): the declarations
/// added (new or changed, in current order) and the names removed (gone or changed, in previous
/// order). Two declarations are the same when their JSON is.
pub fn tool_state_changes(previous: &[Value], current: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let name = |t: &Value| t.get_str("name").unwrap_or("").to_string();
    let find = |list: &[Value], n: &str| list.iter().find(|t| name(t) == n).cloned();
    let added: Vec<Value> = current
        .iter()
        .filter(|t| find(previous, &name(t)).is_none_or(|p| p.to_json() != t.to_json()))
        .cloned()
        .collect();
    let removed: Vec<Value> = previous
        .iter()
        .filter(|t| find(current, &name(t)).is_none_or(|c| c.to_json() != t.to_json()))
        .map(|t| Value::Object(Object::new().with("name", name(t))))
        .collect();
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::parse;
    use crate::testcase::pi;

    fn pi16() -> Pi {
        Pi::new(crate::PiVersion::V1_6_0).unwrap()
    }

    fn v(s: &str) -> Value {
        parse(s).unwrap()
    }

    #[test]
    fn replay_patches_sections_and_tools_in_map_order() {
        let p = pi16();
        let msgs = vec![
            v(
                r#"{"role":"system","content":"","sections":{"preamble":"P","tools":"<tools>\nT\n</tools>","cwd":"<cwd>\n/a\n</cwd>"},"timestamp":5,"toolsAdded":[{"name":"read"},{"name":"bash"}]}"#,
            ),
            v(r#"{"role":"user","content":"q"}"#),
            v(
                r#"{"role":"system","content":"","sections":{"tools":null,"addendum":"<addendum>\nX\n</addendum>","cwd":"<cwd>\n/b\n</cwd>"},"timestamp":9,"toolsAdded":[{"name":"read","description":"new"}],"toolsRemoved":[{"name":"read"}]}"#,
            ),
        ];
        let head = current_system_message(&p, &msgs).unwrap();
        assert_eq!(
            head.to_json(),
            r#"{"role":"system","content":"","sections":{"preamble":"P","cwd":"<cwd>\n/b\n</cwd>","addendum":"<addendum>\nX\n</addendum>"},"toolsAdded":[{"name":"bash"},{"name":"read","description":"new"}],"timestamp":5}"#
        );
        assert_eq!(
            system_message_text(&p, &head),
            "P\n\n<cwd>\n/b\n</cwd>\n\n<addendum>\nX\n</addendum>"
        );
        assert_eq!(
            render_system_message_update(&p, &msgs[2]),
            "Removed system prompt section \"tools\".\n\nUpdated system prompt section \"addendum\":\n\n<addendum>\nX\n</addendum>\n\nUpdated system prompt section \"cwd\":\n\n<cwd>\n/b\n</cwd>"
        );
        let collapsed = collapse(&p, &msgs);
        assert_eq!(collapsed.len(), 2);
        assert_eq!(collapsed[1].get_str("role"), Some("user"));
        let _ = pi();
    }

    #[test]
    fn tool_changes_fold_up_to_the_last_non_additive_one() {
        let msgs = vec![
            v(r#"{"role":"system","content":"B","toolsAdded":[{"name":"read"}]}"#),
            v(r#"{"role":"user","content":"q"}"#),
            v(r#"{"role":"system","content":"","toolsAdded":[{"name":"ls"}]}"#),
            v(r#"{"role":"system","content":"N","toolsAdded":[{"name":"grep"}]}"#),
        ];
        let (tools, folded) = resolve_tools(&msgs, ToolChanges::Additions, true);
        assert_eq!(folded, 1);
        assert_eq!(tools.len(), 1);
        let (tools, folded) = resolve_tools(&msgs, ToolChanges::None, true);
        assert_eq!((tools.len(), folded), (3, 3));
        let mut with_removal = msgs.clone();
        with_removal.push(v(
            r#"{"role":"system","content":"","toolsRemoved":[{"name":"ls"}]}"#,
        ));
        let (tools, folded) = resolve_tools(&with_removal, ToolChanges::Additions, true);
        assert_eq!(folded, 4);
        let names: Vec<&str> = tools.iter().filter_map(|t| t.get_str("name")).collect();
        assert_eq!(names, ["read", "grep"]);
        let (added, removed) = tool_state_changes(&tools, &current_tools(&msgs));
        assert_eq!(added.len(), 1);
        assert!(removed.is_empty());
    }
}
