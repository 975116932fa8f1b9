//! `ctxlens usage [DIR|FILE…]`: every call of every session below the folders (pi's sessions
//! folder by default), with the usage pi recorded, each call rebuilt and accounted by block,
//! grouped by day, week, month, session, project, model or release
//! ([`ctxlens::analysis::ledger`]).

use ctxlens::analysis::ledger::{self, GroupBy, LedgerCall};
use ctxlens::analysis::whatif::Change;
use ctxlens::install::{FileKind, Machine};
use ctxlens::js::path::{join_path, resolve_path};
use ctxlens::report::ledger::Read;

use crate::commands::{inputs_in, read_session, Progress};
use crate::host::Host;
use crate::opts::Opts;

/// How deep below a folder session files are looked for (pi keeps them one level down).
const MAX_DEPTH: usize = 6;
/// How many files one run reads at most.
const MAX_FILES: usize = 100_000;

/// The `.jsonl` files below `root` (or `root` itself), sorted; what could not be listed is said.
fn session_files(host: &dyn Host, root: &str, read: &mut Read) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_string(), 0usize)];
    while let Some((path, depth)) = stack.pop() {
        match host.fs().stat(&path) {
            Some(FileKind::File { .. }) if path.ends_with(".jsonl") || depth == 0 => out.push(path),
            Some(FileKind::Dir) if depth <= MAX_DEPTH => match host.fs().read_dir(&path) {
                Ok(mut names) => {
                    names.sort();
                    // Hidden files and folders are not read (as ccusage's glob skips them).
                    for n in names.into_iter().rev().filter(|n| !n.starts_with('.')) {
                        stack.push((join_path(&path, &n), depth + 1));
                    }
                }
                Err(e) => read.skipped.push((path, None, format!("not listed: {e}"))),
            },
            Some(_) => {}
            None if depth == 0 => read
                .skipped
                .push((path, None, "no such file or folder".into())),
            None => {}
        }
        if out.len() >= MAX_FILES {
            read.skipped.push((
                root.to_string(),
                None,
                format!("more than {MAX_FILES} session files: the rest are not read"),
            ));
            break;
        }
    }
    out
}

/// The hosts of the worker threads for `jobs` jobs: one per core besides this thread's (this
/// thread works too), none when the host has no threads.
fn workers(host: &dyn Host, jobs: usize) -> Vec<Box<dyn Host + Send>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs);
    (1..threads).map_while(|_| host.worker()).collect()
}

/// Reads and scans each of `files` for its calls ([`ledger::scan`]): on every core when the host
/// has worker threads, in turn otherwise. Returns, in `files`' order, each file's size and
/// calls, or why it could not be read.
fn scan_all(
    host: &mut dyn Host,
    files: &[String],
    p: &mut Progress,
) -> Vec<Result<(usize, ledger::Scan), String>> {
    let one = |h: &mut dyn Host, f: &str| {
        read_session(h, f).map(|text| (text.text.len(), ledger::scan(f, &text.text)))
    };
    let workers = workers(host, files.len());
    if workers.is_empty() {
        return files
            .iter()
            .enumerate()
            .map(|(k, f)| {
                p.show(host, &format!("reading {}/{} files…", k + 1, files.len()));
                one(host, f)
            })
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<Option<_>>> =
        std::sync::Mutex::new(files.iter().map(|_| None).collect());
    let work = |w: &mut dyn Host, p: &mut Progress| loop {
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let Some(f) = files.get(k) else { break };
        p.show(w, &format!("reading {}/{} files…", k + 1, files.len()));
        let scanned = one(w, f);
        if let Ok(mut d) = done.lock() {
            d[k] = Some(scanned);
        }
    };
    std::thread::scope(|s| {
        for mut w in workers {
            let work = &work;
            s.spawn(move || work(&mut *w, &mut Progress::new(false)));
        }
        work(host, p);
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.resize_with(files.len(), || None);
    done.into_iter()
        .map(|d| d.unwrap_or_else(|| Err("not read: its reader stopped".into())))
        .collect()
}

/// Rebuilds the calls of one file (its calls are `calls`), by the files pi reads for it.
/// Returns what changed in the file since it was first read (`read` bytes then), if it did.
fn rebuild(
    host: &mut dyn Host,
    o: &Opts,
    (file, read): (&str, usize),
    calls: &mut [LedgerCall],
    p: &mut Progress,
    at: (usize, usize),
) -> Result<Option<String>, String> {
    // Read again: the texts of every session are not kept from the scan, so memory stays
    // bounded by the largest session, not the folder.
    let session = read_session(host, file)?;
    let now = session.text.len();
    // pi appends to the session it runs while it is read: its calls are those of the first
    // reading, rebuilt from the second (an answer that is no longer there is said so).
    let changed = (now != read).then(|| {
        format!("changed while it was read ({read} bytes, then {now}): its calls are those of the first reading, rebuilt from the second")
    });
    let so = Opts {
        session: Some(file.to_string()),
        ..o.clone()
    };
    let ws = ctxlens::Workspace::with_budget(0);
    let inputs = inputs_in(host, &so, Some(session), &ws)?;
    let n = calls.len();
    // Each request's parts counted with its model's vocabulary, where this build has it.
    let mut counter = |name: &str, exact: bool| crate::tokens::counter(name, exact, None).ok();
    let vocabularies: Option<&mut ledger::Vocabularies> = if o.no_tokens {
        None
    } else {
        Some(&mut counter)
    };
    ledger::account(&ws, &inputs, &o.changes, vocabularies, calls, &mut |k| {
        p.show(
            host,
            &format!("session {}/{}: rebuilding call {}/{n}…", at.0, at.1, k + 1),
        )
    });
    Ok(changed)
}

/// The runs of calls of one file: `(file, start, end)`.
fn runs(calls: &[LedgerCall]) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        match out.last_mut() {
            Some(r) if r.0 == c.file => r.2 = i + 1,
            _ => out.push((c.file.clone(), i, i + 1)),
        }
    }
    out
}

/// Rebuilds the calls of each file (a run of `calls`): on every core when the host has worker
/// threads, one session per worker, else in turn. `sizes`: each file's bytes when it was read.
/// Returns the files that changed meanwhile, and how.
fn rebuild_all(
    host: &mut dyn Host,
    o: &Opts,
    calls: &mut Vec<LedgerCall>,
    headless: &[(String, String)],
    sizes: &std::collections::HashMap<String, usize>,
    p: &mut Progress,
) -> Vec<(String, String)> {
    let runs = runs(calls);
    let total = runs.len();
    let changed = std::sync::Mutex::new(Vec::new());
    let one =
        |h: &mut dyn Host, file: &str, mine: &mut [LedgerCall], p: &mut Progress, k: usize| {
            let why = if let Some((_, why)) = headless.iter().find(|(f, _)| f == file) {
                Some(why.clone())
            } else {
                let read = sizes.get(file).copied().unwrap_or(0);
                match rebuild(h, o, (file, read), mine, p, (k + 1, total)) {
                    Ok(Some(how)) => {
                        if let Ok(mut c) = changed.lock() {
                            c.push((file.to_string(), how));
                        }
                        None
                    }
                    Ok(None) => None,
                    Err(e) => Some(e),
                }
            };
            if let Some(why) = why {
                for c in mine.iter_mut() {
                    c.note = Some(why.clone());
                }
            }
        };
    let take = |changed: std::sync::Mutex<Vec<(String, String)>>| {
        let mut c = changed.into_inner().unwrap_or_default();
        c.sort();
        c
    };
    let workers = workers(host, total);
    if workers.is_empty() {
        for (k, (file, lo, hi)) in runs.into_iter().enumerate() {
            one(host, &file, &mut calls[lo..hi], p, k);
        }
        return take(changed);
    }
    p.show(
        host,
        &format!(
            "rebuilding the calls of {total} sessions on {} threads…",
            workers.len() + 1
        ),
    );
    // The runs leave `calls` as jobs and come back in their order. The sessions with the most
    // calls go first (a session's calls take time in proportion to their number times its
    // size), so the largest does not start last; this thread takes the first: its memory
    // comes from the main heap, which has room for the largest bodies.
    let mut rest = std::mem::take(calls);
    let mut jobs = Vec::new();
    for (k, (file, lo, hi)) in runs.into_iter().enumerate().rev() {
        let mine = rest.split_off(lo);
        debug_assert_eq!(mine.len(), hi - lo);
        jobs.push((k, file, mine));
    }
    jobs.sort_by_key(|(k, _, mine)| (std::cmp::Reverse(mine.len()), *k));
    let queue = std::sync::Mutex::new(std::collections::VecDeque::from(jobs));
    let done = std::sync::Mutex::new(Vec::new());
    // The lock is let go before the work (a closure's temporary).
    let next = || queue.lock().ok().and_then(|mut q| q.pop_front());
    let work = |w: &mut dyn Host, first: Option<(usize, String, Vec<LedgerCall>)>| {
        let mut job = first.or_else(next);
        while let Some((k, file, mut mine)) = job {
            one(w, &file, &mut mine, &mut Progress::new(false), k);
            if let Ok(mut d) = done.lock() {
                d.push((k, mine));
            }
            job = next();
        }
    };
    let first = next();
    std::thread::scope(|s| {
        for mut w in workers {
            let work = &work;
            s.spawn(move || work(&mut *w, None));
        }
        work(host, first);
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|d| d.0);
    *calls = done.into_iter().flat_map(|d| d.1).collect();
    take(changed)
}

/// Writes the calls' Parquet tables into `dir`.
#[cfg(feature = "parquet")]
fn write_parquet(host: &mut dyn Host, dir: &str, calls: &[&LedgerCall]) -> Result<(), String> {
    let dir = resolve_path(host.cwd(), dir);
    for (name, bytes) in crate::parquet::files(calls)? {
        let path = join_path(&dir, &name);
        host.write_file(&path, &bytes)?;
        host.stderr(&format!("ctxlens: wrote {path}\n"));
    }
    Ok(())
}

#[cfg(not(feature = "parquet"))]
fn write_parquet(_: &mut dyn Host, _: &str, _: &[&LedgerCall]) -> Result<(), String> {
    Err("this build writes no Parquet (the native ctxlens does)".into())
}

/// Runs `ctxlens usage`.
pub fn run(host: &mut dyn Host, o: &Opts) -> i32 {
    if o.changes.iter().any(|c| matches!(c, Change::Pi(_))) {
        host.stderr("ctxlens: usage: --set pi= is not for usage: each call is rebuilt by the release that made it\n");
        return 2;
    }
    if o.no_rebuild && !o.changes.is_empty() {
        host.stderr(
            "ctxlens: usage: --without and --set need the calls rebuilt (not --no-rebuild)\n",
        );
        return 2;
    }
    let roots: Vec<String> = if o.paths.is_empty() {
        let m = Machine {
            fs: host.fs(),
            env: host.env().clone(),
            process_cwd: host.cwd().to_string(),
        };
        vec![m.sessions_dir()]
    } else {
        o.paths
            .iter()
            .map(|p| resolve_path(host.cwd(), p))
            .collect()
    };
    let mut listing = Read::default();
    let mut p = Progress::new(host.stderr_is_tty());
    if let Some(missing) = roots.iter().find(|r| host.fs().stat(r).is_none()) {
        let hint = if o.paths.is_empty() {
            " (pi's sessions folder; PI_CODING_AGENT_DIR or PI_CODING_AGENT_SESSION_DIR move it)"
        } else {
            ""
        };
        host.stderr(&format!(
            "ctxlens: usage: {missing}: no such file or folder{hint}\n"
        ));
        return 2;
    }
    let mut files: Vec<String> = Vec::new();
    for r in &roots {
        files.extend(session_files(host, r, &mut listing));
    }
    let mut reader = ledger::Reader::new(roots);
    let mut calls: Vec<LedgerCall> = Vec::new();
    let mut headless: Vec<(String, String)> = Vec::new();
    let mut sizes = std::collections::HashMap::new();
    for (f, scanned) in files.iter().zip(scan_all(host, &files, &mut p)) {
        match scanned {
            Ok((size, scan)) => {
                sizes.insert(f.clone(), size);
                let got = reader.scanned(f, scan);
                if let Some(why) = got.not_a_session {
                    headless.push((f.clone(), why));
                }
                calls.extend(got.calls);
            }
            Err(e) => reader.unreadable(f, e),
        }
    }
    if !o.no_rebuild {
        reader.read.changed = rebuild_all(host, o, &mut calls, &headless, &sizes, &mut p);
    }
    p.done(host);
    reader.note_not_rebuilt(&calls);
    let mut read = reader.read;
    read.skipped.splice(0..0, listing.skipped);
    let l = ledger::ledger(
        &calls,
        o.by.unwrap_or(GroupBy::Day),
        o.since.as_deref(),
        o.until.as_deref(),
    );
    if let Some(dir) = &o.parquet {
        if let Err(e) = write_parquet(
            host,
            dir,
            &ledger::within(&calls, o.since.as_deref(), o.until.as_deref()),
        ) {
            host.stderr(&format!("ctxlens: usage --parquet: {e}\n"));
            return 1;
        }
    }
    let text = if o.json {
        format!(
            "{}\n",
            ctxlens::report::ledger::to_json(&l, &read).to_json_pretty(2)
        )
    } else {
        ctxlens::report::ledger::to_text(&l, &read)
    };
    match host.stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
