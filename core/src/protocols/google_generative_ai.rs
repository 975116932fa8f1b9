//! pi-ai `dist/api/google-generative-ai.js`.

use super::{AdapterError, LlmContext, Request, StreamOptions};
use crate::model::Model;
use crate::trace::Events;

pub fn build(model: &Model, ctx: &LlmContext, opts: &StreamOptions, events: &mut Events) -> Result<Request, AdapterError> {
    let _ = (model, ctx, opts, events);
    Err(AdapterError { message: "not implemented yet".into() })
}
