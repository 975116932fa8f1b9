//! The JSON and the text of [`crate::analysis::ledger`]: every call of every session, grouped.

use crate::analysis::findings::thousands;
use crate::analysis::ledger::{
    BlockShares, CacheBreak, CallAt, Group, Item, Ledger, Recorded, Saved, Share, Totals,
};
use crate::js::Value;
use crate::report::ledger_types::*;
use crate::report::summary::{cut, cut_middle};
use crate::report::wire::{Counts, Wire};

pub use crate::analysis::ledger::Read;

fn round(x: f64, places: i32) -> f64 {
    let k = 10f64.powi(places);
    (x * k).round() / k
}

fn totals(t: &Totals) -> UsageTotals {
    UsageTotals {
        sessions: t.sessions,
        calls: t.calls,
        input: t.input,
        output: t.output,
        cache_read: t.cache_read,
        cache_write: t.cache_write,
        cost: t.cost,
    }
}

/// A share, its tokens rounded to whole ones and its cost to millionths of a dollar.
fn share(s: &Share) -> UsageShare {
    UsageShare {
        chars: s.chars,
        tokens: round(s.tokens, 0),
        cost: round(s.cost, 6),
    }
}

fn blocks(b: &BlockShares) -> UsageBlocks {
    UsageBlocks {
        system_prompt: share(&b.system_prompt),
        tools: share(&b.tools),
        history: share(&b.history),
        parameters: share(&b.parameters),
        structure: share(&b.structure),
    }
}

fn group(g: &Group) -> UsageGroup {
    let t = totals(&g.totals);
    UsageGroup {
        key: g.key.clone(),
        sessions: t.sessions,
        calls: t.calls,
        input: t.input,
        output: t.output,
        cache_read: t.cache_read,
        cache_write: t.cache_write,
        cost: t.cost,
        rebuilt: g.rebuilt,
        blocks: blocks(&g.blocks),
        saved: g.saved.as_ref().map(saved),
    }
}

fn saved(s: &Saved) -> UsageSaved {
    UsageSaved {
        calls: s.calls,
        applied: s.applied,
        tokens: round(s.tokens, 0),
        cost: round(s.cost, 6),
    }
}

fn item(i: &Item) -> UsageItem {
    let s = share(&i.share);
    UsageItem {
        name: i.name.clone(),
        requests: i.requests,
        chars: s.chars,
        tokens: s.tokens,
        cost: s.cost,
    }
}

fn sourced(i: &Item) -> UsageSourcedItem {
    let s = share(&i.share);
    UsageSourcedItem {
        name: i.name.clone(),
        source: i.source.clone(),
        requests: i.requests,
        chars: s.chars,
        tokens: s.tokens,
        cost: s.cost,
    }
}

fn shadowed(i: &Item) -> UsageShadowedFile {
    let s = share(&i.share);
    UsageShadowedFile {
        file: i.name.clone(),
        held_by: i.source.clone(),
        requests: i.requests,
        chars: s.chars,
        tokens: s.tokens,
        cost: s.cost,
    }
}

/// The calls whose cache broke for one reason, summed.
fn break_reason(reason: &str, calls: usize, tokens: f64, cost: Option<f64>) -> UsageCacheBreaks {
    UsageCacheBreaks {
        reason: reason.to_string(),
        calls,
        tokens: round(tokens, 0),
        cost: cost.map(|c| round(c, 6)),
    }
}

fn cache_break(at: &CallAt, b: &CacheBreak) -> UsageBreak {
    UsageBreak {
        file: at.file.clone(),
        line: at.line as usize,
        entry_id: at.entry_id.clone(),
        timestamp: at.timestamp.clone(),
        model: at.model.clone(),
        pi: at.pi.clone(),
        block: b.block.to_string(),
        reason: b.why.clone(),
        chars: b.lost_chars,
        tokens: round(b.lost_tokens, 0),
        cost: b.cost.map(|c| round(c, 6)),
    }
}

fn costly(at: &CallAt, u: &Recorded) -> UsageCostlyCall {
    UsageCostlyCall {
        file: at.file.clone(),
        line: at.line as usize,
        entry_id: at.entry_id.clone(),
        timestamp: at.timestamp.clone(),
        model: at.model.clone(),
        pi: at.pi.clone(),
        input: u.input,
        output: u.output,
        cache_read: u.cache_read,
        cache_write: u.cache_write,
        cost: u.cost,
    }
}

fn read_of(read: &Read) -> UsageRead {
    UsageRead {
        roots: read.roots.clone(),
        files: read.files,
        duplicates: read.duplicates,
        skipped: read
            .skipped
            .iter()
            .map(|(file, line, why)| UsageSkipped {
                file: file.clone(),
                line: line.map(|l| l as usize),
                reason: why.clone(),
            })
            .collect(),
        changed: read
            .changed
            .iter()
            .map(|(file, how)| UsageChangedFile {
                file: file.clone(),
                reason: how.clone(),
            })
            .collect(),
        not_rebuilt: read
            .not_rebuilt
            .iter()
            .map(|(file, line, why)| UsageNotRebuilt {
                file: file.clone(),
                line: *line as usize,
                reason: why.clone(),
            })
            .collect(),
    }
}

/// The report (its schema: docs/usage.md; its types: [`super::ledger_types`]).
pub fn report(l: &Ledger, read: &Read) -> UsageReport {
    let items = |v: &[Item]| v.iter().map(item).collect();
    UsageReport {
        group_by: l.group_by,
        since: l.since.clone(),
        until: l.until.clone(),
        totals: totals(&l.totals),
        rebuilt: l.rebuilt,
        split_by: Counts(l.split_by.clone()),
        blocks: blocks(&l.blocks),
        groups: l.groups.iter().map(group).collect(),
        tools: items(&l.tools),
        sections: l.sections.iter().map(sourced).collect(),
        history: items(&l.history),
        tool_results: items(&l.tool_results),
        saved: l.saved.as_ref().map(saved),
        cache_breaks: l
            .cache_breaks
            .iter()
            .map(|(why, n, tokens, cost)| break_reason(why, *n, *tokens, *cost))
            .collect(),
        breaks: l.breaks.iter().map(|(at, b)| cache_break(at, b)).collect(),
        costliest: l.costliest.iter().map(|(at, u)| costly(at, u)).collect(),
        never_called: items(&l.never_called),
        never_invoked: l.never_invoked.iter().map(sourced).collect(),
        shadowed_files: l.shadowed.iter().map(shadowed).collect(),
        read: read_of(read),
    }
}

/// The report as JSON (its schema: docs/usage.md).
pub fn to_json(l: &Ledger, read: &Read) -> Value {
    report(l, read).to_value()
}

/// How the calls' tokens were split, a line each: by the model's vocabulary (each one, with its
/// calls), by characters (the rest).
fn split_text(split: &[(String, usize)]) -> String {
    let calls = |n: usize| format!("{} call{}", count(n as f64), if n == 1 { "" } else { "s" });
    let vocab: Vec<String> = split
        .iter()
        .filter(|(how, _)| how != "characters")
        .map(|(how, n)| format!("{how} {}", calls(*n)))
        .collect();
    let mut s = String::new();
    if !vocab.is_empty() {
        s.push_str(&format!(
            "  by the model's vocabulary: {}\n",
            vocab.join(", ")
        ));
    }
    if let Some((_, n)) = split.iter().find(|(how, _)| how == "characters") {
        s.push_str(&format!(
            "  by characters (no public vocabulary, or not in this build): {}\n",
            calls(*n)
        ));
    }
    s
}

/// A count rounded, with thousands separators (`1,234,567`; a minus kept: a change can add).
fn count(x: f64) -> String {
    let n = thousands(x.round().abs() as usize);
    if x.round() < 0.0 {
        format!("-{n}")
    } else {
        n
    }
}

fn dollars(x: f64) -> String {
    if x == 0.0 {
        "$0".into()
    } else if x < 0.01 {
        format!("${x:.4}")
    } else {
        format!("${x:.2}")
    }
}

/// The width the text report fits.
const WIDTH: usize = 80;
/// The usage table's label column: a date's width at the narrowest, as wide as a session's
/// name shortened in its middle at the widest.
const LABEL: std::ops::RangeInclusive<usize> = 10..=18;

/// The usage table's columns after the label, each with its width when its numbers fit it.
const USAGE_COLUMNS: [(&str, usize); 6] = [
    ("Calls", 6),
    ("Input", 10),
    ("Output", 9),
    ("Cache read", 11),
    ("Cache wr.", 9),
    ("Cost", 9),
];

/// A count in three significant figures with its unit (`1.23M`, `45.6B`), for a usage table
/// whose whole counts would not fit [`WIDTH`].
fn abbreviated(x: f64) -> String {
    for (unit, suffix) in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")] {
        let v = x / unit;
        if v.abs() >= 1.0 {
            let digits = if v.abs() >= 100.0 {
                0
            } else if v.abs() >= 10.0 {
                1
            } else {
                2
            };
            return format!("{v:.digits$}{suffix}");
        }
    }
    count(x)
}

/// A usage row's cells: whole counts, or `abbreviated` ones.
fn usage_cells(t: &Totals, short: bool) -> [String; 6] {
    let n = |x: f64| if short { abbreviated(x) } else { count(x) };
    [
        count(t.calls as f64),
        n(t.input),
        n(t.output),
        n(t.cache_read),
        n(t.cache_write),
        dollars(t.cost),
    ]
}

/// The usage table of `rows` under `head`, in [`WIDTH`] columns: the label column narrows for
/// wide numbers (to a date's 10 characters), and the token counts are abbreviated when even
/// that is not enough (a team's month of cache reads runs into the billions).
fn usage_table(head: &str, rows: &[(&str, &Totals)]) -> String {
    let table = |short: bool| {
        let cells: Vec<[String; 6]> = rows.iter().map(|r| usage_cells(r.1, short)).collect();
        let widths: [usize; 6] = std::array::from_fn(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .fold(USAGE_COLUMNS[i].1, usize::max)
        });
        (cells, widths)
    };
    let numbers = |w: &[usize; 6]| w.iter().map(|w| w + 1).sum::<usize>();
    let (mut cells, mut widths) = table(false);
    if LABEL.start() + numbers(&widths) > WIDTH {
        (cells, widths) = table(true);
    }
    let label = WIDTH
        .saturating_sub(numbers(&widths))
        .clamp(*LABEL.start(), *LABEL.end());
    let line = |first: &str, rest: [&str; 6]| {
        let mut l = format!("{:<label$}", cut_middle(first, label));
        for (c, w) in rest.iter().zip(widths) {
            l.push_str(&format!(" {c:>w$}"));
        }
        l.push('\n');
        l
    };
    let mut s = line(head, USAGE_COLUMNS.map(|c| c.0));
    for ((name, _), c) in rows.iter().zip(&cells) {
        s.push_str(&line(name, std::array::from_fn(|i| c[i].as_str())));
    }
    s
}

fn share_row(label: &str, s: &Share, of: &Share) -> String {
    let pct = if of.tokens > 0.0 {
        format!("{:.1} %", 100.0 * s.tokens / of.tokens)
    } else {
        "–".into()
    };
    format!(
        "  {:<34} {:>14} {:>9} {:>10}\n",
        cut_middle(label, 34),
        count(s.tokens),
        pct,
        dollars(s.cost)
    )
}

/// The what-if over every call, by group.
fn saved_text(l: &Ledger, saved: &Saved, all: &Share) -> String {
    let mut s = format!(
        "\nWith the change made from each session's start\n({} of {} rebuilt calls changed):\n\n",
        count(saved.applied as f64),
        count(saved.calls as f64)
    );
    s.push_str(&format!(
        "  {:<34} {:>14} {:>9} {:>10}\n",
        "Saved", "Prompt tokens", "Share", "Cost"
    ));
    for g in &l.groups {
        if let Some(x) = &g.saved {
            let share = Share {
                chars: 0,
                tokens: x.tokens,
                cost: x.cost,
            };
            s.push_str(&share_row(&g.key, &share, all));
        }
    }
    let total = Share {
        chars: 0,
        tokens: saved.tokens,
        cost: saved.cost,
    };
    s.push_str(&share_row("Total", &total, all));
    s.push_str("  (each call's prompt tokens and cost scaled by the share of its request the change\n  removes; what the provider's cache would have made of it is not counted)\n");
    s
}

/// The report as text, 80 columns.
pub fn to_text(l: &Ledger, read: &Read) -> String {
    let mut s = heading_text(l, read);
    s.push_str(&totals_text(l));
    if l.rebuilt == 0 {
        s.push_str("\nNo call was rebuilt, so where the prompts went is unknown.\n");
    } else {
        let all = blocks_total(l);
        s.push_str(&blocks_text(l, &all));
        s.push_str(&items_text(l, &all));
        s.push_str(&cache_breaks_text(l));
        s.push_str(&suggestions_text(l, &all));
    }
    s.push_str(&costliest_text(l));
    if read.duplicates > 0 {
        s.push_str(&format!(
            "\n{} calls were found twice (the same time and tokens, as in a forked session's\nfile) and are counted once, as ccusage counts them.\n",
            count(read.duplicates as f64)
        ));
    }
    s.push_str(&not_rebuilt_text(read));
    s.push_str(&changed_text(read));
    s.push_str(&left_out_text(read));
    s
}

/// The first lines: the calls, the sessions, the files read, the dates asked.
fn heading_text(l: &Ledger, read: &Read) -> String {
    let by = l.group_by.as_str();
    format!(
        "pi usage: {} calls in {} sessions\n({} files read{}{})\n\n",
        count(l.totals.calls as f64),
        count(l.totals.sessions as f64),
        count(read.files as f64),
        match (&l.since, &l.until) {
            (None, None) => String::new(),
            (a, b) => format!(
                ", {} to {}",
                a.as_deref().unwrap_or("…"),
                b.as_deref().unwrap_or("…")
            ),
        },
        if matches!(by, "day" | "week" | "month") {
            ", dates in UTC"
        } else {
            ""
        }
    )
}

/// The usage table: a row per group, then the total.
fn totals_text(l: &Ledger) -> String {
    let head = match l.group_by.as_str() {
        "week" => "Week of",
        "day" => "Day",
        "month" => "Month",
        "session" => "Session",
        "project" => "Project",
        "model" => "Model",
        _ => "pi release",
    };
    let rows: Vec<(&str, &Totals)> = l
        .groups
        .iter()
        .map(|g| (g.key.as_str(), &g.totals))
        .chain([("Total", &l.totals)])
        .collect();
    let mut s = usage_table(head, &rows);
    s.push_str("  (the usage and cost pi recorded on each answer)\n");
    s
}

/// The prompt tokens and cost of every block together: what the shares are of.
fn blocks_total(l: &Ledger) -> Share {
    l.blocks.rows().iter().fold(Share::default(), |mut a, r| {
        a.tokens += r.2.tokens;
        a.cost += r.2.cost;
        a
    })
}

/// Where the prompts went: how the tokens were split, and a row per block.
fn blocks_text(l: &Ledger, all: &Share) -> String {
    let mut s = format!(
        "\nWhere the prompts went: {} of {} calls rebuilt. Each call's prompt tokens\nand cost are split over its request's blocks by their share of it,\n{}\n",
        count(l.rebuilt as f64),
        count(l.totals.calls as f64),
        split_text(&l.split_by)
    );
    s.push_str(&format!(
        "  {:<34} {:>14} {:>9} {:>10}\n",
        "Block", "Prompt tokens", "Share", "Cost"
    ));
    for (_, label, share) in l.blocks.rows() {
        s.push_str(&share_row(label, share, all));
    }
    s
}

/// The tools, system prompt sections, history kinds and tool results, largest first.
fn items_text(l: &Ledger, all: &Share) -> String {
    let mut s = top_text("Tools, largest first:", &l.tools, all);
    s.push_str(&top_text(
        "System prompt sections, largest first:",
        &l.sections,
        all,
    ));
    s.push_str(&top_text("History by kind:", &l.history, all));
    s.push_str(&top_text("Tool results by tool:", &l.tool_results, all));
    s
}

/// One list of items under its title: the first 8, and how many more (nothing when empty).
fn top_text(title: &str, items: &[Item], all: &Share) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut s = format!("\n{title}\n");
    for i in items.iter().take(8) {
        let label = if i.source.is_empty() {
            i.name.clone()
        } else {
            format!("{} ({})", i.name, i.source)
        };
        s.push_str(&share_row(&label, &i.share, all));
    }
    if items.len() > 8 {
        s.push_str(&format!(
            "  … {} more (--json lists them all)\n",
            items.len() - 8
        ));
    }
    s
}

/// The cache breaks: the first 6 reasons, with the tokens sent again and their cost.
fn cache_breaks_text(l: &Ledger) -> String {
    if l.cache_breaks.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nCache breaks: {} calls sent again a prefix the call before had cached.\n",
        count(l.breaks.len() as f64)
    );
    s.push_str(&format!(
        "  {:<34} {:>14} {:>9} {:>10}\n",
        "Why", "Tokens again", "Calls", "Cost"
    ));
    for (why, n, tokens, cost) in l.cache_breaks.iter().take(6) {
        s.push_str(&format!(
            "  {:<34} {:>14} {:>9} {:>10}\n",
            cut_middle(why, 34),
            count(*tokens),
            count(*n as f64),
            cost.map_or("–".to_string(), dollars)
        ));
    }
    s.push_str("  (cost: the tokens sent again, at the input price less the cache-read price)\n");
    s
}

/// The what-if when one was asked, else what could go: tools never called, skills never used,
/// context files sent twice.
fn suggestions_text(l: &Ledger, all: &Share) -> String {
    if let Some(saved) = &l.saved {
        return saved_text(l, saved, all);
    }
    let mut s = String::new();
    if !l.never_called.is_empty() {
        s.push_str("\nTools sent but never called in these requests (--without tool:NAME says what\nswitching one off would have saved):\n");
        for i in l.never_called.iter().take(3) {
            s.push_str(&share_row(&i.name, &i.share, all));
        }
    }
    if !l.never_invoked.is_empty() {
        s.push_str("\nSkills offered but never used in these requests (--without skill:NAME says\nwhat hiding one would have saved):\n");
        for i in l.never_invoked.iter().take(3) {
            s.push_str(&share_row(&i.name, &i.share, all));
        }
    }
    if !l.shadowed.is_empty() {
        s.push_str("\nContext files another one already holds, sent twice (--without context:PATH\nsays what switching the copy off would have saved):\n");
        for i in l.shadowed.iter().take(3) {
            s.push_str(&share_row(&i.name, &i.share, all));
            s.push_str(&format!(
                "    {}\n",
                cut_middle(&format!("held by {}", i.source), 76)
            ));
        }
    }
    s
}

/// The 5 costliest calls: their cost, time and place.
fn costliest_text(l: &Ledger) -> String {
    if l.costliest.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nCostliest calls:\n");
    for (at, u) in l.costliest.iter().take(5) {
        let when = at
            .timestamp
            .get(..16)
            .unwrap_or(&at.timestamp)
            .replace('T', " ");
        let name = at.file.rsplit(['/', '\\']).next().unwrap_or(&at.file);
        let place = format!("{}:{}", name, at.line);
        s.push_str(&format!(
            "  {:>10}  {when}  {}\n",
            dollars(u.cost),
            cut_middle(&place, 80 - 2 - 10 - 2 - 16 - 2)
        ));
    }
    s
}

/// The calls not rebuilt: the 5 commonest reasons, each with a file as example.
fn not_rebuilt_text(read: &Read) -> String {
    if read.not_rebuilt.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nNot rebuilt: {} calls (their usage is counted, their blocks are not):\n",
        count(read.not_rebuilt.len() as f64)
    );
    let mut reasons: Vec<(&str, usize, &str)> = Vec::new();
    for (file, _, why) in &read.not_rebuilt {
        match reasons.iter_mut().find(|r| r.0 == why.as_str()) {
            Some(r) => r.1 += 1,
            None => reasons.push((why.as_str(), 1, file.as_str())),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    for (why, n, file) in reasons.iter().take(5) {
        let n = count(*n as f64);
        let why = cut(why, 76 - n.len() - 3);
        s.push_str(&format!(
            "  {n} × {why}\n    e.g. {}\n",
            cut_middle(file, 71)
        ));
    }
    if reasons.len() > 5 {
        s.push_str(&format!(
            "  … {} more reasons (--json lists every call)\n",
            reasons.len() - 5
        ));
    }
    s
}

/// The files that changed while they were read: the first 10.
fn changed_text(read: &Read) -> String {
    if read.changed.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nChanged while they were read ({}): their calls are those of the first\nreading, rebuilt from the second.\n",
        read.changed.len()
    );
    for (file, _) in read.changed.iter().take(10) {
        s.push_str(&format!("  {}\n", cut_middle(file, 76)));
    }
    s
}

/// The files or lines left out: the first 10, each with the first line of why.
fn left_out_text(read: &Read) -> String {
    if read.skipped.is_empty() {
        return String::new();
    }
    let mut s = format!("\nLeft out ({}):\n", read.skipped.len());
    for (file, line, why) in read.skipped.iter().take(10) {
        let at = line.map_or(String::new(), |n| format!(":{n}"));
        let why = why.lines().next().unwrap_or("");
        s.push_str(&format!(
            "  {}{at}\n    {}\n",
            cut_middle(file, 74 - at.len()),
            cut(why, 74)
        ));
    }
    if read.skipped.len() > 10 {
        s.push_str(&format!(
            "  … {} more (--json lists them all)\n",
            read.skipped.len() - 10
        ));
    }
    s
}
