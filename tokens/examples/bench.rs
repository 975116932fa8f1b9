//! Tokens per second of each vocabulary on a session's texts (every text part, thinking, tool
//! result and tool-call arguments of its messages, each encoded on its own, as blocks are
//! counted).
//!
//!   node scripts/bench-npm.mjs --generate /tmp/tb --sizes 4
//!   scripts/fetch-vocabularies.sh   # for the tokenizer.json vocabularies
//!   cargo run --release -p ctxlens-tokens --example bench -- /tmp/tb/session-4MB.jsonl

use ctxlens_tokens::{builtin, builtin_names, HfTokenizer, Tokenizer};
use std::time::Instant;

/// A folder instead of a session: its source files (.rs, .md, .mjs, .json), each cut into texts
/// of 4 KB, up to 4 MB: real code and prose rather than the generated session's repeated words.
fn folder_texts(dir: &std::path::Path, out: &mut Vec<String>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if *budget == 0 || name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            folder_texts(&path, out, budget);
        } else if [".rs", ".md", ".mjs", ".json"]
            .iter()
            .any(|x| name.ends_with(x))
        {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let mut rest = text.as_str();
            while !rest.is_empty() && *budget > 0 {
                let mut cut = rest.len().min(4096).min(*budget);
                while !rest.is_char_boundary(cut) {
                    cut -= 1;
                }
                if cut == 0 {
                    break;
                }
                out.push(rest[..cut].to_string());
                *budget -= cut;
                rest = &rest[cut..];
            }
        }
    }
}

fn texts(session: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in session.lines() {
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let content = &entry["message"]["content"];
        if let Some(s) = content.as_str() {
            out.push(s.to_string());
        }
        for part in content.as_array().into_iter().flatten() {
            for key in ["text", "thinking"] {
                if let Some(s) = part[key].as_str() {
                    out.push(s.to_string());
                }
            }
            if part["type"] == "toolCall" {
                out.push(part["arguments"].to_string());
            }
        }
    }
    out
}

// The first pass includes whatever the vocabulary builds lazily; the best of three is shown.
fn run(tok: &dyn Tokenizer, texts: &[String], bytes: usize, setup_ms: f64) {
    let mut tokens = 0;
    let mut passes = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        tokens = texts.iter().map(|t| tok.count(t).unwrap()).sum::<usize>();
        passes.push(start.elapsed().as_secs_f64());
    }
    let secs = passes.iter().cloned().fold(f64::INFINITY, f64::min);
    println!(
        "| {} | {:.0} | {} | {:.3} | {:.3} | {:.1} M | {:.1} |",
        tok.name(),
        setup_ms,
        tokens,
        passes[0],
        secs,
        tokens as f64 / secs / 1e6,
        bytes as f64 / secs / 1e6
    );
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: bench SESSION.jsonl");
    let texts = if std::path::Path::new(&path).is_dir() {
        let (mut out, mut budget) = (Vec::new(), 4_000_000);
        folder_texts(std::path::Path::new(&path), &mut out, &mut budget);
        out
    } else {
        texts(&std::fs::read_to_string(&path).expect("read the session"))
    };
    let bytes: usize = texts.iter().map(String::len).sum();
    println!(
        "{path}: {} texts, {:.2} MB of text",
        texts.len(),
        bytes as f64 / 1e6
    );
    println!("| vocabulary | load ms | tokens | first pass s | best pass s | tokens/s | MB/s |");
    println!("|---|---|---|---|---|---|---|");
    for name in builtin_names() {
        let start = Instant::now();
        let tok = builtin(name).unwrap();
        tok.count("warm").unwrap();
        run(&tok, &texts, bytes, start.elapsed().as_secs_f64() * 1000.0);
    }
    let cache = std::env::var("CTXLENS_VOCAB_CACHE").unwrap_or("target/vocab-cache".into());
    for name in ["gemma3", "qwen2", "deepseek_v3", "llama3"] {
        let Ok(json) = std::fs::read(format!("{cache}/hf/{name}.json")) else {
            println!(
                "| {name} (tokenizer.json) | not in {cache}: run scripts/fetch-vocabularies.sh |"
            );
            continue;
        };
        let start = Instant::now();
        let tok = HfTokenizer::from_json(&format!("{name} (tokenizer.json)"), &json).unwrap();
        run(&tok, &texts, bytes, start.elapsed().as_secs_f64() * 1000.0);
    }
}
