//! [`crate::analysis::placement`] as JSON: `{placeholderKey, files: [{path, status, what | by
//! + why | why}]}`, `status` one of `read`, `shadowed`, `unused`.

use crate::analysis::placement::{Placement, Verdict};
use crate::js::{Object, Value};

use super::opt_str;

pub fn to_json(p: &Placement) -> Value {
    let files = p
        .files
        .iter()
        .map(|f| {
            let o = Object::new().with("path", f.path.as_str());
            match &f.verdict {
                Verdict::Read { what } => o.with("status", "read").with("what", what.as_str()),
                Verdict::Shadowed { by, why } => o
                    .with("status", "shadowed")
                    .with("by", by.as_str())
                    .with("why", why.as_str()),
                Verdict::Unused { why } => o.with("status", "unused").with("why", why.as_str()),
            }
            .into()
        })
        .collect();
    let mut o = Object::new();
    o.insert("placeholderKey", opt_str(p.placeholder_key.as_deref()));
    o.insert("files", Value::Array(files));
    o.into()
}
