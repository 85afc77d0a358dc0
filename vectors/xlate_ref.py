"""Reference model of the translation unit (key check + MPT/MTT translation).

An independent, deliberately plain implementation of the key check of
/work/shared/design/SEMANTICS.md ("The key check") as the translation unit
serves it: one request {tag, key, pd, va, len, rights, remote} in, a list of
response beats {tag, status, pa, len, last} out. It is the source of the
golden vectors (vectors/gen_xlate_vectors.py, format docs/xlate-vectors.md)
that the RTL and the C model must match beat for beat.

Clarity over speed: tables are dicts of decoded fields, every check is one
`if` that names the SEMANTICS.md rule it enforces, and arithmetic is on
Python's unbounded integers, so "va + len > 2^64" means exactly that.

Every constant and field position comes from abi/gen/hca_abi.py.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "abi", "gen"))
import hca_abi as abi  # noqa: E402  (generated from abi/hca.toml)

# ------------------------------------------------------------------ constants

ST = abi.XLATE_STATUS  # name -> value
STATUS_NAME = {v: k for k, v in abi.XLATE_STATUS.items()}
A = abi.ACCESS  # right name -> mask
REMOTE_RIGHTS = A["REMOTE_READ"] | A["REMOTE_WRITE"] | A["REMOTE_ATOMIC"]
ACCESS_BITS = abi.MPT_ENTRY_FIELDS["access"][1]

TWO64 = 1 << 64
MPT_WORDS = abi.MPT_ENTRY_SIZE // 4  # firmware-port staging words of an MPT entry
MTT_WORDS = abi.MTT_ENTRY_SIZE // 4
PD_MASK = (1 << abi.PD_BITS) - 1
INDEX_MASK = (1 << (abi.KEY_BITS - abi.KEY_INDEX_SHIFT)) - 1
MTT_PFN_SHIFT = abi.MTT_ENTRY_FIELDS["pfn"][0]  # pfn is a bus address >> 12

# Short names the vector generator and the model's tests write tables with.
LW, RR, RW, RA = A["LOCAL_WRITE"], A["REMOTE_READ"], A["REMOTE_WRITE"], A["REMOTE_ATOMIC"]
ALL = LW | RR | RW | RA
VALID, FREE = abi.MKEY_STATE_VALID, abi.MKEY_STATE_FREE
REGULAR, FAST_REG, INDIRECT, DMA = (abi.MKEY_KIND_REGULAR, abi.MKEY_KIND_FAST_REG,
                                    abi.MKEY_KIND_INDIRECT, abi.MKEY_KIND_DMA)
MTT, KLM = abi.MKEY_MODE_MTT, abi.MKEY_MODE_KLM

# Field widths of a request and of a beat (xu_engine.h pins; ABI widths).
REQ_WIDTHS = {
    "tag": abi.XU_TAG_BITS,
    "key": abi.KEY_BITS,
    "pd": abi.PD_BITS,
    "va": 64,
    "len": abi.XU_LEN_BITS,
    "rights": ACCESS_BITS,
    "remote": 1,
}

Req = collections.namedtuple("Req", "tag key pd va len rights remote")
Req.__doc__ = "One key-checked access; rights are abi.ACCESS masks, remote is 0/1."

Beat = collections.namedtuple("Beat", "tag status pa len last")
Beat.__doc__ = "One response beat: a physical segment, or the error of a failed check."


def make_key(index, key_byte):
    """key = {index[23:0], key_byte[7:0]} (SEMANTICS.md: Keys and states)."""
    if not 0 <= index <= INDEX_MASK or not 0 <= key_byte <= abi.KEY_BYTE_MASK:
        raise ValueError(f"key index {index:#x} / byte {key_byte:#x} out of range")
    return (index << abi.KEY_INDEX_SHIFT) | key_byte


def key_index(key):
    return key >> abi.KEY_INDEX_SHIFT


# ------------------------------------------------------------------ table words

def mpt_words(**fields):
    """The 10 firmware-port staging words of an MPT entry from its field values
    (names of abi.MPT_ENTRY_FIELDS: alloc, state, kind, mode, access, page_shift,
    key, pd, mtt_base, iova, length, mtt_count, ...). Missing fields are 0."""
    data = abi.pack(abi.MPT_ENTRY_FIELDS, abi.MPT_ENTRY_SIZE, **fields)
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(MPT_WORDS)]


def mtt_words(**fields):
    """[lo, hi] staging words of an MTT entry (fields present, peer, pfn)."""
    data = abi.pack(abi.MTT_ENTRY_FIELDS, abi.MTT_ENTRY_SIZE, **fields)
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(MTT_WORDS)]


def _words_to_bytes(words, count):
    if len(words) != count:
        raise ValueError(f"need {count} words, got {len(words)}")
    for w in words:
        if not 0 <= w < 1 << 32:
            raise ValueError(f"word {w:#x} is not 32 bits")
    return b"".join(w.to_bytes(4, "little") for w in words)


# ------------------------------------------------------------------ the unit

class XlateRef:
    """MPT + MTT + the key check. Sizes default to the ABI's."""

    def __init__(self, mpt_entries=abi.MPT_ENTRIES_DEFAULT, mtt_entries=abi.MTT_ENTRIES_DEFAULT):
        self.mpt_entries = mpt_entries
        self.mtt_entries = mtt_entries
        self.reset()

    def set_max_indirection(self, value):
        """fwp CONFIG.max_indirection: 1..MAX_INDIRECTION is taken, anything
        else refused (the setting keeps its value). Returns the setting."""
        if 1 <= value <= abi.MAX_INDIRECTION:
            self.max_indirection = value
        return self.max_indirection

    # -------------------------------------------------------------- firmware port

    def reset(self):
        """After reset every MPT slot is unallocated and every MTT entry absent."""
        self.mpt = {}  # index -> 40 bytes, as staged
        self.mtt = {}  # index -> 8 bytes
        self.max_indirection = abi.MAX_INDIRECTION

    def write_mpt(self, index, words):
        """WRITE_MPT: MPT[index] <- the 10 staging words (alloc = word0 bit 0)."""
        if not 0 <= index < self.mpt_entries:
            raise ValueError(f"MPT index {index:#x} beyond the table ({self.mpt_entries})")
        self.mpt[index] = _words_to_bytes(words, MPT_WORDS)

    def write_mtt(self, index, words):
        """WRITE_MTT: MTT[index] <- [lo, hi] (present = bit 0)."""
        if not 0 <= index < self.mtt_entries:
            raise ValueError(f"MTT index {index:#x} beyond the table ({self.mtt_entries})")
        self.mtt[index] = _words_to_bytes(words, MTT_WORDS)

    def invalidate(self, index):
        """INVALIDATE: MPT[index].state <- FREE, everything else kept."""
        if not 0 <= index < self.mpt_entries:
            raise ValueError(f"MPT index {index:#x} beyond the table ({self.mpt_entries})")
        raw = self.mpt.get(index, bytes(abi.MPT_ENTRY_SIZE))
        lsb, width = abi.MPT_ENTRY_FIELDS["state"]
        word = int.from_bytes(raw, "little")
        word &= ~(((1 << width) - 1) << lsb)
        word |= abi.MKEY_STATE_FREE << lsb
        self.mpt[index] = word.to_bytes(abi.MPT_ENTRY_SIZE, "little")

    def mpt_entry(self, index):
        """Decoded fields of MPT[index] (all 0, i.e. unallocated, if never written)."""
        return abi.unpack(abi.MPT_ENTRY_FIELDS, self.mpt.get(index, bytes(abi.MPT_ENTRY_SIZE)))

    def mtt_entry(self, index):
        return abi.unpack(abi.MTT_ENTRY_FIELDS, self.mtt.get(index, bytes(abi.MTT_ENTRY_SIZE)))

    # -------------------------------------------------------------- requests

    def translate(self, req):
        """-> list of Beat for one request, the last with last=1."""
        for name, width in REQ_WIDTHS.items():
            value = getattr(req, name)
            if not 0 <= value < 1 << width:
                raise ValueError(f"request {name}={value:#x} does not fit {width} bits")
        beats = []
        self._access(req, 0, beats)
        if beats[-1].status == ST["OK"]:
            beats[-1] = beats[-1]._replace(last=1)
        return beats

    def _access(self, req, depth, beats):
        """One access: an external request (depth 0) or a piece of a KLM walk
        at the depth of the indirect MR it came from. Appends its beats with
        last=0, or one error beat with last=1 that ends everything (False)."""
        status = self.check(req)
        if status != ST["OK"]:
            beats.append(Beat(req.tag, status, 0, 0, 1))  # failed check: one error beat
            return False
        if req.len == 0:
            # Passed rules 1-6: one empty beat, no page or KLM entry touched.
            beats.append(Beat(req.tag, ST["OK"], 0, 0, 0))
            return True
        if req.key == abi.RESERVED_LKEY:
            beats.append(Beat(req.tag, ST["OK"], req.va, req.len, 0))  # bus address, no split
            return True
        e = self.mpt_entry(key_index(req.key))
        if e["kind"] == abi.MKEY_KIND_DMA:
            beats.append(Beat(req.tag, ST["OK"], req.va, req.len, 0))  # DMA MR: no translation
            return True
        if e["mode"] == abi.MKEY_MODE_KLM:
            # Rule 7: a chain of more than max_indirection indirect MRs fails.
            if depth + 1 > self.max_indirection:
                beats.append(Beat(req.tag, ST["ERR_DEPTH"], 0, 0, 1))
                return False
            return self._walk_klm(req, e, depth + 1, beats)
        return self._walk_mtt(req, e, beats)

    def _walk_klm(self, req, e, depth, beats):
        """Rule 7: [va, va+len) of an indirect MR is the byte range va - iova of
        its entries put end to end; entry i is MTT[mtt_base + 2i] = addr and
        MTT[mtt_base + 2i + 1] = length | lkey << 32 (whole words, whatever
        their present bit). Each entry touched is checked by rules 1-6 as a
        local access with its own key in the same PD, needing LOCAL_WRITE when
        the access writes memory. Running off the list (index past mtt_count/2
        or past the MTT) with bytes left is ERR_MTT."""
        writes = A["LOCAL_WRITE"] | A["REMOTE_WRITE"] | A["REMOTE_ATOMIC"]
        rights = A["LOCAL_WRITE"] if req.rights & writes else 0
        off, left, i = req.va - e["iova"], req.len, 0
        while True:
            word = e["mtt_base"] + 2 * i + 1
            if 2 * i + 1 >= e["mtt_count"] or word >= self.mtt_entries:
                beats.append(Beat(req.tag, ST["ERR_MTT"], 0, 0, 1))
                return False
            lw = self._mtt_word(word)
            elen, ekey = lw & 0xffffffff, lw >> 32
            if off >= elen:  # the range starts past this entry
                off -= elen
                i += 1
                continue
            piece = min(elen - off, left)
            addr = self._mtt_word(word - 1)
            sub = Req(req.tag, ekey, req.pd, (addr + off) % TWO64, piece, rights, 0)
            if not self._access(sub, depth, beats):
                return False
            left -= piece
            if left == 0:
                return True
            off, i = 0, i + 1

    def _mtt_word(self, index):
        return int.from_bytes(self.mtt.get(index, bytes(abi.MTT_ENTRY_SIZE)), "little")

    def check(self, req):
        """Status of the key check, rules in order, first failure wins."""
        if req.key == abi.RESERVED_LKEY:
            return self._check_reserved(req)
        index = key_index(req.key)

        # Rule 1: the MPT slot K >> 8 is allocated (index 0 is never an MR).
        if index == 0 or index >= self.mpt_entries:
            return ST["ERR_SLOT"]
        e = self.mpt_entry(index)
        if not e["alloc"]:
            return ST["ERR_SLOT"]

        # Rule 2: the full 32-bit key equals K; a remote access needs an R_Key,
        # which a DMA MR never has and an MR without a remote right has not.
        if e["key"] != req.key:
            return ST["ERR_KEY"]
        if req.remote and (e["kind"] == abi.MKEY_KIND_DMA or not e["access"] & REMOTE_RIGHTS):
            return ST["ERR_KEY"]

        # Rule 3: state is VALID.
        if e["state"] != abi.MKEY_STATE_VALID:
            return ST["ERR_STATE"]

        # Rule 4: the MR's PD is P (the entry's PD field compared on PD_BITS).
        if e["pd"] & PD_MASK != req.pd:
            return ST["ERR_PD"]

        # Rule 5: the MR grants every right in R.
        if req.rights & ~e["access"]:
            return ST["ERR_RIGHTS"]

        # Rule 6: va >= iova, len <= length, va - iova <= length - len (never
        # overflows); a DMA MR is not range-checked, only kept below 2^64.
        if e["kind"] == abi.MKEY_KIND_DMA:
            if req.va + req.len > TWO64:
                return ST["ERR_BOUNDS"]
        elif not (req.va >= e["iova"] and req.len <= e["length"]
                  and req.va - e["iova"] <= e["length"] - req.len):
            return ST["ERR_BOUNDS"]

        # A DMA MR has no range to map onto a KLM list: a pair this unit does not serve.
        if e["mode"] == abi.MKEY_MODE_KLM and e["kind"] == abi.MKEY_KIND_DMA:
            return ST["ERR_MODE"]
        return ST["OK"]

    def _check_reserved(self, req):
        """The reserved L_Key: no MPT access, valid in every PD (rule 4 exempt),
        local only (no R_Key: rule 2), grants local read and write (rule 5),
        addresses are bus addresses that must stay below 2^64 (rule 6)."""
        if req.remote:
            return ST["ERR_KEY"]
        if req.rights & ~A["LOCAL_WRITE"]:
            return ST["ERR_RIGHTS"]
        if req.va + req.len > TWO64:
            return ST["ERR_BOUNDS"]
        return ST["OK"]

    def _walk_mtt(self, req, e, beats):
        """Split [va, va+len) at page boundaries and translate each page through
        MTT[mtt_base + page]; the first bad page ends the request with ERR_MTT."""
        ps = e["page_shift"]
        if not abi.PAGE_SHIFT_MIN <= ps <= abi.PAGE_SHIFT_MAX:
            beats.append(Beat(req.tag, ST["ERR_MTT"], 0, 0, 1))
            return False
        page_size = 1 << ps
        fbo = e["iova"] & (page_size - 1)  # first-byte offset of the MR in its first page
        rel = fbo + (req.va - e["iova"])
        page, off = rel >> ps, rel & (page_size - 1)
        remaining = req.len
        while remaining:
            mtt_index = e["mtt_base"] + page
            if page >= e["mtt_count"] or mtt_index >= self.mtt_entries:
                beats.append(Beat(req.tag, ST["ERR_MTT"], 0, 0, 1))
                return False
            m = self.mtt_entry(mtt_index)
            if not m["present"]:
                beats.append(Beat(req.tag, ST["ERR_MTT"], 0, 0, 1))
                return False
            seg = min(remaining, page_size - off)
            pa = ((m["pfn"] << MTT_PFN_SHIFT) + off) % TWO64
            remaining -= seg
            beats.append(Beat(req.tag, ST["OK"], pa, seg, 0))
            page, off = page + 1, 0
        return True


def format_beat(b):
    return f"tag={b.tag:#x} {STATUS_NAME.get(b.status, b.status)} pa={b.pa:#x} len={b.len:#x} last={b.last}"
