//! `ctxlens usage --parquet`: the Parquet files, queried with DuckDB (PyPI `duckdb`, installed by
//! scripts/setup.sh in `~/.cache/ctxlens/py`), give the same totals and blocks as `--json`.

use std::path::{Path, PathBuf};
use std::process::Command;

use ctxlens::js::{self, Value};

fn python() -> PathBuf {
    let home = std::env::var("HOME").expect("HOME");
    let py = Path::new(&home).join(".cache/ctxlens/py/bin/python");
    assert!(
        py.exists(),
        "{}: run scripts/setup.sh (it installs DuckDB there)",
        py.display()
    );
    py
}

/// A sessions folder of corpus sessions, one folder per case, as pi lays them out.
fn sessions(dir: &Path) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance");
    let mut n = 0;
    for release in ["pi-0.85.1", "pi-1.6.0"] {
        let mut cases: Vec<_> = std::fs::read_dir(root.join(release))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        cases.sort();
        for case in cases {
            let file = case.join("expected/session.after.jsonl");
            if !file.exists() {
                continue;
            }
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let folder = dir.join(format!("--tmp-{release}-{name}--"));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::copy(
                &file,
                folder.join(format!("2026-11-30T10-00-00-000Z_{n:05}.jsonl")),
            )
            .unwrap();
            n += 1;
        }
    }
    n
}

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut x = v;
    for k in path {
        x = x.get(k).unwrap_or_else(|| panic!("{path:?}"));
    }
    x.as_f64().unwrap_or_else(|| panic!("{path:?}: {x:?}"))
}

#[test]
fn the_parquet_files_queried_with_duckdb_give_the_reports_totals_and_blocks() {
    let dir = std::env::temp_dir().join(format!("ctxlens-usage-parquet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = sessions(&dir.join("sessions"));
    assert!(files > 100, "{files}");
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_ctxlens"))
        .args(["usage", "--json", "--parquet"])
        .arg(&out)
        .arg(dir.join("sessions"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report = js::parse(&String::from_utf8_lossy(&run.stdout)).unwrap();
    let query = format!(
        r#"
import duckdb, json
calls, blocks = "{calls}", "{blocks}"
t = duckdb.sql(f"select count(*), sum(input), sum(output), sum(cache_read), sum(cache_write), sum(cost), count(*) filter (where rebuilt), count(distinct file) from '{{calls}}'").fetchall()[0]
b = dict(duckdb.sql(f"select name, sum(chars) from '{{blocks}}' where kind = 'block' group by name").fetchall())
tools = duckdb.sql(f"select sum(tokens) from '{{blocks}}' where kind = 'tool'").fetchall()[0][0]
print(json.dumps({{"totals": list(t), "blocks": b, "toolTokens": tools}}))
"#,
        calls = out.join("calls.parquet").display(),
        blocks = out.join("blocks.parquet").display()
    );
    let q = Command::new(python())
        .args(["-c", &query])
        .output()
        .unwrap();
    assert!(q.status.success(), "{}", String::from_utf8_lossy(&q.stderr));
    let got = js::parse(&String::from_utf8_lossy(&q.stdout)).unwrap();
    let t: Vec<f64> = got
        .get("totals")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let want = [
        num(&report, &["totals", "calls"]),
        num(&report, &["totals", "input"]),
        num(&report, &["totals", "output"]),
        num(&report, &["totals", "cacheRead"]),
        num(&report, &["totals", "cacheWrite"]),
    ];
    assert_eq!(&t[..5], &want[..]);
    assert!((t[5] - num(&report, &["totals", "cost"])).abs() < 1e-9);
    assert_eq!(t[6], num(&report, &["rebuilt"]));
    assert_eq!(t[7], num(&report, &["totals", "sessions"]));
    for block in [
        "systemPrompt",
        "tools",
        "history",
        "parameters",
        "structure",
    ] {
        assert_eq!(
            got.get("blocks")
                .and_then(|b| b.get(block))
                .and_then(Value::as_f64),
            Some(num(&report, &["blocks", block, "chars"])),
            "{block}"
        );
    }
    // The tools' tokens (unrounded in the file) round to the report's.
    let tools = got.get("toolTokens").and_then(Value::as_f64).unwrap();
    assert!(
        (tools - num(&report, &["blocks", "tools", "tokens"])).abs() <= 1.0,
        "{tools}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
