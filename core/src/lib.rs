//! ctxlens: rebuilds, offline and byte for byte, the HTTP request that the pi coding agent 0.85.1
//! sends to an LLM, and records how it was assembled.

pub mod js;
