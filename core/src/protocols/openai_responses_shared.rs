//! pi-ai `dist/api/openai-responses-shared.js`: the conversions shared by several adapters.
