//! Times the binding's `assemble` natively on a session file, for profiling (perf) the same code
//! path the npm package runs: `cargo run --profile profiling -p ctxlens-wasm --example native_bench -- FILE [API] [RUNS]`.
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: native_bench FILE [API] [RUNS]");
    let api = args.next().unwrap_or_else(|| "anthropic-messages".into());
    let runs: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("RUNS is a number"));
    let text = std::fs::read_to_string(&file).expect("read the session");
    let models = r#"{"providers":{"bench":{"baseUrl":"https://bench.example/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"m","name":"m","reasoning":true,"input":["text","image"],"contextWindow":1000000,"maxTokens":64000,"cost":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}]}}}"#;
    let opts = format!(
        r#"{{"models":{},"model":"bench/m","thinking":"medium","prompt":"Now summarize what changed.","now":1767225600000,"api":"{api}","env":{{"AWS_REGION":"us-east-1"}},"files":[]}}"#,
        ctxlens::js::Value::str(models).to_json()
    );
    let mut times = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let out = ctxlens_wasm::api::assemble(&opts, Some(text.clone()), &[]).expect("assemble");
        assert!(out.body.is_some(), "{}", out.meta);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{file} {api}: median {:.2} ms, min {:.2} ms",
        times[times.len() / 2],
        times[0]
    );
}
