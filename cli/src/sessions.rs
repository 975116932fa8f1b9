//! `ctxlens` with no session: the recent sessions under the agent dir, to pick one from.

use ctxlens::install::{list_sessions, Machine, SessionListing};

use crate::host::Host;

/// How many sessions the list shows.
pub const LIST_MAX: usize = 20;
/// How much of each session file is read (its header and first prompt).
pub const HEAD_BYTES: usize = 64 * 1024;

/// A size as people read it: `812 B`, `14.2 KB`, `3.1 MB`.
pub fn human_size(bytes: u64) -> String {
    let b = bytes as f64;
    if b < 1024.0 {
        format!("{bytes} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else if b < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MB", b / 1024.0 / 1024.0)
    } else {
        format!("{:.1} GB", b / 1024.0 / 1024.0 / 1024.0)
    }
}

/// `2026-11-30T10:04:05.123Z` → `2026-11-30 10:04 UTC`.
fn when(ts: Option<&str>) -> String {
    match ts {
        Some(t) if t.len() >= 16 && t.as_bytes()[10] == b'T' => {
            format!("{} {} UTC", &t[..10], &t[11..16])
        }
        Some(t) => t.to_string(),
        None => "(no date)".into(),
    }
}

/// The list as text.
pub fn render(dir: &str, list: &[SessionListing]) -> String {
    if list.is_empty() {
        return format!(
            "No pi sessions in {dir}.\npi keeps one folder per project there (PI_CODING_AGENT_DIR or PI_CODING_AGENT_SESSION_DIR move it).\nOpen a session file with: ctxlens SESSION.jsonl\n"
        );
    }
    let mut s = format!("Recent pi sessions in {dir} (newest first):\n\n");
    for l in list {
        s.push_str(&format!(
            "  {}  {:>9}  {}\n",
            when(l.timestamp.as_deref()),
            human_size(l.bytes),
            l.cwd.as_deref().unwrap_or("(no cwd)")
        ));
        if let Some(p) = &l.first_prompt {
            s.push_str(&format!("      {p}\n"));
        }
        s.push_str(&format!("      {}\n", l.path));
    }
    s.push_str(
        "\nOpen one: ctxlens SESSION.jsonl (a summary), ctxlens assemble SESSION.jsonl --prompt TEXT (the next request's body)\n",
    );
    s
}

/// Lists the sessions of the machine (`json`: as [`ctxlens::report::sessions_json`]).
pub fn list(host: &mut dyn Host, json: bool) -> i32 {
    let (dir, list) = {
        let m = Machine {
            fs: host.fs(),
            env: host.env().clone(),
            process_cwd: host.cwd().to_string(),
        };
        let dir = m.sessions_dir();
        let list = list_sessions(host.fs(), &dir, LIST_MAX, HEAD_BYTES);
        (dir, list)
    };
    let text = if json {
        format!(
            "{}\n",
            ctxlens::report::sessions_json(&list).to_json_pretty(2)
        )
    } else {
        render(&dir, &list)
    };
    match host.stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
