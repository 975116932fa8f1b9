//! Every call of every session: the usage pi recorded on each answer, read as ccusage reads it
//! (so the totals agree), each call's request rebuilt by the release that made it and accounted
//! by block, then summed by day, week, month, session, project, model or release.
//!
//! What a call cost is pi's own record (`usage.cost.total`). What it was spent on is the rebuilt
//! request: the cost of the prompt (`cost.input + cost.cacheRead + cost.cacheWrite`) and its
//! tokens (`input + cacheRead + cacheWrite`) are split over the request's blocks by their share
//! of its characters. The answer's tokens and cost (`output`) are the model's, not the request's.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::analysis::stats::KindStats;
use crate::analysis::whatif::{self, Change};
use crate::calls::CallRef;
use crate::inputs::Inputs;
use crate::js::{self, Value};
use crate::tokens::TokenCounter;

/// The usage pi recorded on one answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorded {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `totalTokens`, or the sum of the four when pi did not record it (as ccusage counts it).
    pub total_tokens: f64,
    /// `cost.total` (0 when not recorded).
    pub cost: f64,
    /// The prompt's part of the cost (`cost.input + cost.cacheRead + cost.cacheWrite`, or
    /// `cost.total - cost.output`); `None` when pi recorded no parts.
    pub prompt_cost: Option<f64>,
}

impl Recorded {
    /// The prompt's tokens as the provider counted them.
    pub fn prompt_tokens(&self) -> f64 {
        self.input + self.cache_read + self.cache_write
    }

    /// The prompt's cost: its recorded part, else the whole cost (no parts recorded).
    pub fn prompt_spend(&self) -> f64 {
        self.prompt_cost.unwrap_or(self.cost)
    }
}

/// A rebuilt call's request, by block (characters, UTF-16 units as JS counts them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Blocks {
    pub body_chars: usize,
    pub system_prompt: usize,
    pub tools: usize,
    pub history: usize,
    pub parameters: usize,
    pub structure: usize,
    /// Each tool's description and schema (shared with the call before, where the same).
    pub by_tool: Shared<(String, usize)>,
    /// Each system-prompt section: name, source (a file, a skill), characters (shared with
    /// the call before, where the same).
    pub sections: Shared<(String, String, usize)>,
    pub kinds: KindStats,
    /// Tool results by the tool that produced them.
    pub tool_results: Vec<(String, usize)>,
    /// The context files another context file of the same request already holds, each with
    /// that file: (the file sent again, the file holding its text).
    pub shadowed: Shared<(String, String)>,
    /// The parts counted with the model's vocabulary, when the host has it: the recorded prompt
    /// tokens are then split by these counts ([`LedgerCall::share_of`]); `None`: by characters.
    pub tokens: Option<BlockTokens>,
}

/// A list most calls of a session have the same as the call before (the tools, the system
/// prompt's sections): one copy is kept for them all, so the rows of a folder's calls grow
/// with their number, not with their tool sets.
pub type Shared<T> = std::sync::Arc<Vec<T>>;

/// `now`, or `before` where it holds the same.
fn shared<T: PartialEq>(now: Vec<T>, before: Option<&Shared<T>>) -> Shared<T> {
    match before {
        Some(b) if **b == now => b.clone(),
        _ => std::sync::Arc::new(now),
    }
}

/// A request's parts in tokens of the model's vocabulary, each text encoded on its own, in the
/// order of [`Blocks`]' lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockTokens {
    /// The vocabulary (`o200k_base`, …).
    pub vocabulary: String,
    pub system_prompt: usize,
    pub tools: usize,
    pub history: usize,
    pub by_tool: Vec<usize>,
    pub sections: Vec<usize>,
    pub kinds: KindStats,
    pub tool_results: Vec<usize>,
}

/// The request's blocks: the report's key and label of each.
pub const BLOCKS: [(&str, &str); 5] = [
    ("systemPrompt", "System prompt"),
    ("tools", "Tools"),
    ("history", "History"),
    ("parameters", "Parameters"),
    ("structure", "JSON structure"),
];

impl Blocks {
    /// The characters of each of [`BLOCKS`], in its order.
    pub fn by_block(&self) -> [(&'static str, usize); 5] {
        let n = [
            self.system_prompt,
            self.tools,
            self.history,
            self.parameters,
            self.structure,
        ];
        std::array::from_fn(|i| (BLOCKS[i].0, n[i]))
    }

    /// The history's characters by kind, named as the report names them.
    pub fn history_kinds(&self) -> [(&'static str, usize); 7] {
        let k = &self.kinds;
        [
            ("user text", k.user_text),
            ("assistant text", k.assistant_text),
            ("reasoning", k.reasoning),
            ("tool arguments", k.tool_arguments),
            ("tool results", k.tool_results),
            ("image data", k.image_data),
            ("signatures", k.signatures),
        ]
    }

    /// `s`'s blocks, with the lists that equal `before`'s shared with it.
    fn of(s: &crate::analysis::stats::Stats, before: Option<&Blocks>) -> Blocks {
        Blocks {
            body_chars: s.body_chars,
            system_prompt: s.system_prompt_chars,
            tools: s.tools_chars,
            history: s.history_chars,
            parameters: s.parameters_chars,
            structure: s.structure_chars,
            by_tool: shared(
                s.by_tool
                    .iter()
                    .map(|t| (t.name.clone(), t.chars))
                    .collect(),
                before.map(|b| &b.by_tool),
            ),
            sections: shared(
                s.sections
                    .iter()
                    .map(|x| (x.name.clone(), x.source.clone(), x.chars))
                    .collect(),
                before.map(|b| &b.sections),
            ),
            kinds: s.by_kind.clone(),
            tool_results: s
                .tool_results_by_tool
                .iter()
                .map(|t| (t.name.clone(), t.chars))
                .collect(),
            shadowed: Default::default(),
            tokens: s.tokenizer.as_ref().map(|t| BlockTokens {
                vocabulary: t.name.clone(),
                system_prompt: s.system_prompt_tokens,
                tools: s.tools_tokens,
                history: s.history_tokens,
                by_tool: s.by_tool.iter().map(|t| t.tokens).collect(),
                sections: s.sections.iter().map(|x| x.tokens).collect(),
                kinds: s.by_kind_tokens.clone(),
                tool_results: s.tool_results_by_tool.iter().map(|t| t.tokens).collect(),
            }),
        }
    }

    /// The tokens of each of [`BLOCKS`] by the vocabulary, where counted (the parameters and
    /// the JSON structure never are).
    pub fn block_tokens(&self) -> [Option<usize>; 5] {
        let t = self.tokens.as_ref();
        [
            t.map(|t| t.system_prompt),
            t.map(|t| t.tools),
            t.map(|t| t.history),
            None,
            None,
        ]
    }

    /// Each tool with its tokens, where counted.
    pub fn tools_counted(&self) -> impl Iterator<Item = (&(String, usize), Option<usize>)> {
        with_counts(&self.by_tool, self.tokens.as_ref().map(|t| &t.by_tool))
    }

    /// Each system-prompt section with its tokens, where counted.
    pub fn sections_counted(
        &self,
    ) -> impl Iterator<Item = (&(String, String, usize), Option<usize>)> {
        with_counts(&self.sections, self.tokens.as_ref().map(|t| &t.sections))
    }

    /// Each tool's results with their tokens, where counted.
    pub fn tool_results_counted(&self) -> impl Iterator<Item = (&(String, usize), Option<usize>)> {
        with_counts(
            &self.tool_results,
            self.tokens.as_ref().map(|t| &t.tool_results),
        )
    }

    /// The history's tokens by kind, in [`Blocks::history_kinds`]' order, where counted.
    pub fn history_kinds_tokens(&self) -> [Option<usize>; 7] {
        let Some(t) = &self.tokens else {
            return [None; 7];
        };
        let k = &t.kinds;
        [
            k.user_text,
            k.assistant_text,
            k.reasoning,
            k.tool_arguments,
            k.tool_results,
            k.image_data,
            k.signatures,
        ]
        .map(Some)
    }

    /// The counted tokens per character of the counted parts (system prompt, tools, history);
    /// `None` when not counted.
    fn tokens_per_char(&self) -> Option<f64> {
        let t = self.tokens.as_ref()?;
        let chars = self.system_prompt + self.tools + self.history;
        let tokens = t.system_prompt + t.tools + t.history;
        (chars > 0 && tokens > 0).then(|| tokens as f64 / chars as f64)
    }
}

/// Each item of a list beside its count in `counts` (the same order), where counted.
fn with_counts<'a, T>(
    list: &'a [T],
    counts: Option<&'a Vec<usize>>,
) -> impl Iterator<Item = (&'a T, Option<usize>)> {
    list.iter()
        .enumerate()
        .map(move |(i, x)| (x, counts.and_then(|c| c.get(i).copied())))
}

/// The context files of a request whose whole text another of its context files holds (a copy
/// of the global AGENTS.md in the project, a parent folder's file pasted into the child's): pi
/// sends both, so the text goes twice. Of two files with the same text, the one nearer the
/// working directory (later in pi's order) is kept. Each is (the file, the file holding it).
///
/// The texts are the ones the request sent (a call rebuilt from a system prompt its session
/// stored holds the files as they were then): each file's section of the system prompt without
/// the line that names the file and the tag that closes it.
pub fn shadowed_context_files(prompt: &crate::prompt::SystemPrompt) -> Vec<(String, String)> {
    let sent: Vec<(&str, String)> = prompt
        .sections
        .iter()
        .filter(|s| s.name == "context-file")
        .map(|s| {
            let text = crate::js::js_slice(&prompt.text, s.start, Some(s.end));
            (s.source.as_str(), context_file_text(&text).to_string())
        })
        .filter(|(_, text)| !text.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, (path, text)) in sent.iter().enumerate() {
        let holder = sent.iter().enumerate().find(|(j, (_, other))| {
            *j != i && other.contains(text.as_str()) && (other.len() > text.len() || *j > i)
        });
        if let Some((_, (holder, _))) = holder {
            out.push((path.to_string(), holder.to_string()));
        }
    }
    out
}

/// A context file's text in its section of the system prompt: without its first line (`##
/// PATH`, `<project_instructions path="PATH">`) and a closing tag on its last line.
fn context_file_text(section: &str) -> &str {
    let body = section.split_once('\n').map_or("", |(_, rest)| rest);
    let body = body.trim_end();
    let body = match body.rsplit_once('\n') {
        Some((text, last)) if last.starts_with("</") && last.ends_with('>') => text,
        _ => body,
    };
    body.trim()
}

/// A call's request with the what-if's changes made from the session's start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changed {
    /// The changed request's characters (0: pi would send none).
    pub body_chars: usize,
    /// Whether any change found something in this call's request.
    pub applies: bool,
}

impl Changed {
    /// The share of the call's request the change removes (negative: it adds).
    fn saved_fraction(&self, before: usize) -> f64 {
        if before == 0 || !self.applies {
            0.0
        } else {
            1.0 - self.body_chars as f64 / before as f64
        }
    }
}

/// Where a call's request first differs from the previous call's on its branch, before the
/// previous request's end: what the provider had cached from there on was sent again.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheBreak {
    /// The block there: `systemPrompt`, `tools` or `history`.
    pub block: &'static str,
    /// Why, in a pi user's words (a model switch, the system prompt, a tool, a parameter, the
    /// history before the last request's end).
    pub why: String,
    /// The previous request's characters after the break (sent again, no longer cached).
    pub lost_chars: usize,
    /// Those characters as this call's prompt tokens (its recorded tokens per character).
    pub lost_tokens: f64,
    /// What reading them from the cache would have saved, at the model's prices (input against
    /// cache read); `None` when the catalog has no prices for it.
    pub cost: Option<f64>,
}

impl LedgerCall {
    /// Its project: the session's cwd, else its folder below `sessions/` (as ccusage names it).
    pub fn project(&self) -> &str {
        self.cwd.as_deref().unwrap_or(&self.folder)
    }

    /// A part of this call's request as its prompt tokens and prompt cost: the recorded ones
    /// split by the part's share of the request (0 for a call not rebuilt).
    ///
    /// The share is by the model's vocabulary where the call was counted with it and the part
    /// has a count (`tokens`): the part's tokens over the request's, whose parameters and JSON
    /// structure, never counted, weigh their characters at the counted parts' tokens per
    /// character. Otherwise (Claude, whose vocabulary is not public, or no vocabulary on this
    /// host) it is by characters: each call calibrated on its own recorded usage.
    pub fn share_of(&self, chars: usize, tokens: Option<usize>) -> (f64, f64) {
        let Some(b) = self.blocks.as_ref().filter(|b| b.body_chars > 0) else {
            return (0.0, 0.0);
        };
        let f = match (tokens, b.tokens_per_char()) {
            (Some(t), Some(rate)) => t as f64 / (rate * b.body_chars as f64),
            _ => chars as f64 / b.body_chars as f64,
        };
        (
            self.usage.prompt_tokens() * f,
            self.usage.prompt_spend() * f,
        )
    }
}

/// What a call's rebuild keeps for the next call's cache comparison.
struct Previous {
    entry_id: Option<String>,
    model: Option<String>,
    /// Its prompt's payloads ([`prompt_units`]), each kept as a digest of its bytes.
    units: Vec<Unit>,
}

/// A payload of the prompt: its block, its characters and a digest of its bytes.
type Unit = (&'static str, usize, u64);

/// A text every call of a session file has the same (its path, its session's id, its folder,
/// its cwd): one copy for them all, so a folder's rows grow with its calls, not their paths.
pub type FileText = std::sync::Arc<str>;

/// One model call, as recorded in a session file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LedgerCall {
    pub file: FileText,
    /// 1-based line of the answer in `file`.
    pub line: u32,
    pub entry_id: Option<String>,
    /// The session's id as ccusage names it (the file name after its first `_`).
    pub session_id: FileText,
    /// The folder below `sessions/` (ccusage's project), or `unknown`.
    pub folder: FileText,
    /// The session header's `cwd`, when the file has one.
    pub cwd: Option<FileText>,
    /// The entry's `timestamp` (ISO text).
    pub timestamp: String,
    /// Its UTC date (`2026-11-30`).
    pub day: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub usage: Recorded,
    /// The release that rebuilt it (set by [`account`]).
    pub pi: Option<String>,
    /// Its request by block (set by [`account`]).
    pub blocks: Option<Box<Blocks>>,
    /// With the what-if's changes made (set by [`account`] when it has changes).
    pub changed: Option<Changed>,
    /// Where its request stopped extending the previous call's on its branch (set by
    /// [`account`]): the prefix a provider's cache held was sent again.
    pub cache_break: Option<Box<CacheBreak>>,
    /// Why it was not rebuilt (set by [`account`], or by a host that could not read it).
    pub note: Option<String>,
    /// What the answer's tool calls named (their short string arguments: a path read) and the
    /// skills the prompt before it asked for (`/skill:NAME`): whether a skill was ever used.
    pub uses: Vec<String>,
}

/// A tool call's string arguments longer than this are not kept in [`LedgerCall::uses`].
const MAX_USE: usize = 1024;

/// The short string arguments of an answer's tool calls.
fn tool_call_strings(m: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for b in m
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if b.get_str("type") != Some("toolCall") {
            continue;
        }
        let args = b.get("arguments").and_then(Value::as_object);
        for (_, v) in args.into_iter().flat_map(|o| o.iter()) {
            if let Some(s) = v.as_str().filter(|s| s.len() <= MAX_USE) {
                out.push(s.to_string());
            }
        }
    }
    out
}

/// The skills a user line asks for: `/skill:NAME` (pi's command), or
/// the block pi expands it to (`<skill name="NAME"`).
fn skills_asked(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    // `line` is JSON text: the block's quote is escaped there.
    for marker in ["/skill:", "<skill name=\\\""] {
        let mut rest = line;
        while let Some(i) = rest.find(marker) {
            rest = &rest[i + marker.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// What reading one file gave.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    pub calls: Vec<LedgerCall>,
    /// Lines that name a message and usage but could not be read: line, why.
    pub skipped: Vec<(u32, String)>,
    /// The session header's `cwd` (`None`: not a pi session file).
    pub cwd: Option<String>,
}

/// `YYYY-MM-DDTHH:MM:SS(.mmm)(Z|±HH:MM)`: the timestamps ccusage accepts.
fn iso_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(digits(0..4)
        && at(4, b'-')
        && digits(5..7)
        && at(7, b'-')
        && digits(8..10)
        && at(10, b'T'))
        || !(digits(11..13) && at(13, b':') && digits(14..16) && at(16, b':') && digits(17..19))
    {
        return false;
    }
    let mut i = 19;
    if at(i, b'.') {
        if !digits(i + 1..i + 4) {
            return false;
        }
        i += 4;
    }
    match b.get(i) {
        Some(b'Z') => b.len() == i + 1,
        Some(b'+' | b'-') => {
            b.len() == i + 6 && digits(i + 1..i + 3) && at(i + 3, b':') && digits(i + 4..i + 6)
        }
        _ => false,
    }
}

/// An optional member: absent, or of the kind `ok` accepts (`null` is neither, as valibot's
/// `optional` reads it).
fn optional<'a, T>(
    o: &'a Value,
    key: &str,
    ok: impl Fn(&'a Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => ok(v).map(Some).ok_or(()),
    }
}

/// The usage of one line, if it is a call as ccusage reads one: `type` absent or `message`, an
/// ISO `timestamp`, an assistant `message` whose `usage` has numeric `input` and `output`.
/// `Err`: the line has the shape's members but not their types (ccusage skips it too).
fn recorded_call(v: &Value) -> Result<Option<(String, Option<String>, Recorded)>, String> {
    let bad = |what: &str| Err(format!("not read: {what}"));
    let Ok(kind) = optional(v, "type", Value::as_str) else {
        return bad("`type` is not a string");
    };
    let Some(ts) = v.get_str("timestamp").filter(|t| iso_timestamp(t)) else {
        return bad("no ISO `timestamp`");
    };
    let Some(m) = v.get("message").filter(|m| m.as_object().is_some()) else {
        return bad("`message` is not an object");
    };
    let (Ok(role), Ok(model)) = (
        optional(m, "role", Value::as_str),
        optional(m, "model", Value::as_str),
    ) else {
        return bad("`message.role` or `message.model` is not a string");
    };
    let Some(u) = m.get("usage") else {
        return Ok(None);
    };
    let num = |k: &str| optional(u, k, Value::as_f64);
    let (Some(input), Some(output)) = (
        u.get("input").and_then(Value::as_f64),
        u.get("output").and_then(Value::as_f64),
    ) else {
        return bad("`usage.input` or `usage.output` is not a number");
    };
    let (Ok(read), Ok(write), Ok(total)) =
        (num("cacheRead"), num("cacheWrite"), num("totalTokens"))
    else {
        return bad("a `usage` count is not a number");
    };
    let Ok(cost) = optional(u, "cost", |c| c.as_object().map(|_| c)) else {
        return bad("`usage.cost` is not an object");
    };
    let Ok(cost_total) = cost.map_or(Ok(None), |c| optional(c, "total", Value::as_f64)) else {
        return bad("`usage.cost.total` is not a number");
    };
    if !matches!(kind, None | Some("message")) || role != Some("assistant") {
        return Ok(None);
    }
    let (read, write) = (read.unwrap_or(0.0), write.unwrap_or(0.0));
    let part = |k: &str| cost.and_then(|c| c.get(k)).and_then(Value::as_f64);
    let prompt_cost = match (part("input"), part("cacheRead"), part("cacheWrite")) {
        (Some(i), r, w) => Some(i + r.unwrap_or(0.0) + w.unwrap_or(0.0)),
        _ => cost_total.zip(part("output")).map(|(t, o)| t - o),
    };
    let usage = Recorded {
        input,
        output,
        cache_read: read,
        cache_write: write,
        total_tokens: total.unwrap_or(input + output + read + write),
        cost: cost_total.unwrap_or(0.0),
        prompt_cost,
    };
    Ok(Some((ts.to_string(), model.map(str::to_string), usage)))
}

/// ccusage's session id: the file name without `.jsonl`, after its first `_`.
fn session_id_of(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.strip_suffix(".jsonl").unwrap_or(name);
    name.split_once('_').map_or(name, |(_, id)| id).to_string()
}

/// ccusage's project: the path segment after one named `sessions`, else `unknown`.
fn folder_of(path: &str) -> String {
    let segments: Vec<&str> = path.split(['/', '\\']).collect();
    match segments.iter().position(|s| *s == "sessions") {
        Some(i) if i + 1 < segments.len() => segments[i + 1].to_string(),
        _ => "unknown".into(),
    }
}

/// Reads the calls of one session file (`path` names it; its folder is ccusage's project).
pub fn scan(path: &str, text: &str) -> Scan {
    let mut out = Scan::default();
    let file: FileText = path.into();
    let session_id: FileText = session_id_of(path).into();
    let folder: FileText = folder_of(path).into();
    // Skills asked for since the last call, given to the next one.
    let mut asked: Vec<String> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if i == 0 {
            out.cwd = js::parse(line)
                .ok()
                .filter(|h| h.get_str("type") == Some("session"))
                .map(|h| h.get_str("cwd").unwrap_or("").to_string());
        }
        if line.contains("\"user\"") && (line.contains("/skill:") || line.contains("<skill name="))
        {
            asked.extend(skills_asked(line));
        }
        if !line.contains("\"message\"") || !line.contains("\"usage\"") {
            continue;
        }
        let Ok(v) = js::parse(line) else {
            out.skipped.push((n, "not JSON".into()));
            continue;
        };
        match recorded_call(&v) {
            Ok(Some((timestamp, model, usage))) => {
                let day = js::date::utc_date(js::date::date_parse(&timestamp))
                    .map(|d| d.0)
                    .unwrap_or_default();
                let m = v.get("message");
                let mut uses: Vec<String> =
                    asked.drain(..).map(|n| format!("/skill:{n}")).collect();
                uses.extend(m.map(tool_call_strings).unwrap_or_default());
                out.calls.push(LedgerCall {
                    file: file.clone(),
                    line: n,
                    entry_id: v.get_str("id").map(str::to_string),
                    session_id: session_id.clone(),
                    folder: folder.clone(),
                    cwd: None,
                    timestamp,
                    day,
                    provider: m.and_then(|m| m.get_str("provider")).map(str::to_string),
                    model,
                    usage,
                    uses,
                    ..LedgerCall::default()
                });
            }
            Ok(None) => {}
            // A line that is no call at all (a user message quoting "usage") is not worth a word.
            Err(e) if v.get("message").and_then(|m| m.get_str("role")) == Some("assistant") => {
                out.skipped.push((n, e))
            }
            Err(_) => {}
        }
    }
    let cwd: Option<FileText> = out.cwd.as_deref().filter(|c| !c.is_empty()).map(Into::into);
    for c in &mut out.calls {
        c.cwd = cwd.clone();
    }
    out
}

/// The calls read so far, by ccusage's key: the answer's timestamp and total tokens, whatever
/// file holds it (a forked session's file copies its parent's answers; they were paid once).
/// The first file read keeps each.
#[derive(Default)]
struct Seen(HashSet<(String, u64)>);

impl Seen {
    /// Drops the calls of `calls` seen before (in an earlier file, or earlier in `calls`);
    /// returns how many.
    fn keep_new(&mut self, calls: &mut Vec<LedgerCall>) -> usize {
        let before = calls.len();
        calls.retain(|c| {
            self.0
                .insert((c.timestamp.clone(), c.usage.total_tokens.to_bits()))
        });
        before - calls.len()
    }
}

/// What was read to make a ledger, beside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    /// The folders or files asked for.
    pub roots: Vec<String>,
    /// Session files read.
    pub files: usize,
    /// Calls found twice (the same timestamp and total tokens: a forked session's copy),
    /// counted once (ccusage's rule).
    pub duplicates: usize,
    /// What was left out: a file (and line), and why.
    pub skipped: Vec<(String, Option<u32>, String)>,
    /// Calls counted but not rebuilt (so not in the blocks): file, line, why.
    pub not_rebuilt: Vec<(String, u32, String)>,
    /// Files that changed between their reading and their calls' rebuild (pi appending to the
    /// session it runs): file, how.
    pub changed: Vec<(String, String)>,
}

/// Reads session files one at a time, in the order ccusage reads them (sorted paths), so a
/// host can stream a folder: each file's calls as ccusage counts them (a call already read in
/// an earlier file dropped), what was skipped on the way in [`Reader::read`].
#[derive(Default)]
pub struct Reader {
    seen: Seen,
    pub read: Read,
}

/// One file's calls, as [`Reader::file`] gives them.
pub struct FileCalls {
    pub calls: Vec<LedgerCall>,
    /// Why its calls cannot be rebuilt before trying (no session header on line 1).
    pub not_a_session: Option<String>,
}

impl Reader {
    pub fn new(roots: Vec<String>) -> Reader {
        Reader {
            seen: Seen::default(),
            read: Read {
                roots,
                ..Read::default()
            },
        }
    }

    /// Reads the calls of the session file `path` (its text `text`).
    pub fn file(&mut self, path: &str, text: &str) -> FileCalls {
        self.scanned(path, scan(path, text))
    }

    /// Takes the calls of the session file `path` as [`scan`] read them (a host may scan its
    /// files on several threads; they are taken in their order, so a call two files hold is
    /// counted in the first).
    pub fn scanned(&mut self, path: &str, scan: Scan) -> FileCalls {
        self.read.files += 1;
        self.read.skipped.extend(
            scan.skipped
                .into_iter()
                .map(|(n, why)| (path.to_string(), Some(n), why)),
        );
        let mut calls = scan.calls;
        self.read.duplicates += self.seen.keep_new(&mut calls);
        let not_a_session = (scan.cwd.is_none() && !calls.is_empty())
            .then(|| "not a pi session file (no session header on line 1)".to_string());
        FileCalls {
            calls,
            not_a_session,
        }
    }

    /// A file that could not be read.
    pub fn unreadable(&mut self, path: &str, why: String) {
        self.read.skipped.push((path.to_string(), None, why));
    }

    /// Notes the calls counted but not rebuilt (once they have been through [`account`]).
    pub fn note_not_rebuilt(&mut self, calls: &[LedgerCall]) {
        for c in calls.iter().filter(|c| c.blocks.is_none()) {
            if let Some(why) = &c.note {
                self.read
                    .not_rebuilt
                    .push((c.file.to_string(), c.line, why.clone()));
            }
        }
    }
}

/// Rebuilds each call of one session (`inputs`: the session and the files pi reads for it) by
/// the release that made it, and records its request by block. `progress` is told after each.
/// With `changes` (the what-if's `--without`/`--set`, none of them `pi=`), each call is also
/// rebuilt with them made from the session's start (`changed`). With `vocabularies` (the
/// host's), each request's parts are counted with its model's vocabulary, where the host has it.
pub fn account(
    ws: &crate::Workspace,
    inputs: &Inputs,
    changes: &[Change],
    vocabularies: Option<&mut Vocabularies>,
    calls: &mut [LedgerCall],
    progress: &mut dyn FnMut(usize),
) {
    let mut acc = Accountant::new(ws, inputs, changes);
    if let Some(v) = vocabularies {
        acc = acc.counting(v);
    }
    for (k, c) in calls.iter_mut().enumerate() {
        progress(k);
        acc.account(c);
    }
}

/// The host's vocabularies: a counter for vocabulary `name` (`exact`: whether its counts are
/// the model's own), or `None` when the host has none.
pub type Vocabularies<'v> = dyn FnMut(&str, bool) -> Option<Box<dyn TokenCounter>> + 'v;

/// A counter that counts each distinct text once: the calls of a session share most of their
/// texts (the system prompt, the tools, the history before the last turn). A text is known by
/// a 64-bit digest of its bytes and its UTF-16 length, so that the texts are not kept, and a
/// text a body's writer has digested ([`crate::protocols::body::Accounting::digests`]) is
/// recalled without being read at all.
struct Memo {
    inner: Box<dyn TokenCounter>,
    seen: HashMap<(u64, usize), usize>,
}

impl TokenCounter for Memo {
    fn info(&self) -> crate::tokens::TokenizerInfo {
        self.inner.info()
    }

    fn recall(&self, digest: u64, chars: usize) -> Option<usize> {
        self.seen.get(&(digest, chars)).copied()
    }

    fn count(&mut self, texts: &[&str]) -> Result<Vec<usize>, String> {
        let keys: Vec<(u64, usize)> = texts
            .iter()
            .map(|t| (digest(t.as_bytes()), crate::js::utf16_len(t)))
            .collect();
        let mut missing: Vec<(usize, &str)> = Vec::new();
        let mut asked: HashSet<(u64, usize)> = HashSet::new();
        for (i, (t, k)) in texts.iter().zip(&keys).enumerate() {
            if !self.seen.contains_key(k) && asked.insert(*k) {
                missing.push((i, t));
            }
        }
        if !missing.is_empty() {
            let list: Vec<&str> = missing.iter().map(|(_, t)| *t).collect();
            let counts = self.inner.count(&list)?;
            if counts.len() != list.len() {
                return Err(format!(
                    "the tokenizer gave {} counts for {} texts",
                    counts.len(),
                    list.len()
                ));
            }
            for ((i, _), n) in missing.into_iter().zip(counts) {
                self.seen.insert(keys[i], n);
            }
        }
        Ok(keys.iter().map(|k| self.seen[k]).collect())
    }
}

/// The calls of one session rebuilt one at a time, in their order in the file (a host that
/// must stay responsive, the app's worker, yields between them): each call's cache break is
/// found against the call before it on its branch.
pub struct Accountant<'a> {
    ws: &'a crate::Workspace,
    inputs: &'a Inputs,
    changes: &'a [Change],
    previous: Option<Previous>,
    /// The last call's blocks, whose lists the next call shares where the same.
    blocks: Option<Box<Blocks>>,
    vocabularies: Option<&'a mut Vocabularies<'a>>,
    /// The counters got from the host so far, by vocabulary (`None`: it has none).
    counters: HashMap<String, Option<Memo>>,
    /// The session's long texts are measured once, not once per call that sends them.
    _facts: crate::js::memo::Remembering,
}

impl<'a> Accountant<'a> {
    pub fn new(ws: &'a crate::Workspace, inputs: &'a Inputs, changes: &'a [Change]) -> Self {
        Accountant {
            ws,
            inputs,
            changes,
            previous: None,
            blocks: None,
            vocabularies: None,
            counters: HashMap::new(),
            _facts: crate::js::memo::remember(),
        }
    }

    /// Counts each request's parts with its model's vocabulary, where `vocabularies` has it.
    pub fn counting(mut self, vocabularies: &'a mut Vocabularies<'a>) -> Self {
        self.vocabularies = Some(vocabularies);
        self
    }

    /// `a`'s statistics with its parts counted by its model's vocabulary, when the host has
    /// that vocabulary (Claude's is not public: never).
    fn counted(&mut self, a: &crate::Assembly) -> Option<crate::analysis::stats::Stats> {
        let vocabularies = self.vocabularies.as_mut()?;
        let Some(crate::tokens::Vocabulary::Known { name, exact, .. }) =
            crate::tokens::vocabulary_of(a)
        else {
            return None;
        };
        let counter = self
            .counters
            .entry(name.clone())
            .or_insert_with(|| {
                vocabularies(&name, exact).map(|inner| Memo {
                    inner,
                    seen: HashMap::new(),
                })
            })
            .as_mut()?;
        crate::analysis::stats::sums(a, Some(counter))
            .ok()
            .flatten()
    }

    /// The inputs that rebuild `c` (`None`: it has no entry id, so it cannot be named).
    pub fn inputs_for(&self, c: &LedgerCall) -> Option<Inputs> {
        let mut i = self.inputs.clone();
        i.prompt = None;
        i.call = Some(CallRef::Entry(c.entry_id.clone()?));
        // The call was made, so pi had a key then; a key never changes the body.
        i.placeholder_key = true;
        Some(i)
    }

    /// Rebuilds `c` and records its request by block, its cache break and its what-if.
    pub fn account(&mut self, c: &mut LedgerCall) {
        let Some(i) = self.inputs_for(c) else {
            c.note = Some("the answer has no entry id (not a pi session entry)".into());
            return;
        };
        // Each request is measured, not sent: its long history texts are not copied into
        // its body (one rebuild, no yield, while the guard lives).
        let _measured = crate::js::memo::measuring();
        let a = self.ws.assemble_unkept(&i);
        self.record(c, &i, &a);
        drop(a);
        // Texts made for this request alone will not be written again.
        crate::js::memo::forget_unshared();
    }

    /// Records `a` (the request rebuilt for `c` from `i`) in `c`.
    fn record(&mut self, c: &mut LedgerCall, i: &Inputs, a: &crate::Assembly) {
        c.pi = a.pi.as_ref().map(|p| p.version.to_string());
        let counted = self.counted(a);
        let sums = || crate::analysis::stats::sums(a, None).ok().flatten();
        match counted.or_else(sums).as_ref() {
            Some(s) if a.request.is_some() => {
                let before = self.blocks.as_deref();
                let mut blocks = Blocks::of(s, before);
                blocks.shadowed = shared(
                    shadowed_context_files(&a.parts.system_prompt),
                    before.map(|b| &b.shadowed),
                );
                self.blocks = Some(Box::new(blocks.clone()));
                c.blocks = Some(Box::new(blocks));
                if !self.changes.is_empty() {
                    c.changed = Some(changed(self.ws, i, a, self.changes));
                }
                let units = a.request.as_ref().map(prompt_units).unwrap_or_default();
                c.cache_break = self
                    .previous
                    .as_ref()
                    .and_then(|p| cache_break(a, c, &units, p))
                    .map(Box::new);
                self.previous = Some(Previous {
                    entry_id: c.entry_id.clone(),
                    model: c.model.clone(),
                    units,
                });
            }
            _ => {
                let why = a
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == crate::Severity::Error)
                    .map_or("pi would send nothing".to_string(), |d| {
                        first_paragraph(&d.message)
                    });
                c.note = Some(why);
            }
        }
    }
}

use crate::js::memo::digest;

/// A request's payloads in the order a provider reads the prompt (tools, system, history): the
/// cached prefix is a prefix of this, whatever order the body's JSON has them in.
fn prompt_units(r: &crate::protocols::Request) -> Vec<Unit> {
    use crate::protocols::body::Payload;
    let rank = |p: &Payload| match p {
        Payload::ToolDescription(_) | Payload::ToolSchema(_) => 0,
        Payload::System(_) => 1,
        Payload::History { .. } => 2,
        Payload::Parameter(_) => 3,
    };
    let mut spans: Vec<_> = r
        .accounting
        .spans
        .iter()
        .enumerate()
        .filter(|(_, s)| rank(&s.payload) < 3)
        .collect();
    spans.sort_by_key(|(_, s)| (rank(&s.payload), s.start));
    // The writer's digests, when it made them (while long texts' facts were remembered).
    let digests = &r.accounting.digests;
    let digests = (digests.len() == r.accounting.spans.len()).then_some(digests);
    spans
        .into_iter()
        .map(|(i, s)| {
            let block = ["tools", "systemPrompt", "history"][rank(&s.payload)];
            let d = match digests {
                Some(d) => d[i],
                None => digest(r.body.as_bytes().get(s.start..s.end).unwrap_or_default()),
            };
            (block, s.chars, d)
        })
        .collect()
}

/// Whether `p` is the call just before `c` on `a`'s branch, and if so where `a`'s prompt stops
/// extending `p`'s.
fn cache_break(
    a: &crate::Assembly,
    c: &LedgerCall,
    now: &[Unit],
    p: &Previous,
) -> Option<CacheBreak> {
    a.request.as_ref()?;
    let pos = a.calls.iter().position(|x| x.entry_id == c.entry_id)?;
    if pos == 0 || a.calls[pos - 1].entry_id != p.entry_id {
        return None;
    }
    let before = &p.units;
    let same = now
        .iter()
        .zip(before)
        .take_while(|(x, y)| x.0 == y.0 && x.2 == y.2)
        .count();
    let switched = match (&p.model, &c.model) {
        (Some(x), Some(y)) if x != y => Some(format!("model switch ({x} → {y})")),
        _ => None,
    };
    if same == before.len() && switched.is_none() {
        return None;
    }
    // A model switch reads nothing from the other model's cache.
    let from = if switched.is_some() { 0 } else { same };
    let block = before.get(from).map_or("history", |u| u.0);
    let why = switched.unwrap_or_else(|| match block {
        "systemPrompt" => "the system prompt changed".into(),
        "tools" => "the tools changed".into(),
        _ => "the history changed before the previous request's end (a compaction, a branch, an edit)".into(),
    });
    let lost_chars: usize = before[from..].iter().map(|u| u.1).sum();
    let lost_tokens = c.share_of(lost_chars, None).0;
    let cost = whatif::prices(a).map(|pr| lost_tokens * (pr.input - pr.cache_read).max(0.0) / 1e6);
    Some(CacheBreak {
        block,
        why,
        lost_chars,
        lost_tokens,
        cost,
    })
}

/// The characters of `a`'s request (0: pi would send none).
fn body_chars(a: &crate::Assembly) -> usize {
    a.request.as_ref().map_or(0, |r| r.accounting.body_chars)
}

/// The call's request with `changes` made (a change that finds nothing in it leaves it as is).
fn changed(ws: &crate::Workspace, i: &Inputs, a: &crate::Assembly, changes: &[Change]) -> Changed {
    match whatif::apply(i, a, changes) {
        Ok((ci, _)) => {
            let c = ws.assemble_unkept(&ci);
            Changed {
                body_chars: body_chars(&c),
                applies: true,
            }
        }
        Err(_) => Changed {
            body_chars: body_chars(a),
            applies: false,
        },
    }
}

/// A message's first paragraph on one line (pi's errors go on with doc paths).
fn first_paragraph(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// How calls are grouped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    #[default]
    Day,
    Week,
    Month,
    Session,
    Project,
    Model,
    Release,
}

impl GroupBy {
    pub const ALL: [GroupBy; 7] = [
        GroupBy::Day,
        GroupBy::Week,
        GroupBy::Month,
        GroupBy::Session,
        GroupBy::Project,
        GroupBy::Model,
        GroupBy::Release,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Week => "week",
            GroupBy::Month => "month",
            GroupBy::Session => "session",
            GroupBy::Project => "project",
            GroupBy::Model => "model",
            GroupBy::Release => "release",
        }
    }

    pub fn parse(s: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.as_str() == s)
    }

    /// The group a call falls in.
    fn key(self, c: &LedgerCall) -> String {
        match self {
            GroupBy::Day => c.day.clone(),
            GroupBy::Week => week_of(c),
            GroupBy::Month => c.day.get(..7).unwrap_or("").to_string(),
            GroupBy::Session => c.file.to_string(),
            GroupBy::Project => c.project().to_string(),
            GroupBy::Model => match (&c.provider, &c.model) {
                (Some(p), Some(m)) => format!("{p}/{m}"),
                (None, Some(m)) => m.clone(),
                _ => "unknown".into(),
            },
            GroupBy::Release => {
                c.pi.clone()
                    .map_or("not rebuilt".into(), |v| format!("pi {v}"))
            }
        }
    }
}

/// The Monday that starts the call's week (ISO weeks), as a date.
fn week_of(c: &LedgerCall) -> String {
    let ms = js::date::date_parse(&c.day);
    js::date::utc_date(ms)
        .and_then(|(_, weekday)| js::date::utc_date(ms - f64::from(weekday) * 86_400_000.0))
        .map_or_else(String::new, |d| d.0)
}

/// Characters, the prompt tokens and prompt cost they stand for (split by share).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Share {
    /// Summed over calls: past 4 GB of text on a 32-bit target (wasm), so not a `usize`.
    pub chars: u64,
    pub tokens: f64,
    pub cost: f64,
}

impl Share {
    /// Adds a part of `call`'s request: its characters, and its tokens by the vocabulary when
    /// counted ([`LedgerCall::share_of`]).
    fn add(&mut self, chars: usize, counted: Option<usize>, call: &LedgerCall) {
        let (tokens, cost) = call.share_of(chars, counted);
        self.chars += chars as u64;
        self.tokens += tokens;
        self.cost += cost;
    }
}

/// The request's blocks summed over calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockShares {
    pub system_prompt: Share,
    pub tools: Share,
    pub history: Share,
    pub parameters: Share,
    pub structure: Share,
}

impl BlockShares {
    fn add(&mut self, c: &LedgerCall, b: &Blocks) {
        let shares = [
            &mut self.system_prompt,
            &mut self.tools,
            &mut self.history,
            &mut self.parameters,
            &mut self.structure,
        ];
        for ((share, (_, chars)), tokens) in
            shares.into_iter().zip(b.by_block()).zip(b.block_tokens())
        {
            share.add(chars, tokens, c);
        }
    }

    /// `(key, label, share)` of each of [`BLOCKS`], in its order.
    pub fn rows(&self) -> [(&'static str, &'static str, &Share); 5] {
        let s = [
            &self.system_prompt,
            &self.tools,
            &self.history,
            &self.parameters,
            &self.structure,
        ];
        std::array::from_fn(|i| (BLOCKS[i].0, BLOCKS[i].1, s[i]))
    }
}

/// The usage pi recorded, summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    pub sessions: usize,
    pub calls: usize,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
}

impl Totals {
    fn of<'a>(calls: impl Iterator<Item = &'a LedgerCall>) -> Totals {
        let mut t = Totals::default();
        let mut files: HashSet<&str> = HashSet::new();
        for c in calls {
            files.insert(&c.file);
            t.calls += 1;
            t.input += c.usage.input;
            t.output += c.usage.output;
            t.cache_read += c.usage.cache_read;
            t.cache_write += c.usage.cache_write;
            t.cost += c.usage.cost;
        }
        t.sessions = files.len();
        t
    }
}

/// What the what-if's changes would have saved over calls: their prompt tokens and prompt cost
/// scaled by the share of each request the change removes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saved {
    /// Calls rebuilt with the changes, and those the changes found something in.
    pub calls: usize,
    pub applied: usize,
    pub tokens: f64,
    pub cost: f64,
}

impl Saved {
    fn add(&mut self, c: &LedgerCall) {
        let (Some(b), Some(ch)) = (&c.blocks, &c.changed) else {
            return;
        };
        let f = ch.saved_fraction(b.body_chars);
        self.calls += 1;
        self.applied += usize::from(ch.applies);
        self.tokens += c.usage.prompt_tokens() * f;
        self.cost += c.usage.prompt_spend() * f;
    }
}

/// One group's usage and where its prompts went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub key: String,
    pub totals: Totals,
    pub rebuilt: usize,
    pub blocks: BlockShares,
    /// With the what-if's changes (`None` without changes).
    pub saved: Option<Saved>,
}

/// A named item's share over every rebuilt call (a tool, a section, a kind of history), and in
/// how many requests it was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Item {
    pub name: String,
    /// A section's source (a context file, a skill); empty otherwise.
    pub source: String,
    pub requests: usize,
    pub share: Share,
}

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ledger {
    pub group_by: GroupBy,
    pub since: Option<String>,
    pub until: Option<String>,
    pub totals: Totals,
    pub rebuilt: usize,
    /// How the rebuilt calls' prompt tokens were split over their parts: by each vocabulary
    /// (its name) or by `characters`, with how many calls each, most first.
    pub split_by: Vec<(String, usize)>,
    pub groups: Vec<Group>,
    pub blocks: BlockShares,
    pub tools: Vec<Item>,
    pub sections: Vec<Item>,
    pub history: Vec<Item>,
    pub tool_results: Vec<Item>,
    /// With the what-if's changes, over every call (`None` without changes).
    pub saved: Option<Saved>,
    /// Tools sent in the rebuilt requests that no call of them ever used, largest cost first:
    /// what `--without tool:NAME` would save.
    pub never_called: Vec<Item>,
    /// Skills offered in the rebuilt requests' system prompts that no call used (no tool call
    /// named their file, no prompt asked for them), largest cost first: what `--without
    /// skill:NAME` would save. `name` is the skill's (its folder), `source` its file.
    pub never_invoked: Vec<Item>,
    /// Context files whose whole text another context file of the same request already holds,
    /// largest cost first: `name` is the file sent again (what `--without context:PATH` would
    /// save), `source` the file holding its text; counted over the requests where it was so.
    pub shadowed: Vec<Item>,
    /// The calls whose request broke the previous call's cached prefix, by reason: the reason,
    /// how many, the tokens sent again, and what that cost (`None`: no prices).
    pub cache_breaks: Vec<(String, usize, f64, Option<f64>)>,
    /// Each such call and its break, most tokens sent again first.
    pub breaks: Vec<(CallAt, CacheBreak)>,
    /// The calls that cost the most (pi's record), at most [`COSTLIEST`], largest first.
    pub costliest: Vec<(CallAt, Recorded)>,
}

/// How many calls [`Ledger::costliest`] lists.
pub const COSTLIEST: usize = 10;

/// Where a call is: a host opens it from these (its file, and the entry on any branch).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallAt {
    pub file: String,
    pub line: u32,
    pub entry_id: Option<String>,
    pub timestamp: String,
    pub model: Option<String>,
    /// The release that rebuilt it (`None`: not rebuilt).
    pub pi: Option<String>,
}

impl CallAt {
    fn of(c: &LedgerCall) -> CallAt {
        CallAt {
            file: c.file.to_string(),
            line: c.line,
            entry_id: c.entry_id.clone(),
            timestamp: c.timestamp.clone(),
            model: c.model.clone(),
            pi: c.pi.clone(),
        }
    }
}

/// `2026-11-30` or `20261130` → `20261130`.
fn day_key(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// Whether `since`/`until` (dates, either form) are valid: eight digits once `-` are dropped.
pub fn valid_date(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_digit() || c == '-') && day_key(s).len() == 8
}

/// The calls within `since`..=`until` (UTC days, either form).
pub fn within<'a>(
    calls: &'a [LedgerCall],
    since: Option<&str>,
    until: Option<&str>,
) -> Vec<&'a LedgerCall> {
    let (lo, hi) = (since.map(day_key), until.map(day_key));
    calls
        .iter()
        .filter(|c| {
            let d = day_key(&c.day);
            lo.as_ref().is_none_or(|l| d >= *l) && hi.as_ref().is_none_or(|h| d <= *h)
        })
        .collect()
}

/// Sums the calls (those within `since`..=`until`, by their UTC day) by `group_by`.
pub fn ledger(
    calls: &[LedgerCall],
    group_by: GroupBy,
    since: Option<&str>,
    until: Option<&str>,
) -> Ledger {
    let kept = within(calls, since, until);
    let mut by_key: BTreeMap<String, Vec<&LedgerCall>> = BTreeMap::new();
    for c in &kept {
        by_key.entry(group_by.key(c)).or_default().push(c);
    }
    let groups = by_key
        .into_iter()
        .map(|(key, cs)| {
            let mut g = Group {
                key,
                totals: Totals::of(cs.iter().copied()),
                ..Group::default()
            };
            for c in &cs {
                if let Some(b) = &c.blocks {
                    g.rebuilt += 1;
                    g.blocks.add(c, b);
                }
                if c.changed.is_some() {
                    g.saved.get_or_insert_with(Saved::default).add(c);
                }
            }
            g
        })
        .collect::<Vec<_>>();
    let mut out = Ledger {
        group_by,
        since: since.map(str::to_string),
        until: until.map(str::to_string),
        totals: Totals::of(kept.iter().copied()),
        rebuilt: groups.iter().map(|g| g.rebuilt).sum(),
        groups,
        ..Ledger::default()
    };
    items(&kept, &mut out);
    for c in kept.iter().filter(|c| c.changed.is_some()) {
        out.saved.get_or_insert_with(Saved::default).add(c);
    }
    for c in &kept {
        let Some(b) = &c.cache_break else { continue };
        // The reason without the details that differ call by call (a model pair stays).
        let why = b.why.split(" (").next().unwrap_or(&b.why).to_string();
        let why = if why == "model switch" {
            b.why.clone()
        } else {
            why
        };
        match out.cache_breaks.iter_mut().find(|r| r.0 == why) {
            Some(r) => {
                r.1 += 1;
                r.2 += b.lost_tokens;
                r.3 = r.3.zip(b.cost).map(|(x, y)| x + y);
            }
            None => out.cache_breaks.push((why, 1, b.lost_tokens, b.cost)),
        }
    }
    out.cache_breaks.sort_by(|a, b| b.2.total_cmp(&a.2));
    out.breaks = kept
        .iter()
        .filter_map(|c| Some((CallAt::of(c), (**c.cache_break.as_ref()?).clone())))
        .collect();
    out.breaks
        .sort_by(|a, b| b.1.lost_tokens.total_cmp(&a.1.lost_tokens));
    let mut by_cost: Vec<&&LedgerCall> = kept.iter().filter(|c| c.usage.cost > 0.0).collect();
    by_cost.sort_by(|a, b| {
        b.usage
            .cost
            .total_cmp(&a.usage.cost)
            .then(a.timestamp.cmp(&b.timestamp))
    });
    out.costliest = by_cost
        .into_iter()
        .take(COSTLIEST)
        .map(|c| (CallAt::of(c), c.usage.clone()))
        .collect();
    out.never_invoked = never_invoked(&kept, &out.sections);
    out.never_called = out
        .tools
        .iter()
        .filter(|t| !out.tool_results.iter().any(|r| r.name == t.name))
        .filter(|t| !t.name.starts_with("__"))
        .cloned()
        .collect();
    out.shadowed = shadowed(&kept);
    out.split_by = split_by(&kept);
    out
}

/// How many calls had their prompt tokens split by each vocabulary, and by characters.
fn split_by(kept: &[&LedgerCall]) -> Vec<(String, usize)> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for b in kept.iter().filter_map(|c| c.blocks.as_ref()) {
        let how = b
            .tokens
            .as_ref()
            .map_or("characters", |t| t.vocabulary.as_str());
        *by.entry(how.to_string()).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = by.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// The context files sent again in the rebuilt requests (see [`shadowed_context_files`]), with
/// the share of the requests where another file held their text.
fn shadowed(kept: &[&LedgerCall]) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    for c in kept {
        let Some(b) = &c.blocks else { continue };
        for (file, holder) in b.shadowed.iter() {
            let (mut chars, mut tokens) = (0, Some(0));
            for ((name, source, n), counted) in b.sections_counted() {
                if name == "context-file" && source == file {
                    chars += n;
                    tokens = tokens.zip(counted).map(|(x, y)| x + y);
                }
            }
            let at = match items
                .iter()
                .position(|i| i.name == *file && i.source == *holder)
            {
                Some(at) => at,
                None => {
                    items.push(Item {
                        name: file.clone(),
                        source: holder.clone(),
                        ..Item::default()
                    });
                    items.len() - 1
                }
            };
            items[at].requests += 1;
            items[at].share.add(chars, tokens, c);
        }
    }
    items.sort_by(|a, b| {
        b.share
            .cost
            .total_cmp(&a.share.cost)
            .then(b.share.chars.cmp(&a.share.chars))
            .then(a.name.cmp(&b.name))
    });
    items
}

/// The skills of `sections` (each skill's block of the system prompt's skills list, by its
/// file) that no call of `kept` used: none of its tool calls named the skill's file (pi's
/// prompt tells the model to read it) and no prompt asked for it by name.
fn never_invoked(kept: &[&LedgerCall], sections: &[Item]) -> Vec<Item> {
    sections
        .iter()
        .filter(|i| i.name == "skills" && i.source.ends_with(".md"))
        .filter_map(|i| {
            let mut parts = i.source.rsplit(['/', '\\']);
            let (file, dir) = (parts.next()?, parts.next()?);
            let tail = format!("{dir}/{file}");
            let command = format!("/skill:{dir}");
            let used = kept.iter().any(|c| {
                c.uses
                    .iter()
                    .any(|u| *u == i.source || u.ends_with(&tail) || *u == command)
            });
            (!used).then(|| Item {
                name: dir.to_string(),
                ..i.clone()
            })
        })
        .collect()
}

/// The tools, sections, kinds of history and tool results over every rebuilt call, largest
/// cost first.
fn items(kept: &[&LedgerCall], out: &mut Ledger) {
    let mut tools: HashMap<String, Item> = HashMap::new();
    let mut sections: HashMap<(String, String), Item> = HashMap::new();
    let mut results: HashMap<String, Item> = HashMap::new();
    let mut kinds: Vec<Item> = Blocks::default()
        .history_kinds()
        .iter()
        .map(|(k, _)| Item {
            name: k.to_string(),
            ..Item::default()
        })
        .collect();
    for c in kept {
        let Some(b) = &c.blocks else { continue };
        out.blocks.add(c, b);
        let put = |item: &mut Item, chars: usize, tokens: Option<usize>| {
            item.requests += 1;
            item.share.add(chars, tokens, c);
        };
        for ((name, chars), counted) in b.tools_counted() {
            let e = tools.entry(name.clone()).or_insert_with(|| Item {
                name: name.clone(),
                ..Item::default()
            });
            put(e, *chars, counted);
        }
        for ((name, source, chars), counted) in b.sections_counted() {
            let e = sections
                .entry((name.clone(), source.clone()))
                .or_insert_with(|| Item {
                    name: name.clone(),
                    source: source.clone(),
                    ..Item::default()
                });
            put(e, *chars, counted);
        }
        for ((name, chars), counted) in b.tool_results_counted() {
            let e = results.entry(name.clone()).or_insert_with(|| Item {
                name: name.clone(),
                ..Item::default()
            });
            put(e, *chars, counted);
        }
        for ((item, (_, chars)), tokens) in kinds
            .iter_mut()
            .zip(b.history_kinds())
            .zip(b.history_kinds_tokens())
        {
            if chars > 0 {
                put(item, chars, tokens);
            }
        }
    }
    let sorted = |m: Vec<Item>| {
        let mut v = m;
        v.sort_by(|a, b| {
            b.share
                .cost
                .total_cmp(&a.share.cost)
                .then(b.share.chars.cmp(&a.share.chars))
                .then(a.name.cmp(&b.name))
        });
        v
    };
    out.tools = sorted(tools.into_values().collect());
    out.sections = sorted(sections.into_values().collect());
    out.tool_results = sorted(results.into_values().collect());
    out.history = kinds.into_iter().filter(|k| k.requests > 0).collect();
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
