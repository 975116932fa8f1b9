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

/// The `.jsonl` files below `root` (or `root` itself), sorted, each with its size; what could
/// not be listed is said.
fn session_files(host: &dyn Host, root: &str, read: &mut Read) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_string(), 0usize)];
    while let Some((path, depth)) = stack.pop() {
        match host.fs().stat(&path) {
            Some(FileKind::File { size }) if path.ends_with(".jsonl") || depth == 0 => {
                out.push((path, usize::try_from(size).unwrap_or(usize::MAX)))
            }
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

/// How many bytes of session files are worked on at once, for files of at most `largest`
/// bytes: the largest, and half as much again for the other cores. A session's work holds about
/// twice its file (its text and the texts decoded from it), so memory stays bounded by the
/// largest session, whatever the folder and however many cores. (On the 1.2 GB folder, against
/// a quarter more: 10.4 → 9.6 s, the other core no longer waiting while the largest sessions
/// run, for 155 → 165 MB; against twice the largest, 9.3 s and 223 MB.)
fn budget(largest: usize) -> usize {
    largest + largest / 2
}

/// Jobs `(index, bytes, job)` started in their order, except that one waits while the bytes in
/// flight and its own would pass the budget: a later one that fits starts first, and a job
/// larger than the budget starts alone.
struct Budgeted<J> {
    waiting: std::collections::VecDeque<(usize, usize, J)>,
    in_flight: usize,
    budget: usize,
}

impl<J> Budgeted<J> {
    fn new(jobs: Vec<(usize, usize, J)>, budget: usize) -> Self {
        Budgeted {
            waiting: jobs.into(),
            in_flight: 0,
            budget,
        }
    }

    /// The next job to start now, if one may.
    fn start(&mut self) -> Option<(usize, usize, J)> {
        let free = self.budget.saturating_sub(self.in_flight);
        let idle = self.in_flight == 0;
        let at = self.waiting.iter().position(|j| idle || j.1 <= free)?;
        let job = self.waiting.remove(at)?;
        self.in_flight += job.1;
        Some(job)
    }

    /// A job of `bytes` is done.
    fn finish(&mut self, bytes: usize) {
        self.in_flight -= bytes;
    }
}

/// [`Budgeted`] jobs shared by threads: a thread waits for a job that may start, until none
/// is left.
struct Pool<J> {
    jobs: std::sync::Mutex<Budgeted<J>>,
    turn: std::sync::Condvar,
}

impl<J> Pool<J> {
    fn new(jobs: Vec<(usize, usize, J)>, budget: usize) -> Self {
        Pool {
            jobs: std::sync::Mutex::new(Budgeted::new(jobs, budget)),
            turn: std::sync::Condvar::new(),
        }
    }

    /// The next job, once it may start; `None` when none is left.
    fn take(&self) -> Option<(usize, usize, J)> {
        // A lock a panicking thread let go of is taken as it is: the queue stays consistent.
        let mut q = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(job) = q.start() {
                return Some(job);
            }
            if q.waiting.is_empty() {
                return None;
            }
            q = self.turn.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A job of `bytes` is done: the threads waiting look again.
    fn done(&self, bytes: usize) {
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .finish(bytes);
        self.turn.notify_all();
    }
}

/// A job of `.1` bytes in `.0`, done when dropped.
struct Done<'p, J>(&'p Pool<J>, usize);

impl<J> Drop for Done<'_, J> {
    fn drop(&mut self) {
        self.0.done(self.1);
    }
}

/// Runs `work` on each of `jobs` (each with its index and its bytes): on every core when the
/// host has worker threads (this thread too, with `p`), within `budget` bytes at once
/// ([`Budgeted`]); in turn otherwise.
fn pooled<J: Send>(
    host: &mut dyn Host,
    jobs: Vec<(usize, usize, J)>,
    budget: usize,
    p: &mut Progress,
    work: impl Fn(&mut dyn Host, &mut Progress, usize, J) + Sync,
) {
    let workers = workers(host, jobs.len());
    if workers.is_empty() {
        for (k, _, j) in jobs {
            work(host, p, k, j);
        }
        return;
    }
    let pool = Pool::new(jobs, budget);
    let run = |w: &mut dyn Host, p: &mut Progress, first: Option<(usize, usize, J)>| {
        let mut job = first.or_else(|| pool.take());
        while let Some((k, bytes, j)) = job {
            // Its bytes are given back however the work ends: a thread that panics (a bug)
            // leaves no other waiting for them.
            let done = Done(&pool, bytes);
            work(w, p, k, j);
            drop(done);
            job = pool.take();
        }
    };
    // This thread takes the first job (the largest, where they are sorted so): its memory
    // comes from the main heap, which keeps room for the largest session.
    let first = pool.take();
    std::thread::scope(|s| {
        for mut w in workers {
            let run = &run;
            s.spawn(move || run(&mut *w, &mut Progress::new(false), None));
        }
        run(host, p, first);
    });
}

/// Reads and scans each of `files` (each with its size when listed) for its calls
/// ([`ledger::scan`]), on every core, within the byte budget. Returns, in `files`' order, each
/// file's size as read and calls, or why it could not be read.
fn scan_all(
    host: &mut dyn Host,
    files: &[(String, usize)],
    p: &mut Progress,
) -> Vec<Result<(usize, ledger::Scan), String>> {
    let largest = files.iter().map(|f| f.1).max().unwrap_or(0);
    let done: std::sync::Mutex<Vec<Option<_>>> =
        std::sync::Mutex::new(files.iter().map(|_| None).collect());
    let jobs = files
        .iter()
        .enumerate()
        .map(|(k, f)| (k, f.1, &f.0))
        .collect();
    pooled(host, jobs, budget(largest), p, |h, p, k, f| {
        p.show(h, &format!("reading {}/{} files…", k + 1, files.len()));
        let scanned = read_session(h, f).map(|text| (text.text.len(), ledger::scan(f, &text.text)));
        if let Ok(mut d) = done.lock() {
            d[k] = Some(scanned);
        }
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
            Some(r) if *r.0 == *c.file => r.2 = i + 1,
            _ => out.push((c.file.to_string(), i, i + 1)),
        }
    }
    out
}

/// Rebuilds the calls of each file (a run of `calls`): on every core when the host has worker
/// threads, one session per worker, within the byte budget. `sizes`: each file's bytes when
/// it was read. Returns the files that changed meanwhile, and how.
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
    let done = std::sync::Mutex::new(Vec::new());
    // The runs leave `calls` as jobs and come back in their order. The sessions with the most
    // calls go first (a session's calls take time in proportion to their number times its
    // size), so the largest does not start last.
    let mut rest = std::mem::take(calls);
    let mut jobs = Vec::new();
    for (k, (file, lo, hi)) in runs.into_iter().enumerate().rev() {
        let mine = rest.split_off(lo);
        debug_assert_eq!(mine.len(), hi - lo);
        let bytes = sizes.get(&file).copied().unwrap_or(0);
        jobs.push((k, bytes, (file, mine)));
    }
    drop(rest);
    jobs.sort_by_key(|(k, _, (_, mine))| (std::cmp::Reverse(mine.len()), *k));
    if jobs.len() > 1 {
        p.show(host, &format!("rebuilding the calls of {total} sessions…"));
    }
    let largest = sizes.values().copied().max().unwrap_or(0);
    pooled(
        host,
        jobs,
        budget(largest),
        p,
        |h, p, k, (file, mut mine)| {
            let why = if let Some((_, why)) = headless.iter().find(|(f, _)| *f == file) {
                Some(why.clone())
            } else {
                let read = sizes.get(&file).copied().unwrap_or(0);
                match rebuild(h, o, (&file, read), &mut mine, p, (k + 1, total)) {
                    Ok(Some(how)) => {
                        if let Ok(mut c) = changed.lock() {
                            c.push((file.clone(), how));
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
            if let Ok(mut d) = done.lock() {
                d.push((k, mine));
            }
        },
    );
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|d| d.0);
    calls.reserve_exact(done.iter().map(|d| d.1.len()).sum());
    for (_, mine) in done {
        calls.extend(mine);
    }
    let mut changed = changed.into_inner().unwrap_or_default();
    changed.sort();
    changed
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
    let mut files: Vec<(String, usize)> = Vec::new();
    for r in &roots {
        files.extend(session_files(host, r, &mut listing));
    }
    let mut reader = ledger::Reader::new(roots);
    let mut calls: Vec<LedgerCall> = Vec::new();
    let mut headless: Vec<(String, String)> = Vec::new();
    let mut sizes = std::collections::HashMap::new();
    let scanned = scan_all(host, &files, &mut p);
    // Every call of the folder is a row: the rows are made once, at their number.
    calls.reserve_exact(scanned.iter().flatten().map(|s| s.1.calls.len()).sum());
    for ((f, _), scanned) in files.iter().zip(scanned) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_waits_while_the_bytes_in_flight_would_pass_the_budget() {
        let jobs = [8, 5, 2, 12, 1].into_iter().enumerate();
        let mut q = Budgeted::new(jobs.map(|(k, b)| (k, b, ())).collect(), 10);
        let started = |q: &mut Budgeted<()>| q.start().map(|j| j.0);
        // 8 starts; 5 would pass the budget, so 2 goes first; then nothing fits.
        assert_eq!(started(&mut q), Some(0));
        assert_eq!(started(&mut q), Some(2));
        assert_eq!(started(&mut q), None);
        q.finish(2);
        // 1 fits beside 8 (5 still does not).
        assert_eq!(started(&mut q), Some(4));
        q.finish(8);
        q.finish(1);
        // A job larger than the budget starts alone, and nothing beside it.
        assert_eq!(started(&mut q), Some(1));
        assert_eq!(started(&mut q), None);
        q.finish(5);
        assert_eq!(started(&mut q), Some(3));
        assert_eq!(started(&mut q), None);
        q.finish(12);
        assert_eq!(started(&mut q), None);
        assert!(q.waiting.is_empty());
    }

    #[test]
    fn a_job_that_panics_gives_its_bytes_back() {
        let pool = Pool::new(vec![(0, 10, ()), (1, 10, ()), (2, 10, ())], 10);
        let ran = std::sync::Mutex::new(0);
        let others_finished = std::thread::scope(|s| {
            let first = s.spawn(|| {
                let (_, bytes, ()) = pool.take().unwrap();
                let _done = Done(&pool, bytes);
                panic!("a bug in one session's rebuild");
            });
            let _ = first.join();
            // The other jobs still start: the panicked job's bytes were given back.
            s.spawn(|| {
                while let Some((_, bytes, ())) = pool.take() {
                    let _done = Done(&pool, bytes);
                    *ran.lock().unwrap() += 1;
                }
            })
            .join()
            .is_ok()
        });
        assert!(others_finished);
        assert_eq!(*ran.lock().unwrap(), 2);
    }

    #[test]
    fn threads_share_the_jobs_within_the_budget_and_each_runs_once() {
        let sizes = [40, 3, 30, 10, 10, 1, 25, 2, 40, 9, 9, 9, 50, 4];
        let budget = 50;
        let pool = Pool::new(
            sizes
                .iter()
                .copied()
                .enumerate()
                .map(|(k, b)| (k, b, k))
                .collect(),
            budget,
        );
        let in_flight = std::sync::Mutex::new((0usize, 0usize));
        let ran = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while let Some((k, bytes, job)) = pool.take() {
                        {
                            let mut f = in_flight.lock().unwrap();
                            f.0 += bytes;
                            f.1 = f.1.max(f.0);
                            assert!(f.0 <= budget || f.0 == bytes, "{} bytes in flight", f.0);
                        }
                        assert_eq!(k, job);
                        std::thread::yield_now();
                        in_flight.lock().unwrap().0 -= bytes;
                        ran.lock().unwrap().push(job);
                        pool.done(bytes);
                    }
                });
            }
        });
        let mut ran = ran.into_inner().unwrap();
        ran.sort();
        assert_eq!(ran, (0..sizes.len()).collect::<Vec<_>>());
        assert!(in_flight.into_inner().unwrap().1 <= budget);
    }
}
