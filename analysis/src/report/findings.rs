//! The JSON of [`crate::analysis::findings`].

use super::opt_str;
use crate::analysis::findings::*;
use crate::js::{Object, Value};

/// The findings as JSON (an array, camelCase).
pub fn to_json(list: &[Finding]) -> Value {
    Value::Array(
        list.iter()
            .map(|f| {
                Object::new()
                    .with("id", f.id)
                    .with("number", f.number)
                    .with("severity", f.severity.as_str())
                    .with("title", f.title.as_str())
                    .with("detail", f.detail.as_str())
                    .with("stage", opt_str(f.stage.map(|s| s.key())))
                    .with("subject", opt_str(f.subject.as_deref()))
                    .into()
            })
            .collect(),
    )
}
