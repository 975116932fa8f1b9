//! Generates the version table's documentation as data (`OUT_DIR/rule_docs.rs`): each switch of
//! `src/rules.rs` by its path (`transcript`, `anthropic.mid_convo_system_messages`) with its
//! doc comment, which names the release that began it and the cases that prove it. The upgrade
//! comparison shows it beside each switch that differs between two releases.

use std::fmt::Write;

/// A field: its name, type and doc comment.
type Field = (String, String, String);

fn main() {
    let src = "src/rules.rs";
    println!("cargo:rerun-if-changed={src}");
    let text = std::fs::read_to_string(src).expect("src/rules.rs");
    // struct name → [(field, type, doc)]
    let mut structs: Vec<(String, Vec<Field>)> = Vec::new();
    let mut current: Option<usize> = None;
    let mut doc = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("pub struct ") {
            let name = rest.split([' ', '{', '<']).next().unwrap_or("").to_string();
            structs.push((name, Vec::new()));
            current = Some(structs.len() - 1);
            doc.clear();
            continue;
        }
        if t == "}" {
            current = None;
            doc.clear();
            continue;
        }
        let Some(i) = current else { continue };
        if let Some(d) = t.strip_prefix("///") {
            if !doc.is_empty() {
                doc.push(' ');
            }
            doc.push_str(d.trim());
        } else if let Some(f) = t.strip_prefix("pub ") {
            if let Some((name, ty)) = f.split_once(':') {
                let ty = ty.trim().trim_end_matches(',').to_string();
                structs[i]
                    .1
                    .push((name.trim().to_string(), ty, std::mem::take(&mut doc)));
            }
        } else if !t.starts_with("#[") {
            doc.clear();
        }
    }
    let fields = |name: &str| {
        structs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    };
    let mut out = String::from("/// Each switch of [`Rules`] by path, with its doc comment.\npub const RULE_DOCS: &[(&str, &str)] = &[\n");
    for (field, ty, doc) in fields("Rules") {
        let nested = fields(&ty);
        if ty.ends_with("Rules") && !nested.is_empty() {
            for (f, _, d) in nested {
                writeln!(out, "    ({:?}, {:?}),", format!("{field}.{f}"), d).unwrap();
            }
        } else {
            writeln!(out, "    ({field:?}, {doc:?}),").unwrap();
        }
    }
    out.push_str("];\n");
    let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("rule_docs.rs");
    std::fs::write(dest, out).unwrap();
}
