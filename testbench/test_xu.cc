// test_xu.cc — the translation unit (key checker + MPT + MTT) through the C
// harness (sim/harness/xu.h), on both engines.
//
// Suites:
//   Engines/Xu.*        every test runs on the RTL and on the model
//                       (value-parameterized by xu_engine_kind_t);
//   XuDiff.*            RTL against model (and both against the reference of
//                       testbench/xu_ref.h) on the same random stimulus;
//   XuModelOnly.*       what only the model supports (table sizes other than
//                       the RTL was built with).
// A failing check prints the request, the expected and the actual beats.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "xu.h"
#include "xu_ref.h"

using namespace xutest;

namespace {

constexpr uint64_t kTwo64Minus(uint64_t x) { return (uint64_t)0 - x; }

const char *KindName(xu_engine_kind_t k) { return k == XU_ENGINE_RTL ? "rtl" : "model"; }

/** Expected beat without a tag (the request's tag is filled in). */
struct E {
    uint8_t status;
    uint64_t pa;
    uint32_t len;
    uint8_t last;
};

constexpr uint8_t OK = HCA_XLATE_STATUS_OK;
constexpr uint8_t ERR_SLOT = HCA_XLATE_STATUS_ERR_SLOT;
constexpr uint8_t ERR_KEY = HCA_XLATE_STATUS_ERR_KEY;
constexpr uint8_t ERR_STATE = HCA_XLATE_STATUS_ERR_STATE;
constexpr uint8_t ERR_PD = HCA_XLATE_STATUS_ERR_PD;
constexpr uint8_t ERR_RIGHTS = HCA_XLATE_STATUS_ERR_RIGHTS;
constexpr uint8_t ERR_BOUNDS = HCA_XLATE_STATUS_ERR_BOUNDS;
constexpr uint8_t ERR_MTT = HCA_XLATE_STATUS_ERR_MTT;
constexpr uint8_t ERR_MODE = HCA_XLATE_STATUS_ERR_MODE;
constexpr uint64_t kKlmWord01 = 0x20 | (uint64_t)HCA_RESERVED_LKEY << 32;
constexpr uint8_t ERR_DEPTH = HCA_XLATE_STATUS_ERR_DEPTH;
constexpr unsigned LW = HCA_ACCESS_LOCAL_WRITE, RR = HCA_ACCESS_REMOTE_READ, RW = HCA_ACCESS_REMOTE_WRITE,
                   RA = HCA_ACCESS_REMOTE_ATOMIC, ALL = HCA_ACCESS_ALL;

/** Cycles a blocking wait in these tests allows before it fails. */
constexpr uint64_t kWait = 2000000;

/** Beats grouped per request (a request's beats end with last = 1). */
std::vector<std::vector<xu_seg_t>> GroupByRequest(const std::vector<xu_seg_t> &segs)
{
    std::vector<std::vector<xu_seg_t>> out;
    std::vector<xu_seg_t> cur;
    for (const xu_seg_t &s : segs) {
        cur.push_back(s);
        if (s.last) {
            out.push_back(cur);
            cur.clear();
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

std::vector<Beat> ToBeats(const std::vector<xu_seg_t> &v)
{
    std::vector<Beat> b;
    for (const xu_seg_t &s : v)
        b.push_back(ToBeat(s));
    return b;
}

/** Drain every collected beat. */
void CollectAll(xu_t *xu, std::vector<xu_seg_t> *out)
{
    xu_seg_t s;
    while (xu_collect(xu, &s))
        out->push_back(s);
}

size_t CountLast(const std::vector<xu_seg_t> &v, size_t from = 0)
{
    size_t n = 0;
    for (size_t i = from; i < v.size(); i++)
        n += v[i].last;
    return n;
}

// ---------------------------------------------------------------- fixture

class Xu : public ::testing::TestWithParam<xu_engine_kind_t> {
  protected:
    void SetUp() override
    {
        int rc = xu_create(&xu_, GetParam(), nullptr);
        ASSERT_EQ(0, rc) << "xu_create(" << KindName(GetParam()) << ") failed";
    }
    void TearDown() override { xu_destroy(xu_); }

    const char *Eng() const { return xu_engine_name(xu_); }

    void PutMpt(uint32_t idx, const hca_mpt_entry_t &e)
    {
        ASSERT_EQ(0, xu_write_mpt(xu_, idx, &e)) << "WRITE_MPT " << idx << " " << FmtMpt(e);
        ref_.mpt[idx] = e;
    }
    void PutMtt(uint32_t idx, uint64_t page_pa, bool present = true)
    {
        hca_mtt_entry_t m = MakeMtt(page_pa, present);
        ASSERT_EQ(0, xu_write_mtt(xu_, idx, &m)) << "WRITE_MTT " << idx;
        ref_.mtt[idx] = m.word;
    }
    /** MTT[idx] = word as it is (a KLM word). */
    void PutWord(uint32_t idx, uint64_t word)
    {
        hca_mtt_entry_t m{word};
        ASSERT_EQ(0, xu_write_mtt(xu_, idx, &m)) << "WRITE_MTT " << idx;
        ref_.mtt[idx] = word;
    }
    /** An indirect MR at idx as firmware/mm.c reg_indir writes it: entry i in
     *  MTT[base + 2i] = addr, MTT[base + 2i + 1] = len | lkey << 32; mode KLM,
     *  mtt_count = 2 x entries, length = the sum of the entries (or given). */
    void PutIndirect(uint32_t idx, uint32_t key, uint32_t pd, unsigned access, uint64_t iova, uint32_t base,
                     const std::vector<Klm> &list, uint64_t length = UINT64_MAX)
    {
        uint64_t sum = 0;
        for (size_t i = 0; i < list.size(); i++) {
            ASSERT_NO_FATAL_FAILURE(PutWord(base + 2 * (uint32_t)i, list[i].addr));
            ASSERT_NO_FATAL_FAILURE(PutWord(base + 2 * (uint32_t)i + 1, list[i].len | (uint64_t)list[i].lkey << 32));
            sum += list[i].len;
        }
        ASSERT_NO_FATAL_FAILURE(PutMpt(idx, MakeMpt(HCA_MKEY_KIND_INDIRECT, key, pd, access, iova,
                                                    length == UINT64_MAX ? sum : length, 12, base,
                                                    2 * (uint32_t)list.size())));
    }
    void SetMaxIndirection(unsigned v)
    {
        ASSERT_EQ(0, xu_fw_write(xu_, HCA_FWP_CONFIG, HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(v)));
        ref_.max_indirection = v;
    }
    /** MTT[base + i] = pa0 + i * stride, present, for i < n. */
    void MapPages(uint32_t base, uint32_t n, uint64_t pa0, uint64_t stride)
    {
        for (uint32_t i = 0; i < n; i++)
            ASSERT_NO_FATAL_FAILURE(PutMtt(base + i, pa0 + i * stride));
    }
    void Invalidate(uint32_t idx)
    {
        ASSERT_EQ(0, xu_invalidate(xu_, idx)) << "INVALIDATE " << idx;
        ref_.Invalidate(idx);
    }

    xu_req_t Req(uint32_t key, uint32_t pd, uint64_t va, uint32_t len, unsigned rights = 0, unsigned remote = 0)
    {
        xu_req_t r{};
        r.tag = (uint8_t)(tag_++);
        r.key = key;
        r.pd = pd;
        r.va = va;
        r.len = len;
        r.rights = (uint8_t)rights;
        r.remote = (uint8_t)remote;
        return r;
    }

    /** Submit one request on an idle unit and run until its last beat. */
    std::vector<xu_seg_t> Run(const xu_req_t &r)
    {
        std::vector<xu_seg_t> got;
        EXPECT_EQ(0, xu_submit(xu_, &r));
        for (uint64_t i = 0; i < kWait; i++) {
            xu_step(xu_, 1);
            xu_seg_t s;
            while (xu_collect(xu_, &s)) {
                got.push_back(s);
                if (s.last)
                    return got;
            }
        }
        ADD_FAILURE() << Eng() << ": no last beat for " << FmtReq(r) << " after " << kWait << " cycles; got "
                      << FmtBeats(ToBeats(got));
        return got;
    }

    /** Run r and check its beats are exactly exp (tags from r); the reference must agree too. */
    void Expect(const xu_req_t &r, std::vector<E> exp_e, const char *what)
    {
        std::vector<Beat> exp;
        for (const E &e : exp_e)
            exp.push_back(Beat{r.tag, e.status, e.pa, e.len, e.last});
        std::vector<Beat> got = ToBeats(Run(r));
        EXPECT_EQ(FmtBeats(exp), FmtBeats(got)) << Eng() << ", " << what << ":\n  " << FmtReq(r);
        EXPECT_EQ(FmtBeats(exp), FmtBeats(ref_.Translate(r)))
            << "the test's reference disagrees with the expectation, " << what << ":\n  " << FmtReq(r);
    }
    /** A failed check: one beat {status, 0, 0, last}. */
    void ExpectFail(const xu_req_t &r, uint8_t status, const char *what) { Expect(r, {{status, 0, 0, 1}}, what); }

    unsigned CmdResult()
    {
        uint32_t st = 0;
        EXPECT_EQ(0, xu_fw_read(xu_, HCA_FWP_STATUS, &st));
        return HCA_FWP_STATUS_RESULT_GET(st);
    }
    /** Run a command and wait for it; returns its result. */
    unsigned Cmd(unsigned op, uint32_t index)
    {
        unsigned res = 99;
        EXPECT_EQ(0, xu_cmd_start(xu_, op, index)) << hca_fwp_op_name(op);
        EXPECT_EQ(0, xu_cmd_wait(xu_, kWait, &res)) << hca_fwp_op_name(op);
        return res;
    }
    /** Requests accepted since reset (from the harness's accept history). */
    uint64_t Accepted()
    {
        uint64_t n = 0;
        while (xu_accept_cycle(xu_, n) != UINT64_MAX)
            n++;
        return n;
    }

    xu_t *xu_ = nullptr;
    Ref ref_;
    unsigned tag_ = 1;
};

// A standard 4 KiB-page MR at index 5 used by several tests.
constexpr uint32_t kIdx = 5, kByte = 0x5a, kPd = 7;
constexpr uint64_t kIova = 0x7f0000001000ull, kLen = 8 * 0x1000;
constexpr uint32_t kMttBase = 100;
constexpr uint64_t kPa0 = 0x100000000ull, kStride = 0x10000; // pages are not contiguous
inline uint64_t Pa(unsigned page) { return kPa0 + page * kStride; }

class XuMr : public Xu {
  protected:
    void SetUp() override
    {
        ASSERT_NO_FATAL_FAILURE(Xu::SetUp());
        ASSERT_NO_FATAL_FAILURE(PutMpt(kIdx, Std()));
        ASSERT_NO_FATAL_FAILURE(MapPages(kMttBase, 8, kPa0, kStride));
    }
    static hca_mpt_entry_t Std(unsigned access = ALL)
    {
        return MakeMpt(HCA_MKEY_KIND_REGULAR, Key(kIdx, kByte), kPd, access, kIova, kLen, 12, kMttBase, 8);
    }
    uint32_t K() const { return Key(kIdx, kByte); }
};

// ---------------------------------------------------------------- key check matrix

TEST_P(XuMr, AllRulesPassLocalAndRemote)
{
    Expect(Req(K(), kPd, kIova + 0x10, 0x20), {{OK, Pa(0) + 0x10, 0x20, 1}}, "local read");
    Expect(Req(K(), kPd, kIova + 0x10, 0x20, LW), {{OK, Pa(0) + 0x10, 0x20, 1}}, "local write");
    Expect(Req(K(), kPd, kIova + 0x1100, 0x20, RR, 1), {{OK, Pa(1) + 0x100, 0x20, 1}}, "remote read");
    Expect(Req(K(), kPd, kIova + 0x2200, 0x20, RW, 1), {{OK, Pa(2) + 0x200, 0x20, 1}}, "remote write");
    Expect(Req(K(), kPd, kIova + 0x7ff8, 8, RA, 1), {{OK, Pa(7) + 0xff8, 8, 1}}, "remote atomic");
    Expect(Req(K(), kPd, kIova, 0x10, RR | RW | RA | LW, 1), {{OK, Pa(0), 0x10, 1}}, "all rights");
    Expect(Req(K(), kPd, kIova, 0x10, 0, 1), {{OK, Pa(0), 0x10, 1}}, "remote, no rights needed");
}

TEST_P(XuMr, Rule1Slot)
{
    ExpectFail(Req(Key(0, kByte), kPd, kIova, 0x10), ERR_SLOT, "index 0 (not the reserved key)");
    ExpectFail(Req(Key(0, 0), kPd, kIova, 0x10), ERR_SLOT, "index 0 key byte 0");
    ExpectFail(Req(Key(HCA_MPT_ENTRIES_DEFAULT, kByte), kPd, kIova, 0x10), ERR_SLOT, "index == table size");
    ExpectFail(Req(Key(HCA_MPT_ENTRIES_DEFAULT + kIdx, kByte), kPd, kIova, 0x10), ERR_SLOT,
               "index beyond the table aliasing a valid slot");
    ExpectFail(Req(Key(0xffffff, kByte), kPd, kIova, 0x10), ERR_SLOT, "largest index");
    ExpectFail(Req(Key(kIdx + 1, kByte), kPd, kIova, 0x10), ERR_SLOT, "never written slot");
    hca_mpt_entry_t e = Std();
    hca_mpt_entry_set_alloc(&e, 0);
    e.key = Key(kIdx + 2, kByte);
    PutMpt(kIdx + 2, e);
    ExpectFail(Req(Key(kIdx + 2, kByte), kPd, kIova, 0x10), ERR_SLOT, "written with alloc = 0");
    ExpectFail(Req(Key(kIdx + 2, kByte), kPd, kIova, 0x10, RR, 1), ERR_SLOT, "written with alloc = 0, remote");
    // MPT[0] written as a valid MR: index 0 still is no MR, and the reserved
    // L_Key (index 0, byte 1) still never looks at the MPT
    hca_mpt_entry_t z = MakeMpt(HCA_MKEY_KIND_REGULAR, HCA_RESERVED_LKEY, kPd, LW, kIova, kLen, 12, kMttBase, 8);
    PutMpt(0, z);
    ExpectFail(Req(Key(0, 0), kPd, kIova, 0x10), ERR_SLOT, "index 0 written valid");
    Expect(Req(HCA_RESERVED_LKEY, kPd + 1, 0x1234, 0x10), {{OK, 0x1234, 0x10, 1}},
           "reserved L_Key with MPT[0] written: no MPT access");
    ExpectFail(Req(HCA_RESERVED_LKEY, kPd, kIova, 0x10, RR), ERR_RIGHTS, "reserved L_Key: its own rights");
}

TEST_P(XuMr, Rule2Key)
{
    ExpectFail(Req(Key(kIdx, kByte + 1), kPd, kIova, 0x10), ERR_KEY, "wrong key byte");
    ExpectFail(Req(Key(kIdx, kByte ^ 0x80), kPd, kIova, 0x10, RR, 1), ERR_KEY, "wrong key byte, remote");
    PutMpt(6, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(6, 1), kPd, LW, kIova, kLen, 12, kMttBase, 8));
    Expect(Req(Key(6, 1), kPd, kIova, 0x10, LW), {{OK, Pa(0), 0x10, 1}}, "local-only MR, local");
    ExpectFail(Req(Key(6, 1), kPd, kIova, 0x10, 0, 1), ERR_KEY, "remote to an MR without remote rights");
    ExpectFail(Req(Key(6, 1), kPd, kIova, 0x10, LW, 1), ERR_KEY, "remote write-local to an MR without remote rights");
    PutMpt(7, MakeMpt(HCA_MKEY_KIND_DMA, Key(7, 2), kPd, ALL, 0, 0, 12, 0, 0));
    ExpectFail(Req(Key(7, 2), kPd, 0x1000, 0x10, RR, 1), ERR_KEY, "remote to a DMA MR");
    ExpectFail(Req(Key(7, 2), kPd, 0x1000, 0x10, 0, 1), ERR_KEY, "remote to a DMA MR, no rights");
}

TEST_P(XuMr, Rule3State)
{
    hca_mpt_entry_t e = Std();
    hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_FREE);
    e.key = Key(9, 3);
    PutMpt(9, e);
    ExpectFail(Req(Key(9, 3), kPd, kIova, 0x10), ERR_STATE, "written FREE");
    ExpectFail(Req(Key(9, 3), kPd, kIova, 0x10, RW, 1), ERR_STATE, "written FREE, remote");
    Invalidate(kIdx);
    ExpectFail(Req(K(), kPd, kIova, 0x10), ERR_STATE, "after INVALIDATE");
    hca_mpt_entry_t rd{};
    ASSERT_EQ(0, xu_read_mpt(xu_, kIdx, &rd));
    hca_mpt_entry_t want = Std();
    hca_mpt_entry_set_state(&want, HCA_MKEY_STATE_FREE);
    EXPECT_EQ(FmtMpt(want), FmtMpt(rd)) << "INVALIDATE must change the state only";
}

TEST_P(XuMr, Rule4Pd)
{
    ExpectFail(Req(K(), kPd + 1, kIova, 0x10), ERR_PD, "other PD");
    ExpectFail(Req(K(), kPd | 0x800000, kIova, 0x10, RR, 1), ERR_PD, "other PD (bit 23), remote");
    Expect(Req(K(), kPd | 0xff000000u, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "request PD compared on 24 bits");
    hca_mpt_entry_t e = Std();
    e.pd = kPd | 0x5a000000u;
    e.key = Key(10, 1);
    PutMpt(10, e);
    Expect(Req(Key(10, 1), kPd, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "MR PD compared on 24 bits");
}

TEST_P(XuMr, Rule5RightsEachMissingRight)
{
    for (unsigned b = 0; b < HCA_ACCESS_WIDTH; b++) {
        const unsigned right = 1u << b;
        const uint32_t idx = 20 + b;
        PutMpt(idx, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(idx, 7), kPd, ALL & ~right, kIova, kLen, 12, kMttBase, 8));
        std::string what = std::string("missing ") + hca_access_bit_name(b);
        ExpectFail(Req(Key(idx, 7), kPd, kIova, 0x10, right), ERR_RIGHTS, (what + ", local").c_str());
        ExpectFail(Req(Key(idx, 7), kPd, kIova, 0x10, right, 1), ERR_RIGHTS, (what + ", remote").c_str());
        ExpectFail(Req(Key(idx, 7), kPd, kIova, 0x10, ALL, 1), ERR_RIGHTS, (what + ", all needed").c_str());
        Expect(Req(Key(idx, 7), kPd, kIova, 0x10, ALL & ~right, 1), {{OK, Pa(0), 0x10, 1}},
               (what + ", the others granted").c_str());
    }
    PutMpt(30, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(30, 7), kPd, 0, kIova, kLen, 12, kMttBase, 8));
    Expect(Req(Key(30, 7), kPd, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "no rights: local read still allowed");
    ExpectFail(Req(Key(30, 7), kPd, kIova, 0x10, LW), ERR_RIGHTS, "no rights: local write");
}

TEST_P(XuMr, Rule6Bounds)
{
    ExpectFail(Req(K(), kPd, kIova - 1, 0x10), ERR_BOUNDS, "starts below iova");
    ExpectFail(Req(K(), kPd, kIova - 0x1000, 0x2000), ERR_BOUNDS, "starts below iova, ends inside");
    ExpectFail(Req(K(), kPd, kIova + kLen - 0x10, 0x11), ERR_BOUNDS, "ends one byte past the end");
    ExpectFail(Req(K(), kPd, kIova + kLen, 1), ERR_BOUNDS, "starts at the end");
    ExpectFail(Req(K(), kPd, kIova, kLen + 1), ERR_BOUNDS, "len > length");
    ExpectFail(Req(K(), kPd, kIova + 0x10, 0xffffffffu), ERR_BOUNDS, "len = 2^32-1 > length");
    ExpectFail(Req(K(), kPd, 0, 0x10, RR, 1), ERR_BOUNDS, "va 0, remote");
    ExpectFail(Req(K(), kPd, ~0ull, 1), ERR_BOUNDS, "va 2^64-1");
    Expect(Req(K(), kPd, kIova + kLen - 1, 1), {{OK, Pa(7) + 0xfff, 1, 1}}, "last byte");
    std::vector<E> whole;
    for (unsigned p = 0; p < 8; p++)
        whole.push_back(E{OK, Pa(p), 0x1000, (uint8_t)(p == 7)});
    Expect(Req(K(), kPd, kIova, (uint32_t)kLen), whole, "the whole MR");
}

TEST_P(XuMr, FirstFailingRuleWins)
{
    hca_mpt_entry_t e = Std(LW);
    hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_FREE);
    hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_KLM);
    e.key = Key(11, 1);
    e.mtt_count = 0; // an empty KLM list
    PutMpt(11, e); // FREE, local-only, KLM
    ExpectFail(Req(Key(11, 2), kPd + 1, kIova - 1, 0x10, RR, 1), ERR_KEY, "rule 2 before 3..6");
    ExpectFail(Req(Key(11, 1), kPd + 1, kIova - 1, 0x10, RR, 1), ERR_KEY, "remote without R_Key before 3..6");
    ExpectFail(Req(Key(11, 1), kPd + 1, kIova - 1, 0x10, RR), ERR_STATE, "rule 3 before 4..6");
    hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
    PutMpt(11, e);
    ExpectFail(Req(Key(11, 1), kPd + 1, kIova - 1, 0x10, RR), ERR_PD, "rule 4 before 5..6");
    ExpectFail(Req(Key(11, 1), kPd, kIova - 1, 0x10, RR), ERR_RIGHTS, "rule 5 before 6");
    ExpectFail(Req(Key(11, 1), kPd, kIova - 1, 0x10, LW), ERR_BOUNDS, "rule 6 before the KLM list");
    ExpectFail(Req(Key(11, 1), kPd, kIova, 0x10, LW), ERR_MTT, "the KLM list (empty) last");
    hca_mpt_entry_set_alloc(&e, 0);
    PutMpt(11, e);
    ExpectFail(Req(Key(11, 2), kPd + 1, kIova - 1, 0x10, RR, 1), ERR_SLOT, "rule 1 first");
}

// ---------------------------------------------------------------- untranslated keys

TEST_P(Xu, ReservedLkey)
{
    const uint32_t rk = HCA_RESERVED_LKEY;
    Expect(Req(rk, 1, 0x12345678, 0x100), {{OK, 0x12345678, 0x100, 1}}, "local read, PD 1");
    Expect(Req(rk, 0xabcdef, 0x12345678, 0x100, LW), {{OK, 0x12345678, 0x100, 1}}, "local write, another PD");
    Expect(Req(rk, 0, 0xfff, 0x3002), {{OK, 0xfff, 0x3002, 1}}, "crossing pages: one beat, no split");
    Expect(Req(rk, 3, 0x1000, 0xffffffffu), {{OK, 0x1000, 0xffffffffu, 1}}, "2^32-1 bytes: one beat");
    ExpectFail(Req(rk, 1, 0x1000, 0x10, 0, 1), ERR_KEY, "remote: no R_Key");
    ExpectFail(Req(rk, 1, 0x1000, 0x10, RR, 1), ERR_KEY, "remote read");
    ExpectFail(Req(rk, 1, 0x1000, 0x10, RR), ERR_RIGHTS, "right beyond LOCAL_WRITE");
    ExpectFail(Req(rk, 1, 0x1000, 0x10, RA | LW), ERR_RIGHTS, "atomic");
    Expect(Req(rk, 1, kTwo64Minus(0x100), 0x100), {{OK, kTwo64Minus(0x100), 0x100, 1}}, "ends exactly at 2^64");
    ExpectFail(Req(rk, 1, kTwo64Minus(0x80), 0x100), ERR_BOUNDS, "wraps past 2^64");
    ExpectFail(Req(rk, 1, ~0ull, 2), ERR_BOUNDS, "last byte + 1 wraps");
    Expect(Req(rk, 1, ~0ull, 1), {{OK, ~0ull, 1, 1}}, "the last byte");
    Expect(Req(rk, 1, 0x5000, 0), {{OK, 0, 0, 1}}, "zero length");
    Expect(Req(rk, 1, ~0ull, 0), {{OK, 0, 0, 1}}, "zero length at 2^64-1");
    // index 0 with another key byte is not the reserved key
    ExpectFail(Req(Key(0, 2), 1, 0x1000, 0x10), ERR_SLOT, "index 0, key byte 2");
}

TEST_P(Xu, DmaKind)
{
    PutMpt(3, MakeMpt(HCA_MKEY_KIND_DMA, Key(3, 9), 4, LW, 0x1000, 0x1000, 12, 0, 0));
    const uint32_t k = Key(3, 9);
    Expect(Req(k, 4, 0xdead0000, 0x3000, LW), {{OK, 0xdead0000, 0x3000, 1}}, "bus address, not range-checked");
    Expect(Req(k, 4, 0, 1), {{OK, 0, 1, 1}}, "address 0");
    Expect(Req(k, 4, kTwo64Minus(0x1000), 0x1000), {{OK, kTwo64Minus(0x1000), 0x1000, 1}}, "ends exactly at 2^64");
    ExpectFail(Req(k, 4, kTwo64Minus(0x1000), 0x1001), ERR_BOUNDS, "wraps past 2^64");
    Expect(Req(k, 4, 0x7000, 0), {{OK, 0, 0, 1}}, "zero length");
    ExpectFail(Req(k, 5, 0x1000, 0x10), ERR_PD, "PD still checked");
    ExpectFail(Req(k, 4, 0x1000, 0x10, RR), ERR_RIGHTS, "rights still checked");
    ExpectFail(Req(k, 4, 0x1000, 0x10, LW, 1), ERR_KEY, "remote");
    ExpectFail(Req(Key(3, 8), 4, 0x1000, 0x10), ERR_KEY, "wrong key byte");
    Invalidate(3);
    ExpectFail(Req(k, 4, 0x1000, 0x10), ERR_STATE, "FREE");
}

// ---------------------------------------------------------------- translation

TEST_P(XuMr, PageSeams4K)
{
    Expect(Req(K(), kPd, kIova + 0xf00, 0x200), {{OK, Pa(0) + 0xf00, 0x100, 0}, {OK, Pa(1), 0x100, 1}},
           "crossing one seam");
    Expect(Req(K(), kPd, kIova + 0xf00, 0x1200),
           {{OK, Pa(0) + 0xf00, 0x100, 0}, {OK, Pa(1), 0x1000, 0}, {OK, Pa(2), 0x100, 1}}, "crossing two seams");
    Expect(Req(K(), kPd, kIova + 0x1000, 0x1000), {{OK, Pa(1), 0x1000, 1}}, "exactly one page");
    Expect(Req(K(), kPd, kIova + 0xfff, 2), {{OK, Pa(0) + 0xfff, 1, 0}, {OK, Pa(1), 1, 1}}, "2 bytes over a seam");
    std::vector<E> many;
    for (unsigned p = 1; p < 8; p++)
        many.push_back(E{OK, p == 1 ? Pa(1) + 0x10 : Pa(p), p == 1 ? 0xff0u : p == 7 ? 0x20u : 0x1000u,
                         (uint8_t)(p == 7)});
    Expect(Req(K(), kPd, kIova + 0x1010, 0x5ff0 + 0x20), many, "crossing many seams");
}

TEST_P(Xu, FirstPageOffsetFromIova)
{
    // iova 0x345 into its first page: page 0 covers [iova, iova + 0x1000 - 0x345)
    const uint64_t iova = 0x10000345ull;
    PutMpt(4, MakeMpt(HCA_MKEY_KIND_FAST_REG, Key(4, 1), 2, LW, iova, 0x3000, 12, 40, 4));
    MapPages(40, 4, 0x200000000ull, 0x1000 * 16);
    const uint64_t p0 = 0x200000000ull, p1 = p0 + 0x10000, p2 = p1 + 0x10000;
    Expect(Req(Key(4, 1), 2, iova, 0x10), {{OK, p0 + 0x345, 0x10, 1}}, "at iova");
    Expect(Req(Key(4, 1), 2, iova, 0x1000), {{OK, p0 + 0x345, 0xcbb, 0}, {OK, p1, 0x345, 1}}, "one page from iova");
    Expect(Req(Key(4, 1), 2, iova + 0xcbb, 0x1001), {{OK, p1, 0x1000, 0}, {OK, p2, 1, 1}}, "from the first seam");
}

TEST_P(Xu, PageSeams2M)
{
    const unsigned ps = 21;
    const uint64_t pg = 1ull << ps, iova = 0x400000000000ull + 0x1234;
    PutMpt(12, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(12, 0xee), 9, ALL, iova, 3 * pg - 0x1234, ps, 500, 3));
    const uint64_t pa[3] = {0x3000000000ull, 0x1000000000ull, 0x2000000000ull - pg};
    for (unsigned i = 0; i < 3; i++)
        PutMtt(500 + i, pa[i]);
    const uint32_t k = Key(12, 0xee);
    Expect(Req(k, 9, iova, 0x100), {{OK, pa[0] + 0x1234, 0x100, 1}}, "first page");
    Expect(Req(k, 9, iova + pg - 0x1234 - 0x10, 0x20, RW, 1), {{OK, pa[0] + pg - 0x10, 0x10, 0}, {OK, pa[1], 0x10, 1}},
           "2M seam");
    Expect(Req(k, 9, iova + pg - 0x1234 - 0x10, (uint32_t)(pg + 0x20)),
           {{OK, pa[0] + pg - 0x10, 0x10, 0}, {OK, pa[1], (uint32_t)pg, 0}, {OK, pa[2], 0x10, 1}}, "two 2M seams");
}

TEST_P(Xu, PageSeams1G)
{
    const unsigned ps = 30;
    const uint64_t pg = 1ull << ps, iova = 0x7fff00000000ull + 0x100;
    PutMpt(13, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(13, 0x11), 9, ALL, iova, 6 * pg - 0x100, ps, 600, 6));
    MapPages(600, 6, 0x40000000000ull, pg);
    const uint32_t k = Key(13, 0x11);
    auto pa = [&](unsigned i) { return 0x40000000000ull + i * pg; };
    Expect(Req(k, 9, iova + pg - 0x100 - 0x1000, 0x2000), {{OK, pa(0) + pg - 0x1000, 0x1000, 0}, {OK, pa(1), 0x1000, 1}},
           "1G seam");
    // the longest request: 2^32 - 1 bytes over five 1 GiB pages
    Expect(Req(k, 9, iova, 0xffffffffu),
           {{OK, pa(0) + 0x100, (uint32_t)(pg - 0x100), 0},
            {OK, pa(1), (uint32_t)pg, 0},
            {OK, pa(2), (uint32_t)pg, 0},
            {OK, pa(3), (uint32_t)pg, 0},
            {OK, pa(4), 0xff, 1}},
           "2^32-1 bytes");
}

TEST_P(Xu, RangeEndingAt2Pow64)
{
    const uint64_t iova = kTwo64Minus(0x4000);
    PutMpt(14, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(14, 1), 1, ALL, iova, 0x4000, 12, 700, 4));
    MapPages(700, 4, 0x900000000ull, 0x1000);
    const uint32_t k = Key(14, 1);
    Expect(Req(k, 1, kTwo64Minus(0x1800), 0x1800), {{OK, 0x900002800ull, 0x800, 0}, {OK, 0x900003000ull, 0x1000, 1}},
           "MR: ends exactly at 2^64");
    Expect(Req(k, 1, iova, 0x4000, RR, 1),
           {{OK, 0x900000000ull, 0x1000, 0},
            {OK, 0x900001000ull, 0x1000, 0},
            {OK, 0x900002000ull, 0x1000, 0},
            {OK, 0x900003000ull, 0x1000, 1}},
           "MR: the whole MR up to 2^64");
    ExpectFail(Req(k, 1, kTwo64Minus(0x800), 0x1000), ERR_BOUNDS, "MR: wraps past 2^64");
    ExpectFail(Req(k, 1, ~0ull, 2), ERR_BOUNDS, "MR: last byte + 1");
    Expect(Req(k, 1, 0ull - 0x4000 + 0x4000 - 1, 1), {{OK, 0x900003fffull, 1, 1}}, "MR: the last byte");
    Expect(Req(HCA_RESERVED_LKEY, 1, kTwo64Minus(0x10), 0x10), {{OK, kTwo64Minus(0x10), 0x10, 1}},
           "reserved: ends at 2^64");
    ExpectFail(Req(HCA_RESERVED_LKEY, 1, kTwo64Minus(0x10), 0x11), ERR_BOUNDS, "reserved: wraps");
}

TEST_P(XuMr, ZeroLength)
{
    Expect(Req(K(), kPd, kIova + 0x123, 0), {{OK, 0, 0, 1}}, "inside");
    Expect(Req(K(), kPd, kIova + kLen, 0), {{OK, 0, 0, 1}}, "at the end");
    Expect(Req(K(), kPd, kIova, 0, RR, 1), {{OK, 0, 0, 1}}, "remote");
    ExpectFail(Req(K(), kPd, kIova - 1, 0), ERR_BOUNDS, "below iova");
    ExpectFail(Req(K(), kPd, kIova + kLen + 1, 0), ERR_BOUNDS, "past the end");
    ExpectFail(Req(K(), kPd + 1, kIova, 0), ERR_PD, "other PD");
    ExpectFail(Req(Key(kIdx, 0), kPd, kIova, 0), ERR_KEY, "wrong key");
    // no page is touched: an absent page or a bad page size does not matter
    PutMpt(15, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(15, 1), kPd, ALL, kIova, kLen, 12, 3000, 8));
    Expect(Req(Key(15, 1), kPd, kIova, 0), {{OK, 0, 0, 1}}, "absent page");
    PutMpt(16, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(16, 1), kPd, ALL, kIova, kLen, 31, kMttBase, 8));
    Expect(Req(Key(16, 1), kPd, kIova, 0), {{OK, 0, 0, 1}}, "bad page size");
    PutMpt(17, MakeMpt(HCA_MKEY_KIND_INDIRECT, Key(17, 1), kPd, ALL, kIova, kLen, 12, kMttBase, 8));
    Expect(Req(Key(17, 1), kPd, kIova, 0), {{OK, 0, 0, 1}}, "KLM: no entry touched");
}

TEST_P(XuMr, ErrMtt)
{
    PutMtt(kMttBase + 3, Pa(3), false); // page 3 absent
    ExpectFail(Req(K(), kPd, kIova + 0x3000, 0x10), ERR_MTT, "first page absent");
    Expect(Req(K(), kPd, kIova + 0x2f00, 0x2000), {{OK, Pa(2) + 0xf00, 0x100, 0}, {ERR_MTT, 0, 0, 1}},
           "second page absent");
    Expect(Req(K(), kPd, kIova + 0x1800, 0x3000),
           {{OK, Pa(1) + 0x800, 0x800, 0}, {OK, Pa(2), 0x1000, 0}, {ERR_MTT, 0, 0, 1}}, "third page absent");
    // length covers 8 pages, the page list only 4: page >= mtt_count
    PutMpt(18, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(18, 1), kPd, ALL, kIova, kLen, 12, kMttBase + 4, 2));
    ExpectFail(Req(Key(18, 1), kPd, kIova + 0x2000, 0x10), ERR_MTT, "page == mtt_count");
    ExpectFail(Req(Key(18, 1), kPd, kIova + 0x7000, 0x10), ERR_MTT, "page > mtt_count");
    Expect(Req(Key(18, 1), kPd, kIova + 0x1ff0, 0x20), {{OK, Pa(5) + 0xff0, 0x10, 0}, {ERR_MTT, 0, 0, 1}},
           "crossing into page mtt_count");
    // MTT index beyond the table
    const uint32_t last = HCA_MTT_ENTRIES_DEFAULT - 1;
    PutMpt(19, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(19, 1), kPd, ALL, kIova, kLen, 12, last, 8));
    PutMtt(last, 0xabc000);
    Expect(Req(Key(19, 1), kPd, kIova + 0xff0, 0x20), {{OK, 0xabcff0, 0x10, 0}, {ERR_MTT, 0, 0, 1}},
           "mtt_base + page beyond the MTT");
    // page sizes outside 12..30
    for (unsigned ps : {0u, 11u, 31u}) {
        PutMpt(20, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(20, 1), kPd, ALL, kIova, kLen, ps, kMttBase, 8));
        ExpectFail(Req(Key(20, 1), kPd, kIova, 0x10), ERR_MTT, ("page_shift " + std::to_string(ps)).c_str());
    }
    // a pfn not aligned to the page size is used as it is: pa = (pfn << 12) + off
    PutMpt(21, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(21, 1), kPd, ALL, 0x200000 + 0x1000, 0x1000, 21, 800, 1));
    PutMtt(800, 0x5000);
    Expect(Req(Key(21, 1), kPd, 0x200000 + 0x1010, 0x10), {{OK, 0x5000 + 0x1010, 0x10, 1}}, "unaligned pfn");
}

TEST_P(Xu, ErrMode)
{
    // Only a DMA MR in KLM mode is a pair the unit does not serve; the mode,
    // not the kind, decides between a page walk and a KLM walk.
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_DMA, Key(24, 1), 1, ALL, 0, 0, 12, 0, 0);
    hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_KLM);
    PutMpt(24, e);
    ExpectFail(Req(Key(24, 1), 1, 0x1000, 0x10), ERR_MODE, "DMA MR in KLM mode");
    ExpectFail(Req(Key(24, 1), 1, 0x1000, 0), ERR_MODE, "DMA MR in KLM mode, zero length");
    ExpectFail(Req(Key(24, 2), 1, 0x1000, 0x10), ERR_KEY, "rules 1-6 first");
    PutMtt(0, 0x7000);
    e = MakeMpt(HCA_MKEY_KIND_INDIRECT, Key(25, 1), 1, ALL, 0x1000, 0x1000, 12, 0, 1);
    hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_MTT);
    PutMpt(25, e);
    Expect(Req(Key(25, 1), 1, 0x1010, 0x10), {{OK, 0x7010, 0x10, 1}}, "an indirect MR in MTT mode: a page walk");
    // a regular MR in KLM mode walks MTT[0..1] as one KLM entry {0x7001, 0x20 bytes, reserved L_Key}
    PutWord(1, kKlmWord01);
    e = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(23, 1), 1, ALL, 0x1000, 0x20, 12, 0, 2);
    hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_KLM);
    PutMpt(23, e);
    Expect(Req(Key(23, 1), 1, 0x1004, 0x10), {{OK, 0x7005, 0x10, 1}}, "a regular MR in KLM mode: a KLM walk");
}

// ---------------------------------------------------------------- KLM (indirect MRs, SEMANTICS.md rule 7)

/** Leaf MRs in PD kKPd that KLM entries point at, and helpers for lists. */
class XuKlm : public Xu {
  protected:
    static constexpr uint32_t kKPd = 7;
    // R: regular, 4 KiB pages, local only (entries are local accesses)
    static constexpr uint32_t kR = 40, kRBase = 1000;
    static constexpr uint64_t kRIova = 0x10000000ull, kRLen = 16 * 0x1000;
    // F: fast-reg, 8 KiB pages, first byte 0x100 into its page
    static constexpr uint32_t kF = 41, kFBase = 1100;
    static constexpr uint64_t kFIova = 0x20000100ull, kFLen = 4 * 0x2000 - 0x100;
    // D: DMA MR; RO: regular, no rights at all (local read only)
    static constexpr uint32_t kD = 42, kRO = 43, kROBase = 1200;
    static constexpr uint64_t kROIova = 0x30000000ull;
    static uint64_t RPa(unsigned i) { return 0x500000000ull + i * 0x10000ull; }
    static uint64_t FPa(unsigned i) { return 0x600000000ull + i * 0x20000ull; }
    static uint64_t ROPa(unsigned i) { return 0x700000000ull + i * 0x1000ull; }
    static uint32_t KR() { return Key(kR, 0x11); }
    static uint32_t KF() { return Key(kF, 0x22); }
    static uint32_t KD() { return Key(kD, 0x33); }
    static uint32_t KRO() { return Key(kRO, 0x44); }

    void SetUp() override
    {
        ASSERT_NO_FATAL_FAILURE(Xu::SetUp());
        ASSERT_NO_FATAL_FAILURE(PutMpt(kR, MakeMpt(HCA_MKEY_KIND_REGULAR, KR(), kKPd, LW, kRIova, kRLen, 12, kRBase, 16)));
        ASSERT_NO_FATAL_FAILURE(MapPages(kRBase, 16, RPa(0), 0x10000));
        ASSERT_NO_FATAL_FAILURE(PutMpt(kF, MakeMpt(HCA_MKEY_KIND_FAST_REG, KF(), kKPd, ALL, kFIova, kFLen, 13, kFBase, 4)));
        ASSERT_NO_FATAL_FAILURE(MapPages(kFBase, 4, FPa(0), 0x20000));
        ASSERT_NO_FATAL_FAILURE(PutMpt(kD, MakeMpt(HCA_MKEY_KIND_DMA, KD(), kKPd, LW, 0, 0, 12, 0, 0)));
        ASSERT_NO_FATAL_FAILURE(PutMpt(kRO, MakeMpt(HCA_MKEY_KIND_REGULAR, KRO(), kKPd, 0, kROIova, 0x4000, 12, kROBase, 4)));
        ASSERT_NO_FATAL_FAILURE(MapPages(kROBase, 4, ROPa(0), 0x1000));
    }
};

TEST_P(XuKlm, SingleEntry)
{
    const uint64_t iova = 0x9000000;
    ASSERT_NO_FATAL_FAILURE(PutIndirect(50, Key(50, 5), kKPd, ALL, iova, 2000, {{kRIova + 0x100, 0x200, KR()}}));
    const uint32_t k = Key(50, 5);
    Expect(Req(k, kKPd, iova, 0x200), {{OK, RPa(0) + 0x100, 0x200, 1}}, "the whole entry");
    Expect(Req(k, kKPd, iova + 0x10, 0x20, LW), {{OK, RPa(0) + 0x110, 0x20, 1}}, "local write, inside");
    Expect(Req(k, kKPd, iova, 0x10, RR, 1), {{OK, RPa(0) + 0x100, 0x10, 1}},
           "remote read through a local-only entry: the indirect MR's rights decide");
    Expect(Req(k, kKPd, iova + 0x1ff, 1, RW, 1), {{OK, RPa(0) + 0x2ff, 1, 1}}, "remote write, the last byte");
    Expect(Req(k, kKPd, iova + 0x80, 0), {{OK, 0, 0, 1}}, "zero length touches no entry");
}

TEST_P(XuKlm, ManyEntries)
{
    std::vector<Klm> list;
    std::vector<E> whole;
    for (unsigned i = 0; i < 6; i++) {
        const unsigned page = (i * 5) % 16;
        list.push_back({kRIova + page * 0x1000 + 0x50, 0x300, KR()});
        whole.push_back({OK, RPa(page) + 0x50, 0x300, (uint8_t)(i == 5)});
    }
    ASSERT_NO_FATAL_FAILURE(PutIndirect(51, Key(51, 1), kKPd, ALL, 0x40000000, 2100, list));
    Expect(Req(Key(51, 1), kKPd, 0x40000000, 6 * 0x300, LW), whole, "six entries, one beat each, in list order");
    Expect(Req(Key(51, 1), kKPd, 0x40000000 + 0x2f0, 0x20),
           {{OK, RPa(0) + 0x50 + 0x2f0, 0x10, 0}, {OK, RPa(5) + 0x50, 0x10, 1}}, "across an entry boundary");
}

TEST_P(XuKlm, ByteAlignedOddOffsetsAndSingleBytes)
{
    // 512-byte sectors at odd addresses (one across a page seam of R) and single-byte entries
    const std::vector<Klm> list = {{kRIova + 0x1e01, 0x200, KR()},
                                   {kRIova + 0x3333, 1, KR()},
                                   {kRIova + 0x5fff, 1, KR()},
                                   {kRIova + 0x0a07, 0x200, KR()}};
    const uint64_t iova = 0x123456789ull; // odd, unaligned
    ASSERT_NO_FATAL_FAILURE(PutIndirect(52, Key(52, 9), kKPd, ALL, iova, 2200, list));
    const uint32_t k = Key(52, 9);
    Expect(Req(k, kKPd, iova + 1, 0x1ff + 1 + 1 + 0x105, LW),
           {{OK, RPa(1) + 0xe02, 0x1fe, 0},
            {OK, RPa(2), 1, 0},
            {OK, RPa(3) + 0x333, 1, 0},
            {OK, RPa(5) + 0xfff, 1, 0},
            {OK, RPa(0) + 0xa07, 0x105, 1}},
           "odd offset, a sector split at its page seam, two single bytes");
    Expect(Req(k, kKPd, iova + 0x200, 1), {{OK, RPa(3) + 0x333, 1, 1}}, "a single-byte entry alone");
    Expect(Req(k, kKPd, iova + 0x201, 2), {{OK, RPa(5) + 0xfff, 1, 0}, {OK, RPa(0) + 0xa07, 1, 1}},
           "from a single byte into the next sector");
    Expect(Req(k, kKPd, iova + 0x401, 1), {{OK, RPa(0) + 0xc06, 1, 1}}, "the very last byte");
    ExpectFail(Req(k, kKPd, iova + 0x401, 2), ERR_BOUNDS, "one past the indirect MR (rule 6 on it)");
}

TEST_P(XuKlm, EntrySpansPagesOfItsMr)
{
    ASSERT_NO_FATAL_FAILURE(PutIndirect(53, Key(53, 1), kKPd, ALL, 0x50000000, 2300,
                                        {{kRIova + 0x800, 0x3000, KR()}, {kFIova, 0x4000, KF()}}));
    Expect(Req(Key(53, 1), kKPd, 0x50000000, 0x7000),
           {{OK, RPa(0) + 0x800, 0x800, 0},
            {OK, RPa(1), 0x1000, 0},
            {OK, RPa(2), 0x1000, 0},
            {OK, RPa(3), 0x800, 0},
            {OK, FPa(0) + 0x100, 0x1f00, 0},
            {OK, FPa(1), 0x2000, 0},
            {OK, FPa(2), 0x100, 1}},
           "4 KiB pages of R, then 8 KiB pages of F from its first-byte offset");
}

TEST_P(XuKlm, StartInTheMiddleOfTheList)
{
    std::vector<Klm> list;
    for (unsigned i = 0; i < 5; i++)
        list.push_back({kRIova + i * 0x1000, 0x100, KR()});
    ASSERT_NO_FATAL_FAILURE(PutIndirect(54, Key(54, 1), kKPd, ALL, 0x60000000, 2400, list));
    const uint32_t k = Key(54, 1);
    Expect(Req(k, kKPd, 0x60000000 + 0x250, 0x100), {{OK, RPa(2) + 0x50, 0xb0, 0}, {OK, RPa(3), 0x50, 1}},
           "two entries skipped");
    Expect(Req(k, kKPd, 0x60000000 + 0x400, 0x100), {{OK, RPa(4), 0x100, 1}}, "the last entry");
    Expect(Req(k, kKPd, 0x60000000 + 0x4ff, 1), {{OK, RPa(4) + 0xff, 1, 1}}, "the last byte");
}

TEST_P(XuKlm, MixedEntryKinds)
{
    // a nested indirect MR (depth 2) holding one F entry
    ASSERT_NO_FATAL_FAILURE(PutIndirect(56, Key(56, 6), kKPd, LW, 0x7000, 2600, {{kFIova + 0x1f00, 0x300, KF()}}));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(55, Key(55, 5), kKPd, ALL, 0x80000000, 2500,
                                        {{kRIova + 0x10, 0x20, KR()},
                                         {kFIova + 0x1ef0, 0x20, KF()},
                                         {0xabc000, 0x40, KD()},
                                         {0xdef001, 0x21, HCA_RESERVED_LKEY},
                                         {0x7000 + 0x80, 0x280, Key(56, 6)}}));
    Expect(Req(Key(55, 5), kKPd, 0x80000000, 0x20 + 0x20 + 0x40 + 0x21 + 0x280, LW),
           {{OK, RPa(0) + 0x10, 0x20, 0},
            {OK, FPa(0) + 0x1ff0, 0x10, 0},
            {OK, FPa(1), 0x10, 0},
            {OK, 0xabc000, 0x40, 0},
            {OK, 0xdef001, 0x21, 0},
            {OK, FPa(1) + 0x80, 0x280, 1}},
           "regular, fast-reg across its seam, DMA, reserved L_Key, nested indirect");
    Expect(Req(Key(55, 5), kKPd, 0x80000000 + 0x60, 0x80, RR, 1),
           {{OK, 0xabc000 + 0x20, 0x20, 0}, {OK, 0xdef001, 0x21, 0}, {OK, FPa(1) + 0x80, 0x3f, 1}},
           "remote read: DMA MR and reserved L_Key entries are local accesses");
}

TEST_P(XuKlm, EveryEntryFailure)
{
    // a FREE fast-reg MR and an MR of another PD
    hca_mpt_entry_t fr = MakeMpt(HCA_MKEY_KIND_FAST_REG, Key(44, 4), kKPd, ALL, kRIova, kRLen, 12, kRBase, 16);
    hca_mpt_entry_set_state(&fr, HCA_MKEY_STATE_FREE);
    PutMpt(44, fr);
    PutMpt(45, MakeMpt(HCA_MKEY_KIND_REGULAR, Key(45, 5), kKPd + 1, ALL, kRIova, kRLen, 12, kRBase, 16));
    struct Case {
        Klm bad;
        unsigned rights, remote;
        uint8_t status;
        const char *what;
    } cases[] = {
        {{kRIova, 0x100, Key(60, 1)}, 0, 0, ERR_SLOT, "slot never written"},
        {{kRIova, 0x100, Key(kR, 0x12)}, 0, 0, ERR_KEY, "wrong key byte"},
        {{kRIova, 0x100, Key(44, 4)}, 0, 0, ERR_STATE, "FREE fast-reg MR"},
        {{kRIova, 0x100, Key(45, 5)}, 0, 0, ERR_PD, "MR of another PD"},
        {{kROIova, 0x100, KRO()}, LW, 0, ERR_RIGHTS, "local write, no LOCAL_WRITE on the entry"},
        {{kROIova, 0x100, KRO()}, RW, 1, ERR_RIGHTS, "remote write needs LOCAL_WRITE on the entry"},
        {{kROIova, 0x100, KRO()}, RA, 1, ERR_RIGHTS, "remote atomic needs LOCAL_WRITE on the entry"},
        {{kRIova + kRLen - 0x8, 0x100, KR()}, 0, 0, ERR_BOUNDS, "entry past the end of its MR"},
        {{kRIova - 1, 0x100, KR()}, 0, 0, ERR_BOUNDS, "entry below its MR"},
        {{kRIova, 0x100, Key(kD, 0x33)}, 0, 0, OK, "(DMA entry: passes)"},
    };
    uint32_t idx = 70;
    for (const Case &c : cases) {
        ASSERT_NO_FATAL_FAILURE(
            PutIndirect(idx, Key(idx, 1), kKPd, ALL, 0x90000000, 3000 + 4 * idx, {{kRIova + 0x40, 0x100, KR()}, c.bad}));
        const uint32_t k = Key(idx, 1);
        if (c.status == OK) {
            Expect(Req(k, kKPd, 0x90000000 + 0xf0, 0x20, c.rights, c.remote),
                   {{OK, RPa(0) + 0x130, 0x10, 0}, {OK, kRIova, 0x10, 1}}, c.what);
        } else {
            Expect(Req(k, kKPd, 0x90000000 + 0xf0, 0x20, c.rights, c.remote),
                   {{OK, RPa(0) + 0x130, 0x10, 0}, {c.status, 0, 0, 1}}, c.what);
            ExpectFail(Req(k, kKPd, 0x90000000 + 0x100, 0x10, c.rights, c.remote), c.status, c.what);
            Expect(Req(k, kKPd, 0x90000000, 0x100, c.rights, c.remote), {{OK, RPa(0) + 0x40, 0x100, 1}},
                   "the good entry alone");
        }
        idx++;
    }
    // read-only entry: a remote read through the same list passes
    ASSERT_NO_FATAL_FAILURE(PutIndirect(idx, Key(idx, 1), kKPd, ALL, 0x90000000, 3000 + 4 * idx, {{kROIova + 0x10, 0x100, KRO()}}));
    Expect(Req(Key(idx, 1), kKPd, 0x90000000, 0x100, RR, 1), {{OK, ROPa(0) + 0x10, 0x100, 1}},
           "remote read through a read-only entry");
    Expect(Req(Key(idx, 1), kKPd, 0x90000000, 0x100), {{OK, ROPa(0) + 0x10, 0x100, 1}}, "local read");
    ExpectFail(Req(Key(idx, 1), kKPd, 0x90000000, 0x100, RW, 1), ERR_RIGHTS, "remote write");
    // an absent page of the entry's MR
    PutMtt(kRBase + 2, RPa(2), false);
    ASSERT_NO_FATAL_FAILURE(PutIndirect(idx + 1, Key(idx + 1, 1), kKPd, ALL, 0x90000000, 3000 + 4 * (idx + 1),
                                        {{kRIova + 0x1f00, 0x1000, KR()}, {kRIova, 0x10, KR()}}));
    Expect(Req(Key(idx + 1, 1), kKPd, 0x90000000, 0x1010), {{OK, RPa(1) + 0xf00, 0x100, 0}, {ERR_MTT, 0, 0, 1}},
           "an absent page ends the walk");
}

TEST_P(XuKlm, IndirectMrOwnRules)
{
    const uint64_t iova = 0xa0000000;
    const std::vector<Klm> list = {{kRIova, 0x1000, KR()}};
    ASSERT_NO_FATAL_FAILURE(PutIndirect(57, Key(57, 7), kKPd, LW, iova, 2700, list)); // local only
    ExpectFail(Req(Key(57, 7), kKPd, iova, 0x10, 0, 1), ERR_KEY, "remote to an indirect MR without remote rights");
    Expect(Req(Key(57, 7), kKPd, iova, 0x10, LW), {{OK, RPa(0), 0x10, 1}}, "local write");
    ASSERT_NO_FATAL_FAILURE(PutIndirect(58, Key(58, 8), kKPd, LW | RR, iova, 2800, list));
    Expect(Req(Key(58, 8), kKPd, iova + 0x20, 0x10, RR, 1), {{OK, RPa(0) + 0x20, 0x10, 1}}, "remote read granted");
    ExpectFail(Req(Key(58, 8), kKPd, iova, 0x10, RW, 1), ERR_RIGHTS, "remote write not granted");
    ExpectFail(Req(Key(58, 9), kKPd, iova, 0x10, RR, 1), ERR_KEY, "wrong key byte");
    ExpectFail(Req(Key(58, 8), kKPd + 1, iova, 0x10, RR, 1), ERR_PD, "other PD");
    ExpectFail(Req(Key(58, 8), kKPd, iova - 1, 0x10), ERR_BOUNDS, "below iova");
    ExpectFail(Req(Key(58, 8), kKPd, iova + 0xff8, 0x10), ERR_BOUNDS, "past length");
    ExpectFail(Req(Key(59, 8), kKPd, iova, 0x10), ERR_SLOT, "no such slot");
    Invalidate(58);
    ExpectFail(Req(Key(58, 8), kKPd, iova, 0x10, RR, 1), ERR_STATE, "indirect MR invalidated");
}

TEST_P(XuKlm, RunsOffTheList)
{
    // MPT length longer than the entries: the walk runs off the list
    ASSERT_NO_FATAL_FAILURE(PutIndirect(61, Key(61, 1), kKPd, ALL, 0xb0000000, 2900,
                                        {{kRIova, 0x100, KR()}, {kRIova + 0x1000, 0x100, KR()}}, 0x400));
    Expect(Req(Key(61, 1), kKPd, 0xb0000000 + 0x180, 0x100), {{OK, RPa(1) + 0x80, 0x80, 0}, {ERR_MTT, 0, 0, 1}},
           "lengths do not cover the range");
    ExpectFail(Req(Key(61, 1), kKPd, 0xb0000000 + 0x200, 0x10), ERR_MTT, "starts past every entry");
    // a list at the end of the MTT
    const uint32_t top = HCA_MTT_ENTRIES_DEFAULT - 2;
    ASSERT_NO_FATAL_FAILURE(PutIndirect(62, Key(62, 1), kKPd, ALL, 0xb0000000, top, {{kRIova, 0x100, KR()}}, 0x200));
    hca_mpt_entry_t e = ref_.mpt[62];
    e.mtt_count = 6; // claims entries beyond the MTT
    PutMpt(62, e);
    Expect(Req(Key(62, 1), kKPd, 0xb0000000 + 0xf0, 0x20), {{OK, RPa(0) + 0xf0, 0x10, 0}, {ERR_MTT, 0, 0, 1}},
           "entry index beyond the MTT");
    // an odd mtt_count: the half entry does not count
    e = ref_.mpt[61];
    e.mtt_count = 3;
    PutMpt(61, e);
    Expect(Req(Key(61, 1), kKPd, 0xb0000000 + 0xf0, 0x20), {{OK, RPa(0) + 0xf0, 0x10, 0}, {ERR_MTT, 0, 0, 1}},
           "mtt_count 3 holds one entry");
}

TEST_P(XuKlm, NestingAtAndBeyondMaxIndirection)
{
    // chain: I80 -> I81 -> I82 -> I83 -> R; I79 -> I80 (five deep)
    ASSERT_NO_FATAL_FAILURE(PutIndirect(83, Key(83, 3), kKPd, ALL, 0xc3000000, 3700, {{kRIova + 0x20, 0x100, KR()}}));
    for (uint32_t i = 82; i >= 79; i--)
        ASSERT_NO_FATAL_FAILURE(PutIndirect(i, Key(i, 3), kKPd, ALL, 0xc0000000 + (i - 80) * 0x1000000ull,
                                            3800 + 10 * (i - 79), {{0xc0000000 + (i - 79) * 0x1000000ull, 0x100,
                                                                    Key(i + 1, 3)}}));
    auto depth_req = [&](uint32_t idx) { return Req(Key(idx, 3), kKPd, 0xc0000000 + (idx - 80) * 0x1000000ull + 0x8, 0x10); };
    const std::vector<E> ok = {{OK, RPa(0) + 0x28, 0x10, 1}};
    EXPECT_EQ(4u, ref_.max_indirection);
    Expect(depth_req(80), ok, "four indirect MRs: at the default max_indirection");
    ExpectFail(depth_req(79), ERR_DEPTH, "five: beyond it");
    ASSERT_NO_FATAL_FAILURE(SetMaxIndirection(2));
    Expect(depth_req(82), ok, "two at max_indirection 2");
    ExpectFail(depth_req(81), ERR_DEPTH, "three at max_indirection 2");
    ASSERT_NO_FATAL_FAILURE(SetMaxIndirection(1));
    Expect(depth_req(83), ok, "one at max_indirection 1");
    ExpectFail(depth_req(82), ERR_DEPTH, "two at max_indirection 1");
    // OK beats first, then the too-deep entry
    ASSERT_NO_FATAL_FAILURE(PutIndirect(84, Key(84, 4), kKPd, ALL, 0xd0000000, 3900,
                                        {{kRIova, 0x10, KR()}, {0xc3000000, 0x10, Key(83, 3)}}));
    Expect(Req(Key(84, 4), kKPd, 0xd0000000, 0x20), {{OK, RPa(0), 0x10, 0}, {ERR_DEPTH, 0, 0, 1}},
           "a nested entry beyond max_indirection 1 after a good one");
    ASSERT_NO_FATAL_FAILURE(SetMaxIndirection(4));
    Expect(Req(Key(84, 4), kKPd, 0xd0000000, 0x20), {{OK, RPa(0), 0x10, 0}, {OK, RPa(0) + 0x20, 0x10, 1}},
           "the same at max_indirection 4");
}

TEST_P(XuKlm, MaxIndirectionRegister)
{
    uint32_t v = 0;
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_CONFIG, &v));
    EXPECT_EQ((unsigned)HCA_MAX_INDIRECTION, HCA_FWP_CONFIG_MAX_INDIRECTION_GET(v)) << "reset value";
    EXPECT_EQ(0u, v & ~HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(7)) << "other bits read 0";
    struct {
        uint32_t w, expect;
    } steps[] = {{2, 2}, {0, 2}, {5, 2}, {7, 2}, {1, 1}, {0xfffffffbu, 3}, {0xfffffff8u, 3}, {4, 4}};
    for (auto st : steps) {
        ASSERT_EQ(0, xu_fw_write(xu_, HCA_FWP_CONFIG, st.w));
        ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_CONFIG, &v));
        EXPECT_EQ(st.expect, v) << "after writing " << Hex(st.w) << ": 1..MAX_INDIRECTION taken, the rest refused";
    }
    ASSERT_EQ(0, xu_fw_write(xu_, HCA_FWP_CONFIG, 1));
    xu_reset(xu_);
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_CONFIG, &v));
    EXPECT_EQ((unsigned)HCA_MAX_INDIRECTION, v) << "reset";
}

/** The cost documented in rtl/xlate_unit.sv: first beat 4 + 4 x levels + skipped
 *  entries after the accept; 5 cycles from an entry's last beat to the next
 *  entry's first; pages of one entry one per cycle. */
TEST_P(XuKlm, LatencyAndCost)
{
    std::vector<Klm> list;
    for (unsigned i = 0; i < 8; i++)
        list.push_back({kRIova + i * 0x1000 + 0x800, 0x1000, KR()}); // two pages each
    ASSERT_NO_FATAL_FAILURE(PutIndirect(90, Key(90, 1), kKPd, ALL, 0xe0000000, 4000, list));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(91, Key(91, 1), kKPd, ALL, 0xe1000000, 4100, {{0xe0000000, 0x8000, Key(90, 1)}}));
    struct Case {
        uint32_t key;
        uint64_t va;
        uint32_t len;
        unsigned levels, skipped;
    } cases[] = {{Key(90, 1), 0xe0000000, 0x10, 1, 0},
                 {Key(90, 1), 0xe0000000 + 3 * 0x1000, 0x10, 1, 3},
                 {Key(90, 1), 0xe0000000 + 7 * 0x1000 + 0xfff, 1, 1, 7},
                 {Key(91, 1), 0xe1000000, 0x10, 2, 0},
                 {Key(91, 1), 0xe1000000 + 2 * 0x1000, 0x10, 2, 2}};
    for (const Case &c : cases) {
        const uint64_t n = Accepted();
        const xu_req_t r = Req(c.key, kKPd, c.va, c.len);
        std::vector<xu_seg_t> got = Run(r);
        const uint64_t acc = xu_accept_cycle(xu_, n);
        ASSERT_EQ(1u, got.size()) << FmtReq(r);
        EXPECT_EQ(acc + HCA_XU_LATENCY + 2 * c.levels + c.skipped, got[0].cycle)
            << Eng() << ": " << FmtReq(r) << " levels " << c.levels << " skipped " << c.skipped;
        xu_step(xu_, 10);
    }
    // The list port reads a whole entry per cycle, beside the page walker's
    // MTT reads: the next entry is read as a piece is sent and its piece
    // follows it into S1 at once. Two pages per entry: the 16 beats back to
    // back (the page walker's rate).
    {
        const uint64_t n = Accepted();
        const xu_req_t r = Req(Key(90, 1), kKPd, 0xe0000000, 0x8000);
        std::vector<xu_seg_t> got = Run(r);
        ASSERT_EQ(16u, got.size());
        const uint64_t acc = xu_accept_cycle(xu_, n);
        EXPECT_EQ(acc + HCA_XU_LATENCY + 2, got[0].cycle);
        for (size_t i = 1; i < got.size(); i++)
            EXPECT_EQ(got[i - 1].cycle + 1, got[i].cycle) << Eng() << ": beat " << i << " " << FmtSeg(got[i]);
        xu_step(xu_, 10);
    }
    // Single-page entries, and entries of the reserved L_Key (no page read):
    // one segment per cycle too; through a second level (an outer entry over
    // the single-page list) the same once the first beat is out.
    std::vector<Klm> one, res;
    for (unsigned i = 0; i < 8; i++) {
        one.push_back({kRIova + i * 0x1000, 0x1000, KR()});
        res.push_back({0x700000 + i * 0x10000, 0x100, HCA_RESERVED_LKEY});
    }
    ASSERT_NO_FATAL_FAILURE(PutIndirect(93, Key(93, 1), kKPd, ALL, 0xe2000000, 4200, one));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(94, Key(94, 1), kKPd, ALL, 0xe3000000, 4300, res));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(95, Key(95, 1), kKPd, ALL, 0xe4000000, 4400, {{0xe2000000, 0x8000, Key(93, 1)}}));
    for (int k = 0; k < 3; k++) {
        const uint64_t n = Accepted();
        const xu_req_t r = k == 2 ? Req(Key(95, 1), kKPd, 0xe4000000, 0x8000)
                         : k    ? Req(Key(94, 1), kKPd, 0xe3000000, 0x800)
                                : Req(Key(93, 1), kKPd, 0xe2000000, 0x8000);
        std::vector<xu_seg_t> got = Run(r);
        ASSERT_EQ(8u, got.size());
        const uint64_t acc = xu_accept_cycle(xu_, n);
        EXPECT_EQ(acc + HCA_XU_LATENCY + 2 * (k == 2 ? 2 : 1), got[0].cycle) << Eng() << ": list " << k;
        for (size_t i = 1; i < got.size(); i++)
            EXPECT_EQ(got[i - 1].cycle + 1, got[i].cycle) << Eng() << ": list " << k << " beat " << i << " " << FmtSeg(got[i]);
        xu_step(xu_, 10);
    }
    // Across second-level lists: an outer list of two inner lists of four
    // single-page entries. The inner level is left as its last piece is sent
    // (the outer entry was read in that cycle), the outer piece follows it
    // into S1, starts the next inner level there and that level's first
    // entry is read: 4 beats back to back, 3 cycles, 4 beats.
    std::vector<Klm> lo(one.begin(), one.begin() + 4), hi(one.begin() + 4, one.end());
    ASSERT_NO_FATAL_FAILURE(PutIndirect(96, Key(96, 1), kKPd, ALL, 0xe5000000, 4500, lo));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(97, Key(97, 1), kKPd, ALL, 0xe6000000, 4600, hi));
    ASSERT_NO_FATAL_FAILURE(PutIndirect(98, Key(98, 1), kKPd, ALL, 0xe7000000, 4700,
                                        {{0xe5000000, 0x4000, Key(96, 1)}, {0xe6000000, 0x4000, Key(97, 1)}}));
    {
        const uint64_t n = Accepted();
        const xu_req_t r = Req(Key(98, 1), kKPd, 0xe7000000, 0x8000);
        std::vector<xu_seg_t> got = Run(r);
        ASSERT_EQ(8u, got.size());
        const uint64_t acc = xu_accept_cycle(xu_, n);
        EXPECT_EQ(acc + HCA_XU_LATENCY + 4, got[0].cycle);
        for (size_t i = 1; i < got.size(); i++)
            EXPECT_EQ(got[i - 1].cycle + (i == 4 ? 3 : 1), got[i].cycle)
                << Eng() << ": beat " << i << " " << FmtSeg(got[i]);
        xu_step(xu_, 10);
    }
    // a request after a KLM walk: accepted once the walk's last beat passed S3
    xu_step(xu_, 10);
}

/** INVALIDATE of an entry's MR while a KLM access through it is in flight:
 *  the command waits for the access (its pieces looked up after the write
 *  fail), and a KLM access after it fails. */
TEST_P(XuKlm, InvalidateEntryMrWhileKlmAccessInFlight)
{
    std::vector<Klm> list;
    for (unsigned i = 0; i < 64; i++)
        list.push_back({kRIova + (i % 16) * 0x1000 + 0x10, 0x100, KR()});
    ASSERT_NO_FATAL_FAILURE(PutIndirect(92, Key(92, 1), kKPd, ALL, 0xf0000000, 5000, list));
    ASSERT_EQ(0, xu_set_backpressure(xu_, 0, 50, 7));
    const xu_req_t r = Req(Key(92, 1), kKPd, 0xf0000000, 64 * 0x100);
    ASSERT_EQ(0, xu_submit(xu_, &r));
    xu_step(xu_, 60);
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    ASSERT_GT(segs.size(), 0u) << "the walk has not started";
    ASSERT_EQ(0u, CountLast(segs)) << "the walk ended too early for the test";
    ASSERT_EQ(0, xu_cmd_start(xu_, HCA_FWP_OP_INVALIDATE, kR));
    unsigned res = 99;
    ASSERT_EQ(0, xu_cmd_wait(xu_, kWait, &res));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, res);
    const uint64_t done = xu_cycle(xu_) - 1; // the cycle STATUS answered busy = 0
    CollectAll(xu_, &segs);
    ASSERT_EQ(1u, CountLast(segs)) << Eng() << ": the INVALIDATE completed before the KLM access finished";
    EXPECT_LE(segs.back().cycle, done);
    EXPECT_EQ(ERR_STATE, segs.back().status) << Eng() << ": the entries looked up after the write see FREE: "
                                              << FmtSeg(segs.back());
    for (size_t i = 0; i + 1 < segs.size(); i++)
        EXPECT_EQ(OK, segs[i].status) << FmtSeg(segs[i]);
    ref_.Invalidate(kR);
    ASSERT_EQ(0, xu_set_backpressure(xu_, 0, 0, 7));
    ExpectFail(Req(Key(92, 1), kKPd, 0xf0000000, 0x10), ERR_STATE, "a KLM access after the INVALIDATE");
}

INSTANTIATE_TEST_SUITE_P(Engines, XuKlm, ::testing::Values(XU_ENGINE_RTL, XU_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<xu_engine_kind_t> &i) { return KindName(i.param); });

// ---------------------------------------------------------------- firmware port

TEST_P(Xu, FwStagingRegistersReadBack)
{
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT + HCA_FWP_MTT_DATA_COUNT; i++)
        ASSERT_EQ(0, xu_fw_write(xu_, 4 * i, 0x9e3779b9u * (i + 1)));
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT + HCA_FWP_MTT_DATA_COUNT; i++) {
        uint32_t v = 0;
        ASSERT_EQ(0, xu_fw_read(xu_, 4 * i, &v));
        EXPECT_EQ(0x9e3779b9u * (i + 1), v) << "staging word at " << Hex(4 * i);
    }
    uint32_t sizes = 0, inflight = 1, st = 1;
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_SIZES, &sizes));
    EXPECT_EQ(12u, HCA_FWP_SIZES_MPT_LOG2_GET(sizes)) << Hex(sizes);
    EXPECT_EQ(16u, HCA_FWP_SIZES_MTT_LOG2_GET(sizes)) << Hex(sizes);
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_INFLIGHT, &inflight));
    EXPECT_EQ(0u, inflight);
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_STATUS, &st));
    EXPECT_EQ(0u, HCA_FWP_STATUS_BUSY_GET(st));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, Cmd(HCA_FWP_OP_NOP, 0));
    EXPECT_EQ(-EINVAL, xu_fw_read(xu_, 2, &st)) << "unaligned offset";
    EXPECT_EQ(-EINVAL, xu_fw_read(xu_, HCA_FWP_CONFIG + 4, &st)) << "offset beyond the block";
}

TEST_P(Xu, FwPostAndPollWhileRequestsFlow)
{
    uint32_t v = 0;
    EXPECT_EQ(-ENOENT, xu_fw_poll(xu_, &v)) << "nothing posted";
    std::vector<xu_req_t> reqs;
    for (int i = 0; i < 32; i++) {
        reqs.push_back(Req(HCA_RESERVED_LKEY, 1, 0x1000 * i, 0x10));
        ASSERT_EQ(0, xu_submit(xu_, &reqs.back()));
    }
    ASSERT_EQ(0, xu_fw_post(xu_, 0, HCA_FWP_SIZES, 0));
    EXPECT_EQ(-EBUSY, xu_fw_post(xu_, 1, HCA_FWP_MPT_DATA, 1)) << "one access at a time";
    EXPECT_EQ(0, xu_fw_poll(xu_, &v)) << "not yet driven";
    int polls = 0;
    while (xu_fw_poll(xu_, &v) == 0 && polls < 100) {
        xu_step(xu_, 1);
        polls++;
    }
    EXPECT_EQ(2, polls) << "accepted in the first cycle, answered in the next";
    EXPECT_EQ(12u, HCA_FWP_SIZES_MPT_LOG2_GET(v)) << Hex(v);
    EXPECT_EQ(-ENOENT, xu_fw_poll(xu_, &v)) << "the answer ends the access";
    ASSERT_EQ(0, xu_fw_post(xu_, 1, HCA_FWP_MTT_DATA, 0xabcd));
    xu_step(xu_, 2);
    EXPECT_EQ(1, xu_fw_poll(xu_, nullptr));
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_MTT_DATA, &v));
    EXPECT_EQ(0xabcdu, v);
    xu_step(xu_, 40);
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    ASSERT_EQ(reqs.size(), segs.size()) << "requests flowed while the port was busy";
    for (size_t i = 0; i < reqs.size(); i++)
        EXPECT_EQ(FmtBeats(ref_.Translate(reqs[i])), FmtBeats({ToBeat(segs[i])}));
    EXPECT_EQ(-EINVAL, xu_fw_post(xu_, 0, 0x41, 0));
    EXPECT_EQ(-EINVAL, xu_fw_post(xu_, 0, HCA_FWP_CONFIG + 4, 0));
}

TEST_P(Xu, FwReadMptAndMttRoundTrip)
{
    std::mt19937_64 rng(11);
    for (uint32_t idx : {1u, 2u, 1000u, HCA_MPT_ENTRIES_DEFAULT - 1}) {
        hca_mpt_entry_t e{};
        e.flags = (uint32_t)rng() | 1u;
        e.key = (uint32_t)rng();
        e.pd = (uint32_t)rng();
        e.mtt_base = (uint32_t)rng();
        e.iova = rng();
        e.length = rng();
        e.mtt_count = (uint32_t)rng();
        e.reserved = (uint32_t)rng();
        ASSERT_EQ(0, xu_write_mpt(xu_, idx, &e));
        hca_mpt_entry_t rd{};
        ASSERT_EQ(0, xu_read_mpt(xu_, idx, &rd));
        EXPECT_EQ(0, memcmp(&e, &rd, sizeof e)) << "MPT " << idx << ": wrote " << FmtMpt(e) << " reserved "
                                                << Hex(e.reserved) << "\n read " << FmtMpt(rd) << " reserved "
                                                << Hex(rd.reserved) << " flags " << Hex(e.flags) << " vs "
                                                << Hex(rd.flags);
    }
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_FAST_REG, Key(2, 2), 3, RR, 0x1000, 0x2000, 13, 5, 6);
    hca_mpt_entry_set_alloc(&e, 0);
    ASSERT_EQ(0, xu_write_mpt(xu_, 2, &e));
    hca_mpt_entry_t rd{};
    ASSERT_EQ(0, xu_read_mpt(xu_, 2, &rd));
    EXPECT_EQ(FmtMpt(e), FmtMpt(rd)) << "alloc = 0 reads back as 0";
    for (uint32_t idx : {0u, 77u, HCA_MTT_ENTRIES_DEFAULT - 1}) {
        hca_mtt_entry_t m{rng() | 1u}, r{};
        ASSERT_EQ(0, xu_write_mtt(xu_, idx, &m));
        ASSERT_EQ(0, xu_read_mtt(xu_, idx, &r));
        EXPECT_EQ(Hex(m.word), Hex(r.word)) << "MTT " << idx;
    }
}

TEST_P(Xu, FwBadIndexChangesNothing)
{
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(5, 1), 1, ALL, 0x1000, 0x1000, 12, 100, 1);
    PutMpt(5, e);
    PutMtt(100, 0x3000);
    hca_mpt_entry_t other = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(5, 2), 2, 0, 0x2000, 0x1000, 12, 101, 1);
    EXPECT_EQ(-EIO, xu_write_mpt(xu_, HCA_MPT_ENTRIES_DEFAULT + 5, &other));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, CmdResult()) << "WRITE_MPT beyond the table";
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, Cmd(HCA_FWP_OP_WRITE_MPT, 0xffffff));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, Cmd(HCA_FWP_OP_INVALIDATE, HCA_MPT_ENTRIES_DEFAULT + 5));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, Cmd(HCA_FWP_OP_READ_MPT, HCA_MPT_ENTRIES_DEFAULT));
    hca_mtt_entry_t m = MakeMtt(0x8000, true);
    EXPECT_EQ(-EIO, xu_write_mtt(xu_, HCA_MTT_ENTRIES_DEFAULT + 100, &m));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, CmdResult()) << "WRITE_MTT beyond the table";
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, Cmd(HCA_FWP_OP_READ_MTT, HCA_MTT_ENTRIES_DEFAULT));
    hca_mpt_entry_t rd{};
    ASSERT_EQ(0, xu_read_mpt(xu_, 5, &rd));
    EXPECT_EQ(FmtMpt(e), FmtMpt(rd)) << "MPT 5 changed by a command on index table size + 5";
    Expect(Req(Key(5, 1), 1, 0x1000, 0x10), {{OK, 0x3000, 0x10, 1}}, "MR 5 still valid, MTT 100 unchanged");
}

TEST_P(Xu, FwBadOp)
{
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(5, 1), 1, ALL, 0x1000, 0x1000, 12, 100, 1);
    PutMpt(5, e);
    PutMtt(100, 0x3000);
    for (unsigned op = HCA_FWP_OP_MAX + 1; op < 16; op++)
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_OP, Cmd(op, 5)) << "op " << op;
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, Cmd(HCA_FWP_OP_NOP, 5)) << "result back to OK";
    Expect(Req(Key(5, 1), 1, 0x1000, 0x10), {{OK, 0x3000, 0x10, 1}}, "nothing changed");
}

TEST_P(XuMr, FwBusyDropsTheCommand)
{
    // Responses withheld: a FENCE cannot complete while a request is in flight.
    ASSERT_EQ(0, xu_set_backpressure(xu_, 0, 100, 1));
    for (int i = 0; i < 3; i++) {
        xu_req_t r = Req(K(), kPd, kIova, 0x2000);
        ASSERT_EQ(0, xu_submit(xu_, &r));
    }
    xu_step(xu_, 10);
    uint32_t inflight = 0;
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_INFLIGHT, &inflight));
    EXPECT_EQ(3u, inflight) << "requests accepted, none finished";
    ASSERT_EQ(0, xu_cmd_start(xu_, HCA_FWP_OP_FENCE, 0));
    xu_step(xu_, 20);
    EXPECT_EQ(1, xu_cmd_busy(xu_)) << "FENCE must wait for the withheld responses";
    ASSERT_EQ(0, xu_cmd_start(xu_, HCA_FWP_OP_INVALIDATE, kIdx)) << "CMD while busy";
    uint32_t st = 0;
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_STATUS, &st));
    EXPECT_EQ(1u, HCA_FWP_STATUS_BUSY_GET(st)) << Hex(st);
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BUSY, HCA_FWP_STATUS_RESULT_GET(st)) << "a CMD while busy is refused: " << Hex(st);
    unsigned res = 99;
    EXPECT_EQ(-ETIMEDOUT, xu_cmd_wait(xu_, 100, &res)) << "still busy";
    ASSERT_EQ(0, xu_set_backpressure(xu_, 0, 0, 1));
    ASSERT_EQ(0, xu_cmd_wait(xu_, kWait, &res));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, res) << "the FENCE completes";
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    EXPECT_EQ(6u, segs.size());
    // the dropped INVALIDATE did nothing
    Expect(Req(K(), kPd, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "MR still VALID: the INVALIDATE was dropped");
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_INFLIGHT, &inflight));
    EXPECT_EQ(0u, inflight);
}

TEST_P(XuMr, ResetClearsTables)
{
    Expect(Req(K(), kPd, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "before reset");
    xu_reset(xu_);
    ref_.Reset();
    EXPECT_EQ(UINT64_MAX, xu_accept_cycle(xu_, 0)) << "accept history restarts";
    hca_mpt_entry_t rd{};
    ASSERT_EQ(0, xu_read_mpt(xu_, kIdx, &rd));
    EXPECT_EQ(0u, hca_mpt_entry_get_alloc(&rd)) << "READ_MPT after reset: " << FmtMpt(rd);
    hca_mtt_entry_t mt{};
    ASSERT_EQ(0, xu_read_mtt(xu_, kMttBase, &mt));
    EXPECT_EQ(0u, hca_mtt_entry_get_present(&mt)) << "READ_MTT after reset: " << Hex(mt.word);
    ExpectFail(Req(K(), kPd, kIova, 0x10), ERR_SLOT, "after reset every slot is unallocated");
    PutMpt(kIdx, Std());
    ExpectFail(Req(K(), kPd, kIova, 0x10), ERR_MTT, "after reset every MTT entry is absent");
    PutMtt(kMttBase, Pa(0));
    Expect(Req(K(), kPd, kIova, 0x10), {{OK, Pa(0), 0x10, 1}}, "rewritten");
    uint32_t st = 0;
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_STATUS, &st));
    EXPECT_EQ(0u, HCA_FWP_STATUS_BUSY_GET(st));
}

// ---------------------------------------------------------------- timing

TEST_P(XuMr, LatencyUncontended)
{
    // one request at a time on an idle unit
    for (uint32_t len : {0x10u, 0x2000u, 0x8000u}) {
        const uint64_t n = Accepted();
        xu_req_t r = Req(K(), kPd, kIova, len);
        std::vector<xu_seg_t> got = Run(r);
        const uint64_t acc = xu_accept_cycle(xu_, n);
        ASSERT_NE(UINT64_MAX, acc);
        for (size_t i = 0; i < got.size(); i++)
            EXPECT_EQ(acc + HCA_XU_LATENCY + i, got[i].cycle)
                << Eng() << ": beat " << i << " " << FmtSeg(got[i]) << " of " << FmtReq(r) << " accepted in cycle "
                << acc;
        xu_step(xu_, 10);
    }
    // an error beat
    const uint64_t n = Accepted();
    xu_req_t r = Req(K(), kPd + 1, kIova, 0x10);
    std::vector<xu_seg_t> got = Run(r);
    ASSERT_EQ(1u, got.size());
    EXPECT_EQ(xu_accept_cycle(xu_, n) + HCA_XU_LATENCY, got[0].cycle) << Eng() << ": " << FmtSeg(got[0]);
}

TEST_P(XuMr, ThroughputOneRequestPerCycle)
{
    // 256 single-beat requests back to back, no back-pressure: accepted in
    // consecutive cycles, each first beat exactly HCA_XU_LATENCY later.
    std::vector<xu_req_t> reqs;
    for (int i = 0; i < 256; i++) {
        switch (i % 4) {
        case 0: reqs.push_back(Req(K(), kPd, kIova + 0x100 * (i % 16), 0x40)); break;
        case 1: reqs.push_back(Req(K(), kPd + 1, kIova, 0x40)); break;
        case 2: reqs.push_back(Req(HCA_RESERVED_LKEY, 3, 0x1000 * i, 0x40)); break;
        default: reqs.push_back(Req(K(), kPd, kIova, 0)); break;
        }
    }
    const uint64_t n0 = Accepted();
    for (const xu_req_t &r : reqs)
        ASSERT_EQ(0, xu_submit(xu_, &r));
    xu_step(xu_, reqs.size() + 20);
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    ASSERT_EQ(reqs.size(), segs.size());
    const uint64_t a0 = xu_accept_cycle(xu_, n0);
    for (size_t i = 0; i < reqs.size(); i++) {
        const uint64_t a = xu_accept_cycle(xu_, n0 + i);
        EXPECT_EQ(a0 + i, a) << Eng() << ": request " << i << " not accepted back to back: " << FmtReq(reqs[i]);
        EXPECT_EQ(a + HCA_XU_LATENCY, segs[i].cycle) << Eng() << ": " << FmtReq(reqs[i]) << " -> " << FmtSeg(segs[i]);
        std::vector<Beat> exp = ref_.Translate(reqs[i]);
        EXPECT_EQ(FmtBeats(exp), FmtBeats({ToBeat(segs[i])})) << FmtReq(reqs[i]);
    }
}

TEST_P(XuMr, BackPressureLosesNothing)
{
    std::mt19937_64 rng(5);
    ASSERT_EQ(0, xu_set_backpressure(xu_, 30, 60, 77));
    std::vector<xu_req_t> reqs;
    for (int i = 0; i < 3000; i++) {
        uint64_t off = rng() % kLen;
        uint32_t len = (uint32_t)(rng() % (kLen - off + 1));
        if (rng() % 2)
            len %= 0x300;
        reqs.push_back(Req(rng() % 8 ? K() : Key(kIdx, 1), kPd, kIova + off, len, (unsigned)(rng() % 16),
                           (unsigned)(rng() % 2)));
    }
    std::vector<xu_seg_t> segs;
    size_t next = 0;
    for (uint64_t c = 0; c < 10 * kWait && CountLast(segs) < reqs.size(); c++) {
        while (next < reqs.size() && xu_pending(xu_) < 16)
            ASSERT_EQ(0, xu_submit(xu_, &reqs[next++]));
        xu_step(xu_, 1);
        CollectAll(xu_, &segs);
    }
    auto groups = GroupByRequest(segs);
    ASSERT_EQ(reqs.size(), groups.size());
    int bad = 0;
    for (size_t i = 0; i < reqs.size() && bad < 5; i++) {
        std::vector<Beat> exp = ref_.Translate(reqs[i]), got = ToBeats(groups[i]);
        if (exp != got) {
            bad++;
            ADD_FAILURE() << Eng() << ": request " << i << " " << FmtReq(reqs[i]) << "\n  expected " << FmtBeats(exp)
                          << "\n  actual   " << FmtBeats(got);
        }
    }
    // a held beat stays until taken: beats come in cycle order, never two in one cycle
    for (size_t i = 1; i < segs.size(); i++)
        ASSERT_LT(segs[i - 1].cycle, segs[i].cycle) << i;
}

// ---------------------------------------------------------------- invalidate and fence

/** Requests for the standard MR, 1 to 3 pages long, under back-pressure; then
 *  one command while many are queued and in flight. Checks the fence. */
class XuFence : public XuMr {
  protected:
    struct Outcome {
        std::vector<xu_req_t> reqs;
        std::vector<std::vector<xu_seg_t>> beats; // per request
        std::vector<uint64_t> acc;                // accept cycle per request
        uint64_t c0, c1, c_done;                  // before CMD, after CMD, after the wait
    };

    void RunWithCommand(unsigned op, unsigned n, Outcome *o)
    {
        std::mt19937_64 rng(op * 1000 + n);
        ASSERT_EQ(0, xu_set_backpressure(xu_, 10, 60, 1234 + op));
        const uint64_t n0 = Accepted();
        for (unsigned i = 0; i < n; i++) {
            const uint64_t off = rng() % 0x5000;
            const uint32_t len = 1 + (uint32_t)(rng() % 0x3000);
            o->reqs.push_back(Req(K(), kPd, kIova + off, len, (unsigned)(rng() % 2) * LW, 0));
            ASSERT_EQ(0, xu_submit(xu_, &o->reqs.back()));
        }
        xu_step(xu_, 40); // some accepted, some in flight, most queued
        std::vector<xu_seg_t> segs;
        CollectAll(xu_, &segs);
        o->c0 = xu_cycle(xu_);
        ASSERT_EQ(0, xu_cmd_start(xu_, op, kIdx));
        o->c1 = xu_cycle(xu_);
        if (op == HCA_FWP_OP_INVALIDATE)
            ref_.Invalidate(kIdx);
        unsigned res = 99;
        ASSERT_EQ(0, xu_cmd_wait(xu_, kWait, &res));
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, res);
        o->c_done = xu_cycle(xu_);
        for (uint64_t c = 0; c < kWait && CountLast(segs) < n; c++) {
            xu_step(xu_, 1);
            CollectAll(xu_, &segs);
        }
        o->beats = GroupByRequest(segs);
        ASSERT_EQ(n, o->beats.size());
        for (unsigned i = 0; i < n; i++)
            o->acc.push_back(xu_accept_cycle(xu_, n0 + i));
    }
};

TEST_P(XuFence, InvalidateWaitsForOlderRequests)
{
    Outcome o;
    ASSERT_NO_FATAL_FAILURE(RunWithCommand(HCA_FWP_OP_INVALIDATE, 400, &o));
    const uint64_t completed = o.c_done - 1; // the cycle STATUS answered busy = 0
    unsigned older = 0, newer = 0, older_late_beats = 0;
    Ref before = ref_;
    hca_mpt_entry_set_state(&before.mpt[kIdx], HCA_MKEY_STATE_VALID);
    for (size_t i = 0; i < o.reqs.size(); i++) {
        const auto &b = o.beats[i];
        const std::string who = std::string(Eng()) + ": request " + std::to_string(i) + " " + FmtReq(o.reqs[i]) +
                                " accepted in cycle " + std::to_string(o.acc[i]) + ", INVALIDATE written in [" +
                                std::to_string(o.c0) + ", " + std::to_string(o.c1) + "), completed by cycle " +
                                std::to_string(completed);
        for (const xu_seg_t &s : b) {
            if (s.status == OK) {
                EXPECT_LE(s.cycle, completed) << "OK beat handed over after the invalidation completed: "
                                              << FmtSeg(s) << "\n  " << who;
            }
        }
        if (o.acc[i] < o.c0) {
            older++;
            EXPECT_EQ(FmtBeats(before.Translate(o.reqs[i])), FmtBeats(ToBeats(b))) << "older request\n  " << who;
            for (const xu_seg_t &s : b)
                older_late_beats += s.cycle >= o.c0;
        } else if (o.acc[i] >= o.c1) {
            newer++;
            EXPECT_EQ(FmtBeats(ref_.Translate(o.reqs[i])), FmtBeats(ToBeats(b))) << "newer request\n  " << who;
        } else {
            // accepted while the CMD write was on the port: either view is allowed
            std::string got = FmtBeats(ToBeats(b));
            EXPECT_TRUE(got == FmtBeats(before.Translate(o.reqs[i])) || got == FmtBeats(ref_.Translate(o.reqs[i])))
                << got << "\n  " << who;
        }
    }
    EXPECT_GT(older, 0u) << "no request was accepted before the INVALIDATE";
    EXPECT_GT(newer, 0u) << "no request was accepted after the INVALIDATE";
    EXPECT_GT(older_late_beats, 0u) << "no older beat after the INVALIDATE started: the fence was not exercised";
    printf("[   info   ] %s: INVALIDATE in cycles [%llu,%llu), done by %llu; %u older requests (%u beats after "
           "the start), %u newer\n",
           Eng(), (unsigned long long)o.c0, (unsigned long long)o.c1, (unsigned long long)completed, older,
           older_late_beats, newer);
}

TEST_P(XuFence, FenceWaitsForEveryEarlierRequest)
{
    Outcome o;
    ASSERT_NO_FATAL_FAILURE(RunWithCommand(HCA_FWP_OP_FENCE, 300, &o));
    const uint64_t completed = o.c_done - 1;
    unsigned older = 0, older_late_beats = 0;
    for (size_t i = 0; i < o.reqs.size(); i++) {
        const auto &b = o.beats[i];
        EXPECT_EQ(FmtBeats(ref_.Translate(o.reqs[i])), FmtBeats(ToBeats(b))) << Eng() << ": " << FmtReq(o.reqs[i]);
        if (o.acc[i] < o.c0) {
            older++;
            EXPECT_LE(b.back().cycle, completed)
                << Eng() << ": request " << i << " " << FmtReq(o.reqs[i]) << " accepted in cycle " << o.acc[i]
                << " before the FENCE (cycle " << o.c0 << ") finished after it completed: " << FmtSeg(b.back());
            for (const xu_seg_t &s : b)
                older_late_beats += s.cycle >= o.c0;
        }
    }
    EXPECT_GT(older, 0u);
    EXPECT_GT(older_late_beats, 0u) << "the fence was not exercised";
}

TEST_P(XuFence, InvalidateHelperBlocksUntilDrained)
{
    ASSERT_EQ(0, xu_set_backpressure(xu_, 0, 50, 99));
    for (int i = 0; i < 64; i++) {
        xu_req_t r = Req(K(), kPd, kIova + 0x800 * (i % 8), 0x2800);
        ASSERT_EQ(0, xu_submit(xu_, &r));
    }
    xu_step(xu_, 30);
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    const size_t before = segs.size();
    Invalidate(kIdx);
    const uint64_t done = xu_cycle(xu_);
    uint32_t inflight = 99;
    CollectAll(xu_, &segs);
    xu_step(xu_, 2000);
    CollectAll(xu_, &segs);
    ASSERT_EQ(0, xu_fw_read(xu_, HCA_FWP_INFLIGHT, &inflight));
    EXPECT_EQ(0u, inflight);
    EXPECT_EQ(64u, CountLast(segs));
    for (size_t i = before; i < segs.size(); i++) {
        if (segs[i].cycle >= done) {
            EXPECT_NE(OK, segs[i].status) << Eng() << ": OK beat after xu_invalidate returned (cycle " << done
                                          << "): " << FmtSeg(segs[i]);
        }
    }
}

TEST_P(XuFence, RequestInTheCycleOfTheChangeSeesTheOldEntry)
{
    // One single-beat request per cycle, no back-pressure, while INVALIDATE is
    // written: the CMD write is accepted in cycle c1 - 2 (fw_rvalid follows one
    // cycle later, and xu_cmd_start returns the cycle after that).
    std::vector<xu_req_t> reqs;
    for (int i = 0; i < 200; i++)
        reqs.push_back(Req(K(), kPd, kIova + 0x10 * i, 0x10));
    const uint64_t n0 = Accepted();
    for (const xu_req_t &r : reqs)
        ASSERT_EQ(0, xu_submit(xu_, &r));
    xu_step(xu_, 50);
    ASSERT_EQ(0, xu_cmd_start(xu_, HCA_FWP_OP_INVALIDATE, kIdx));
    const uint64_t c1 = xu_cycle(xu_), cw = c1 - 2;
    unsigned res = 99;
    ASSERT_EQ(0, xu_cmd_wait(xu_, kWait, &res));
    xu_step(xu_, 300);
    std::vector<xu_seg_t> segs;
    CollectAll(xu_, &segs);
    ASSERT_EQ(reqs.size(), segs.size());
    Ref before = ref_;
    ref_.Invalidate(kIdx);
    bool saw_cw = false;
    for (size_t i = 0; i < reqs.size(); i++) {
        const uint64_t a = xu_accept_cycle(xu_, n0 + i);
        const std::string who = std::string(Eng()) + ": " + FmtReq(reqs[i]) + " accepted in cycle " +
                                std::to_string(a) + ", CMD write accepted in cycle " + std::to_string(cw);
        if (a <= cw) {
            saw_cw |= a == cw;
            EXPECT_EQ(FmtBeats(before.Translate(reqs[i])), FmtBeats({ToBeat(segs[i])})) << who;
        } else if (a >= c1) {
            EXPECT_EQ(FmtBeats(ref_.Translate(reqs[i])), FmtBeats({ToBeat(segs[i])})) << who;
        }
    }
    EXPECT_TRUE(saw_cw) << "no request accepted in the cycle of the CMD write";
}

// ---------------------------------------------------------------- harness and engine creation

TEST_P(Xu, HarnessQueueAndArguments)
{
    xu_req_t r = Req(HCA_RESERVED_LKEY, 1, 0x1000, 0x10);
    for (unsigned i = 0; i < XU_QUEUE_DEPTH; i++)
        ASSERT_EQ(0, xu_submit(xu_, &r)) << i;
    EXPECT_EQ(-ENOSPC, xu_submit(xu_, &r));
    EXPECT_EQ((size_t)XU_QUEUE_DEPTH, xu_pending(xu_));
    EXPECT_EQ(-EINVAL, xu_submit(xu_, nullptr));
    EXPECT_EQ(-EINVAL, xu_set_backpressure(xu_, 101, 0, 0));
    xu_step(xu_, 100);
    EXPECT_LT(xu_pending(xu_), (size_t)XU_QUEUE_DEPTH);
    xu_reset(xu_);
    EXPECT_EQ(0u, xu_pending(xu_));
    xu_seg_t s;
    EXPECT_EQ(0, xu_collect(xu_, &s)) << "reset empties the beat queue";
    EXPECT_EQ(UINT64_MAX, xu_accept_cycle(xu_, 0));
    const uint64_t c = xu_cycle(xu_);
    xu_step(xu_, 5);
    EXPECT_EQ(c + 5, xu_cycle(xu_));
    EXPECT_STREQ(KindName(GetParam()), xu_engine_name(xu_));
}

TEST_P(Xu, CreateParams)
{
    xu_t *x = nullptr;
    for (xu_params_t bad : {xu_params_t{0, 1024}, xu_params_t{1, 1024}, xu_params_t{3000, 1024},
                            xu_params_t{1u << 25, 1024}, xu_params_t{4096, 0}}) {
        EXPECT_EQ(-EINVAL, xu_create(&x, GetParam(), &bad)) << bad.mpt_entries << "/" << bad.mtt_entries;
        EXPECT_EQ(nullptr, x);
    }
    xu_params_t def = {HCA_MPT_ENTRIES_DEFAULT, HCA_MTT_ENTRIES_DEFAULT};
    ASSERT_EQ(0, xu_create(&x, GetParam(), &def));
    xu_destroy(x);
    x = nullptr;
    xu_params_t small = {16, 64};
    const int rc = xu_create(&x, GetParam(), &small);
    if (GetParam() == XU_ENGINE_RTL)
        EXPECT_EQ(-ENOTSUP, rc) << "the RTL is built with the default sizes only";
    else
        EXPECT_EQ(0, rc);
    xu_destroy(x);
}

TEST_P(Xu, TraceWindow)
{
    char path[] = "/tmp/test_xu_trace_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    const uint64_t now = xu_cycle(xu_);
    const int rc = xu_trace_open(xu_, path, now + 10, now + 30);
    if (GetParam() == XU_ENGINE_MODEL) {
        EXPECT_EQ(-ENOTSUP, rc) << "the model has no waves";
    } else {
        ASSERT_EQ(0, rc);
        xu_req_t r = Req(HCA_RESERVED_LKEY, 1, 0x1000, 0x10);
        ASSERT_EQ(0, xu_submit(xu_, &r));
        xu_step(xu_, 50); // the window closes by itself at now + 30
        struct stat st;
        ASSERT_EQ(0, stat(path, &st));
        EXPECT_GT(st.st_size, 0) << "no waves written to " << path;
        xu_trace_close(xu_);
    }
    unlink(path);
    EXPECT_EQ(-EINVAL, xu_trace_open(xu_, path, 10, 10)) << "empty window";
}

INSTANTIATE_TEST_SUITE_P(Engines, Xu, ::testing::Values(XU_ENGINE_RTL, XU_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<xu_engine_kind_t> &i) { return KindName(i.param); });
INSTANTIATE_TEST_SUITE_P(Engines, XuMr, ::testing::Values(XU_ENGINE_RTL, XU_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<xu_engine_kind_t> &i) { return KindName(i.param); });
INSTANTIATE_TEST_SUITE_P(Engines, XuFence, ::testing::Values(XU_ENGINE_RTL, XU_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<xu_engine_kind_t> &i) { return KindName(i.param); });

// ---------------------------------------------------------------- differential: RTL vs model

/** Random tables and requests, biased so every status occurs often. */
class Stimulus {
  public:
    explicit Stimulus(uint64_t seed) : rng_(seed) {}

    struct Epoch {
        std::vector<std::pair<uint32_t, hca_mpt_entry_t>> mpt;
        std::vector<std::pair<uint32_t, uint64_t>> mtt;
        std::vector<uint32_t> invalidate;
        std::vector<xu_req_t> reqs;
        unsigned gap_pct, stall_pct;
        unsigned max_ind; // fwp CONFIG.max_indirection
    };

    static constexpr uint32_t kSlots = 48; // MRs live in MPT 1..kSlots

    /** A new epoch: rewrite every slot (applied to ref), then n requests. */
    Epoch Make(Ref &ref, unsigned n)
    {
        Epoch ep;
        for (uint32_t idx = 0; idx <= kSlots; idx++) // slot 0 too: it must never be used
            MakeMr(ref, idx, &ep);
        for (uint32_t idx = 1; idx <= kSlots; idx++) // KLM lists over the MRs just made
            if (hca_mpt_entry_get_mode(&ref.mpt[idx]) == HCA_MKEY_MODE_KLM &&
                hca_mpt_entry_get_kind(&ref.mpt[idx]) != HCA_MKEY_KIND_DMA)
                MakeKlmList(ref, idx, &ep);
        ep.max_ind = Pct(20) ? HCA_MAX_INDIRECTION : 1 + (unsigned)U(HCA_MAX_INDIRECTION);
        ref.max_indirection = ep.max_ind;
        for (uint32_t idx = 1; idx <= kSlots; idx++)
            if (Pct(4)) {
                ep.invalidate.push_back(idx);
                ref.Invalidate(idx);
            }
        for (unsigned i = 0; i < n; i++)
            ep.reqs.push_back(MakeReq(ref, (uint8_t)i));
        ep.gap_pct = Pct(20) ? 0 : (unsigned)U(50);
        ep.stall_pct = Pct(20) ? 0 : (unsigned)U(70);
        return ep;
    }

    uint64_t U(uint64_t n) { return n ? rng_() % n : 0; }
    bool Pct(unsigned p) { return U(100) < p; }

  private:
    /** A KLM list for the KLM-mode MR at idx, as firmware writes it: entries
     *  over the other slots (any kind, indirect ones nest, sometimes broken
     *  keys or ranges), the reserved L_Key or DMA addresses; its length the
     *  sum, sometimes more (the walk runs off the list) or mtt_count short. */
    void MakeKlmList(Ref &ref, uint32_t idx, Epoch *ep)
    {
        hca_mpt_entry_t &e = ref.mpt[idx];
        const unsigned n = 1 + (unsigned)U(Pct(70) ? 4 : 12);
        std::vector<uint32_t> same_pd, same_pd_klm; // targets in the MR's PD; those in KLM mode (nesting)
        for (uint32_t j = 1; j <= kSlots; j++)
            if (((ref.mpt[j].pd ^ e.pd) & 0xffffffu) == 0) {
                same_pd.push_back(j);
                if (hca_mpt_entry_get_mode(&ref.mpt[j]) == HCA_MKEY_MODE_KLM)
                    same_pd_klm.push_back(j);
            }
        const uint32_t base = Pct(3) ? HCA_MTT_ENTRIES_DEFAULT - 2 * (uint32_t)U(n) - 1 : (uint32_t)U(60000);
        uint64_t sum = 0;
        for (unsigned i = 0; i < n; i++) {
            const unsigned lk = (unsigned)U(100);
            uint32_t len = lk < 15 ? 1 : lk < 35 ? 512 : lk < 85 ? 1 + (uint32_t)U(0x3000) : 1 + (uint32_t)U(0x20000);
            if (Pct(1))
                len = 0; // firmware refuses it; the walk skips it
            uint32_t key;
            uint64_t addr;
            if (Pct(10)) {
                key = HCA_RESERVED_LKEY;
                addr = Pct(5) ? kTwo64Minus(U(0x100)) : rng_() & 0xffffffffffull;
            } else {
                const unsigned how = (unsigned)U(100);
                const uint32_t j = how < 50 && !same_pd_klm.empty() ? same_pd_klm[U(same_pd_klm.size())]
                                   : how < 85 && !same_pd.empty() ? same_pd[U(same_pd.size())]
                                                                  : 1 + (uint32_t)U(kSlots);
                const hca_mpt_entry_t &t = ref.mpt[j];
                key = Pct(92) ? t.key : Key(j, (uint32_t)U(256));
                if (hca_mpt_entry_get_kind(&t) == HCA_MKEY_KIND_DMA)
                    addr = rng_() & 0xffffffffffull;
                else if (Pct(90) && t.length > len)
                    addr = t.iova + U(t.length - len + 1); // inside
                else
                    addr = t.iova + U(t.length + 0x100) - 0x80; // around the edges
            }
            const uint64_t lw = len | (uint64_t)key << 32;
            for (unsigned w = 0; w < 2; w++) {
                const uint32_t mi = base + 2 * i + w;
                if (mi >= HCA_MTT_ENTRIES_DEFAULT)
                    continue;
                ep->mtt.push_back({mi, w ? lw : addr});
                ref.mtt[mi] = w ? lw : addr;
            }
            sum += len;
        }
        if (Pct(70)) { // mostly usable, so that walks go deep
            hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
            hca_mpt_entry_set_alloc(&e, 1);
        }
        e.mtt_base = base;
        e.mtt_count = Pct(5) ? (uint32_t)U(2 * n) : 2 * n;
        e.length = sum ? sum : 1;
        if (Pct(8))
            e.length += 1 + U(0x1000); // longer than the list
        for (auto &m : ep->mpt)
            if (m.first == idx)
                m.second = e;
    }

    void MakeMr(Ref &ref, uint32_t idx, Epoch *ep)
    {
        static const unsigned kShifts[] = {12, 12, 12, 13, 16, 21, 21, 30};
        static const unsigned kBadShifts[] = {0, 5, 11, 31};
        unsigned kind = (unsigned)U(100);
        kind = kind < 40 ? HCA_MKEY_KIND_REGULAR
               : kind < 70 ? HCA_MKEY_KIND_FAST_REG
               : kind < 90 ? HCA_MKEY_KIND_INDIRECT
                           : HCA_MKEY_KIND_DMA;
        unsigned ps = Pct(70) ? kShifts[U(8)] : Pct(85) ? 12 + (unsigned)U(19) : kBadShifts[U(4)];
        const unsigned eff = ps >= 12 && ps <= 30 ? ps : 12;
        const uint64_t pg = 1ull << eff;
        uint32_t count = 1 + (uint32_t)U(eff >= 21 ? 6 : 20);
        uint32_t base = Pct(3) ? HCA_MTT_ENTRIES_DEFAULT - (uint32_t)U(count) - 1 : (uint32_t)U(60000);
        uint64_t iova = rng_();
        if (Pct(60))
            iova &= ~(pg - 1);
        if (Pct(40))
            iova &= 0xffffffffffull;
        if (Pct(4))
            iova = kTwo64Minus(count * pg) + (iova & (pg - 1)) * Pct(50);
        const uint64_t fbo = iova & (pg - 1);
        uint64_t length = count * pg - fbo;
        if (Pct(60) && length > 1)
            length -= U(std::min<uint64_t>(length, pg));
        if (Pct(10))
            length += U(3) * pg; // longer than the page list: ERR_MTT past mtt_count
        if (Pct(3))
            length = rng_(); // absurd
        if (length == 0)
            length = 1;
        hca_mpt_entry_t e = MakeMpt(kind, Key(idx, idx || Pct(50) ? (uint32_t)U(256) : HCA_RESERVED_LKEY),
                                    1 + (uint32_t)U(3), (unsigned)U(16), iova, length, ps, base, count);
        if (Pct(5))
            e.pd |= (uint32_t)U(256) << 24; // ignored high bits
        if (kind == HCA_MKEY_KIND_INDIRECT ? Pct(10) : kind == HCA_MKEY_KIND_DMA ? Pct(30) : Pct(5))
            hca_mpt_entry_set_mode(&e, !hca_mpt_entry_get_mode(&e));
        if (Pct(15))
            hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_FREE);
        if (Pct(7))
            hca_mpt_entry_set_alloc(&e, 0);
        if (Pct(30))
            e.reserved = (uint32_t)rng_(); // must not matter
        ep->mpt.push_back({idx, e});
        ref.mpt[idx] = e;
        if (kind == HCA_MKEY_KIND_DMA)
            return;
        for (uint32_t p = 0; p < count + 1 && base + p < HCA_MTT_ENTRIES_DEFAULT; p++) {
            uint64_t pa = (rng_() & 0x3ffffffffffull) << 12;
            if (Pct(90))
                pa &= ~(pg - 1);
            hca_mtt_entry_t m = MakeMtt(pa, !Pct(p == count ? 50 : 6));
            if (Pct(10))
                m.word |= 2; // peer bit: must not matter
            ep->mtt.push_back({base + p, m.word});
            ref.mtt[base + p] = m.word;
        }
    }

    xu_req_t MakeReq(const Ref &ref, uint8_t tag)
    {
        xu_req_t r{};
        r.tag = tag;
        r.remote = Pct(30);
        const unsigned pick = (unsigned)U(100);
        if (pick < 5) { // the reserved L_Key
            r.key = HCA_RESERVED_LKEY;
            r.pd = (uint32_t)U(1u << 24);
            r.rights = Pct(70) ? (uint8_t)(U(2) * LW) : (uint8_t)U(16);
            r.va = Pct(10) ? kTwo64Minus(U(0x3000)) : rng_() & 0xffffffffffffull;
            r.len = (uint32_t)U(0x3000);
            return r;
        }
        if (pick < 9) { // no such slot
            static const uint32_t kIdxs[] = {0, HCA_MPT_ENTRIES_DEFAULT, 0xffffff};
            r.key = Pct(50) ? Key(kIdxs[U(3)], (uint32_t)U(256)) : Key(kSlots + 1 + (uint32_t)U(4000), (uint32_t)U(256));
            if (r.key == HCA_RESERVED_LKEY)
                r.key = 0;
            r.pd = 1 + (uint32_t)U(3);
            r.va = rng_();
            r.len = (uint32_t)U(0x2000);
            r.rights = (uint8_t)U(16);
            return r;
        }
        uint32_t idx = 1 + (uint32_t)U(kSlots);
        if (Pct(30)) { // a KLM-mode MR more often: its walks cover every entry kind and depth
            std::vector<uint32_t> klm;
            for (uint32_t j = 1; j <= kSlots; j++)
                if (hca_mpt_entry_get_mode(&ref.mpt[j]) == HCA_MKEY_MODE_KLM)
                    klm.push_back(j);
            if (!klm.empty())
                idx = klm[U(klm.size())];
        }
        const hca_mpt_entry_t &e = ref.mpt[idx];
        r.key = Pct(90) ? e.key : Key(idx, (uint32_t)U(256));
        r.pd = Pct(90) ? (e.pd & 0xffffff) : 1 + (uint32_t)U(4);
        if (Pct(10))
            r.pd |= (uint32_t)U(256) << 24;
        const unsigned access = hca_mpt_entry_get_access(&e);
        r.rights = Pct(85) ? (uint8_t)(access & U(16)) : (uint8_t)U(16);
        const unsigned ps = hca_mpt_entry_get_page_shift(&e);
        const uint64_t pg = 1ull << (ps >= 12 && ps <= 30 ? ps : 12);
        // length: mostly short, sometimes a few pages
        const unsigned lk = (unsigned)U(100);
        uint64_t len = lk < 6 ? 0 : lk < 50 ? 1 + U(256) : lk < 80 ? 1 + U(pg * 2) : 1 + U(std::min<uint64_t>(pg * 5, 0xffffffffull));
        len = std::min<uint64_t>(len, 0xffffffffull);
        if (hca_mpt_entry_get_kind(&e) == HCA_MKEY_KIND_DMA) {
            r.va = Pct(10) ? kTwo64Minus(U(0x3000)) : rng_();
            r.len = (uint32_t)len;
            return r;
        }
        if (Pct(85)) { // inside the MR
            if (len > e.length)
                len = e.length;
            uint64_t room = e.length - len;
            uint64_t off = U(room + 1 == 0 ? room : room + 1);
            if (Pct(30)) { // near a page seam
                const uint64_t fbo = e.iova & (pg - 1);
                uint64_t seam = (U(8) + 1) * pg - fbo;
                uint64_t o2 = seam - U(std::min<uint64_t>(len + 1, 64));
                if (o2 <= room)
                    off = o2;
            }
            r.va = e.iova + off;
        } else { // around the edges
            const unsigned w = (unsigned)U(3);
            r.va = w == 0 ? e.iova - 1 - U(0x1000) : w == 1 ? e.iova + e.length - U(len + 1) : e.iova + U(e.length);
            if (Pct(30))
                len += e.length;
        }
        r.len = (uint32_t)std::min<uint64_t>(len, 0xffffffffull);
        return r;
    }

    std::mt19937_64 rng_;
};

/** Run epochs on one engine; returns every beat in order. */
void RunEpochs(xu_engine_kind_t kind, const std::vector<Stimulus::Epoch> &eps, uint64_t bp_seed,
               std::vector<xu_seg_t> *segs, uint64_t *cycles)
{
    xu_t *xu = nullptr;
    ASSERT_EQ(0, xu_create(&xu, kind, nullptr)) << KindName(kind);
    const uint64_t c0 = xu_cycle(xu);
    for (size_t ei = 0; ei < eps.size(); ei++) {
        const Stimulus::Epoch &ep = eps[ei];
        ASSERT_EQ(0, xu_set_backpressure(xu, 0, 0, 0));
        ASSERT_EQ(0, xu_fw_write(xu, HCA_FWP_CONFIG, HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(ep.max_ind)));
        for (const auto &m : ep.mpt)
            ASSERT_EQ(0, xu_write_mpt(xu, m.first, &m.second)) << KindName(kind) << " MPT " << m.first;
        for (const auto &m : ep.mtt) {
            hca_mtt_entry_t w{m.second};
            ASSERT_EQ(0, xu_write_mtt(xu, m.first, &w)) << KindName(kind) << " MTT " << m.first;
        }
        for (uint32_t idx : ep.invalidate)
            ASSERT_EQ(0, xu_invalidate(xu, idx)) << KindName(kind) << " INVALIDATE " << idx;
        ASSERT_EQ(0, xu_set_backpressure(xu, ep.gap_pct, ep.stall_pct, bp_seed + ei));
        const size_t first = segs->size();
        size_t next = 0, done = 0;
        for (uint64_t c = 0; done < ep.reqs.size(); c++) {
            ASSERT_LT(c, kWait) << KindName(kind) << ": epoch " << ei << " stuck after " << done << " requests";
            while (next < ep.reqs.size() && xu_pending(xu) < 64)
                ASSERT_EQ(0, xu_submit(xu, &ep.reqs[next++]));
            xu_step(xu, 16);
            const size_t before = segs->size();
            CollectAll(xu, segs);
            done += CountLast(*segs, before);
        }
        (void)first;
    }
    *cycles = xu_cycle(xu) - c0;
    xu_destroy(xu);
}

TEST(XuDiff, RandomRequestsRtlVsModelVsReference)
{
    const uint64_t seed = 20261122;
    const unsigned kEpochs = 30, kPerEpoch = 10000;
    Stimulus st(seed);
    Ref ref;
    std::vector<Stimulus::Epoch> eps;
    std::vector<std::vector<Beat>> expect; // per request
    std::map<unsigned, unsigned> hist;    // final status -> requests
    std::vector<xu_req_t> all;
    size_t klm_reqs = 0, klm_beats = 0;
    for (unsigned e = 0; e < kEpochs; e++) {
        eps.push_back(st.Make(ref, kPerEpoch));
        for (const xu_req_t &r : eps.back().reqs) {
            bool klm = false;
            expect.push_back(ref.Translate(r, nullptr, &klm));
            klm_reqs += klm;
            klm_beats += klm ? expect.back().size() : 0;
            hist[expect.back().back().status]++;
            all.push_back(r);
        }
    }
    std::vector<xu_seg_t> segs[2];
    uint64_t cycles[2] = {0, 0};
    double secs[2] = {0, 0};
    const xu_engine_kind_t kinds[2] = {XU_ENGINE_RTL, XU_ENGINE_MODEL};
    for (int k = 0; k < 2; k++) {
        auto t0 = std::chrono::steady_clock::now();
        ASSERT_NO_FATAL_FAILURE(RunEpochs(kinds[k], eps, seed * 7 + k * 1000003, &segs[k], &cycles[k]));
        secs[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::vector<std::vector<xu_seg_t>> got[2] = {GroupByRequest(segs[0]), GroupByRequest(segs[1])};
    ASSERT_EQ(all.size(), got[0].size()) << "rtl: requests answered";
    ASSERT_EQ(all.size(), got[1].size()) << "model: requests answered";
    unsigned bad[3] = {0, 0, 0};
    for (size_t i = 0; i < all.size(); i++) {
        const std::vector<Beat> r = ToBeats(got[0][i]), m = ToBeats(got[1][i]);
        const bool rm = r == m, mx = m == expect[i], rx = r == expect[i];
        if (rm && mx)
            continue;
        bad[0] += !rm;
        bad[1] += !mx;
        bad[2] += !rx;
        if (bad[0] + bad[1] + bad[2] <= 30) {
            const Stimulus::Epoch &ep = eps[i / kPerEpoch];
            const hca_mpt_entry_t *e = nullptr;
            for (const auto &p : ep.mpt)
                if (p.first == (all[i].key >> HCA_KEY_INDEX_SHIFT))
                    e = &p.second;
            ADD_FAILURE() << "request " << i << " (epoch " << i / kPerEpoch << ") " << FmtReq(all[i])
                          << "\n  MR        " << (e ? FmtMpt(*e) : std::string("-")) << "\n  reference "
                          << FmtBeats(expect[i]) << "\n  rtl       " << FmtBeats(r) << "\n  model     "
                          << FmtBeats(m);
        }
    }
    EXPECT_EQ(0u, bad[0]) << "requests where RTL and model differ";
    EXPECT_EQ(0u, bad[1]) << "requests where the model differs from the reference";
    EXPECT_EQ(0u, bad[2]) << "requests where the RTL differs from the reference";
    std::string h;
    for (unsigned s = 0; s <= HCA_XLATE_STATUS_MAX; s++) {
        h += std::string(" ") + xu_status_name(s) + "=" + std::to_string(hist[s]);
        EXPECT_GT(hist[s], all.size() / 200) << "status " << xu_status_name(s) << " too rare in the stimulus";
        ::testing::Test::RecordProperty(std::string("status_") + xu_status_name(s), (int)hist[s]);
    }
    printf("[   info   ] %zu requests, %zu beats; final status:%s\n", all.size(), segs[1].size(), h.c_str());
    printf("[   info   ] %zu requests walk a KLM list (%zu beats)\n", klm_reqs, klm_beats);
    EXPECT_GT(klm_reqs, all.size() / 20) << "KLM requests too rare in the stimulus";
    ::testing::Test::RecordProperty("klm_requests", (int)klm_reqs);
    printf("[   info   ] rtl: %llu cycles in %.2f s (%.0f cycles/s); model: %llu cycles in %.2f s (%.0f cycles/s)\n",
           (unsigned long long)cycles[0], secs[0], cycles[0] / secs[0], (unsigned long long)cycles[1], secs[1],
           cycles[1] / secs[1]);
    ::testing::Test::RecordProperty("requests", (int)all.size());
}

/** The same streams on both engines; the model must accept every request and
 *  hand over every beat in the same cycle as the RTL (model/xu_model.c
 *  follows the RTL's pipeline: S1, walker, XM_CREDITS output credits, the
 *  abort cycle; a change there shows up here first):
 *   A  single-beat requests back to back, no back-pressure; each first beat
 *      exactly HCA_XU_LATENCY after its accept cycle (requests whose walk
 *      ends on an absent MTT entry before its last page are left out: the
 *      RTL spends a cycle aborting such a walk, so the next request waits);
 *   B  any requests, spaced 64 cycles;
 *   C  any requests back to back, no back-pressure;
 *   D  as C, rsp_ready withheld at random (40%) in the same cycles on both;
 *   E  as D plus random request gaps (25%), the same seed on both. */
static void TimingRtlVsModel(uint64_t seed)
{
    Stimulus st(seed);
    Ref ref;
    Stimulus::Epoch ep = st.Make(ref, 3000);
    std::vector<xu_req_t> phase_reqs[5];
    unsigned klm_reqs = 0;
    for (const xu_req_t &r : ep.reqs) {
        bool aborts = false, klm = false;
        const size_t n = ref.Translate(r, &aborts, &klm).size();
        klm_reqs += klm;
        if (n == 1 && !aborts && !klm)
            phase_reqs[0].push_back(r);
        if (phase_reqs[1].size() < 400 && (n > 1 || aborts || klm || phase_reqs[1].size() % 4 == 0))
            phase_reqs[1].push_back(r);
    }
    printf("[   info   ] %u of %zu requests walk a KLM list (max_indirection %u)\n", klm_reqs, ep.reqs.size(),
           ep.max_ind);
    EXPECT_GT(klm_reqs, ep.reqs.size() / 50) << "KLM requests too rare in the timing stimulus";
    phase_reqs[2] = ep.reqs;
    phase_reqs[3] = ep.reqs;
    phase_reqs[4] = ep.reqs;
    // per engine, per phase: beats grouped per request, cycles relative to the phase start
    std::vector<std::vector<xu_seg_t>> got[2][5];
    std::vector<uint64_t> acc[2][5];
    for (int k = 0; k < 2; k++) {
        xu_t *xu = nullptr;
        ASSERT_EQ(0, xu_create(&xu, k ? XU_ENGINE_MODEL : XU_ENGINE_RTL, nullptr));
        ASSERT_EQ(0, xu_fw_write(xu, HCA_FWP_CONFIG, HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(ep.max_ind)));
        for (const auto &m : ep.mpt)
            ASSERT_EQ(0, xu_write_mpt(xu, m.first, &m.second));
        for (const auto &m : ep.mtt) {
            hca_mtt_entry_t w{m.second};
            ASSERT_EQ(0, xu_write_mtt(xu, m.first, &w));
        }
        for (uint32_t idx : ep.invalidate)
            ASSERT_EQ(0, xu_invalidate(xu, idx));
        xu_step(xu, 10);
        uint64_t n = 0;
        while (xu_accept_cycle(xu, n) != UINT64_MAX)
            n++;
        for (int p = 0; p < 5; p++) {
            if (p == 3) { // the same rsp_ready pattern, cycle by cycle, on both engines
                ASSERT_EQ(0, xu_set_backpressure(xu, 0, 40, 1000));
            }
            if (p == 4) { // request gaps too
                ASSERT_EQ(0, xu_set_backpressure(xu, 25, 40, 2000));
            }
            const uint64_t t0 = xu_cycle(xu);
            std::vector<xu_seg_t> segs;
            for (const xu_req_t &r : phase_reqs[p]) {
                ASSERT_EQ(0, xu_submit(xu, &r));
                if (p == 1)
                    xu_step(xu, 64);
            }
            for (uint64_t c = 0; CountLast(segs) < phase_reqs[p].size(); c++) {
                ASSERT_LT(c, kWait) << KindName(k ? XU_ENGINE_MODEL : XU_ENGINE_RTL) << " phase " << p;
                xu_step(xu, 64);
                CollectAll(xu, &segs);
            }
            for (xu_seg_t &s : segs)
                s.cycle -= t0;
            got[k][p] = GroupByRequest(segs);
            for (size_t i = 0; i < phase_reqs[p].size(); i++)
                acc[k][p].push_back(xu_accept_cycle(xu, n++) - t0);
        }
        xu_destroy(xu);
    }
    const char *phase[5] = {"A back-to-back single-beat", "B spaced", "C back-to-back",
                            "D response back-pressure", "E random back-pressure"};
    for (int p = 0; p < 5; p++) {
        ASSERT_EQ(phase_reqs[p].size(), got[0][p].size()) << "rtl, " << phase[p];
        ASSERT_EQ(phase_reqs[p].size(), got[1][p].size()) << "model, " << phase[p];
        int bad = 0;
        uint64_t beats = 0, off_beats = 0, sum_abs = 0, max_abs = 0;
        for (size_t i = 0; i < phase_reqs[p].size(); i++) {
            const auto &R = got[0][p][i], &M = got[1][p][i];
            bool same_beats = ToBeats(R) == ToBeats(M), same_cycles = same_beats;
            for (size_t j = 0; same_beats && j < R.size(); j++) {
                const uint64_t d = R[j].cycle > M[j].cycle ? R[j].cycle - M[j].cycle : M[j].cycle - R[j].cycle;
                same_cycles &= d == 0;
                beats++;
                off_beats += d != 0;
                sum_abs += d;
                max_abs = std::max(max_abs, d);
            }
            const bool same_acc = acc[0][p][i] == acc[1][p][i];
            const bool ok = same_cycles && same_acc;
            if (!ok && bad++ < 10) {
                std::string r, m, prev;
                for (const xu_seg_t &s : R)
                    r += FmtSeg(s) + " ";
                for (const xu_seg_t &s : M)
                    m += FmtSeg(s) + " ";
                if (i > 0)
                    prev = "\n  after " + FmtReq(phase_reqs[p][i - 1]) + " -> " +
                           FmtBeats(ToBeats(got[1][p][i - 1])) + " accepted @" + std::to_string(acc[1][p][i - 1]);
                ADD_FAILURE() << phase[p] << ", request " << i << " " << FmtReq(phase_reqs[p][i])
                              << "\n  rtl   accepted @" << acc[0][p][i] << ": " << r << "\n  model accepted @"
                              << acc[1][p][i] << ": " << m << prev;
            }
            if (p == 0 && ok) {
                EXPECT_EQ(acc[0][p][i] + HCA_XU_LATENCY, R[0].cycle) << phase[p] << " " << FmtReq(phase_reqs[p][i]);
            }
        }
        EXPECT_EQ(0, bad) << phase[p] << ": requests that differ";
        printf("[   info   ] %s: %zu requests, %llu beats, %llu in another cycle (mean |d| %.3f, max %llu), "
               "last beat rtl @%llu model @%llu\n",
               phase[p], phase_reqs[p].size(), (unsigned long long)beats, (unsigned long long)off_beats,
               beats ? (double)sum_abs / beats : 0.0, (unsigned long long)max_abs,
               (unsigned long long)got[0][p].back().back().cycle, (unsigned long long)got[1][p].back().back().cycle);
    }
    EXPECT_GT(phase_reqs[0].size(), 1000u);
    EXPECT_GT(phase_reqs[1].size(), 100u);
}

TEST(XuDiff, TimingRtlVsModel)
{
    TimingRtlVsModel(99);
}

/** The same with stimuli whose max_indirection lets KLM walks nest (the
 *  walker's prefetch meets pushes, pops and pieces dropped behind a failing
 *  one at every depth). */
TEST(XuDiff, TimingRtlVsModelNested)
{
    for (uint64_t seed : {5, 11, 23, 42, 77, 1234}) {
        SCOPED_TRACE("stimulus seed " + std::to_string(seed));
        ASSERT_NO_FATAL_FAILURE(TimingRtlVsModel(seed));
    }
}

// ---------------------------------------------------------------- model only

/** Table sizes other than the defaults (the RTL is built with the defaults only). */
TEST(XuModelOnly, SmallTables)
{
    xu_t *xu = nullptr;
    xu_params_t p = {16, 32};
    ASSERT_EQ(0, xu_create(&xu, XU_ENGINE_MODEL, &p));
    uint32_t sizes = 0;
    ASSERT_EQ(0, xu_fw_read(xu, HCA_FWP_SIZES, &sizes));
    EXPECT_EQ(4u, HCA_FWP_SIZES_MPT_LOG2_GET(sizes));
    EXPECT_EQ(5u, HCA_FWP_SIZES_MTT_LOG2_GET(sizes));
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(15, 1), 1, ALL, 0x1000, 0x4000, 12, 30, 4);
    EXPECT_EQ(0, xu_write_mpt(xu, 15, &e));
    EXPECT_EQ(-EIO, xu_write_mpt(xu, 16, &e)) << "BAD_INDEX";
    hca_mtt_entry_t m = MakeMtt(0x10000, true);
    EXPECT_EQ(0, xu_write_mtt(xu, 30, &m));
    m = MakeMtt(0x20000, true);
    EXPECT_EQ(0, xu_write_mtt(xu, 31, &m));
    EXPECT_EQ(-EIO, xu_write_mtt(xu, 32, &m)) << "BAD_INDEX";
    xu_req_t r{};
    r.key = Key(15, 1);
    r.pd = 1;
    r.va = 0x1ff0;
    r.len = 0x1020;
    xu_submit(xu, &r);
    r.key = Key(16, 1);
    xu_submit(xu, &r);
    xu_step(xu, 30);
    std::vector<xu_seg_t> segs;
    CollectAll(xu, &segs);
    std::vector<Beat> got = ToBeats(segs);
    std::vector<Beat> exp = {{0, OK, 0x10ff0, 0x10, 0},
                             {0, OK, 0x20000, 0x1000, 0},
                             {0, ERR_MTT, 0, 0, 1},
                             {0, ERR_SLOT, 0, 0, 1}};
    EXPECT_EQ(FmtBeats(exp), FmtBeats(got)) << "page 2 is MTT[32], beyond a 32-entry MTT; index 16 beyond a 16-slot MPT";
    xu_destroy(xu);
}

TEST(XuModelOnly, LargestTables)
{
    xu_t *xu = nullptr;
    xu_params_t p = {1u << 24, 1u << 24};
    ASSERT_EQ(0, xu_create(&xu, XU_ENGINE_MODEL, &p));
    const uint32_t top = (1u << 24) - 1;
    hca_mpt_entry_t e = MakeMpt(HCA_MKEY_KIND_REGULAR, Key(top, 0xff), 0xffffff, ALL, 0, 0x2000, 12, top - 1, 2);
    ASSERT_EQ(0, xu_write_mpt(xu, top, &e));
    hca_mtt_entry_t m = MakeMtt(0xfff000, true);
    ASSERT_EQ(0, xu_write_mtt(xu, top, &m));
    ASSERT_EQ(0, xu_write_mtt(xu, top - 1, &m));
    xu_req_t r{};
    r.key = Key(top, 0xff);
    r.pd = 0xffffff;
    r.va = 0xfff;
    r.len = 2;
    ASSERT_EQ(0, xu_submit(xu, &r));
    xu_step(xu, 20);
    std::vector<xu_seg_t> segs;
    CollectAll(xu, &segs);
    std::vector<Beat> exp = {{0, OK, 0xffffff, 1, 0}, {0, OK, 0xfff000, 1, 1}};
    EXPECT_EQ(FmtBeats(exp), FmtBeats(ToBeats(segs)));
    xu_destroy(xu);
}

} // namespace
