//! What ctxlens says about each case beyond pi's bytes, kept as snapshots by concern so that one
//! change shows as one readable diff: a statistics change in the statistics alone, a trace
//! wording in the traces alone, an adapter's change under its protocol alone.
//!
//! ```text
//! tests/snapshots/
//!   stats/<release>/<case>.txt      each case's statistics, a file per case
//!   trace/<release>.txt             the stages pi ran and what each did, a block per case
//!   findings/<release>.txt          the findings, a block per case that has any
//!   calls/<release>.txt             diagnostics, the session's calls, the call rebuilt
//!   protocols/<api>/<release>.txt   the request under each protocol other than the case's own:
//!                                   URL, headers, the body's size and hash, its accounting
//! ```
//!
//! A block starts with `## <case>`. `UPDATE_EXPECT=1` rewrites the snapshots; with
//! `CTXLENS_CASE` it rewrites only the blocks and files of the cases it names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctxlens::js::{self, Value};
use ctxlens::AssemblyStats;
use ctxlens::{Api, Assembly, Inputs};
use ctxlens_corpus::Case;

use super::{cases, load};

const REGENERATE: &str = "Regenerate: UPDATE_EXPECT=1 cargo test -p ctxlens-cli --test conformance";

fn snapshots() -> PathBuf {
    ctxlens_corpus::workspace().join("tests/snapshots")
}

/// A case's release folder and its name in it: `pi-1.5.0/an-scripted` → (`pi-1.5.0`,
/// `an-scripted`); the demo is `demo/demo`.
fn split_name(name: &str) -> (&str, &str) {
    name.rsplit_once('/').unwrap_or((name, name))
}

/// A JSON object as lines: each member on its line, the items of an array member one per line,
/// in compact JSON with long strings shortened.
fn outline(value: &Value) -> String {
    fn shorten(v: &Value) -> Value {
        match v {
            Value::String(s) if js::utf16_len(s) > 80 => Value::str(format!(
                "«{} chars #{}»",
                js::utf16_len(s),
                js::short_hash(s)
            )),
            Value::Array(a) => Value::Array(a.iter().map(shorten).collect()),
            Value::Object(o) => {
                let mut out = js::Object::new();
                for (k, x) in o.iter() {
                    out.insert(k.clone(), shorten(x));
                }
                Value::Object(out)
            }
            Value::Deep(t) => Value::str(format!(
                "«{} bytes nested too deep #{}»",
                t.len(),
                js::short_hash(t)
            )),
            other => other.clone(),
        }
    }
    let Value::Object(top) = value else {
        return shorten(value).to_json() + "\n";
    };
    let mut out = String::new();
    for (k, v) in top.iter() {
        let key = Value::str(k.clone()).to_json();
        match shorten(v) {
            Value::Array(items) if !items.is_empty() => {
                out.push_str(&format!("{key}: [\n"));
                for item in &items {
                    out.push_str(&format!("  {}\n", item.to_json()));
                }
                out.push_str("]\n");
            }
            v => out.push_str(&format!("{key}: {}\n", v.to_json())),
        }
    }
    out
}

/// The stages pi ran, each with its counts and events.
fn trace(a: &Assembly) -> String {
    let mut s = String::new();
    for st in &a.trace.stages {
        let counts: Vec<String> = st
            .counts
            .iter()
            .map(|(k, v)| format!("{k}={}", js::number_to_string(*v)))
            .collect();
        s.push_str(&format!(
            "{} @{}: {} [{}]\n",
            st.id.key(),
            st.pi_source,
            st.summary,
            counts.join(" ")
        ));
        for e in &st.events {
            s.push_str(&format!(
                "  {} {}{}\n",
                e.kind.as_str(),
                e.message,
                e.pi_source.map(|p| format!(" @{p}")).unwrap_or_default()
            ));
        }
    }
    s
}

/// The diagnostics, the session's calls with their recorded usage, and the call rebuilt.
fn calls(a: &Assembly) -> String {
    let n = |v: f64| js::number_to_string(v);
    let mut s = String::new();
    for d in &a.diagnostics {
        s.push_str(&format!("{d}\n"));
    }
    for c in a.calls.iter() {
        let usage = c.usage.as_ref().map(|u| {
            format!(
                "; input {} output {} cacheRead {} cacheWrite {} total {}",
                n(u.input),
                n(u.output),
                n(u.cache_read),
                n(u.cache_write),
                u.total_tokens.map_or("-".into(), n)
            )
        });
        s.push_str(&format!(
            "call {} {} line {}: {}/{} ({}) {}{}{}\n",
            c.index,
            c.entry_id.as_deref().unwrap_or("(no id)"),
            c.line,
            c.provider.as_deref().unwrap_or("?"),
            c.model.as_deref().unwrap_or("?"),
            c.api.as_deref().unwrap_or("?"),
            c.stop_reason.as_deref().unwrap_or("?"),
            c.error_message
                .as_deref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default(),
            usage.unwrap_or_default()
        ));
    }
    if let Some(rc) = &a.call {
        s.push_str(&format!(
            "rebuilt: call {} ({}), model from {}, thinking from {}\n",
            rc.call.index,
            rc.chosen.as_str(),
            rc.model_from,
            rc.thinking_from
        ));
    }
    s
}

fn findings(a: &Assembly) -> String {
    let mut s = String::new();
    for f in ctxlens::analysis::findings::findings(a) {
        s.push_str(&format!(
            "{} {} {}: {}\n  {}\n",
            f.number,
            f.severity.as_str(),
            f.id,
            f.title,
            f.detail
        ));
    }
    s
}

/// The request under another protocol: its URL and headers, the body by size and hash (its
/// bytes are pi's adapter's, checked byte for byte on the cases captured under that protocol),
/// and its accounting.
fn request(b: &Assembly) -> String {
    let mut s = String::new();
    let Some(r) = &b.request else {
        for d in b
            .diagnostics
            .iter()
            .filter(|d| d.severity == ctxlens::Severity::Error)
        {
            s.push_str(&format!("no request: {d}\n"));
        }
        return s;
    };
    s.push_str(&format!("{} {}\n", r.method, r.url));
    for (k, v) in &r.headers {
        s.push_str(&format!("{k}: {v}\n"));
    }
    s.push_str(&format!(
        "body: {} bytes #{}\n",
        r.body.len(),
        js::short_hash(&r.body)
    ));
    if let Some(st) = b.stats() {
        let k = &st.by_kind;
        s.push_str(&format!(
            "accounting: system prompt {}, tools {} ({}), history {} (user {}, assistant {}, reasoning {}, arguments {}, results {}, signatures {}, image data {}), parameters {}, structure {}\n",
            st.system_prompt_chars,
            st.tools_chars,
            st.by_tool.len(),
            st.history_chars,
            k.user_text,
            k.assistant_text,
            k.reasoning,
            k.tool_arguments,
            k.tool_results,
            k.signatures,
            k.image_data,
            st.parameters_chars,
            st.structure_chars
        ));
    }
    s
}

/// Where one concern of a case is kept.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// A file of its own.
    File(PathBuf),
    /// The case's block in a file shared by its release's cases.
    Block(PathBuf),
}

/// Each concern of one case's snapshot, with where it is kept.
fn snapshot(case: &Case, inputs: &Inputs) -> Vec<(Place, String)> {
    let dir = snapshots();
    let (release, name) = split_name(&case.name);
    let a = ctxlens::assemble(inputs);
    let native = a
        .parts
        .model_choice
        .model
        .as_ref()
        .and_then(|m| m.api().parse::<Api>().ok());
    let shared = |concern: &str| Place::Block(dir.join(concern).join(format!("{release}.txt")));
    let stats = a.stats().map_or(String::new(), |st| {
        outline(&ctxlens::report::stats::to_json(st))
    });
    let mut out = vec![
        (
            Place::File(dir.join("stats").join(release).join(format!("{name}.txt"))),
            format!(
                "statistics of {} (pi {}, {}). {REGENERATE}\n{stats}",
                case.name,
                a.pi.as_ref().map_or("?".into(), |p| p.version.to_string()),
                native.map_or("no model".to_string(), |a| a.to_string())
            ),
        ),
        (shared("trace"), trace(&a)),
        (shared("findings"), findings(&a)),
        (shared("calls"), calls(&a)),
    ];
    for api in Api::ALL.into_iter().filter(|a| Some(*a) != native) {
        let mut switched = inputs.clone();
        switched.api = Some(api);
        let b = ctxlens::assemble(&switched);
        let file = dir
            .join("protocols")
            .join(api.to_string())
            .join(format!("{release}.txt"));
        out.push((Place::Block(file), request(&b)));
    }
    out
}

/// A file of blocks: the lines before the first `## ` heading, then each case's block by name.
fn read_blocks(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut blocks = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("## ") {
            blocks.extend(current.take());
            current = Some((name.to_string(), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    blocks.extend(current);
    // The blank line that ends each block is the file's layout, not the block's.
    for body in blocks.values_mut() {
        body.pop();
    }
    blocks
}

fn write_blocks(path: &Path, blocks: &BTreeMap<String, String>) {
    let concern = path
        .strip_prefix(snapshots())
        .map_or(path.display().to_string(), |p| p.display().to_string());
    let mut text = format!("# {concern}: a block per case. {REGENERATE}\n\n");
    // Each block is its heading, its text and a blank line.
    for (name, body) in blocks.iter().filter(|(_, b)| !b.is_empty()) {
        text.push_str(&format!("## {name}\n{body}\n"));
    }
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("the snapshots' folder");
    std::fs::write(path, text).expect("write the snapshot");
}

/// The first line where `got` and `want` differ, for a failure.
fn first_difference(what: &str, got: &str, want: &str) -> String {
    let line = got
        .lines()
        .zip(want.lines())
        .position(|(g, w)| g != w)
        .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
    format!(
        "{what}: differs at line {}\n     got: {}\n    want: {}",
        line + 1,
        got.lines().nth(line).unwrap_or("(end)"),
        want.lines().nth(line).unwrap_or("(end)")
    )
}

/// Every file below `dir`.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn every_case_matches_its_snapshots() {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let every_case = ctxlens_corpus::filter_from_env().is_empty();
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut blocks: BTreeMap<PathBuf, BTreeMap<String, String>> = BTreeMap::new();
    let mut checked = 0;
    for case in cases() {
        let Ok(inputs) = load(&case) else { continue };
        checked += 1;
        let name = split_name(&case.name).1.to_string();
        for (place, text) in snapshot(&case, &inputs) {
            match place {
                Place::File(path) => {
                    files.insert(path, text);
                }
                Place::Block(path) => {
                    blocks.entry(path).or_default().insert(name.clone(), text);
                }
            }
        }
    }

    let mut failures = Vec::new();
    for (path, got) in &files {
        let want = std::fs::read_to_string(path).unwrap_or_default();
        if *got == want {
            continue;
        }
        if update {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
            std::fs::write(path, got).expect("write the snapshot");
        } else {
            failures.push(first_difference(&path.display().to_string(), got, &want));
        }
    }
    for (path, got) in &blocks {
        let mut kept = read_blocks(path);
        let mut changed = false;
        for (name, text) in got {
            let want = kept.get(name).map_or("", String::as_str);
            if text != want {
                changed = true;
                let what = format!("{} ## {name}", path.display());
                failures.push(first_difference(&what, text, want));
            }
        }
        if every_case {
            for name in kept.keys().filter(|k| !got.contains_key(*k)) {
                changed = true;
                failures.push(format!("{} ## {name}: a block of no case", path.display()));
            }
        }
        if update && changed {
            if every_case {
                kept.clear();
            }
            kept.extend(got.iter().map(|(k, v)| (k.clone(), v.clone())));
            write_blocks(path, &kept);
        }
    }
    // Every snapshot is of a case and a protocol there are.
    if every_case {
        for stale in files_below(&snapshots())
            .into_iter()
            .filter(|p| !files.contains_key(p) && !blocks.contains_key(p))
        {
            if update {
                std::fs::remove_file(&stale).expect("remove a stale snapshot");
                // Its folder too, once empty.
                std::fs::remove_dir(stale.parent().expect("a folder")).ok();
            } else {
                failures.push(format!("{}: a snapshot of no case", stale.display()));
            }
        }
    }
    if update {
        failures.clear();
    }
    println!(
        "snapshots: {checked} cases, {} files, {} differences{}",
        files.len() + blocks.len(),
        failures.len(),
        if update { " (updated)" } else { "" }
    );
    assert!(
        failures.is_empty(),
        "{} snapshots differ (review, then UPDATE_EXPECT=1 cargo test -p ctxlens-cli --test conformance):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn blocks_read_back_as_written() {
    let dir = std::env::temp_dir().join(format!("ctxlens-blocks-{}", std::process::id()));
    let path = dir.join("trace/pi-1.6.0.txt");
    let mut blocks = BTreeMap::new();
    blocks.insert("a-case".to_string(), "one\n\ntwo\n".to_string());
    blocks.insert("b-case".to_string(), "three\n".to_string());
    blocks.insert("empty".to_string(), String::new());
    write_blocks(&path, &blocks);
    let read = read_blocks(&path);
    blocks.remove("empty");
    assert_eq!(read, blocks);
    std::fs::remove_dir_all(&dir).ok();
}
