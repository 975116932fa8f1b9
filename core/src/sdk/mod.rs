//! The SDKs pi's adapters send through, one module each: what they add to a request (headers,
//! URLs, serialization) as they do it, shared by every adapter that uses them.

pub mod openai;
