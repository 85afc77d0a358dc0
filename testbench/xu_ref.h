// xu_ref.h — test helpers for the translation unit: a plain C++ reference of
// the key check (the third implementation, next to the RTL and the C model;
// vectors/xlate_ref.py is the fourth), MPT/MTT builders and formatters that
// make a failing assertion name the request and both beat sequences.
//
// The reference follows the contract text of SEMANTICS.md "The key check" as
// the translation unit serves it, with 128-bit arithmetic so that
// "va + len > 2^64" means exactly that. Header-only, for testbench/ only.
#ifndef XU_REF_H
#define XU_REF_H

#include <cinttypes>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "xu.h"

namespace xutest {

typedef unsigned __int128 u128;

/** One expected or observed response beat, without its cycle. */
struct Beat {
    uint8_t tag;
    uint8_t status;
    uint64_t pa;
    uint32_t len;
    uint8_t last;
    bool operator==(const Beat &o) const
    {
        return tag == o.tag && status == o.status && pa == o.pa && len == o.len && last == o.last;
    }
    bool operator!=(const Beat &o) const { return !(*this == o); }
};

inline Beat ToBeat(const xu_seg_t &s) { return Beat{s.tag, s.status, s.pa, s.len, s.last}; }

inline std::string Hex(uint64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%#" PRIx64, v);
    return b;
}

inline std::string RightsStr(unsigned r)
{
    if (!r)
        return "none";
    std::string s;
    for (unsigned b = 0; b < HCA_ACCESS_WIDTH; b++)
        if (r & (1u << b)) {
            if (!s.empty())
                s += "|";
            s += hca_access_bit_name(b);
        }
    if (r >> HCA_ACCESS_WIDTH)
        s += "|" + Hex(r >> HCA_ACCESS_WIDTH << HCA_ACCESS_WIDTH);
    return s;
}

inline std::string FmtReq(const xu_req_t &r)
{
    char b[256];
    snprintf(b, sizeof b, "req{tag=%#x key=%#x (index %#x byte %#x) pd=%#x va=%#" PRIx64 " len=%#x %s rights=%s}",
             r.tag, r.key, r.key >> HCA_KEY_INDEX_SHIFT, r.key & HCA_KEY_BYTE_MASK, r.pd, r.va, r.len,
             r.remote ? "remote" : "local", RightsStr(r.rights).c_str());
    return b;
}

inline std::string FmtBeat(const Beat &s)
{
    char b[160];
    snprintf(b, sizeof b, "{tag=%#x %s pa=%#" PRIx64 " len=%#x last=%u}", s.tag, xu_status_name(s.status), s.pa,
             s.len, s.last);
    return b;
}

inline std::string FmtSeg(const xu_seg_t &s)
{
    return FmtBeat(ToBeat(s)) + "@" + std::to_string((unsigned long long)s.cycle);
}

inline std::string FmtBeats(const std::vector<Beat> &v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? ", " : "") + FmtBeat(v[i]);
    return s + "]";
}

inline std::string FmtMpt(const hca_mpt_entry_t &e)
{
    char b[320];
    snprintf(b, sizeof b,
             "mpt{alloc=%u state=%s kind=%s mode=%s access=%s ps=%u key=%#x pd=%#x mtt_base=%#x mtt_count=%#x "
             "iova=%#" PRIx64 " length=%#" PRIx64 "}",
             hca_mpt_entry_get_alloc(&e), hca_mkey_state_name(hca_mpt_entry_get_state(&e)),
             hca_mkey_kind_name(hca_mpt_entry_get_kind(&e)), hca_mkey_mode_name(hca_mpt_entry_get_mode(&e)),
             RightsStr(hca_mpt_entry_get_access(&e)).c_str(), hca_mpt_entry_get_page_shift(&e), e.key, e.pd,
             e.mtt_base, e.mtt_count, e.iova, e.length);
    return b;
}

/** An MPT entry: allocated, VALID, MTT mode unless changed. */
inline hca_mpt_entry_t MakeMpt(unsigned kind, uint32_t key, uint32_t pd, unsigned access, uint64_t iova,
                               uint64_t length, unsigned page_shift, uint32_t mtt_base, uint32_t mtt_count)
{
    hca_mpt_entry_t e{};
    hca_mpt_entry_set_alloc(&e, 1);
    hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
    hca_mpt_entry_set_kind(&e, kind);
    hca_mpt_entry_set_mode(&e, kind == HCA_MKEY_KIND_INDIRECT ? HCA_MKEY_MODE_KLM : HCA_MKEY_MODE_MTT);
    hca_mpt_entry_set_access(&e, access);
    hca_mpt_entry_set_page_shift(&e, page_shift);
    e.key = key;
    e.pd = pd;
    e.iova = iova;
    e.length = length;
    e.mtt_base = mtt_base;
    e.mtt_count = mtt_count;
    return e;
}

inline hca_mtt_entry_t MakeMtt(uint64_t page_pa, bool present)
{
    hca_mtt_entry_t m{};
    hca_mtt_entry_set_pfn(&m, page_pa >> 12);
    hca_mtt_entry_set_present(&m, present);
    return m;
}

inline uint32_t Key(uint32_t index, uint32_t byte) { return index << HCA_KEY_INDEX_SHIFT | (byte & HCA_KEY_BYTE_MASK); }

/** Entry i of a KLM list: MTT[base + 2i] = addr, MTT[base + 2i + 1] = length | lkey << 32. */
struct Klm {
    uint64_t addr;
    uint32_t len;
    uint32_t lkey;
};

/** The reference: shadow tables and the key check, straight from the contract. */
struct Ref {
    uint32_t mpt_entries, mtt_entries;
    std::vector<hca_mpt_entry_t> mpt;
    std::vector<uint64_t> mtt;
    unsigned max_indirection = HCA_MAX_INDIRECTION; /**< fwp CONFIG */

    explicit Ref(uint32_t mpt_n = HCA_MPT_ENTRIES_DEFAULT, uint32_t mtt_n = HCA_MTT_ENTRIES_DEFAULT)
        : mpt_entries(mpt_n), mtt_entries(mtt_n), mpt(mpt_n), mtt(mtt_n)
    {
    }
    void Reset()
    {
        mpt.assign(mpt_entries, hca_mpt_entry_t{});
        mtt.assign(mtt_entries, 0);
    }
    void Invalidate(uint32_t i) { hca_mpt_entry_set_state(&mpt[i], HCA_MKEY_STATE_FREE); }

    uint8_t Check(const xu_req_t &r) const
    {
        const u128 end = (u128)r.va + r.len;
        const u128 two64 = (u128)1 << 64;
        if (r.key == HCA_RESERVED_LKEY) {
            if (r.remote)
                return HCA_XLATE_STATUS_ERR_KEY;
            if (r.rights & ~HCA_ACCESS_LOCAL_WRITE)
                return HCA_XLATE_STATUS_ERR_RIGHTS;
            if (end > two64)
                return HCA_XLATE_STATUS_ERR_BOUNDS;
            return HCA_XLATE_STATUS_OK;
        }
        const uint32_t idx = r.key >> HCA_KEY_INDEX_SHIFT;
        if (idx == 0 || idx >= mpt_entries || !hca_mpt_entry_get_alloc(&mpt[idx]))
            return HCA_XLATE_STATUS_ERR_SLOT;
        const hca_mpt_entry_t &e = mpt[idx];
        const unsigned kind = hca_mpt_entry_get_kind(&e), access = hca_mpt_entry_get_access(&e);
        const unsigned remote_bits = HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC;
        if (e.key != r.key)
            return HCA_XLATE_STATUS_ERR_KEY;
        if (r.remote && (kind == HCA_MKEY_KIND_DMA || !(access & remote_bits)))
            return HCA_XLATE_STATUS_ERR_KEY;
        if (hca_mpt_entry_get_state(&e) != HCA_MKEY_STATE_VALID)
            return HCA_XLATE_STATUS_ERR_STATE;
        if ((e.pd & 0xffffffu) != (r.pd & 0xffffffu))
            return HCA_XLATE_STATUS_ERR_PD;
        if (r.rights & ~access)
            return HCA_XLATE_STATUS_ERR_RIGHTS;
        if (kind == HCA_MKEY_KIND_DMA) {
            if (end > two64)
                return HCA_XLATE_STATUS_ERR_BOUNDS;
        } else if (!(r.va >= e.iova && end <= (u128)e.iova + e.length)) {
            return HCA_XLATE_STATUS_ERR_BOUNDS;
        }
        if (hca_mpt_entry_get_mode(&e) == HCA_MKEY_MODE_KLM && kind == HCA_MKEY_KIND_DMA)
            return HCA_XLATE_STATUS_ERR_MODE; // a DMA MR has no range to map onto a KLM list
        return HCA_XLATE_STATUS_OK;
    }

    /** True when r passes rules 1-6 on a KLM-mode MR with bytes to walk (rule 7). */
    bool IsKlm(const xu_req_t &r) const
    {
        if (r.key == HCA_RESERVED_LKEY || r.len == 0 || Check(r) != HCA_XLATE_STATUS_OK)
            return false;
        return hca_mpt_entry_get_mode(&mpt[r.key >> HCA_KEY_INDEX_SHIFT]) == HCA_MKEY_MODE_KLM;
    }

    /** Every beat of one request, in order. *aborts (when given) tells whether
     *  the walk ends on an absent MTT entry with bytes left for later pages:
     *  the case where the RTL's walker spends an extra cycle. *klm (when
     *  given): the request walks a KLM list (its timing is the KLM walker's). */
    std::vector<Beat> Translate(const xu_req_t &r, bool *aborts = nullptr, bool *klm = nullptr) const
    {
        if (aborts)
            *aborts = false;
        if (klm)
            *klm = false;
        std::vector<Beat> out;
        Access(r, 0, aborts, klm, &out);
        if (!out.empty() && out.back().status == HCA_XLATE_STATUS_OK)
            out.back().last = 1;
        return out;
    }

  private:
    /** One access (an external request, depth 0, or a KLM piece at the depth of
     *  the MR it came from): appends its beats with last = 0 on OK beats and
     *  last = 1 on an error beat, which ends everything; false after an error. */
    bool Access(const xu_req_t &r, unsigned depth, bool *aborts, bool *klm, std::vector<Beat> *out) const
    {
        const uint8_t st = Check(r);
        if (st != HCA_XLATE_STATUS_OK)
            return Fail(r, st, out);
        if (r.len == 0) {
            out->push_back(Beat{r.tag, HCA_XLATE_STATUS_OK, 0, 0, 0});
            return true;
        }
        if (r.key == HCA_RESERVED_LKEY) {
            out->push_back(Beat{r.tag, HCA_XLATE_STATUS_OK, r.va, r.len, 0});
            return true;
        }
        const hca_mpt_entry_t &e = mpt[r.key >> HCA_KEY_INDEX_SHIFT];
        if (hca_mpt_entry_get_kind(&e) == HCA_MKEY_KIND_DMA) {
            out->push_back(Beat{r.tag, HCA_XLATE_STATUS_OK, r.va, r.len, 0});
            return true;
        }
        if (hca_mpt_entry_get_mode(&e) == HCA_MKEY_MODE_KLM) {
            if (klm)
                *klm = true;
            if (depth + 1 > max_indirection)
                return Fail(r, HCA_XLATE_STATUS_ERR_DEPTH, out);
            return WalkKlm(r, e, depth + 1, aborts, klm, out);
        }
        return WalkMtt(r, e, aborts, out);
    }

    static bool Fail(const xu_req_t &r, uint8_t st, std::vector<Beat> *out)
    {
        out->push_back(Beat{r.tag, st, 0, 0, 1});
        return false;
    }

    /** Rule 7: [va, va+len) of the indirect MR e, at byte va - iova of the
     *  concatenated entries; each entry touched is checked as a local access
     *  with its own key in the same PD. Running off the list is ERR_MTT. */
    bool WalkKlm(const xu_req_t &r, const hca_mpt_entry_t &e, unsigned depth, bool *aborts, bool *klm,
                 std::vector<Beat> *out) const
    {
        const unsigned writes = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC;
        u128 off = r.va - e.iova; // rule 6 passed: va >= iova
        uint64_t left = r.len;
        for (uint64_t i = 0;; i++) {
            const u128 w1 = 2 * (u128)i + 1, mi = (u128)e.mtt_base + w1;
            if (w1 >= e.mtt_count || mi >= mtt_entries)
                return Fail(r, HCA_XLATE_STATUS_ERR_MTT, out);
            const uint64_t lw = mtt[(size_t)mi];
            const uint32_t elen = (uint32_t)lw, ekey = (uint32_t)(lw >> 32);
            if (off >= elen) { // the range starts past this entry
                off -= elen;
                continue;
            }
            const uint64_t piece = std::min<uint64_t>(elen - (uint64_t)off, left);
            xu_req_t sub{};
            sub.tag = r.tag;
            sub.key = ekey;
            sub.pd = r.pd & 0xffffffu;
            sub.va = mtt[(size_t)(mi - 1)] + (uint64_t)off; // mod 2^64
            sub.len = (uint32_t)piece;
            sub.rights = (uint8_t)((r.rights & writes) ? HCA_ACCESS_LOCAL_WRITE : 0);
            sub.remote = 0;
            if (!Access(sub, depth, aborts, klm, out))
                return false;
            left -= piece;
            off = 0;
            if (!left)
                return true;
        }
    }

    /** Split at page boundaries, each page through MTT[mtt_base + page]. */
    bool WalkMtt(const xu_req_t &r, const hca_mpt_entry_t &e, bool *aborts, std::vector<Beat> *out) const
    {
        const unsigned ps = hca_mpt_entry_get_page_shift(&e);
        if (ps < HCA_PAGE_SHIFT_MIN || ps > HCA_PAGE_SHIFT_MAX)
            return Fail(r, HCA_XLATE_STATUS_ERR_MTT, out);
        const u128 psize = (u128)1 << ps;
        u128 rel = (e.iova % psize) + (r.va - e.iova);
        u128 page = rel / psize, off = rel % psize;
        uint64_t remaining = r.len;
        while (remaining) {
            const u128 mi = e.mtt_base + page;
            if (page >= e.mtt_count || mi >= mtt_entries || !(mtt[(size_t)mi] & 1)) {
                if (aborts && page < e.mtt_count && mi < mtt_entries && remaining > psize - off)
                    *aborts = true;
                return Fail(r, HCA_XLATE_STATUS_ERR_MTT, out);
            }
            const uint64_t seg = (u128)remaining < psize - off ? remaining : (uint64_t)(psize - off);
            const uint64_t pa = (uint64_t)((mtt[(size_t)mi] >> 12 << 12) + off);
            remaining -= seg;
            out->push_back(Beat{r.tag, HCA_XLATE_STATUS_OK, pa, (uint32_t)seg, 0});
            page++;
            off = 0;
        }
        return true;
    }
};

} // namespace xutest

#endif // XU_REF_H
