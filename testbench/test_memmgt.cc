// The memory-management work requests end to end (SEMANTICS.md FAST_REG_MR,
// LOCAL_INV, SEND_WITH_INV, RDMA_READ_WITH_INV, "Invalidation during a long
// operation"): the reference driver posts them, the WQE engine (either) hands
// them to the firmware through its event queue, the firmware validates and
// writes the tables, and the engine completes them. Data moves through the
// keys the registrations create; the protection checker watches every run
// (the fixture fails a test on any breach), which is what the races below
// are for. Every suite runs on both engines (EngineTest).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "dev_fixture.h"
#include "hca_dev.h"
#include "hcadrv.h"

namespace {

struct MemMgt : EngineTest {};

const unsigned PAGES = 4;

// A loopback pair plus fast-reg MRs in its PD over a 4-page buffer `fbuf`
// whose page list maps the pages in reverse order (so a wrong walk shows).
struct MmPair : LoopPair {
    uint64_t fbuf = 0;
    hcadrv_mr_t f{};
    hcadrv_page_list_t pl{};

    explicit MmPair(uint32_t mtu = 0, const char *firmware = nullptr) : LoopPair(7, 500, mtu, 64, 16, 16, firmware)
    {
        if (!up)
            return;
        up = false;
        fbuf = alloc(PAGES * 4096);
        if (hcadrv_alloc_mr(drv, pd, HCA_MKEY_KIND_FAST_REG, 16, &f) ||
            hcadrv_alloc_fast_reg_page_list(drv, PAGES, &pl)) {
            why = "fast-reg MR / page list";
            return;
        }
        for (unsigned i = 0; i < PAGES; i++)
            if (hcadrv_page_list_set(&pl, i, page(i)))
                return;
        up = true;
    }
    // Bus address of the MR's page i (reverse order).
    uint64_t page(unsigned i) const { return fbuf + (uint64_t)(PAGES - 1 - i) * 4096; }

    hcadrv_send_wr_t fast_reg_wr(uint64_t wr_id, uint8_t key_byte, uint64_t iova, uint64_t length,
                                 unsigned npages = PAGES, uint32_t access = ACCESS_RW)
    {
        hcadrv_update_fast_reg_key(&f, key_byte);
        f.iova = iova;
        f.length = length;
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = wr_id;
        wr.opcode = HCA_WR_OPCODE_FAST_REG_MR;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.fr_iova = iova;
        wr.fr_length = length;
        wr.fr_key = f.lkey;
        wr.fr_page_shift = 12;
        wr.fr_access = access;
        wr.fr_list_len = npages;
        wr.page_list = &pl;
        return wr;
    }
    int post(hcadrv_qp_t *qp, const hcadrv_send_wr_t &wr) { return hcadrv_post_send(drv, qp, &wr); }
    int local_inv(hcadrv_qp_t *qp, uint64_t wr_id, uint32_t key)
    {
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = wr_id;
        wr.opcode = HCA_WR_OPCODE_LOCAL_INV;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.inv_key = key;
        return hcadrv_post_send(drv, qp, &wr);
    }
    int send_with_inv(uint64_t wr_id, hca_sge_t sge, uint32_t inv_key)
    {
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = wr_id;
        wr.opcode = HCA_WR_OPCODE_SEND_WITH_INV;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.num_sge = 1;
        wr.sge[0] = sge;
        wr.inv_key = inv_key;
        return hcadrv_post_send(drv, &a, &wr);
    }
    hca_mpt_entry_t mpt()
    {
        hca_mpt_entry_t e;
        memset(&e, 0, sizeof e);
        EXPECT_EQ(0, hcadrv_query_mkey(drv, f.lkey >> 8, &e));
        return e;
    }
    // Register f over its 4 pages at iova with key_byte on QP a; one CQE.
    void register_f(uint8_t key_byte, uint64_t iova = 0x7000000000ull)
    {
        ASSERT_EQ(0, post(&a, fast_reg_wr(900 + key_byte, key_byte, iova, PAGES * 4096)));
        auto wc = wait(&cqa, 1);
        ASSERT_EQ(1u, wc.size()) << "no FAST_REG_MR completion\n" << console();
        ASSERT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]) << console();
        ASSERT_EQ((unsigned)HCA_WC_OPCODE_FAST_REG_MR, wc[0].opcode) << describe(wc[0]);
    }
};

#define ASSERT_MM_UP(p) ASSERT_TRUE((p).up) << "setup failed: " << (p).why << (p).err << "\n" << (p).console()

unsigned mpt_state(const hca_mpt_entry_t &e)
{
    return hca_mpt_entry_get_state(&e);
}

// ---------------------------------------------------------------- FAST_REG_MR + LOCAL_INV

TEST_P(MemMgt, FastRegMapsThePageListAndLocalInvRevokesIt)
{
    MmPair p;
    ASSERT_MM_UP(p);
    const uint64_t iova = 0x5000000000ull + 0x100; // not page aligned: the first page starts mid-page
    const uint64_t len = PAGES * 4096 - 0x100;
    ASSERT_EQ(0, p.post(&p.a, p.fast_reg_wr(1, 0x5a, iova, len)));
    auto wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size()) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_FAST_REG_MR, wc[0].opcode) << describe(wc[0]);
    hca_mpt_entry_t e = p.mpt();
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, mpt_state(e));
    EXPECT_EQ(p.f.lkey, e.key) << "the WR's key, new key byte 0x5a";
    EXPECT_EQ(0x5au, e.key & 0xff);
    EXPECT_EQ(iova, e.iova);
    EXPECT_EQ(len, e.length);

    // An RDMA WRITE through the new R_Key lands page by page as the list says.
    const uint32_t wlen = 0x2e00; // MR offsets 0x1000..0x3dff, 0x100 short of its end
    p.fill(p.src, wlen, 7);
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, wlen)}, iova + 0x1000, p.f.rkey));
    wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size());
    ASSERT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
    auto src = p.read(p.src, wlen);
    // MR offset 0x1000 is page-list offset 0x1100 (iova starts 0x100 into page 0).
    uint64_t off = 0x1000 + 0x100, done = 0; // offset within the page list's pages
    while (done < src.size()) {
        unsigned pg = (unsigned)(off / 4096);
        uint64_t in = off % 4096, n = std::min<uint64_t>(4096 - in, src.size() - done);
        auto got = p.read(p.page(pg) + in, n);
        ASSERT_EQ(std::vector<uint8_t>(src.begin() + done, src.begin() + done + n), got)
            << "bytes " << done << ".." << done + n << " must land in list page " << pg << " at " << in;
        off += n;
        done += n;
    }

    // LOCAL_INV: completes LOCAL_INV, the MR is FREE, the key is dead remotely.
    ASSERT_EQ(0, p.local_inv(&p.a, 3, p.f.lkey));
    wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_LOCAL_INV, wc[0].opcode) << describe(wc[0]);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, mpt_state(p.mpt()));
    ASSERT_EQ(0, p.send(4, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 64)}, iova, p.f.rkey));
    wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(status_name(HCA_WC_STATUS_REM_ACCESS_ERR), status_name(wc[0].status))
        << "a WRITE through an invalidated R_Key: " << describe(wc[0]);
}

TEST_P(MemMgt, RefusedFastRegLeavesTheMrAsItWasAndErrorsTheQp)
{
    MmPair p;
    ASSERT_MM_UP(p);
    p.register_f(0x11);
    const hca_mpt_entry_t before = p.mpt();
    // Re-registering a VALID MR is refused (invalidate first).
    ASSERT_EQ(0, p.post(&p.a, p.fast_reg_wr(2, 0x12, 0x9000, 4096)));
    ASSERT_EQ(0, p.send(3, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 64)}, p.dst, p.mdst.rkey));
    auto wc = p.wait(&p.cqa, 2);
    ASSERT_EQ(2u, wc.size()) << p.console();
    EXPECT_EQ(2u, wc[0].wr_id);
    EXPECT_EQ(status_name(HCA_WC_STATUS_MW_BIND_ERR), status_name(wc[0].status)) << describe(wc[0]);
    EXPECT_EQ(status_name(HCA_WC_STATUS_WR_FLUSH_ERR), status_name(wc[1].status))
        << "the QP is in ERROR: the next WR is flushed: " << describe(wc[1]);
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    const hca_mpt_entry_t after = p.mpt();
    EXPECT_EQ(0, memcmp(&before, &after, sizeof before)) << "the MPT entry changed: key " << std::hex << before.key
                                                         << " -> " << after.key << ", iova " << before.iova
                                                         << " -> " << after.iova;
}

TEST_P(MemMgt, LocalInvWaitsForTheEarlierWritesOfItsQueue)
{
    MmPair p(256);
    ASSERT_MM_UP(p);
    p.register_f(0x21, p.fbuf);
    // A 16 KiB WRITE (64 packets) sourced from f, then LOCAL_INV of f at once:
    // the WRITE must finish whole before the invalidation starts.
    p.fill(p.fbuf, PAGES * 4096, 3);
    auto want = p.read(p.page(0), 4096);
    ASSERT_EQ(0, p.send(1, HCA_WR_OPCODE_RDMA_WRITE, {hca_sge_t{p.fbuf, PAGES * 4096, p.f.lkey}}, p.dst,
                        p.mdst.rkey));
    ASSERT_EQ(0, p.local_inv(&p.a, 2, p.f.lkey));
    auto wc = p.wait(&p.cqa, 2);
    ASSERT_EQ(2u, wc.size()) << p.console();
    EXPECT_EQ(1u, wc[0].wr_id);
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
    EXPECT_EQ(2u, wc[1].wr_id);
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[1].status)) << describe(wc[1]);
    EXPECT_EQ(want, p.read(p.dst, 4096)) << "the first page of the message (list page 0)";
}

// Five rounds of register (new key byte), use, invalidate. Every round both
// keys are probed through the device's translation unit (a key check, no QP
// to error): the new key translates to the MR's first page, the previous
// round's key fails its key check, and after the LOCAL_INV the new one fails
// too (MR not VALID).
TEST_P(MemMgt, KeyRotationKillsTheOldKeyEveryRound)
{
    MmPair p;
    ASSERT_MM_UP(p);
    uint32_t old = 0;
    auto probe = [&](uint32_t key) {
        auto beats = p.translate(key, p.pd, p.fbuf, 64);
        return beats.empty() ? 0xffu : (unsigned)beats[0].status;
    };
    for (uint8_t k = 1; k <= 5; k++) {
        SCOPED_TRACE("round " + std::to_string(k));
        p.register_f((uint8_t)(0x40 + k), p.fbuf);
        auto beats = p.translate(p.f.lkey, p.pd, p.fbuf, 64);
        ASSERT_EQ(1u, beats.size());
        EXPECT_EQ((unsigned)HCA_XLATE_STATUS_OK, beats[0].status) << "the new key";
        EXPECT_EQ(p.page(0), beats[0].pa) << "the new key maps the list's first page";
        if (old) {
            EXPECT_EQ((unsigned)HCA_XLATE_STATUS_ERR_KEY, probe(old)) << "the previous round's key " << std::hex << old;
        }
        // The new key moves data (a SEND gathered through it).
        ASSERT_EQ(0, p.recv(20 + k, {p.s(p.dst, 256)}));
        ASSERT_EQ(0, p.send(30 + k, HCA_WR_OPCODE_SEND, {hca_sge_t{p.fbuf, 256, p.f.lkey}}));
        auto wc = p.wait(&p.cqa, 1);
        ASSERT_EQ(1u, wc.size());
        EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
        ASSERT_EQ(1u, p.wait(&p.cqb, 1).size());
        old = p.f.lkey;
        ASSERT_EQ(0, p.local_inv(&p.a, 40 + k, p.f.lkey));
        wc = p.wait(&p.cqa, 1);
        ASSERT_EQ(1u, wc.size());
        ASSERT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
        EXPECT_EQ((unsigned)HCA_XLATE_STATUS_ERR_STATE, probe(old)) << "invalidated: the MR is FREE";
    }
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.a)) << "no round errored the QP";
}

// ---------------------------------------------------------------- SEND_WITH_INV

TEST_P(MemMgt, SendWithInvInvalidatesAtTheResponder)
{
    MmPair p;
    ASSERT_MM_UP(p);
    p.register_f(0x31);
    ASSERT_EQ(0, p.recv(7, {p.s(p.dst, 4096)}));
    ASSERT_EQ(0, p.send_with_inv(8, p.s(p.src, 1000), p.f.rkey));
    auto ra = p.wait(&p.cqa, 1), rb = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, ra.size()) << p.console();
    ASSERT_EQ(1u, rb.size()) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(ra[0].status)) << describe(ra[0]);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_SEND, ra[0].opcode) << describe(ra[0]);
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(rb[0].status)) << describe(rb[0]);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_RECV, rb[0].opcode) << describe(rb[0]);
    EXPECT_EQ(1000u, rb[0].byte_len);
    EXPECT_EQ((unsigned)HCA_WC_FLAGS_WITH_INVALIDATE, rb[0].wc_flags & HCA_WC_FLAGS_WITH_INVALIDATE) << describe(rb[0]);
    EXPECT_EQ(p.f.rkey, rb[0].invalidate_rkey) << describe(rb[0]);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, mpt_state(p.mpt()));
    EXPECT_EQ(p.read(p.src, 1000), p.read(p.dst, 1000));
}

TEST_P(MemMgt, SendWithInvOfAWrongKeyFailsBothSides)
{
    MmPair p;
    ASSERT_MM_UP(p);
    p.register_f(0x32);
    ASSERT_EQ(0, p.recv(7, {p.s(p.dst, 4096)}));
    ASSERT_EQ(0, p.send_with_inv(8, p.s(p.src, 64), (p.f.rkey & ~0xffu) | 0x99)); // right index, wrong key byte
    auto ra = p.wait(&p.cqa, 1), rb = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, ra.size()) << p.console();
    ASSERT_EQ(1u, rb.size()) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_REM_INV_REQ_ERR), status_name(ra[0].status)) << describe(ra[0]);
    EXPECT_EQ(status_name(HCA_WC_STATUS_REM_INV_REQ_ERR), status_name(rb[0].status)) << describe(rb[0]);
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, mpt_state(p.mpt())) << "the MR keeps its registration";
}

// ---------------------------------------------------------------- RDMA_READ_WITH_INV

TEST_P(MemMgt, ReadWithInvInvalidatesTheSinkAfterTheLastByte)
{
    MmPair p(256);
    ASSERT_MM_UP(p);
    p.register_f(0x51, p.fbuf);
    p.fill(p.dst, 8192, 9);
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = 5;
    wr.opcode = HCA_WR_OPCODE_RDMA_READ_WITH_INV;
    wr.flags = HCA_SEND_FLAGS_SIGNALED;
    wr.num_sge = 1;
    wr.sge[0] = hca_sge_t{p.fbuf, 8192, p.f.lkey}; // inv_key 0: the MR of sge[0]
    wr.remote_addr = p.dst;
    wr.rkey = p.mdst.rkey;
    ASSERT_EQ(0, p.post(&p.a, wr));
    auto wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size()) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(wc[0].status)) << describe(wc[0]);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_RDMA_READ, wc[0].opcode) << describe(wc[0]);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, mpt_state(p.mpt())) << "the sink MR is invalidated";
    EXPECT_EQ(p.read(p.dst, 4096), p.read(p.page(0), 4096));
    EXPECT_EQ(p.read(p.dst + 4096, 4096), p.read(p.page(1), 4096));
}

// ---------------------------------------------------------------- races (the checker must stay silent)

// One race round: a long WRITE (x -> y) into f, or a long READ (x <- y) from
// f, while f is invalidated `offset` cycles after the post, from another QP
// (p.b) or from the responder QP y itself (a lost race moves y to ERROR while
// its LOCAL_INV may be with the firmware). Fresh QPs every round. The racing
// op's status lands in *status.
void race_round(MmPair &p, bool read, uint64_t offset, bool inv_from_y, uint8_t key_byte, unsigned *status)
{
    hcadrv_qp_attr_t at = {p.pd, &p.cqa, &p.cqa, 16, 16, 7, 500, 256};
    hcadrv_qp_t x{}, y{};
    ASSERT_EQ(0, hcadrv_create_qp(p.drv, &at, &x));
    at.send_cq = at.recv_cq = &p.cqb;
    ASSERT_EQ(0, hcadrv_create_qp(p.drv, &at, &y));
    ASSERT_EQ(0, hcadrv_connect(p.drv, &x, &y));
    p.register_f(key_byte, p.fbuf);
    const unsigned op = read ? HCA_WR_OPCODE_RDMA_READ : HCA_WR_OPCODE_RDMA_WRITE;
    ASSERT_EQ(0, p.send(1, op, {p.s(p.src, PAGES * 4096)}, p.fbuf, p.f.rkey, HCA_SEND_FLAGS_SIGNALED, &x));
    hca_dev_step(p.dev, offset);
    hcadrv_qp_t *inv_qp = inv_from_y ? &y : &p.b;
    ASSERT_EQ(0, p.local_inv(inv_qp, 2, p.f.lkey));
    auto wx = p.wait(&p.cqa, 1), wy = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, wx.size()) << p.console();
    ASSERT_EQ(1u, wy.size()) << p.console();
    if (wy[0].status != HCA_WC_STATUS_SUCCESS) {
        EXPECT_TRUE(inv_from_y && wy[0].status == HCA_WC_STATUS_WR_FLUSH_ERR) << describe(wy[0]);
        // flushed or not, leave f FREE for the next round
        if (mpt_state(p.mpt()) != HCA_MKEY_STATE_FREE) {
            ASSERT_EQ(0, p.local_inv(&p.b, 3, p.f.lkey));
            ASSERT_EQ(1u, p.wait(&p.cqb, 1).size());
        }
    }
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, mpt_state(p.mpt()));
    *status = wx[0].status;
}

// Either the op wins whole or fails REM_ACCESS_ERR; the checker (fixture)
// sees no DMA through f after the LOCAL_INV's completion, and no placement of
// a NAKed WRITE.
TEST_P(MemMgt, LocalInvRacingAMultiChunkWriteOrRead)
{
    MmPair p(256);
    ASSERT_MM_UP(p);
    unsigned wins = 0, losses = 0;
    for (int read = 0; read < 2; read++)
        for (unsigned k = 0; k < 8; k++) {
            SCOPED_TRACE(std::string(read ? "READ" : "WRITE") + " offset step " + std::to_string(k));
            unsigned st = 0;
            race_round(p, read, 200 + 900 * k, k & 1, (uint8_t)(0x60 + read * 16 + k), &st);
            if (HasFatalFailure())
                return;
            if (st == HCA_WC_STATUS_SUCCESS)
                wins++;
            else if (st == HCA_WC_STATUS_REM_ACCESS_ERR)
                losses++;
            else
                ADD_FAILURE() << "the racing op completed " << status_name(st);
            char v[2048] = "";
            ASSERT_EQ(0u, hca_dev_violations(p.dev, v, sizeof v)) << v;
        }
    // The sweep must really race: both outcomes seen.
    EXPECT_GT(wins, 0u) << "no round let the operation finish first: the offsets miss the race";
    EXPECT_GT(losses, 0u) << "no round invalidated mid-operation: the offsets miss the race";
}

// The same READ race against a firmware that invalidates without the ctx
// DRAIN (the mutant image): the checker must see READ responses leave
// through f after the LOCAL_INV completed — proof that the sweep above and
// the checker can fail, kept in every run.
TEST_P(MemMgt, TheRaceCatchesAFirmwareThatSkipsTheDrain)
{
    MmPair p(256, FW_MUTANT_NO_DRAIN);
    ASSERT_MM_UP(p);
    uint64_t caught = 0;
    for (unsigned k = 0; k < 8 && !caught; k++) {
        unsigned st = 0;
        race_round(p, true, 200 + 900 * k, false, (uint8_t)(0x70 + k), &st);
        if (HasFatalFailure())
            return;
        caught = hca_dev_violations(p.dev, nullptr, 0);
    }
    char v[512] = "";
    hca_dev_violations(p.dev, v, sizeof v);
    EXPECT_GT(caught, 0u) << "no breach: the race or the checker misses an invalidation that does not fence DMA";
    EXPECT_NE(std::string::npos, std::string(v).find("I2")) << "expected an I2 breach (DMA after the invalidation), got: " << v;
    protcheck_reset(hca_dev_protcheck(p.dev)); // the breach was the point: let the fixture's check pass
}

ENGINE_TEST_SUITE(MemMgt);

} // namespace
