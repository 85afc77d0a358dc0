#!/usr/bin/env python3
"""A libFuzzer dictionary for the scenario parser, from the scenario corpus
itself (the one source of the format's words): every JSON key and string value
of vectors/**/*.jsonl, quoted as they appear, plus the JSON punctuation.
Usage: make_dict.py OUT FILE..."""
import json
import sys


def words(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(json.dumps(k))
            words(x, out)
    elif isinstance(v, list):
        for x in v:
            words(x, out)
    elif isinstance(v, str) and len(v) <= 40:
        out.add(json.dumps(v))


def main():
    out, files = sys.argv[1], sys.argv[2:]
    toks = {'"{"', '"}"', '"["', '"]"', '":"', '","', '"true"', '"false"', '"null"', '"0x"', '"\\x0a"', '"#"'}
    ws = set()
    for f in files:
        for line in open(f, encoding="utf-8", errors="replace"):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                words(json.loads(line), ws)
            except ValueError:
                pass  # the malformed corpus: its lines are seeds, not words
    with open(out, "w") as f:
        for t in sorted(toks):
            f.write(t + "\n")
        for w in sorted(ws):  # a JSON string as a dictionary entry: escape its quotes and backslashes
            f.write('"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"\n')


if __name__ == "__main__":
    main()
