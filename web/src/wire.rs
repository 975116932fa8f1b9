//! How a large value crosses from the worker to the page without one long task on the page's
//! thread: the worker [`split`]s it into [`Part`]s of about [`PART_BYTES`] of JSON each (objects
//! member by member, arrays by runs of elements), the page parses them one small task at a time
//! and a [`Joiner`] puts the value back together, in the same key order.

use ctxlens::js::{Object, Value};

/// About this many bytes of JSON per part (a few milliseconds of parsing on the page).
pub const PART_BYTES: usize = 256 * 1024;

/// Objects deeper than this are not split further (their parts stay whole).
const MAX_DEPTH: usize = 4;

/// One piece of a split value: the JSON at `path` (object keys from the root), or, when
/// `append`, elements to add to the array at `path`.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub path: Vec<String>,
    pub append: bool,
    pub json: String,
}

/// Splits `v` into parts of about `limit` bytes of JSON each, in order.
pub fn split(v: &Value, limit: usize) -> Vec<Part> {
    let mut out = Vec::new();
    split_at(v, &mut Vec::new(), limit, &mut out);
    out
}

fn split_at(v: &Value, path: &mut Vec<String>, limit: usize, out: &mut Vec<Part>) {
    let part = |path: &[String], append: bool, json: String| Part {
        path: path.to_vec(),
        append,
        json,
    };
    let splittable = match v {
        Value::Object(o) => path.len() < MAX_DEPTH && o.len() > 1,
        Value::Array(a) => a.len() > 1,
        _ => false,
    };
    let json = v.to_json();
    if !splittable || json.len() <= limit {
        out.push(part(path, false, json));
        return;
    }
    drop(json);
    match v {
        Value::Object(o) => {
            out.push(part(path, false, "{}".into()));
            for (k, x) in o.iter() {
                path.push(k.to_string());
                split_at(x, path, limit, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            out.push(part(path, false, "[]".into()));
            let mut buf = String::from("[");
            let mut n = 0;
            for x in a {
                let j = x.to_json();
                if n > 0 && buf.len() + j.len() > limit {
                    buf.push(']');
                    out.push(part(
                        path,
                        true,
                        std::mem::replace(&mut buf, String::from("[")),
                    ));
                    n = 0;
                }
                if n > 0 {
                    buf.push(',');
                }
                buf.push_str(&j);
                n += 1;
            }
            if n > 0 {
                buf.push(']');
                out.push(part(path, true, buf));
            }
        }
        _ => {}
    }
}

/// Puts a split value back together, part by part.
#[derive(Debug, Default)]
pub struct Joiner {
    root: Option<Value>,
}

impl Joiner {
    pub fn new() -> Joiner {
        Joiner::default()
    }

    /// Adds the parsed value of one part (in the order [`split`] made them).
    pub fn add(&mut self, path: &[String], append: bool, v: Value) -> Result<(), String> {
        let Some((last, parents)) = path.split_last() else {
            return match (&mut self.root, append) {
                (Some(Value::Array(a)), true) => extend(a, v),
                (_, false) => {
                    self.root = Some(v);
                    Ok(())
                }
                _ => Err("elements for a value that is not an array".into()),
            };
        };
        let mut cur = self.root.as_mut().ok_or("a member before its object")?;
        for k in parents {
            cur = cur
                .as_object_mut()
                .and_then(|o| o.get_mut(k))
                .ok_or_else(|| format!("no object at {k}"))?;
        }
        let obj = cur
            .as_object_mut()
            .ok_or_else(|| format!("no object for {last}"))?;
        if append {
            match obj.get_mut(last) {
                Some(Value::Array(a)) => extend(a, v),
                _ => Err(format!("elements for {last}, which is not an array")),
            }
        } else {
            obj.insert(last.as_str(), v);
            Ok(())
        }
    }

    /// The value (Null when nothing came).
    pub fn finish(self) -> Value {
        self.root.unwrap_or(Value::Null)
    }
}

fn extend(a: &mut Vec<Value>, v: Value) -> Result<(), String> {
    match v {
        Value::Array(items) => {
            a.extend(items);
            Ok(())
        }
        _ => Err("array elements that are not an array".into()),
    }
}

/// The worker's answer to a `compare` request (the core's comparison of two protocols'
/// assemblies, `ctxlens::report::compare_json`), as the JSON text it posts: `{"comparison": …}`,
/// or `{"error": "…"}` when it could not compare.
pub fn compare_answer(result: Result<Value, String>) -> String {
    let v: Value = match result {
        Ok(c) => Object::new().with("comparison", c).into(),
        Err(e) => Object::new().with("error", e).into(),
    };
    v.to_json()
}

/// Reads a [`compare_answer`] on the page: the comparison of `a` with `b`, or why there is none.
/// A comparison of another pair of protocols than the one asked for is an error too.
pub fn read_compare_answer(text: &str, a: &str, b: &str) -> Result<Value, String> {
    let v = ctxlens::js::parse(text)
        .map_err(|e| format!("the worker's comparison did not parse: {}", e.message))?;
    if let Some(e) = v.get_str("error") {
        return Err(e.to_string());
    }
    let c = v
        .get("comparison")
        .filter(|c| c.get("mapping").is_some_and(|m| m.as_array().is_some()))
        .ok_or("the worker's answer holds no comparison")?;
    for (side, want) in [("a", a), ("b", b)] {
        let got = c.get(side).and_then(|s| s.get_str("api")).unwrap_or("");
        if !got.is_empty() && got != want {
            return Err(format!("the worker compared {got}, not {want}"));
        }
    }
    Ok(c.clone())
}

/// The worker's answer to an `upgrade` request (the same inputs under another pi release,
/// `ctxlens::report::upgrade::to_json`), as the JSON text it posts: `{"upgrade": …}`, or
/// `{"error": "…"}` when it could not compare.
pub fn upgrade_answer(result: Result<Value, String>) -> String {
    let v: Value = match result {
        Ok(u) => Object::new().with("upgrade", u).into(),
        Err(e) => Object::new().with("error", e).into(),
    };
    v.to_json()
}

/// Reads an [`upgrade_answer`] on the page: the comparison with release `to`, or why there is
/// none. A comparison with another release than the one asked for is an error too.
pub fn read_upgrade_answer(text: &str, to: &str) -> Result<Value, String> {
    let v = ctxlens::js::parse(text)
        .map_err(|e| format!("the worker's comparison did not parse: {}", e.message))?;
    if let Some(e) = v.get_str("error") {
        return Err(e.to_string());
    }
    let u = v
        .get("upgrade")
        .filter(|u| u.get("blocks").is_some_and(|b| b.as_array().is_some()))
        .ok_or("the worker's answer holds no upgrade comparison")?;
    match u.get_str("to") {
        Some(got) if got != to => Err(format!("the worker compared with pi {got}, not {to}")),
        _ => Ok(u.clone()),
    }
}

/// The worker's answer to a `whatif` request (the scenario's inputs with the changes made,
/// `ctxlens::report::whatif::to_json`), as the JSON text it posts: `{"whatif": …}`, or
/// `{"error": …}`.
pub fn whatif_answer(result: Result<Value, String>) -> String {
    let v: Value = match result {
        Ok(w) => Object::new().with("whatif", w).into(),
        Err(e) => Object::new().with("error", e).into(),
    };
    v.to_json()
}

/// Reads a [`whatif_answer`] on the page: the what-if of the changes `specs` (in order), or why
/// there is none. An answer about other changes than the ones asked for is an error too.
pub fn read_whatif_answer(text: &str, specs: &[String]) -> Result<Value, String> {
    let v = ctxlens::js::parse(text)
        .map_err(|e| format!("the worker's what-if did not parse: {}", e.message))?;
    if let Some(e) = v.get_str("error") {
        return Err(e.to_string());
    }
    let w = v
        .get("whatif")
        .filter(|w| w.get("blocks").is_some_and(|b| b.as_array().is_some()))
        .ok_or("the worker's answer holds no what-if")?;
    let got: Vec<&str> = w
        .get("changes")
        .and_then(Value::as_array)
        .map(|c| c.iter().filter_map(|c| c.get_str("change")).collect())
        .unwrap_or_default();
    if got != specs.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(format!(
            "the worker answered for {}, not {}",
            got.join(", "),
            specs.join(", ")
        ));
    }
    Ok(w.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctxlens::js;

    fn round_trip(text: &str, limit: usize) -> (Value, usize) {
        let v = js::parse(text).unwrap();
        let parts = split(&v, limit);
        let mut j = Joiner::new();
        for p in &parts {
            j.add(&p.path, p.append, js::parse(&p.json).unwrap())
                .unwrap();
        }
        (j.finish(), parts.len())
    }

    #[test]
    fn a_split_value_joins_back_with_its_key_order() {
        let text = r#"{"z":1,"a":{"list":[1,"two",{"x":[3,4]},null,5.5,"\ud800"],"n":{"2":"b","1":"a","k":true}},"10":"ten","arr":[[1],[2],[3]],"s":"x"}"#;
        for limit in [1, 8, 20, 64, 100_000] {
            let (v, n) = round_trip(text, limit);
            assert_eq!(
                v.to_json(),
                js::parse(text).unwrap().to_json(),
                "limit {limit}"
            );
            if limit == 100_000 {
                assert_eq!(n, 1);
            } else {
                assert!(n > 3, "limit {limit}: {n} parts");
            }
        }
    }

    #[test]
    fn scalars_and_empty_containers_stay_whole() {
        for text in [
            "3",
            "\"s\"",
            "[]",
            "{}",
            "null",
            "[1]",
            "{\"a\":\"long long long\"}",
        ] {
            let (v, n) = round_trip(text, 1);
            assert_eq!(v.to_json(), text);
            assert_eq!(n, 1, "{text}");
        }
    }

    #[test]
    fn parts_out_of_order_are_errors_not_panics() {
        let mut j = Joiner::new();
        assert!(j.add(&["a".into()], false, Value::Null).is_err());
        j.add(&[], false, js::parse("{\"a\":1}").unwrap()).unwrap();
        assert!(j
            .add(&["a".into()], true, js::parse("[1]").unwrap())
            .is_err());
        assert!(j
            .add(&["b".into(), "c".into()], false, Value::Null)
            .is_err());
        assert!(j.add(&[], true, Value::Null).is_err());
    }

    #[test]
    fn a_whatif_answer_reads_back_or_says_why_not() {
        let w = js::parse(r#"{"changes":[{"change":"tool:bash","did":"off","takeHome":{"kind":"flags","flags":["--exclude-tools","bash"],"args":[],"text":"pi --exclude-tools bash"}},{"change":"skill:foo","did":"gone","takeHome":{"kind":"none","why":"x","text":"x"}}],"identical":false,"blocks":[{"name":"tools","fromChars":10,"toChars":2,"charsDelta":-8}]}"#).unwrap();
        let specs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let text = whatif_answer(Ok(w.clone()));
        assert_eq!(
            read_whatif_answer(&text, &specs(&["tool:bash", "skill:foo"]))
                .unwrap()
                .to_json(),
            w.to_json()
        );
        // Another set of changes (or the same in another order) is not this answer.
        let other = read_whatif_answer(&text, &specs(&["skill:foo", "tool:bash"])).unwrap_err();
        assert!(other.contains("not skill:foo, tool:bash"), "{other}");
        assert!(read_whatif_answer(&text, &specs(&["tool:bash"])).is_err());
        // The core's error (a change that names nothing present) comes through as it is.
        assert_eq!(
            read_whatif_answer(
                &whatif_answer(Err("no tool nope: the tools are read, bash".into())),
                &specs(&["tool:nope"])
            ),
            Err("no tool nope: the tools are read, bash".into())
        );
        assert!(read_whatif_answer("{}", &specs(&["tool:bash"])).is_err());
        assert!(read_whatif_answer("not json", &specs(&["tool:bash"])).is_err());
        assert!(read_whatif_answer(r#"{"whatif":{"changes":[]}}"#, &[]).is_err());
    }

    #[test]
    fn an_upgrade_answer_reads_back_or_says_why_not() {
        let u: Value = Object::new()
            .with("from", "0.85.1")
            .with("to", "1.6.0")
            .with("blocks", Value::Array(Vec::new()))
            .into();
        let text = upgrade_answer(Ok(u.clone()));
        assert_eq!(read_upgrade_answer(&text, "1.6.0"), Ok(u));
        assert!(read_upgrade_answer(&text, "0.85.1")
            .unwrap_err()
            .contains("not 0.85.1"));
        assert_eq!(
            read_upgrade_answer(&upgrade_answer(Err("gone".into())), "1.6.0"),
            Err("gone".into())
        );
        assert!(read_upgrade_answer("{}", "1.6.0").is_err());
    }

    #[test]
    fn a_compare_answer_reads_back_or_says_why_not() {
        let c = js::parse(r#"{"a":{"api":"openai-completions"},"b":{"api":"anthropic-messages"},"mapping":[{"kind":"system-prompt","a":{"paths":["messages[0].content"]}}],"losses":[]}"#).unwrap();
        let text = compare_answer(Ok(c.clone()));
        assert_eq!(
            read_compare_answer(&text, "openai-completions", "anthropic-messages")
                .unwrap()
                .to_json(),
            c.to_json()
        );
        let swapped =
            read_compare_answer(&text, "anthropic-messages", "openai-completions").unwrap_err();
        assert!(
            swapped.contains("compared openai-completions, not anthropic-messages"),
            "{swapped}"
        );
        assert_eq!(
            read_compare_answer(&compare_answer(Err("no scenario".into())), "x", "y").unwrap_err(),
            "no scenario"
        );
        assert!(read_compare_answer("{\"comparison\":{}}", "x", "y").is_err());
        assert!(read_compare_answer("not json", "x", "y")
            .unwrap_err()
            .contains("did not parse"));
    }
}
