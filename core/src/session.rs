//! pi session files: JSONL parsing with pi's skip rules, v1/v2 → v3 migration, the entry tree,
//! the active branch and the context it yields (pi-coding-agent
//! `dist/core/session-manager.js` and `dist/core/messages.js`).
//!
//! pi's code paths ported here, in the order pi runs them when it resumes a session:
//! `loadEntriesFromFile` (split, skip, header check) → `migrateToCurrentVersion` →
//! `_buildIndex` (id index, leaf, labels) → `buildSessionContext` (`buildSessionPath`,
//! `getSessionContextSettings`, `buildContextEntries`, `sessionEntryToContextMessages`).
//!
//! Where pi would hang (a `parentId` cycle) or crash (a `message` entry without a message), this
//! port stops or skips, and reports it as a [`Diagnostic`].

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::inputs::SourceText;
use crate::js::{self, number_to_string, Object, Value};
use crate::paths;
use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// One parsed entry with the 1-based line it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub line: u32,
    /// How deeply the line's JSON nests (1 for an object of scalars).
    pub depth: u32,
    /// The entry object. A line that parsed to a truthy non-object (`5`, `"x"`, `[]`, `true`) is
    /// kept by pi as an entry whose `type`, `id` and `parentId` are all `undefined`; it is held
    /// here as an empty object, which reads the same.
    pub value: Object,
}

impl Entry {
    pub fn id(&self) -> Option<&str> {
        self.value.get_str("id")
    }
    pub fn parent_id(&self) -> Option<&str> {
        self.value.get_str("parentId")
    }
    pub fn kind(&self) -> &str {
        self.value.get_str("type").unwrap_or("")
    }
}

/// A session file after parsing and migration.
#[derive(Clone, Debug, Default)]
pub struct SessionFile {
    pub name: String,
    /// The header entry (`type: "session"`), if the file has a valid one.
    pub header: Option<Entry>,
    /// The non-header entries in file order (after migration). Like pi's `getEntries()`, this
    /// leaves out every entry whose type is `"session"`.
    pub entries: Vec<Entry>,
    /// The version the file declared before migration (1 when absent).
    pub original_version: u32,
    pub diagnostics: Vec<Diagnostic>,
    /// What the release it was read under does not know in it (entry types, message roles,
    /// fields: [`crate::pi::choice::unknown_in_session`]), found once when it is read.
    pub unknown: Vec<Diagnostic>,
    /// pi's `_buildIndex` over [`Self::entries`], made the first time a branch is walked: every
    /// past call of a session walks a branch of the same entries.
    index: std::sync::OnceLock<FileIndex>,
}

impl SessionFile {
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.value.get_str("id"))
    }
    pub fn cwd(&self) -> Option<&str> {
        self.header.as_ref().and_then(|h| h.value.get_str("cwd"))
    }

    /// The cwd pi runs a resumed session in: `resolvePath(header.cwd)` when the header's
    /// `cwd` is a string, else `process.cwd()` — `SessionManager.open` + `getSessionHeaderCwd`
    /// (CA/core/session-manager.js:1234, :389) and the constructor's `resolvePath(cwd)` (:599),
    /// with `resolvePath` from CA/utils/paths.js:82 (`~` expands to `home`, relative paths
    /// resolve against `process_cwd`). `None` without a valid header (pi starts a new session).
    pub fn resolved_cwd(&self, home: &str, process_cwd: &str) -> Option<String> {
        let header = self.header.as_ref()?;
        let cwd = header.value.get_str("cwd").unwrap_or(process_cwd);
        Some(paths::resolve_pi_path(
            cwd,
            process_cwd,
            home,
            paths::PathOptions::default(),
        ))
    }
}

/// Where a context message came from.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageSource {
    pub entry_id: Option<String>,
    pub line: u32,
    /// The entry type (`message`, `compaction`, `branch_summary`, `custom_message`).
    pub entry_type: String,
}

/// `buildSessionContext` and `getSessionContextSettings` for the leaf.
#[derive(Clone, Debug, Default)]
pub struct SessionContext {
    /// Agent messages, in order.
    pub messages: Vec<Value>,
    /// Parallel to `messages`.
    pub sources: Vec<MessageSource>,
    /// The same branch as indices into [`SessionFile::entries`].
    pub path_indices: Vec<usize>,
    /// `getBranch()` (CA/core/session-manager.js:958–969) as indices into
    /// [`SessionFile::entries`]: the path, or nothing when the leaf id is falsy.
    pub branch_indices: Vec<usize>,
    /// The compaction-aware selection (`buildContextEntries`) as indices into
    /// [`SessionFile::entries`], in context order.
    pub context_indices: Vec<usize>,
    pub leaf_id: Option<String>,
    /// The last `thinking_level_change` on the path, `"off"` if none. When that entry's
    /// `thinkingLevel` is not a string, this stays `"off"` and [`Self::thinking_level_value`]
    /// says what pi would carry.
    pub thinking_level: String,
    /// The raw `thinkingLevel` value pi's `getSessionContextSettings` returns: `None` for JS
    /// `undefined` (an entry without the field), else the value (`"off"` when no entry).
    pub thinking_level_value: Option<Value>,
    /// Whether the branch has a `thinking_level_change` entry. pi computes it with
    /// `getBranch()` (no fallback to the last entry when the leaf id is falsy).
    pub has_thinking_entry: bool,
    /// The last model on the path: (provider, model id). `None` also when the last
    /// model-setting entry has a non-string provider or id (pi finds no such model).
    pub model: Option<(String, String)>,
    /// The id of the compaction entry in effect, if any.
    pub compaction_id: Option<String>,
    /// Labels by target entry id, in pi's `labelsById` Map order.
    pub labels: Vec<(String, String)>,
}

impl SessionContext {
    /// The entry ids on the branch ([`Self::path_indices`] of `file`, the file it was built
    /// from), root → leaf (before compaction trimming). An entry whose id is not a string (only
    /// the leaf can be one) is listed by its JSON text (`""` if none).
    pub fn path_ids(&self, file: &SessionFile) -> Vec<String> {
        self.path_indices
            .iter()
            .filter_map(|&i| file.entries.get(i))
            .map(id_text)
            .collect()
    }

    /// The label of an entry id, if any.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.as_str())
    }
}

/// One row of the session tree view, in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeNode {
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub entry_type: String,
    pub line: u32,
    /// One line: the role or kind, and the first 80 characters of the text.
    pub preview: String,
    pub label: Option<String>,
    /// On the path from the leaf to the root.
    pub on_active_branch: bool,
    /// Selected for the context (on the branch and not cut by a compaction).
    pub in_context: bool,
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// How many characters of a bad line a diagnostic quotes.
const EXCERPT_CHARS: usize = 60;

/// One line that pi keeps, as `loadEntriesFromFile` returns it.
#[derive(Clone, Debug)]
struct Parsed {
    line: u32,
    depth: u32,
    /// The entry; a truthy non-object value is held as an empty object (it reads the same).
    value: Object,
    /// The line was a primitive (`5`, `"x"`, `true`): pi cannot add properties to it.
    primitive: bool,
}

/// Parses a session file. Never fails: bad lines and a bad header become diagnostics.
///
/// Ports `loadEntriesFromFile` (CA/core/session-manager.js:277–321), the header check of
/// `_setSessionFile` (:619–635) and `_loadEntries` → `migrateToCurrentVersion` (:671–685, :75).
pub fn parse(pi: &Pi, src: &SourceText) -> SessionFile {
    parse_lines(pi, src, &read_lines(src))
}

/// A session file's lines parsed as JSON, as `loadEntriesFromFile` returns them: the part of
/// reading a session that no release's rules change, so one parse serves the release detection
/// ([`crate::pi::choice`]) and the assembly under any release ([`parse_lines`]). The values share
/// the file's text (their strings are ranges of it) and are shared, not copied, by each
/// [`SessionFile`] made from them.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    parsed: Vec<Parsed>,
    diagnostics: Vec<Diagnostic>,
}

impl Lines {
    /// Each line kept, with its 1-based number, in file order, and the object it parsed to (a
    /// truthy non-object value is held as an empty object: it reads the same).
    pub fn values(&self) -> impl Iterator<Item = (u32, &Object)> {
        self.parsed.iter().map(|p| (p.line, &p.value))
    }
}

/// Parses the lines of a session file as JSON, before any release's rules.
pub fn read_lines(src: &SourceText) -> Lines {
    let mut diagnostics = Vec::new();
    let parsed = load_entries_from_file(src, &mut diagnostics);
    Lines {
        parsed,
        diagnostics,
    }
}

/// [`parse`] from lines already read ([`read_lines`] of the same `src`).
pub fn parse_lines(pi: &Pi, src: &SourceText, lines: &Lines) -> SessionFile {
    let mut file = SessionFile {
        name: src.name.clone(),
        original_version: pi.rules.session_version,
        diagnostics: lines.diagnostics.clone(),
        ..Default::default()
    };
    let mut parsed = lines.parsed.clone();

    // Header validation (:312–317): the first parsed entry must be a session header with a
    // string id; otherwise the loader returns [] and, for a non-empty file, pi throws (:626).
    let valid_header = parsed.first().is_some_and(|p| {
        p.value.get_str("type") == Some("session")
            && p.value.get("id").is_some_and(|id| id.as_str().is_some())
    });
    if !valid_header {
        if !src.text.is_empty() {
            let line = parsed.first().map(|p| p.line);
            let why = if parsed.is_empty() {
                "no line parses as JSON".to_string()
            } else {
                "the first parsed entry is not a `session` header with a string id".to_string()
            };
            file.diagnostics.push(
                Diagnostic::error(
                    &src.name,
                    line,
                    format!("Session file is not a valid pi session: {why}; pi refuses to load it"),
                )
                .skipping("the whole session"),
            );
        }
        return file;
    }

    file.original_version =
        migrate_to_current_version(pi, &mut parsed, &src.name, &mut file.diagnostics);

    let mut iter = parsed.into_iter();
    if let Some(h) = iter.next() {
        file.header = Some(Entry {
            line: h.line,
            depth: h.depth,
            value: h.value,
        });
    }
    for Parsed {
        line, depth, value, ..
    } in iter
    {
        if value.get_str("type") == Some("session") {
            // getEntries() filters every `type: "session"` entry (:995–997).
            file.diagnostics.push(
                Diagnostic::info(
                    &src.name,
                    Some(line),
                    "a second `session` header: pi ignores it (not indexed, not a leaf)",
                )
                .skipping(format!("line {line}")),
            );
            continue;
        }
        file.entries.push(Entry { line, depth, value });
    }
    file.unknown = crate::pi::choice::unknown_in_session(pi, &file);
    file
}

/// `loadEntriesFromFile` (CA/core/session-manager.js:277–321): lines split on `\n` only
/// (a `\r` stays on the line and JSON.parse takes it as whitespace), blank lines skipped, lines
/// that do not parse skipped, the last unterminated line parsed too. The values are
/// returned with their 1-based line numbers.
fn load_entries_from_file(src: &SourceText, diags: &mut Vec<Diagnostic>) -> Vec<Parsed> {
    let mut out = Vec::new();
    // Each line is parsed as a range of the file's text: the strings of its entries are ranges
    // of that one buffer, not copies.
    let mut at = 0usize;
    // The first line holding a character that stands for a lone surrogate, and how many do.
    let mut stand_ins: Option<(u32, char)> = None;
    let mut stand_in_lines = 0usize;
    for (i, line) in src.text.split('\n').enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let range = src.text.slice(at, at + line.len(), false);
        at += line.len() + 1;
        if let Some(c) = surrogate_stand_in(line) {
            stand_ins.get_or_insert((line_no, c));
            stand_in_lines += 1;
        }
        if let Some(p) = parse_session_entry_line(&range, line_no, &src.name, diags) {
            out.push(p);
        }
    }
    if let Some((line_no, c)) = stand_ins {
        let more = match stand_in_lines - 1 {
            0 => String::new(),
            1 => " (and one more line holds such characters)".to_string(),
            n => format!(" (and {n} more lines hold such characters)"),
        };
        diags.push(Diagnostic::warning(
            &src.name,
            Some(line_no),
            format!(
                "holds U+{:X}{more}, a character of U+10F800–U+10FFFF, which ctxlens uses to stand \
                 for a lone UTF-16 surrogate: it is read as one, where pi reads the character, so \
                 the body may differ from pi's where it is sent",
                c as u32
            ),
        ));
    }
    out
}

/// The first character of `line` in the range that stands for lone surrogates
/// ([`js::LONE_SURROGATE_BASE`]: U+10F800–U+10FFFF, UTF-8 `F4 8F A0..BF ..`). Raw text holds
/// none but the user's own (a JSON escape of a lone surrogate is still escaped here).
fn surrogate_stand_in(line: &str) -> Option<char> {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(i) = b.get(from..)?.iter().position(|&x| x == 0xF4) {
        let at = from + i;
        if b.get(at + 1) == Some(&0x8F) && b.get(at + 2).is_some_and(|&x| x >= 0xA0) {
            return line.get(at..)?.chars().next();
        }
        from = at + 1;
    }
    None
}

/// `parseSessionEntryLine` (:265–275) and the `if (entry)` of its caller (:290): a blank line
/// or one that fails `JSON.parse` gives nothing, and so does a line that parses to a falsy
/// value (`null`, `false`, `0`, `""`).
fn parse_session_entry_line(
    line: &js::Str,
    line_no: u32,
    file: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    if js::js_trim_is_empty(line) {
        return None;
    }
    match js::parse_str_with_depth(line) {
        Err(e) => {
            diags.push(
                Diagnostic::warning(
                    file,
                    Some(line_no),
                    format!("not valid JSON ({}): {}", e.message, excerpt(line)),
                )
                .skipping(format!("line {line_no}")),
            );
            None
        }
        Ok((v, _)) if !v.truthy() => {
            diags.push(
                Diagnostic::warning(
                    file,
                    Some(line_no),
                    format!(
                        "the line parses to the falsy value {}, which pi skips",
                        v.to_json()
                    ),
                )
                .skipping(format!("line {line_no}")),
            );
            None
        }
        Ok((Value::Object(o), depth)) => Some(Parsed {
            line: line_no,
            depth: depth as u32,
            value: o,
            primitive: false,
        }),
        Ok((v, depth)) => {
            diags.push(Diagnostic::warning(
                file,
                Some(line_no),
                format!("the line parses to {}, not an object: pi keeps it as an entry without type or id", excerpt(&v.to_json())),
            ));
            Some(Parsed {
                line: line_no,
                depth: depth as u32,
                value: Object::new(),
                primitive: !matches!(v, Value::Array(_)),
            })
        }
    }
}

/// The first characters of a line, for a diagnostic.
fn excerpt(line: &str) -> String {
    let trimmed = line.trim_end_matches('\r');
    let mut s: String = trimmed.chars().take(EXCERPT_CHARS).collect();
    if trimmed.chars().nth(EXCERPT_CHARS).is_some() {
        s.push('…');
    }
    format!("`{s}`")
}

// ---------------------------------------------------------------------------------------------
// Migration
// ---------------------------------------------------------------------------------------------

/// `migrateToCurrentVersion` (CA/core/session-manager.js:75–85): `version = header.version ?? 1`;
/// nothing to do at `>= CURRENT_SESSION_VERSION` (the release's `session_version`, 3), else
/// v1→v2 (when `< 2`) then v2→v3 (when `< 3`). The comparisons are JS ones (`"2"` counts as 2, a
/// non-numeric version as NaN, which migrates nothing). Returns the declared version as a whole
/// number (0 for NaN).
fn migrate_to_current_version(
    pi: &Pi,
    entries: &mut [Parsed],
    file: &str,
    diags: &mut Vec<Diagnostic>,
) -> u32 {
    let header_version = entries
        .iter()
        .find(|p| p.value.get_str("type") == Some("session"))
        .and_then(|h| h.value.get("version"))
        .filter(|v| !v.is_null());
    let version = header_version.map_or(1.0, |v| js::to_number(Some(v)));
    let declared = if version.is_nan() {
        0
    } else {
        version.clamp(0.0, f64::from(u32::MAX)) as u32
    };
    if version >= f64::from(pi.rules.session_version) {
        return declared;
    }
    if version < 2.0 {
        migrate_v1_to_v2(entries, file, diags);
    }
    if version < 3.0 {
        migrate_v2_to_v3(entries);
    }
    declared
}

/// The id given to the v1 entry on `line`. pi gives each entry `randomUUID().slice(0, 8)`
/// (`generateId`, :21–29); those ids never reach a request body, so this port
/// derives them from the line number instead, which keeps the output deterministic: `v1-L<line>`.
fn v1_entry_id(line: u32) -> String {
    format!("v1-L{line}")
}

/// `migrateV1ToV2` (CA/core/session-manager.js:31–54): headers get `version = 2`; every other
/// entry, in order, gets an id and `parentId` = the previous entry's id (`null` first). A
/// compaction's `firstKeptEntryIndex` (an index into all parsed entries, header included)
/// becomes `firstKeptEntryId` = the target's id *at that moment* — a later entry has not been
/// given its new id yet, so pointing forward yields its old id (usually `undefined`).
fn migrate_v1_to_v2(entries: &mut [Parsed], file: &str, diags: &mut Vec<Diagnostic>) {
    let mut prev_id: Value = Value::Null;
    for i in 0..entries.len() {
        let line = entries[i].line;
        if entries[i].value.get_str("type") == Some("session") {
            entries[i].value.insert("version", Value::Number(2.0));
            continue;
        }
        if entries[i].primitive {
            diags.push(Diagnostic::error(
                file,
                Some(line),
                "pi would crash migrating this v1 entry (TypeError: cannot create property 'id' on a primitive)",
            ));
        }
        let new_id = Value::String(v1_entry_id(line).into());
        let e = &mut entries[i].value;
        e.insert("id", new_id.clone());
        e.insert("parentId", std::mem::replace(&mut prev_id, new_id));
        if e.get_str("type") != Some("compaction") {
            continue;
        }
        let Some(index) = e.get("firstKeptEntryIndex").and_then(Value::as_f64) else {
            continue;
        };
        // `entries[comp.firstKeptEntryIndex]`: only an exact non-negative integer index hits.
        let target = (index >= 0.0 && index.fract() == 0.0 && index < entries.len() as f64)
            .then_some(index as usize);
        let target_id = target.and_then(|t| {
            let tv = &entries[t].value;
            (tv.get_str("type") != Some("session")).then(|| tv.get("id").cloned())
        });
        let e = &mut entries[i].value;
        match target_id {
            Some(Some(id)) => e.insert("firstKeptEntryId", id),
            // `comp.firstKeptEntryId = undefined`: the same as no member.
            Some(None) => {
                e.remove("firstKeptEntryId");
            }
            None => {}
        }
        e.remove("firstKeptEntryIndex");
        match target {
            None => diags.push(Diagnostic::warning(
                file,
                Some(line),
                format!(
                    "v1 compaction: firstKeptEntryIndex {} is not an entry: nothing before the compaction is kept",
                    number_to_string(index)
                ),
            )),
            Some(t) if t > i => diags.push(Diagnostic::warning(
                file,
                Some(line),
                format!("v1 compaction: firstKeptEntryIndex {t} points after the compaction; pi's migration reads that entry's old id"),
            )),
            _ => {}
        }
    }
}

/// `migrateV2ToV3` (CA/core/session-manager.js:56–70): headers get `version = 3`; a `message`
/// entry whose `message.role` is `"hookMessage"` gets `role = "custom"` (same key position).
fn migrate_v2_to_v3(entries: &mut [Parsed]) {
    for p in entries.iter_mut() {
        let e = &mut p.value;
        match e.get_str("type") {
            Some("session") => e.insert("version", Value::Number(3.0)),
            Some("message") => {
                if let Some(Value::Object(m)) = e.get_mut("message") {
                    if m.get_str("role") == Some("hookMessage") {
                        m.insert("role", Value::str("custom"));
                    }
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Index and leaf
// ---------------------------------------------------------------------------------------------

/// A `Map` key pi can find an entry by: `parentId` and `leafId` are looked up only when truthy,
/// so only non-empty strings, non-zero numbers and `true` can ever match (an object id is a
/// fresh reference that no lookup shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum IdKey<'a> {
    Str(&'a str),
    Num(u64),
    True,
}

fn id_key(v: Option<&Value>) -> Option<IdKey<'_>> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(IdKey::Str(s)),
        Value::Number(n) if *n != 0.0 && !n.is_nan() => Some(IdKey::Num(n.to_bits())),
        Value::Bool(true) => Some(IdKey::True),
        _ => None,
    }
}

/// What `_buildIndex` (CA/core/session-manager.js:686–707) finds in a file, whatever its leaf:
/// `byId` resolved for each entry's parent, `labelsById`, and the duplicate ids it reports.
#[derive(Clone, Debug)]
struct FileIndex {
    /// Per entry, the entry its truthy `parentId` names in `byId` (every non-header entry in
    /// file order, the last duplicate id winning); `None` when it names none.
    parents: Vec<Option<usize>>,
    labels: Vec<(String, String)>,
    diagnostics: Vec<Diagnostic>,
}

/// pi's `byId` (as each entry's parent), `leafId` and `labelsById` after `_buildIndex`.
struct SessionIndex<'a> {
    found: std::borrow::Cow<'a, FileIndex>,
    /// The last entry in file order (the leaf whatever its id), and its id value.
    leaf: Option<usize>,
}

/// `_buildIndex` for `file`: its [`FileIndex`] (made once per file; its diagnostics are added
/// to `diags` at each walk), the leaf being the last entry.
fn build_index<'a>(file: &'a SessionFile, diags: &mut Vec<Diagnostic>) -> SessionIndex<'a> {
    use std::borrow::Cow;
    let kept = file.index.get_or_init(|| file_index(file));
    // Entries are only pushed while a file is parsed, before any walk; were they changed
    // after, the index is made again rather than read stale.
    let found = if kept.parents.len() == file.entries.len() {
        Cow::Borrowed(kept)
    } else {
        Cow::Owned(file_index(file))
    };
    diags.extend(found.diagnostics.iter().cloned());
    SessionIndex {
        found,
        leaf: file.entries.len().checked_sub(1),
    }
}

/// Every non-header entry in file order goes into `byId` (the last duplicate id wins), and each
/// `label` entry sets (truthy `label`) or deletes its target's label.
fn file_index(file: &SessionFile) -> FileIndex {
    let mut diagnostics = Vec::new();
    let mut by_id: HashMap<IdKey<'_>, usize> = HashMap::with_capacity(file.entries.len());
    // labelsById as a Map: a slot per live key, in insertion order; a deleted key re-inserted
    // goes to the end.
    let mut label_slots: Vec<Option<(String, String)>> = Vec::new();
    let mut label_pos: HashMap<String, usize> = HashMap::new();
    for (i, entry) in file.entries.iter().enumerate() {
        if let Some(key) = id_key(entry.value.get("id")) {
            if let Some(prev) = by_id.insert(key, i) {
                diagnostics.push(
                    Diagnostic::warning(
                        &file.name,
                        Some(entry.line),
                        format!(
                            "duplicate entry id {} (also on line {}): pi's index keeps this later entry",
                            id_text(entry),
                            file.entries[prev].line
                        ),
                    )
                    .skipping(format!("line {} in the id index", file.entries[prev].line)),
                );
            }
        }
        if entry.kind() == "label" {
            let Some(target) = entry.value.get("targetId").map(label_key) else {
                continue;
            };
            let label = entry.value.get("label").filter(|l| l.truthy());
            if let Some(pos) = label_pos.get(&target).copied() {
                match label {
                    Some(l) => label_slots[pos] = Some((target, js::to_js_string(Some(l)))),
                    None => {
                        label_slots[pos] = None;
                        label_pos.remove(&target);
                    }
                }
            } else if let Some(l) = label {
                label_pos.insert(target.clone(), label_slots.len());
                label_slots.push(Some((target, js::to_js_string(Some(l)))));
            }
        }
    }
    let parents = file
        .entries
        .iter()
        .map(|e| {
            let p = e.value.get("parentId").filter(|p| p.truthy());
            id_key(p).and_then(|k| by_id.get(&k).copied())
        })
        .collect();
    FileIndex {
        parents,
        labels: label_slots.into_iter().flatten().collect(),
        diagnostics,
    }
}

/// A label's target as text (pi's Map keys are values; targets are entry ids, strings in
/// practice).
fn label_key(v: &Value) -> String {
    match v {
        Value::String(s) => s.as_str().to_owned(),
        other => other.to_json(),
    }
}

/// An entry's id as text: the string, else its JSON (`""` when missing).
fn id_text(entry: &Entry) -> String {
    match entry.value.get("id") {
        Some(Value::String(s)) => s.as_str().to_owned(),
        Some(v) => v.to_json(),
        None => String::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// The active branch
// ---------------------------------------------------------------------------------------------

/// `buildSessionPath` (CA/core/session-manager.js:124–145) for pi's own leaf: `leafId === null`
/// gives `[]`; otherwise the leaf is the last entry (a truthy `leafId` finds it in the index, a
/// falsy one falls back to `entries[entries.length - 1]`, the same entry). Then the walk follows
/// truthy `parentId`s through the index up to the root, and is reversed.
///
/// pi has no guard against a `parentId` cycle (it loops forever); this walk stops when it
/// reaches an entry it has already visited and reports the cycle. A parent missing from the
/// index ends the walk (the orphan is the root), also reported.
fn build_session_path(
    file: &SessionFile,
    index: &SessionIndex,
    past: bool,
    diags: &mut Vec<Diagnostic>,
) -> Vec<usize> {
    let Some(leaf) = index.leaf else {
        return Vec::new();
    };
    if matches!(file.entries[leaf].value.get("id"), Some(Value::Null)) {
        diags.push(Diagnostic::warning(
            &file.name,
            Some(file.entries[leaf].line),
            "the last entry has `id: null`, so pi's leafId is null and the context is empty",
        ));
        return Vec::new();
    }
    let mut visited = vec![false; file.entries.len()];
    // Most entries of a session are on the branch of its last entry.
    let mut path: Vec<usize> = Vec::with_capacity(file.entries.len());
    let mut current = Some(leaf);
    while let Some(i) = current {
        if visited[i] {
            let start = path.iter().position(|&p| p == i).unwrap_or(0);
            let lines: Vec<String> = path[start..]
                .iter()
                .map(|&p| file.entries[p].line.to_string())
                .collect();
            diags.push(
                Diagnostic::error(
                    &file.name,
                    Some(file.entries[i].line),
                    format!("parentId cycle through lines {}: pi never finishes this walk (it grows the path until `RangeError: Invalid array length`); the walk stops here", lines.join(", ")),
                )
                .skipping("the rest of the branch above the cycle"),
            );
            break;
        }
        visited[i] = true;
        path.push(i);
        let entry = &file.entries[i];
        let parent = entry.value.get("parentId").filter(|p| p.truthy());
        current = match parent {
            // A past call's branch: an entry with no `parentId` member at all was appended while
            // pi's `leafId` was undefined — its leaf was then the entry before it in the file,
            // one without an id (`buildSessionPath` falls back to the last entry), and pi's
            // context went on along that entry's branch. Read now, the link is lost.
            None if past
                && entry.value.get("parentId").is_none()
                && i > 0
                && !file.entries[i - 1]
                    .value
                    .get("id")
                    .is_some_and(Value::truthy) =>
            {
                diags.push(Diagnostic::info(
                    &file.name,
                    Some(entry.line),
                    format!(
                        "entry {} has no parentId: pi appended it while its leaf was the entry without an id on line {}, so the calls made then carry that entry's branch too (pi resuming the session now starts a new branch here)",
                        id_text(entry),
                        file.entries[i - 1].line
                    ),
                ));
                Some(i - 1)
            }
            None => None,
            Some(p) => {
                let found = index.found.parents[i];
                if found.is_none() {
                    diags.push(Diagnostic::warning(
                        &file.name,
                        Some(entry.line),
                        format!(
                            "parent {} of entry {} is not in the session: pi treats this entry as the root",
                            label_key(p),
                            id_text(entry)
                        ),
                    ));
                }
                found
            }
        };
    }
    path.reverse();
    path
}

// ---------------------------------------------------------------------------------------------
// Context settings
// ---------------------------------------------------------------------------------------------

/// What `getSessionContextSettings` returns.
struct ContextSettings {
    thinking_level: Option<Value>,
    model: Option<(String, String)>,
}

/// `getSessionContextSettings` (CA/core/session-manager.js:146–161) over the whole path: the
/// last `thinking_level_change.thinkingLevel` (default `"off"`), and the last of `model_change`
/// `{provider, modelId}` / an assistant message's `{provider, model}`.
fn get_session_context_settings(
    file: &SessionFile,
    path: &[usize],
    diags: &mut Vec<Diagnostic>,
) -> ContextSettings {
    let mut thinking_level = Some(Value::str("off"));
    let mut model: Option<(String, String)> = None;
    let pair = |a: Option<&Value>, b: Option<&Value>| -> Option<(String, String)> {
        Some((a?.as_str()?.to_string(), b?.as_str()?.to_string()))
    };
    for &i in path {
        let entry = &file.entries[i];
        match entry.kind() {
            "thinking_level_change" => {
                thinking_level = entry.value.get("thinkingLevel").cloned();
                if !matches!(thinking_level, Some(Value::String(_))) {
                    diags.push(Diagnostic::warning(
                        &file.name,
                        Some(entry.line),
                        format!(
                            "thinking_level_change without a string thinkingLevel ({}): pi carries it as the session's level",
                            thinking_level.as_ref().map_or("undefined".into(), Value::to_json)
                        ),
                    ));
                }
            }
            "model_change" => model = pair(entry.value.get("provider"), entry.value.get("modelId")),
            "message" => match entry.value.get("message") {
                None | Some(Value::Null) => diags.push(Diagnostic::error(
                    &file.name,
                    Some(entry.line),
                    "a `message` entry without a message: pi would crash (TypeError reading `role`)",
                )),
                Some(m) => {
                    if m.get_str("role") == Some("assistant") {
                        model = pair(m.get("provider"), m.get("model"));
                    }
                }
            },
            _ => {}
        }
    }
    ContextSettings {
        thinking_level,
        model,
    }
}

// ---------------------------------------------------------------------------------------------
// Compaction-aware selection
// ---------------------------------------------------------------------------------------------

/// JS `a === b` for two member values (`None` = `undefined`); objects and arrays are distinct
/// references.
fn strict_equals(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Value::Null), Some(Value::Null)) => true,
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x == y,
        (Some(Value::Number(x)), Some(Value::Number(y))) => x == y,
        (Some(Value::String(x)), Some(Value::String(y))) => x == y,
        _ => false,
    }
}

/// `buildContextEntries` (CA/core/session-manager.js:198–226): with no compaction on the path,
/// the path; else `[latestCompaction, ...path before it from the entry whose id ===
/// firstKeptEntryId, ...path after it]`. Returns the indices and the compaction's index.
fn build_context_entries(
    pi: &Pi,
    file: &SessionFile,
    path: &[usize],
    events: &mut Events,
) -> (Vec<usize>, Option<usize>) {
    let Some(&compaction) = path
        .iter()
        .rev()
        .find(|&&i| file.entries[i].kind() == "compaction")
    else {
        return (path.to_vec(), None);
    };
    let comp = &file.entries[compaction].value;
    // `path.findIndex((entry) => entry.id === compaction.id)`.
    let Some(compaction_idx) = path.iter().position(|&i| {
        i == compaction || strict_equals(file.entries[i].value.get("id"), comp.get("id"))
    }) else {
        return (path.to_vec(), None);
    };
    let first_kept = comp.get("firstKeptEntryId");
    let mut out = Vec::with_capacity(path.len());
    out.push(compaction);
    let mut found = false;
    let mut system_skipped = 0;
    for &i in &path[..compaction_idx] {
        if !found && strict_equals(file.entries[i].value.get("id"), first_kept) {
            found = true;
        }
        if found {
            // 0.86 on: a system message before the compaction is in its checkpoint.
            if pi.rules.transcript && is_system_message_entry(&file.entries[i]) {
                system_skipped += 1;
                continue;
            }
            out.push(i);
        }
    }
    let kept = out.len() - 1 + system_skipped;
    out.extend_from_slice(&path[compaction_idx + 1..]);

    let line = file.entries[compaction].line;
    events.push(
        Event::new(
            EventKind::Dropped,
            format!(
                "compaction (line {line}) applied: {} of {} earlier entries on the branch cut, {kept} kept{}",
                compaction_idx - kept,
                compaction_idx,
                if found {
                    format!(" from {}", first_kept.map(label_key).unwrap_or_default())
                } else {
                    match first_kept {
                        Some(v) => format!(" (firstKeptEntryId {} is not on the branch)", label_key(v)),
                        None => " (no firstKeptEntryId)".into(),
                    }
                }
            ),
        )
        .at("CA/core/session-manager.js:198"),
    );
    if system_skipped > 0 {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!(
                    "{system_skipped} system message(s) in the kept range left out: the compaction's checkpoint replaces them"
                ),
            )
            .at("1.6.0/CA/core/session-manager.js:223"),
        );
    }
    (out, Some(compaction))
}

/// A `message` entry whose message has `role: "system"`.
fn is_system_message_entry(entry: &Entry) -> bool {
    entry.kind() == "message"
        && entry.value.get("message").and_then(|m| m.get_str("role")) == Some("system")
}

// ---------------------------------------------------------------------------------------------
// Entry → agent message
// ---------------------------------------------------------------------------------------------

/// `sessionEntryToContextMessages` (CA/core/session-manager.js:166–192): the messages an entry
/// produces (none, one, or a compaction's checkpoint and summary); a `message` entry pi could
/// not handle is reported and skipped.
fn session_entry_to_context_messages(
    pi: &Pi,
    entry: &Entry,
    file: &str,
    diags: &mut Vec<Diagnostic>,
    events: &mut Events,
) -> Vec<Value> {
    let e = &entry.value;
    let line = entry.line;
    match entry.kind() {
        "message" => {
            match e.get("message") {
                Some(Value::Object(m)) => {
                    let role = m.get_str("role");
                    let null_content = m.get("content").is_none_or(Value::is_null);
                    if pi.rules.transcript && role == Some("system") && null_content {
                        // `{ ...message, content: "" }` (0.86 on, :171).
                        let mut copy = m.clone();
                        copy.insert("content", Value::str(""));
                        events.push(
                        Event::new(
                            EventKind::Replaced,
                            format!("system message (line {line}) has no content: content set to \"\""),
                        )
                        .at("1.6.0/CA/core/session-manager.js:171"),
                    );
                        return vec![Value::Object(copy)];
                    }
                    if matches!(role, Some("user" | "assistant" | "toolResult")) && null_content {
                        // `{ ...message, content: [] }`: `content` keeps its position if present.
                        let mut copy = m.clone();
                        copy.insert("content", Value::Array(Vec::new()));
                        events.push(
                            Event::new(
                                EventKind::Replaced,
                                format!(
                                    "{} message (line {line}) has no content: content set to []",
                                    role.unwrap_or("")
                                ),
                            )
                            .at("CA/core/session-manager.js:174"),
                        );
                        return vec![Value::Object(copy)];
                    }
                    vec![Value::Object(m.clone())]
                }
                None | Some(Value::Null) => {
                    // Already reported by the settings pass (pi crashes there first).
                    Vec::new()
                }
                Some(other) => {
                    diags.push(
                    Diagnostic::error(
                        file,
                        Some(line),
                        format!("the entry's message is {}, not an object: pi would pass it on as a message", excerpt(&other.to_json())),
                    )
                    .skipping(format!("line {line}")),
                );
                    Vec::new()
                }
            }
        }
        "custom_message" => {
            let msg = create_custom_message(
                e.get("customType"),
                e.get("content")
                    .filter(|c| !c.is_null())
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new())),
                e.get("display"),
                e.get("details"),
                entry_time(entry, file, diags),
            );
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!(
                        "custom_message {} (line {line}) → custom message{}",
                        e.get("customType").map(label_key).unwrap_or_default(),
                        if e.get("display").is_some_and(Value::truthy) {
                            ""
                        } else {
                            " (display is off: still in the context)"
                        }
                    ),
                )
                .at("CA/core/session-manager.js:180"),
            );
            vec![msg]
        }
        "branch_summary" => {
            if !e.get("summary").is_some_and(Value::truthy) {
                events.push(
                    Event::new(EventKind::Dropped, format!("branch_summary (line {line}) with an empty summary produces no message"))
                        .at("CA/core/session-manager.js:183"),
                );
                return Vec::new();
            }
            let msg = create_branch_summary_message(
                e.get("summary"),
                e.get("fromId"),
                entry_time(entry, file, diags),
            );
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("branch_summary (line {line}) → branchSummary message"),
                )
                .at("CA/core/session-manager.js:183"),
            );
            vec![msg]
        }
        "compaction" => {
            let msg = create_compaction_summary_message(
                e.get("summary"),
                e.get("tokensBefore"),
                entry_time(entry, file, diags),
            );
            events.push(
                Event::new(
                    EventKind::Converted,
                    format!("compaction (line {line}) → compactionSummary message"),
                )
                .at("CA/core/session-manager.js:186"),
            );
            // 0.86 on: the system-prompt checkpoint stored with the compaction, as stored.
            match e
                .get("systemMessage")
                .filter(|c| pi.rules.transcript && c.truthy())
            {
                Some(checkpoint) => {
                    events.push(
                        Event::new(
                            EventKind::Inserted,
                            format!(
                                "compaction (line {line}) → its system-prompt checkpoint, first"
                            ),
                        )
                        .at("1.6.0/CA/core/session-manager.js:189"),
                    );
                    vec![checkpoint.clone(), msg]
                }
                None => vec![msg],
            }
        }
        _ => Vec::new(),
    }
}

/// `projectContextEntry(entry, edit)` (CA/core/session-manager.js:236–255; 0.87 on): a
/// `context_edit` with `replacement: null` omits every message of its target; else the content
/// of the target's user, assistant, toolResult and custom messages is replaced (a string
/// becomes one text block for assistant and toolResult).
fn apply_context_edit(
    messages: Vec<Value>,
    edit: &Entry,
    target: &Entry,
    file: &str,
    diags: &mut Vec<Diagnostic>,
    events: &mut Events,
) -> Vec<Value> {
    let line = edit.line;
    let replacement = edit.value.get("replacement");
    if matches!(replacement, Some(Value::Null)) {
        if !messages.is_empty() {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "context_edit (line {line}) omits the {} at line {} from the context",
                        target.kind(),
                        target.line
                    ),
                )
                .at("1.6.0/CA/core/session-manager.js:241"),
            );
        }
        return Vec::new();
    }
    let editable = |m: &Value| {
        matches!(
            m.get_str("role"),
            Some("user" | "assistant" | "toolResult" | "custom")
        )
    };
    if !messages.iter().any(editable) {
        return messages;
    }
    let Some(replacement) = replacement.filter(|r| !r.is_null()) else {
        diags.push(
            Diagnostic::error(
                file,
                Some(line),
                "context_edit without a replacement: pi would fail here (TypeError: Cannot read properties of undefined (reading 'content')); the edit is not applied",
            )
            .skipping(format!("line {line}")),
        );
        return messages;
    };
    let content = replacement.get("content");
    events.push(
        Event::new(
            EventKind::Replaced,
            format!(
                "context_edit (line {line}) replaces the content of the {} at line {}",
                target.kind(),
                target.line
            ),
        )
        .at("1.6.0/CA/core/session-manager.js:243"),
    );
    messages
        .into_iter()
        .map(|m| {
            if !editable(&m) {
                return m;
            }
            let Value::Object(mut o) = m else { return m };
            let wrap = matches!(o.get_str("role"), Some("assistant" | "toolResult"));
            match content {
                Some(Value::String(t)) if wrap => o.insert(
                    "content",
                    Value::Array(vec![Value::Object(
                        Object::new()
                            .with("type", "text")
                            .with("text", Value::String(t.clone())),
                    )]),
                ),
                Some(c) => o.insert("content", c.clone()),
                // `content: undefined`: the key stays but JSON leaves it out.
                None => {
                    o.remove("content");
                }
            }
            Value::Object(o)
        })
        .collect()
}

/// `new Date(entry.timestamp).getTime()`, with a diagnostic when it is NaN.
fn entry_time(entry: &Entry, file: &str, diags: &mut Vec<Diagnostic>) -> f64 {
    let ts = entry.value.get("timestamp");
    let t = js::date::date_get_time(ts);
    if t.is_nan() {
        diags.push(Diagnostic::warning(
            file,
            Some(entry.line),
            format!(
                "timestamp {} is not a date: the message's timestamp is NaN (null in JSON), as in pi",
                ts.map_or("undefined".into(), Value::to_json)
            ),
        ));
    }
    t
}

/// `createBranchSummaryMessage` (CA/core/messages.js:40–47).
fn create_branch_summary_message(
    summary: Option<&Value>,
    from_id: Option<&Value>,
    timestamp: f64,
) -> Value {
    let mut o = Object::with_capacity(4);
    o.insert("role", Value::str("branchSummary"));
    o.insert_opt("summary", summary.cloned());
    o.insert_opt("fromId", from_id.cloned());
    o.insert("timestamp", Value::Number(timestamp));
    Value::Object(o)
}

/// `createCompactionSummaryMessage` (CA/core/messages.js:48–55). No truthiness check: an
/// absent summary stays absent (`undefined`).
fn create_compaction_summary_message(
    summary: Option<&Value>,
    tokens_before: Option<&Value>,
    timestamp: f64,
) -> Value {
    let mut o = Object::with_capacity(4);
    o.insert("role", Value::str("compactionSummary"));
    o.insert_opt("summary", summary.cloned());
    o.insert_opt("tokensBefore", tokens_before.cloned());
    o.insert("timestamp", Value::Number(timestamp));
    Value::Object(o)
}

/// `createCustomMessage` (CA/core/messages.js:57–66): included whatever `display` says.
fn create_custom_message(
    custom_type: Option<&Value>,
    content: Value,
    display: Option<&Value>,
    details: Option<&Value>,
    timestamp: f64,
) -> Value {
    let mut o = Object::with_capacity(6);
    o.insert("role", Value::str("custom"));
    o.insert_opt("customType", custom_type.cloned());
    o.insert("content", content);
    o.insert_opt("display", display.cloned());
    o.insert_opt("details", details.cloned());
    o.insert("timestamp", Value::Number(timestamp));
    Value::Object(o)
}

// ---------------------------------------------------------------------------------------------
// buildSessionContext
// ---------------------------------------------------------------------------------------------

/// Walks the active branch and converts its entries to agent messages:
/// `SessionManager.buildSessionContext` → `buildSessionContext(getEntries(), leafId, byId)`
/// (CA/core/session-manager.js:232–237, :980), plus `getBranch()` for `has_thinking_entry`
/// (CA/core/sdk.js:83).
pub fn build_context(
    pi: &Pi,
    file: &SessionFile,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> SessionContext {
    build_context_at(pi, file, Leaf::Last, events, diags)
}

/// Where a branch ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// pi's own leaf: the last entry of the file (`_buildIndex`, CA/core/session-manager.js:686).
    Last,
    /// This entry (an index into [`SessionFile::entries`]), as pi's leaf was when it sent a
    /// past call: the parent of the call's answer.
    Entry(usize),
    /// No entry: a call answered from the root (`parentId: null`) had an empty context.
    Root,
}

/// pi's active branch as indices into the entries, root → leaf (`buildSessionPath` for the
/// last entry), without the diagnostics [`build_context`] reports about it.
pub fn active_path(file: &SessionFile) -> Vec<usize> {
    let mut scratch = Vec::new();
    let index = build_index(file, &mut scratch);
    build_session_path(file, &index, false, &mut scratch)
}

/// The path from the root to entry `i`, root → `i` (its branch).
pub fn path_to(file: &SessionFile, i: usize) -> Vec<usize> {
    let mut scratch = Vec::new();
    let mut index = build_index(file, &mut scratch);
    index.leaf = Some(i);
    build_session_path(file, &index, true, &mut scratch)
}

/// The index of the entry whose `id` is the string `id` (pi's index keeps the later of
/// duplicates).
pub fn find_entry(file: &SessionFile, id: &str) -> Option<usize> {
    file.entries.iter().rposition(|e| e.id() == Some(id))
}

/// [`build_context`] for a branch that ends at `leaf`.
pub fn build_context_at(
    pi: &Pi,
    file: &SessionFile,
    leaf: Leaf,
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> SessionContext {
    let mut index = build_index(file, diags);
    match leaf {
        Leaf::Last => {}
        Leaf::Entry(i) => index.leaf = Some(i).filter(|&i| i < file.entries.len()),
        Leaf::Root => index.leaf = None,
    }
    let path = build_session_path(file, &index, leaf != Leaf::Last, diags);
    let settings = get_session_context_settings(file, &path, diags);
    note_branch(file, leaf, index.leaf, &path, events);

    let (context_indices, compaction) = build_context_entries(pi, file, &path, events);
    let (messages, sources) = context_messages(pi, file, &context_indices, events, diags);

    let thinking_level = match &settings.thinking_level {
        Some(Value::String(s)) => s.clone(),
        _ => "off".to_string().into(),
    };
    // getBranch() starts from `leafId` only when it is truthy (:958–969).
    let leaf_value = index.leaf.and_then(|l| file.entries[l].value.get("id"));
    let branch_for_settings: &[usize] = if leaf_value.is_some_and(Value::truthy) {
        &path
    } else {
        &[]
    };
    let has_thinking_entry = branch_for_settings
        .iter()
        .any(|&i| file.entries[i].kind() == "thinking_level_change");

    SessionContext {
        messages,
        sources,
        branch_indices: branch_for_settings.to_vec(),
        path_indices: path,
        context_indices,
        leaf_id: leaf_value.and_then(Value::as_str).map(String::from),
        thinking_level: thinking_level.to_string(),
        thinking_level_value: settings.thinking_level,
        has_thinking_entry,
        model: settings.model,
        compaction_id: compaction
            .and_then(|c| file.entries[c].id())
            .map(String::from),
        labels: index.found.labels.clone(),
    }
}

/// Events: the branch built (`_buildIndex`'s leaf, CA/core/session-manager.js:686), entries off it.
fn note_branch(
    file: &SessionFile,
    leaf: Leaf,
    leaf_at: Option<usize>,
    path: &[usize],
    events: &mut Events,
) {
    let off_branch = file.entries.len() - path.len();
    if let Some(leaf_at) = leaf_at {
        events.push(
            Event::new(
                EventKind::Note,
                if leaf == Leaf::Last {
                    format!(
                        "active branch: {} entries from the root to the leaf {} (line {}), the last entry in the file",
                        path.len(),
                        id_text(&file.entries[leaf_at]),
                        file.entries[leaf_at].line
                    )
                } else {
                    format!(
                        "the call's branch: {} entries from the root to {} (line {}), pi's leaf when it sent the call",
                        path.len(),
                        id_text(&file.entries[leaf_at]),
                        file.entries[leaf_at].line
                    )
                },
            )
            .at("CA/core/session-manager.js:686"),
        );
    }
    if off_branch > 0 {
        events.push(
            Event::new(
                EventKind::Dropped,
                format!("{off_branch} entries off the active branch ignored"),
            )
            .at("CA/core/session-manager.js:124"),
        );
    }
}

/// 0.87 on: the `context_edit` entries among the selected entries, in order.
fn context_edits(pi: &Pi, file: &SessionFile, context_indices: &[usize]) -> Vec<usize> {
    // 0.87 on: the latest `context_edit` of each target among the selected entries.
    if pi.rules.context_edits {
        context_indices
            .iter()
            .copied()
            .filter(|&i| file.entries[i].kind() == "context_edit")
            .collect()
    } else {
        Vec::new()
    }
}

/// `sessionEntryToContextMessages` for each selected entry, its `context_edit` applied; sources.
fn context_messages(
    pi: &Pi,
    file: &SessionFile,
    context_indices: &[usize],
    events: &mut Events,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Value>, Vec<MessageSource>) {
    let edits = context_edits(pi, file, context_indices);
    let edit_for = |entry: &Entry| {
        edits.iter().rev().copied().find(|&k| {
            let target = file.entries[k].value.get("targetId");
            !matches!(target, Some(Value::Object(_) | Value::Array(_)))
                && strict_equals(target, entry.value.get("id"))
        })
    };

    let mut messages = Vec::with_capacity(context_indices.len());
    let mut sources = Vec::with_capacity(context_indices.len());
    let mut silent: Vec<(String, usize)> = Vec::new();
    for (n, &i) in context_indices.iter().enumerate() {
        let entry = &file.entries[i];
        // 0.87 on: an older compaction kept inside the newest one's range adds nothing.
        let produced = if pi.rules.context_edits && n > 0 && entry.kind() == "compaction" {
            events.push(
                Event::new(
                    EventKind::Dropped,
                    format!(
                        "older compaction (line {}) inside the kept range produces no message",
                        entry.line
                    ),
                )
                .at("1.6.0/CA/core/session-manager.js:271"),
            );
            Vec::new()
        } else {
            let produced = session_entry_to_context_messages(pi, entry, &file.name, diags, events);
            match edit_for(entry) {
                Some(k) => {
                    apply_context_edit(produced, &file.entries[k], entry, &file.name, diags, events)
                }
                None => produced,
            }
        };
        match produced.is_empty() {
            false => {
                for m in produced {
                    messages.push(m);
                    sources.push(MessageSource {
                        entry_id: entry.id().map(String::from),
                        line: entry.line,
                        entry_type: entry.kind().to_string(),
                    });
                }
            }
            true => {
                let kind = entry.kind();
                if kind == "branch_summary" || kind == "message" || kind == "compaction" {
                    continue; // reported above
                }
                let kind = if kind.is_empty() {
                    "untyped".to_string()
                } else {
                    kind.to_string()
                };
                match silent.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, n)) => *n += 1,
                    None => silent.push((kind, 1)),
                }
            }
        }
    }
    note_silent(&silent, events);
    (messages, sources)
}

/// The entries that produce no message, by kind, as an event (CA/core/session-manager.js:188).
fn note_silent(silent: &[(String, usize)], events: &mut Events) {
    if !silent.is_empty() {
        let list: Vec<String> = silent.iter().map(|(k, n)| format!("{n} {k}")).collect();
        events.push(
            Event::new(
                EventKind::Dropped,
                format!("entries that produce no message: {}", list.join(", ")),
            )
            .at("CA/core/session-manager.js:188"),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Tree view
// ---------------------------------------------------------------------------------------------

/// How many characters of text a tree preview shows.
const PREVIEW_CHARS: usize = 80;

/// Every entry in file order with its place in the tree, for the UI.
pub fn tree(file: &SessionFile, ctx: &SessionContext) -> Vec<TreeNode> {
    let mut on_branch = vec![false; file.entries.len()];
    for &i in &ctx.path_indices {
        if let Some(b) = on_branch.get_mut(i) {
            *b = true;
        }
    }
    let mut in_context = vec![false; file.entries.len()];
    for &i in &ctx.context_indices {
        if let Some(b) = in_context.get_mut(i) {
            *b = true;
        }
    }
    let labels: HashMap<&str, &str> = ctx
        .labels
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    file.entries
        .iter()
        .enumerate()
        .map(|(i, e)| TreeNode {
            id: e.id().map(String::from),
            parent_id: e.parent_id().map(String::from),
            entry_type: e.kind().to_string(),
            line: e.line,
            preview: preview(e),
            label: e.id().and_then(|id| labels.get(id)).map(|l| l.to_string()),
            on_active_branch: on_branch[i],
            in_context: in_context[i],
        })
        .collect()
}

/// The first text of a message `content` (a string, or the first `text` block).
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.as_str().to_owned(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .find_map(|b| match b.get_str("type") {
                Some("text") => b.get_str("text").map(String::from),
                Some("toolCall") => b.get_str("name").map(|n| format!("[tool call {n}]")),
                Some("thinking") => b.get_str("thinking").map(|t| format!("[thinking] {t}")),
                Some("image") => Some("[image]".into()),
                _ => None,
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// A one-line preview: a role or kind, then up to [`PREVIEW_CHARS`] characters of text.
fn preview(entry: &Entry) -> String {
    let e = &entry.value;
    let s = |k: &str| {
        e.get(k)
            .map(|v| js::to_js_string(Some(v)))
            .unwrap_or_default()
    };
    let (head, text) = match entry.kind() {
        "message" => {
            let m = e.get("message");
            let role = m.and_then(|m| m.get_str("role")).unwrap_or("?").to_string();
            let text = match role.as_str() {
                "bashExecution" => m
                    .and_then(|m| m.get_str("command"))
                    .map(|c| format!("$ {c}"))
                    .unwrap_or_default(),
                _ => content_text(m.and_then(|m| m.get("content"))),
            };
            (role, text)
        }
        "custom_message" => (
            format!("custom {}", s("customType")),
            content_text(e.get("content")),
        ),
        "compaction" | "branch_summary" => (entry.kind().to_string(), s("summary")),
        "model_change" => (
            "model".into(),
            format!("{}/{}", s("provider"), s("modelId")),
        ),
        "thinking_level_change" => ("thinking".into(), s("thinkingLevel")),
        "label" => (
            "label".into(),
            format!("{} → {}", s("targetId"), s("label")),
        ),
        "" => ("?".into(), String::new()),
        k => (k.to_string(), String::new()),
    };
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(PREVIEW_CHARS)
        .collect();
    let more = text.chars().nth(PREVIEW_CHARS).is_some();
    match (flat.is_empty(), more) {
        (true, _) => head,
        (false, false) => format!("{head}: {flat}"),
        (false, true) => format!("{head}: {flat}…"),
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
