//! `usage --parquet DIR`: the calls as two Parquet tables a team's own tools query (DuckDB,
//! Polars, Spark, Trino): `calls.parquet`, one row per call, and `blocks.parquet`, one row per
//! call and block, tool, system-prompt section, kind of history and tool's results. The schema
//! is documented in docs/usage.md.

use std::sync::Arc;

use ctxlens::analysis::ledger::LedgerCall;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// One column's values (`None`: null).
enum Values {
    Text(Vec<Option<String>>),
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
}

/// A table: its name and its columns in order.
struct Table {
    name: &'static str,
    columns: Vec<(&'static str, Values)>,
}

impl Table {
    fn text(&mut self, name: &'static str, v: Vec<Option<String>>) {
        self.columns.push((name, Values::Text(v)));
    }
    fn int(&mut self, name: &'static str, v: Vec<Option<i64>>) {
        self.columns.push((name, Values::Int(v)));
    }
    fn float(&mut self, name: &'static str, v: Vec<Option<f64>>) {
        self.columns.push((name, Values::Float(v)));
    }
    fn flag(&mut self, name: &'static str, v: Vec<Option<bool>>) {
        self.columns.push((name, Values::Bool(v)));
    }

    /// The table as a Parquet file (every column optional: a null says "not known").
    fn write(&self) -> Result<Vec<u8>, parquet::errors::ParquetError> {
        let fields: Vec<String> = self
            .columns
            .iter()
            .map(|(name, v)| {
                let ty = match v {
                    Values::Text(_) => "BYTE_ARRAY",
                    Values::Int(_) => "INT64",
                    Values::Float(_) => "DOUBLE",
                    Values::Bool(_) => "BOOLEAN",
                };
                let utf8 = if matches!(v, Values::Text(_)) {
                    " (UTF8)"
                } else {
                    ""
                };
                format!("OPTIONAL {ty} {name}{utf8};")
            })
            .collect();
        let schema =
            parse_message_type(&format!("message {} {{ {} }}", self.name, fields.join(" ")))?;
        let mut out = Vec::new();
        let props = Arc::new(WriterProperties::builder().build());
        let mut w = SerializedFileWriter::new(&mut out, Arc::new(schema), props)?;
        let mut rg = w.next_row_group()?;
        let mut k = 0;
        while let Some(mut col) = rg.next_column()? {
            let (_, values) = &self.columns[k];
            fn split<T: Clone>(v: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
                let levels = v.iter().map(|x| i16::from(x.is_some())).collect();
                (v.iter().flatten().cloned().collect(), levels)
            }
            match values {
                Values::Text(v) => {
                    let (vals, levels) = split(v);
                    let vals: Vec<ByteArray> =
                        vals.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    col.typed::<ByteArrayType>()
                        .write_batch(&vals, Some(&levels), None)?;
                }
                Values::Int(v) => {
                    let (vals, levels) = split(v);
                    col.typed::<Int64Type>()
                        .write_batch(&vals, Some(&levels), None)?;
                }
                Values::Float(v) => {
                    let (vals, levels) = split(v);
                    col.typed::<DoubleType>()
                        .write_batch(&vals, Some(&levels), None)?;
                }
                Values::Bool(v) => {
                    let (vals, levels) = split(v);
                    col.typed::<BoolType>()
                        .write_batch(&vals, Some(&levels), None)?;
                }
            }
            col.close()?;
            k += 1;
        }
        rg.close()?;
        w.close()?;
        Ok(out)
    }
}

/// One row per call.
fn calls_table(calls: &[&LedgerCall]) -> Table {
    let mut t = Table {
        name: "calls",
        columns: Vec::new(),
    };
    let text = |f: &dyn Fn(&LedgerCall) -> Option<String>| calls.iter().map(|c| f(c)).collect();
    let float = |f: &dyn Fn(&LedgerCall) -> Option<f64>| calls.iter().map(|c| f(c)).collect();
    let int = |f: &dyn Fn(&LedgerCall) -> Option<usize>| -> Vec<Option<i64>> {
        calls.iter().map(|c| f(c).map(|n| n as i64)).collect()
    };
    t.text("file", text(&|c| Some(c.file.to_string())));
    t.int("line", int(&|c| Some(c.line as usize)));
    t.text("entry_id", text(&|c| c.entry_id.clone()));
    t.text("session_id", text(&|c| Some(c.session_id.to_string())));
    t.text("project", text(&|c| Some(c.project().to_string())));
    t.text("timestamp", text(&|c| Some(c.timestamp.clone())));
    t.text("day", text(&|c| Some(c.day.clone())));
    t.text("provider", text(&|c| c.provider.clone()));
    t.text("model", text(&|c| c.model.clone()));
    t.text("pi_release", text(&|c| c.pi.clone()));
    t.float("input", float(&|c| Some(c.usage.input)));
    t.float("output", float(&|c| Some(c.usage.output)));
    t.float("cache_read", float(&|c| Some(c.usage.cache_read)));
    t.float("cache_write", float(&|c| Some(c.usage.cache_write)));
    t.float("total_tokens", float(&|c| Some(c.usage.total_tokens)));
    t.float("cost", float(&|c| Some(c.usage.cost)));
    t.float("prompt_cost", float(&|c| c.usage.prompt_cost));
    t.flag(
        "rebuilt",
        calls.iter().map(|c| Some(c.blocks.is_some())).collect(),
    );
    t.text(
        "not_rebuilt_reason",
        text(&|c| c.blocks.is_none().then(|| c.note.clone()).flatten()),
    );
    t.int(
        "body_chars",
        int(&|c| c.blocks.as_ref().map(|b| b.body_chars)),
    );
    t.int(
        "system_prompt_chars",
        int(&|c| c.blocks.as_ref().map(|b| b.system_prompt)),
    );
    t.int("tools_chars", int(&|c| c.blocks.as_ref().map(|b| b.tools)));
    t.int(
        "history_chars",
        int(&|c| c.blocks.as_ref().map(|b| b.history)),
    );
    t.int(
        "parameters_chars",
        int(&|c| c.blocks.as_ref().map(|b| b.parameters)),
    );
    t.int(
        "structure_chars",
        int(&|c| c.blocks.as_ref().map(|b| b.structure)),
    );
    t.text(
        "vocabulary",
        text(&|c| {
            let b = c.blocks.as_ref()?;
            Some(b.tokens.as_ref()?.vocabulary.clone())
        }),
    );
    t.text(
        "cache_break",
        text(&|c| c.cache_break.as_ref().map(|b| b.why.clone())),
    );
    t.text(
        "cache_break_block",
        text(&|c| c.cache_break.as_ref().map(|b| b.block.to_string())),
    );
    t.float(
        "cache_break_tokens",
        float(&|c| c.cache_break.as_ref().map(|b| b.lost_tokens)),
    );
    t.float(
        "cache_break_cost",
        float(&|c| c.cache_break.as_ref().and_then(|b| b.cost)),
    );
    t
}

/// One row per rebuilt call and part of its request: `kind` is `block` (systemPrompt, tools,
/// history, parameters, structure), `tool`, `section`, `history` (a kind of history) or
/// `tool_results` (a tool's results).
fn blocks_table(calls: &[&LedgerCall]) -> Table {
    struct Row<'a> {
        call: &'a LedgerCall,
        kind: &'static str,
        name: String,
        source: Option<String>,
        chars: usize,
        /// Its tokens by the model's vocabulary, where counted.
        counted: Option<usize>,
    }
    let mut rows: Vec<Row> = Vec::new();
    for &c in calls {
        let Some(b) = &c.blocks else { continue };
        let mut row = |kind, name: &str, source: Option<&str>, (chars, counted)| {
            rows.push(Row {
                call: c,
                kind,
                name: name.to_string(),
                source: source.map(str::to_string),
                chars,
                counted,
            })
        };
        for ((name, chars), counted) in b.by_block().into_iter().zip(b.block_tokens()) {
            row("block", name, None, (chars, counted));
        }
        for ((name, chars), counted) in b.tools_counted() {
            row("tool", name, None, (*chars, counted));
        }
        for ((name, source, chars), counted) in b.sections_counted() {
            row("section", name, Some(source), (*chars, counted));
        }
        for ((name, chars), counted) in b.history_kinds().into_iter().zip(b.history_kinds_tokens())
        {
            row("history", name, None, (chars, counted));
        }
        for ((name, chars), counted) in b.tool_results_counted() {
            row("tool_results", name, None, (*chars, counted));
        }
    }
    let mut t = Table {
        name: "blocks",
        columns: Vec::new(),
    };
    t.text(
        "file",
        rows.iter().map(|r| Some(r.call.file.to_string())).collect(),
    );
    t.int(
        "line",
        rows.iter().map(|r| Some(i64::from(r.call.line))).collect(),
    );
    t.text(
        "day",
        rows.iter().map(|r| Some(r.call.day.clone())).collect(),
    );
    t.text("model", rows.iter().map(|r| r.call.model.clone()).collect());
    t.text(
        "kind",
        rows.iter().map(|r| Some(r.kind.to_string())).collect(),
    );
    t.text("name", rows.iter().map(|r| Some(r.name.clone())).collect());
    t.text("source", rows.iter().map(|r| r.source.clone()).collect());
    t.int("chars", rows.iter().map(|r| Some(r.chars as i64)).collect());
    t.int(
        "vocabulary_tokens",
        rows.iter().map(|r| r.counted.map(|n| n as i64)).collect(),
    );
    t.float(
        "tokens",
        rows.iter()
            .map(|r| Some(r.call.share_of(r.chars, r.counted).0))
            .collect(),
    );
    t.float(
        "cost",
        rows.iter()
            .map(|r| Some(r.call.share_of(r.chars, r.counted).1))
            .collect(),
    );
    t
}

/// The two files' names (`calls.parquet`, `blocks.parquet`) and bytes.
pub fn files(calls: &[&LedgerCall]) -> Result<Vec<(String, Vec<u8>)>, String> {
    [calls_table(calls), blocks_table(calls)]
        .iter()
        .map(|t| {
            let name = format!("{}.parquet", t.name);
            let bytes = t.write().map_err(|e| format!("{name}: {e}"))?;
            Ok((name, bytes))
        })
        .collect()
}
