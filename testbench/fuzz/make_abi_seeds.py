#!/usr/bin/env python3
"""Seeds and a dictionary for fuzz_mailbox and fuzz_wqe, from the ABI
(abi/hca.toml, the one source of the commands, WQE opcodes and layouts).

  make_abi_seeds.py ABI_TOML SEED_DIR DICT          (mailbox)
      one seed per command, its input mailbox the size of the struct its doc
      names, zeroed; the dictionary: every command op and typical values.
  make_abi_seeds.py --wqe ABI_TOML SEED_DIR DICT
      one 128-byte send WQE per opcode (signaled, one SGE of 64 bytes); the
      dictionary: every opcode's control word, the reserved L_Key, lengths."""
import os
import re
import struct
import sys
import tomllib


def fresh(seed_dir):
    os.makedirs(seed_dir, exist_ok=True)
    for f in os.listdir(seed_dir):
        os.unlink(os.path.join(seed_dir, f))


def write_dict(dict_out, words):
    with open(dict_out, "w") as f:
        for w in sorted(words):
            f.write('"' + "".join("\\x%02x" % b for b in w) + '"\n')


def wqe(abi, seed_dir, dict_out):
    ops = next(e for e in abi["enum"] if e["name"] == "wr_opcode")["values"]
    consts = {c["name"]: c["value"] for c in abi["const"]}
    st = next(s for s in abi["struct"] if s["name"] == "sq_wqe")
    sge_off = next(f["offset"] for f in st["fields"] if f["name"] == "sge")
    fresh(seed_dir)
    words = set()
    for name, value, _ in ops:
        ctrl = value | (1 << 8) | (1 << 16)  # SIGNALED, one SGE
        w = bytearray(st["size"])
        w[0:4] = struct.pack("<I", ctrl)
        w[sge_off + 8:sge_off + 12] = struct.pack("<I", 64)
        with open(os.path.join(seed_dir, name.lower()), "wb") as f:
            f.write(bytes(w))
        words.add(struct.pack("<I", ctrl))
    words.add(struct.pack("<I", consts["RESERVED_LKEY"]))
    for v in (0, 1, 64, 4096, 65536, 0xFFFFFFFF):
        words.add(struct.pack("<I", v))
    write_dict(dict_out, words)


def main():
    if sys.argv[1] == "--wqe":
        toml, seed_dir, dict_out = sys.argv[2:5]
        return wqe(tomllib.load(open(toml, "rb")), seed_dir, dict_out)
    toml, seed_dir, dict_out = sys.argv[1:4]
    abi = tomllib.load(open(toml, "rb"))
    structs = {s["name"]: s for s in abi["struct"]}
    ops = next(e for e in abi["enum"] if e["name"] == "cmd_op")["values"]
    fresh(seed_dir)
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
    write_dict(dict_out, words)


if __name__ == "__main__":
    main()
