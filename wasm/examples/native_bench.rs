//! Times the binding's `assemble` natively on a session file, for profiling (perf) the same code
//! path the npm package runs: `cargo run --profile profiling-z -p ctxlens-wasm --example native_bench -- FILE [API|parse|request:API|analysis:API|whatif:API] [RUNS]`.
//! `analysis:API` times the analyses of one assembly and each section of its report (with their
//! sizes); `request:API` the assemble with `stats: false`; `whatif:API` a what-if (`tool:bash`
//! off) from a workspace holding the request: the changed assembly, then the comparison.
use ctxlens::AssemblyStats;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Counts bytes during the counted run only (the timed runs pay one relaxed load per call):
/// the total asked for, and the most live at once (the peak a heap needs), relative to the
/// start of the run (blocks from before it that it frees count as negative).
struct Counting;
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);
static ON: AtomicBool = AtomicBool::new(false);

fn grew(by: usize) {
    TOTAL.fetch_add(by, Relaxed);
    COUNT.fetch_add(1, Relaxed);
    let live = LIVE.fetch_add(by as isize, Relaxed) + by as isize;
    PEAK.fetch_max(live, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ON.load(Relaxed) {
            grew(l.size());
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if ON.load(Relaxed) {
            LIVE.fetch_sub(l.size() as isize, Relaxed);
        }
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if ON.load(Relaxed) {
            grew(new);
            LIVE.fetch_sub(l.size() as isize, Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: native_bench FILE [API] [RUNS]");
    let api = args.next().unwrap_or_else(|| "anthropic-messages".into());
    let runs: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("RUNS is a number"));
    let text = std::fs::read_to_string(&file).expect("read the session");
    let models = r#"{"providers":{"bench":{"baseUrl":"https://bench.example/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"m","name":"m","reasoning":true,"input":["text","image"],"contextWindow":1000000,"maxTokens":64000,"cost":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}]}}}"#;
    // `request:API`: the binding's assemble with `stats: false` (the request without the
    // accounting: bytes in, bytes out, as pi's pipeline).
    let (api, no_stats) = match api.strip_prefix("request:") {
        Some(target) => (target.to_string(), true),
        None => (api, false),
    };
    let opts = format!(
        r#"{{"models":{},"model":"bench/m","thinking":"medium","prompt":"Now summarize what changed.","now":1767225600000,"api":"{api}","env":{{"AWS_REGION":"us-east-1"}},"files":[],"noStats":{no_stats}}}"#,
        ctxlens::js::Value::str(models).to_json()
    );
    if let Some(target) = api.strip_prefix("whatif:") {
        // A what-if (`tool:bash` off) from a workspace holding the request as it is: the changed
        // assembly (with its accounting), then the comparison.
        let inputs = bench_inputs(&text, models, target);
        let ws = ctxlens::Workspace::new();
        let base = ws.assemble(&inputs);
        let changes =
            vec![ctxlens::analysis::whatif::Change::parse_without("tool:bash").expect("a change")];
        let (mut ta, mut tc) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let t0 = Instant::now();
            let (changed, applied) =
                ctxlens::analysis::whatif::apply(&inputs, &base, &changes).expect("applies");
            let b = ws.assemble_unkept(&changed);
            let t1 = Instant::now();
            let w = ctxlens::analysis::whatif::compare(applied, &base, &b, base.stats(), b.stats());
            std::hint::black_box(ctxlens::report::whatif::to_json(&w, None).to_json());
            ta.push((t1 - t0).as_secs_f64() * 1e3);
            tc.push(t1.elapsed().as_secs_f64() * 1e3);
        }
        ta.sort_by(|a, b| a.partial_cmp(b).unwrap());
        tc.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "what-if tool:bash: changed assembly median {:.2} ms (min {:.2}), comparison and its JSON {:.2} ms (min {:.2})",
            ta[ta.len() / 2],
            ta[0],
            tc[tc.len() / 2],
            tc[0]
        );
        return;
    }
    if let Some(target) = api.strip_prefix("analysis:") {
        // Only the analysis of an assembly (findings, stages JSON, stats JSON), for `target`.
        let inputs = bench_inputs(&text, models, target);
        let a = ctxlens::assemble(&inputs);
        assert!(a.request.is_some());
        println!(
            "body {} bytes, {} origins",
            a.body().map_or(0, str::len),
            a.provenance().len()
        );
        for (name, f) in [
            (
                "findings",
                &(|a: &ctxlens::Assembly| {
                    ctxlens::report::findings::to_json(&ctxlens::analysis::findings::findings(a))
                        .to_json()
                        .len()
                }) as &dyn Fn(&ctxlens::Assembly) -> usize,
            ),
            ("report", &|a: &ctxlens::Assembly| {
                ctxlens::report::assembly_json(a).to_json().len()
            }),
            ("stages", &|a: &ctxlens::Assembly| {
                ctxlens::report::trace_json(a.pi.as_ref(), &a.trace)
                    .to_json()
                    .len()
            }),
            ("stats", &|a: &ctxlens::Assembly| {
                // A fresh assembly's: its provenance not yet made.
                let mut a = a.clone();
                a.derived = Default::default();
                ctxlens::analysis::stats::compute(&a).map_or(0, |s| s.body_bytes)
            }),
            ("provenance", &|a: &ctxlens::Assembly| {
                ctxlens::provenance::provenance(a).len()
            }),
            ("report.request", &|a: &ctxlens::Assembly| {
                ctxlens::report::request_json(a).to_json().len()
            }),
            ("report.session", &|a: &ctxlens::Assembly| {
                ctxlens::report::session_json(a).to_json().len()
            }),
            ("report.calls", &|a: &ctxlens::Assembly| {
                ctxlens::report::calls::calls_json(a).to_json().len()
            }),
            ("report.usage", &|a: &ctxlens::Assembly| {
                ctxlens::report::usage::usage_json(a).to_json().len()
            }),
            ("report.stats", &|a: &ctxlens::Assembly| {
                a.stats()
                    .map_or(0, |s| ctxlens::report::stats::to_json(s).to_json().len())
            }),
            ("report.provenance", &|a: &ctxlens::Assembly| {
                ctxlens::report::provenance::to_json(a.provenance())
                    .to_json()
                    .len()
            }),
            ("report.systemPrompt+tools", &|a: &ctxlens::Assembly| {
                ctxlens::report::system_prompt_json(a).to_json().len()
                    + ctxlens::report::tools_json(a).to_json().len()
                    + ctxlens::report::declared_tools_json(a).to_json().len()
                    + ctxlens::report::resources_json(a).to_json().len()
            }),
            ("report.worker", &|a: &ctxlens::Assembly| {
                // The app worker's report of a fresh assembly (its statistics made for it):
                // without the body, the provenance, the session's parts, with a stage's first
                // 200 events and the 200 largest messages.
                let mut a = a.clone();
                a.derived = Default::default();
                let omit = ctxlens::report::Omit {
                    provenance: true,
                    session: true,
                    events: Some(200),
                    messages: Some(200),
                    body: true,
                };
                ctxlens::report::assembly_json_with(&a, omit)
                    .to_json()
                    .len()
            }),
            ("report.tree", &|a: &ctxlens::Assembly| {
                // The report as a tree, not serialized.
                std::hint::black_box(ctxlens::report::assembly_json(a));
                0
            }),
            ("drop", &|a: &ctxlens::Assembly| {
                drop(a.clone());
                0
            }),
        ] {
            // `ONLY=NAME`: that section alone (for a profile of it).
            if std::env::var("ONLY").is_ok_and(|only| only != name) {
                continue;
            }
            let mut t = Vec::new();
            for _ in 0..runs {
                let t0 = Instant::now();
                std::hint::black_box(f(&a));
                t.push(t0.elapsed().as_secs_f64() * 1e3);
            }
            t.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!(
                "{name}: median {:.2} ms ({} bytes or items)",
                t[t.len() / 2],
                f(&a)
            );
        }
        return;
    }
    if api == "parse" {
        // Only the session read (JSON.parse of every line, the migration, the header checks).
        let src = ctxlens::SourceText {
            name: "s.jsonl".into(),
            text: ctxlens::js::Str::from(text.as_str()),
        };
        let mut t = Vec::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let f = ctxlens::session::parse(
                &ctxlens::Pi::new(ctxlens::PiVersion::LATEST).expect("data"),
                &src,
            );
            assert!(!f.entries.is_empty());
            t.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{file} parse: median {:.2} ms, min {:.2} ms",
            t[t.len() / 2],
            t[0]
        );
        return;
    }
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let out = ctxlens_wasm::api::assemble(
            &opts,
            Some(ctxlens::js::Str::from(text.as_str())),
            &[],
            None,
        )
        .expect("assemble");
        assert!(out.body.is_some(), "{}", out.meta);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    // One more run, counted.
    let session = ctxlens::js::Str::from(text.as_str());
    ON.store(true, Relaxed);
    let out = ctxlens_wasm::api::assemble(&opts, Some(session), &[], None).expect("assemble");
    ON.store(false, Relaxed);
    let n = text.len() as f64;
    println!(
        "allocations: {} ({:.1}× the input in bytes); peak live {:.2}× the input (body {:.2}×)",
        COUNT.load(Relaxed),
        TOTAL.load(Relaxed) as f64 / n,
        PEAK.load(Relaxed) as f64 / n,
        out.body.map_or(0, |b| b.len()) as f64 / n
    );
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{file} {api}: median {:.2} ms, min {:.2} ms",
        times[times.len() / 2],
        times[0]
    );
}

/// The inputs of the analysis and what-if modes: the session, the bench model, a prompt.
fn bench_inputs(text: &str, models: &str, api: &str) -> ctxlens::Inputs {
    ctxlens::Inputs {
        session: Some(ctxlens::SourceText {
            name: "s.jsonl".into(),
            text: ctxlens::js::Str::from(text),
        }),
        files: {
            let mut f = ctxlens::VirtualFs::new();
            f.insert("/home/user/.pi/agent/models.json", models.as_bytes());
            f
        },
        model: Some("bench/m".into()),
        thinking: Some("medium".into()),
        prompt: Some("hi".into()),
        api: Some(api.parse().expect("an api")),
        env: [("AWS_REGION".to_string(), "us-east-1".to_string())].into(),
        ..Default::default()
    }
}
