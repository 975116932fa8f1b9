// "ctxlens" (Node and bundlers): ready on import.
export * from "./types.js";
