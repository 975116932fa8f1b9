//! ctxlens: rebuilds, offline and byte for byte, the HTTP request that the pi coding agent 0.85.1
//! sends to an LLM, and records how it was assembled.
//!
//! The one entry point is [`assemble`]: plain data in ([`Inputs`]: the session text, a virtual
//! file tree, flags, environment, the time), one [`Assembly`] out (body bytes, URL, headers,
//! the stage-by-stage trace, statistics and diagnostics). Nothing here touches a filesystem, a
//! clock, the network or the DOM.

pub mod analysis;
pub mod api;
pub mod args;
pub mod assemble;
pub mod calls;
pub mod case;
pub mod context;
pub mod diagnostics;
pub mod headers;
pub mod ignore;
pub mod inputs;
pub mod install;
pub mod js;
pub mod messages;
pub mod model;
pub mod packages;
pub mod paths;
pub mod pi;
pub mod prompt;
pub mod prompt_templates;
pub mod protocols;
pub mod recognize;
pub mod redact;
pub mod report;
pub mod resources;
pub mod sdk;
pub mod session;
pub mod settings;
pub mod tokens;
pub mod tools;
pub mod trace;
pub mod transcript;
pub mod workspace;
pub mod yaml;
pub mod zip;

#[cfg(test)]
mod testcase;

pub use api::Api;
pub use assemble::{assemble, Assembly};
pub use diagnostics::{Diagnostic, Severity};
pub use inputs::{Inputs, SourceText, VirtualFs};
pub use pi::{Pi, PiVersion};
pub use workspace::Workspace;
