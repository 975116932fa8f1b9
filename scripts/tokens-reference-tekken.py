#!/usr/bin/env python3
"""Adds Tekken (Mistral) reference counts to tokens/tests/reference-counts.json.

Run after scripts/tokens-reference.mjs. The reference is Mistral's own tokenizer library,
mistral-common (PyPI: `pip install mistral-common==1.13.1`), with the tekken_240911.json it ships
(tekken_240718.json gives the same counts on these texts); texts are encoded without BOS/EOS,
and special-token strings in them stay text, as mistral-common encodes a message's content.
"""
import json
import os
import sys

import mistral_common
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

path = os.path.join(os.path.dirname(__file__), "..", "tokens/tests/reference-counts.json")
ref = json.load(open(path, encoding="utf-8"))
data = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240911.json")
tekken = Tekkenizer.from_file(data)
for entry in ref["texts"]:
    entry["counts"]["mistral_v3"] = len(tekken.encode(entry["text"], bos=False, eos=False))
ref["references"]["mistral_v3"] = f"mistral-common {mistral_common.__version__}, tekken_240911.json"
with open(path, "w", encoding="utf-8") as f:
    json.dump(ref, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"tokens-reference-tekken: {len(ref['texts'])} texts", file=sys.stderr)
