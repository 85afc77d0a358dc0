#!/usr/bin/env python3
"""Seeds and a dictionary for fuzz_mailbox, from the ABI (abi/hca.toml, the one
source of the mailbox commands and their input layouts): one seed per
command, its input mailbox the size of the struct its doc names, zeroed; the
dictionary holds every command op and the field offsets' typical values.
Usage: make_mailbox_seeds.py ABI_TOML SEED_DIR DICT"""
import os
import re
import struct
import sys
import tomllib


def main():
    toml, seed_dir, dict_out = sys.argv[1:4]
    abi = tomllib.load(open(toml, "rb"))
    structs = {s["name"]: s for s in abi["struct"]}
    ops = next(e for e in abi["enum"] if e["name"] == "cmd_op")["values"]
    os.makedirs(seed_dir, exist_ok=True)
    for f in os.listdir(seed_dir):
        os.unlink(os.path.join(seed_dir, f))
    words = set()
    for name, value, doc in ops:
        m = re.search(r"in mailbox = (\w+)", doc)
        size = structs[m.group(1)]["size"] if m else 0
        # op, in_mod (1: a plausible number), flags (0: the mailbox buffer), length, bytes
        rec = struct.pack("<BIBB", value, 1, 0, size) + bytes(size)
        with open(os.path.join(seed_dir, name.lower()), "wb") as f:
            f.write(rec)
        words.add(struct.pack("<B", value))
    # Input modifiers and field values the firmware decides on.
    for v in (0, 1, 2, 0x100, 0xFFFFFFFF, 0x80000000):
        words.add(struct.pack("<I", v))
    for v in (12, 16, 21, 30):  # page shifts
        words.add(struct.pack("<I", v << 16))
    with open(dict_out, "w") as f:
        for w in sorted(words):
            f.write('"' + "".join("\\x%02x" % b for b in w) + '"\n')


if __name__ == "__main__":
    main()
