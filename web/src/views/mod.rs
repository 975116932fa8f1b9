//! The views of one assembly. Every view takes [`ViewProps`]: the report of the current protocol
//! (`ctxlens::report::assembly_json`, plus `findings`, `usage`, `provenance` when the core
//! provides them), the reports of other protocols (for the compare mode), and the selection.

use std::collections::BTreeMap;

use ctxlens::js::Value;
use yew::prelude::*;

use crate::shared::Shared;

#[derive(Clone, PartialEq, Properties)]
pub struct ViewProps {
    /// The report of the protocol on screen.
    pub report: Shared<Value>,
    /// Reports by api (the current one included), filled as they are assembled.
    pub reports: Shared<BTreeMap<String, Shared<Value>>>,
    /// The current protocol.
    pub api: AttrValue,
    /// The selected pipeline stage (index into `report.stages`).
    pub stage: usize,
    pub on_stage: Callback<usize>,
    /// The selected item, as a key: `section:<i>`, `tool:<name>`, `entry:<id>`, `path:<json path>`,
    /// `finding:<id>`, ...
    pub selection: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
}
