// Node's side of tokens.js: a vocabulary module is read from the package (or a path / file: URL)
// synchronously, so `tokens: true` loads the model's vocabulary itself on first use. Internal.
import { readFileSync } from "node:fs";
import { hostVocabularies, loadVocabularyNode, loadVocabularySync, vocabularyUrl } from "./tokens.js";

const dir = new URL("./tokenizers/", import.meta.url);
const read = (name, url) => readFileSync(url ?? vocabularyUrl(name, dir));

/** `loadVocabulary(name, {onProgress, url})`: read and built at once; resolves to it. */
export const loadVocabulary = loadVocabularyNode(read);

/** What a call with `tokens: true` counts through: any shipped vocabulary, loaded when needed. */
export function nodeVocabularies() {
  return hostVocabularies((name) => loadVocabularySync("assemble", name, () => read(name)));
}
