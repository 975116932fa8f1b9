//! ctxlens-assembly: rebuilds, offline and byte for byte, the HTTP request that the pi coding
//! agent (0.85.1 to 1.6.0) sends to an LLM, and records how it was assembled. The assembly layer
//! of ctxlens, on JS semantics (crate `ctxlens-js`, here `js`) and pi's releases (`ctxlens-pi`,
//! here `pi` and `api`); the analysis (crate `ctxlens`) is built on it and this crate never
//! imports it.
//!
//! The one entry point is [`assemble`]: plain data in ([`Inputs`]: the session text, a virtual
//! file tree, flags, environment, the time), one [`Assembly`] out (body bytes, URL, headers,
//! the stage-by-stage trace, the spans of the body — which source each byte came from — and
//! diagnostics). Nothing here touches a filesystem, a clock, the network or the DOM.

pub use ctxlens_pi::api;
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
pub use ctxlens_js as js;
pub mod messages;
pub mod model;
pub mod packages;
pub mod paths;
pub mod pi;
pub mod prompt;
pub mod prompt_templates;
pub mod protocols;
pub mod provenance;
pub mod recognize;
pub mod redact;
pub mod resources;
pub mod sdk;
pub mod semver;
pub mod sent;
pub mod session;
pub mod settings;
pub mod tools;
pub mod trace;
pub mod transcript;
pub mod workspace;
pub mod yaml;
pub mod zip;

/// Test helper (the corpus's cases assembled), for this crate's tests and the analysis crate's.
#[cfg(any(test, feature = "test-support"))]
pub mod testcase;

pub use api::Api;
pub use assemble::{assemble, Assembly};
pub use diagnostics::{Diagnostic, Severity};
pub use inputs::{Inputs, SourceText, VirtualFs};
pub use pi::{Pi, PiVersion};
pub use workspace::Workspace;
