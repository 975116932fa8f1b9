//! pi-ai `dist/api/google-shared.js`: the conversions shared by several adapters.
