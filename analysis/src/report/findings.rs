//! The JSON of [`crate::analysis::findings`] (the type is [`super::types::Finding`]).

use super::wire::Wire;
use crate::analysis::findings::*;
use crate::js::Value;

/// The findings as JSON (an array, camelCase).
pub fn to_json(list: &[Finding]) -> Value {
    Value::Array(list.iter().map(Wire::to_value).collect())
}
