// test_protcheck.cc — the protection checker (sim/check/protcheck.h) alone, on
// synthetic event streams: each invariant broken alone is caught with its
// cycle, key and address; the legal sequences around it are not flagged.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "protcheck.h"

namespace {

constexpr uint32_t K = 0x00000105;  // MPT index 1, key byte 5
constexpr uint32_t K2 = 0x00000106; // the same index, re-registered with key byte 6
constexpr uint64_t A = 0x100002000ull;

hca_dma_req_t Dma(unsigned op, uint32_t key, uint64_t addr, uint32_t len, unsigned buf = 0)
{
    hca_dma_req_t r;
    memset(&r, 0, sizeof r);
    hca_dma_req_set_op(&r, op);
    hca_dma_req_set_buf(&r, buf);
    r.key = key;
    r.addr = addr;
    r.len = len;
    return r;
}

hca_pkt_t Pkt(unsigned op, unsigned dst, unsigned src, uint32_t psn, unsigned pbuf, uint32_t len, bool first,
              bool last, uint32_t rkey = 0, unsigned syndrome = 0)
{
    hca_pkt_t p;
    memset(&p, 0, sizeof p);
    hca_pkt_set_op(&p, op);
    hca_pkt_set_first(&p, first);
    hca_pkt_set_last(&p, last);
    hca_pkt_set_pbuf(&p, pbuf);
    hca_pkt_set_syndrome(&p, syndrome);
    hca_pkt_set_dst_qpn(&p, dst);
    hca_pkt_set_src_qpn(&p, src);
    p.psn = psn;
    p.rkey = rkey;
    p.len = len;
    p.msg_len = len;
    return p;
}

class ProtCheck : public ::testing::Test {
  protected:
    protcheck_t *pc = nullptr;
    void SetUp() override { ASSERT_EQ(0, protcheck_create(&pc)); }
    void TearDown() override { protcheck_destroy(pc); }

    // Issue at `at`, complete at `done` with bytes moved (or not).
    void Transfer(uint64_t at, uint64_t done, const hca_dma_req_t &r, bool moved = true)
    {
        int f = protcheck_dma_issue(pc, at, &r);
        protcheck_dma_done(pc, at, done, &r, moved, f);
    }
    std::string All() const
    {
        char buf[8192];
        protcheck_format(pc, buf, sizeof buf);
        return buf;
    }
    protcheck_violation_t Get(size_t i) const
    {
        protcheck_violation_t v;
        memset(&v, 0, sizeof v);
        EXPECT_EQ(0, protcheck_get(pc, i, &v));
        return v;
    }
};

TEST_F(ProtCheck, DmaBeforeTheInvalidationIsLegal)
{
    protcheck_key_valid(pc, 10, K);
    Transfer(100, 400, Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64));
    Transfer(200, 499, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A, 4096));
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, DmaIssuedAfterTheInvalidationIsCaught)
{
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    Transfer(520, 800, Dma(HCA_DMA_OP_BUF_TO_HOST, K, A + 8, 64));
    ASSERT_EQ(1u, protcheck_count(pc)) << "one request, one report (issue and completion)";
    protcheck_violation_t v = Get(0);
    EXPECT_EQ(520u, v.cycle);
    EXPECT_EQ(K, v.key);
    EXPECT_EQ(A + 8, v.addr);
    EXPECT_NE(std::string::npos, std::string(v.reason).find("I1")) << v.reason;
    EXPECT_NE(std::string::npos, std::string(v.reason).find("DESTROY_MKEY")) << v.reason;
    EXPECT_NE(std::string::npos, std::string(v.reason).find("20 cycles after")) << v.reason;
    // the cycles a race is read from (waves markers, --json): caught at issue, so no landing
    EXPECT_EQ(520u, v.issue_cycle);
    EXPECT_EQ(500u, v.inval_cycle);
    EXPECT_EQ(500u, v.inval_req_cycle) << "no request told: requested when completed";
    EXPECT_EQ(PROTCHECK_NONE, v.land_cycle);
}

TEST_F(ProtCheck, SameCycleIssueCountsAsAfter)
{
    protcheck_key_invalid(pc, 500, K, "LOCAL_INV");
    Transfer(500, 700, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A, 16));
    EXPECT_EQ(1u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, DmaInFlightAcrossTheInvalidationIsCaughtWhenItLands)
{
    const hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 4096);
    int f = protcheck_dma_issue(pc, 450, &r);
    EXPECT_EQ(0, f);
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    protcheck_dma_done(pc, 450, 726, &r, 1, f);
    ASSERT_EQ(1u, protcheck_count(pc));
    protcheck_violation_t v = Get(0);
    EXPECT_EQ(726u, v.cycle);
    EXPECT_NE(std::string::npos, std::string(v.reason).find("I2")) << v.reason;
    EXPECT_EQ(450u, v.issue_cycle);
    EXPECT_EQ(500u, v.inval_cycle);
    EXPECT_EQ(726u, v.land_cycle);
}

// An invalidation told when it was requested: the breach carries both ends of
// its span, and the QP of the DMA.
TEST_F(ProtCheck, ABreachCarriesTheInvalidationsRequestAndItsQp)
{
    hca_dma_req_t r = Dma(HCA_DMA_OP_HOST_TO_BUF, K, A, 512);
    r.qpn = 24;
    protcheck_key_valid(pc, 10, K);
    protcheck_key_invalidating(pc, 280, K, 1); /* checks may still pass until it completes */
    const int f = protcheck_dma_issue(pc, 300, &r);
    protcheck_key_invalid(pc, 320, K, "LOCAL_INV");
    protcheck_dma_done(pc, 300, 410, &r, 1, f);
    ASSERT_EQ(1u, protcheck_count(pc)) << All();
    const protcheck_violation_t v = Get(0);
    EXPECT_EQ(24u, v.qpn);
    EXPECT_EQ(300u, v.issue_cycle);
    EXPECT_EQ(280u, v.inval_req_cycle);
    EXPECT_EQ(320u, v.inval_cycle);
    EXPECT_EQ(410u, v.land_cycle);
    EXPECT_EQ(410u, v.cycle);
}

// Rule 7: an indirect key reaches memory through its KLM entries' keys. An
// entry's invalidation fences the indirect key (and, nested, the keys whose
// lists hold it): a DMA through it in flight across that invalidation is I2.
// A DMA through it issued later may touch other entries only: legal.
TEST_F(ProtCheck, AnEntrysInvalidationFencesTheIndirectKeysOverIt)
{
    const uint32_t I = 0x00000905u, J = 0x00000a07u, E = 0x00000b01u, F = 0x00000c01u;
    const uint32_t ie[2] = {E, F}, je[2] = {I, HCA_RESERVED_LKEY};
    protcheck_key_depends(pc, 10, I, ie, 2);
    protcheck_key_depends(pc, 10, J, je, 2);
    const hca_dma_req_t ri = Dma(HCA_DMA_OP_BUF_TO_HOST, I, A, 256), rj = Dma(HCA_DMA_OP_HOST_TO_BUF, J, A + 256, 256);
    const int fi = protcheck_dma_issue(pc, 100, &ri), fj = protcheck_dma_issue(pc, 101, &rj);
    protcheck_key_invalid(pc, 150, E, "LOCAL_INV");
    protcheck_dma_done(pc, 100, 200, &ri, 1, fi);
    protcheck_dma_done(pc, 101, 201, &rj, 1, fj);
    ASSERT_EQ(2u, protcheck_count(pc)) << All();
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("I2")) << Get(0).reason;
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("indirect key 0x00000905")) << Get(0).reason;
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("entry's key 0x00000b01")) << Get(0).reason;
    EXPECT_EQ(J, Get(1).key) << "nested: J's list holds I, whose list holds E";
    Transfer(160, 300, Dma(HCA_DMA_OP_BUF_TO_HOST, I, A, 64)); // issued after: may touch F only
    Transfer(100, 149, Dma(HCA_DMA_OP_BUF_TO_HOST, I, A, 64)); // landed before the invalidation
    EXPECT_EQ(2u, protcheck_count(pc)) << All();
    protcheck_key_invalid(pc, 400, 0x00000d01u, "LOCAL_INV"); // no list holds it
    const hca_dma_req_t r2 = Dma(HCA_DMA_OP_BUF_TO_HOST, I, A, 64);
    const int f2 = protcheck_dma_issue(pc, 390, &r2);
    protcheck_dma_done(pc, 390, 410, &r2, 1, f2);
    EXPECT_EQ(2u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, InvalidationEventFedAfterASameCycleIssueIsStillCaught)
{
    // The harness may feed an issue before an invalidation of the same cycle.
    const hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64);
    int f = protcheck_dma_issue(pc, 500, &r);
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    protcheck_dma_done(pc, 500, 600, &r, 1, f);
    EXPECT_EQ(1u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, ABusErrorAcrossTheInvalidationMovedNothing)
{
    const hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64);
    int f = protcheck_dma_issue(pc, 450, &r);
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    protcheck_dma_done(pc, 450, 600, &r, 0, f);
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, ReRegisteredIndexWithANewKeyByteIsLegal)
{
    protcheck_key_valid(pc, 10, K);
    protcheck_key_invalid(pc, 500, K, "DESTROY_MKEY");
    protcheck_key_valid(pc, 900, K2);
    Transfer(1000, 1300, Dma(HCA_DMA_OP_BUF_TO_HOST, K2, A, 64));
    Transfer(1000, 1300, Dma(HCA_DMA_OP_HOST_TO_BUF, 0x00000205, A, 64)); // another index, never invalidated
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    // ...while the stale key still fails.
    Transfer(1001, 1300, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A, 64));
    EXPECT_EQ(1u, protcheck_count(pc));
}

TEST_F(ProtCheck, AKeyValidAgainMayBeUsedAgain)
{
    // A fast-reg MR invalidated, then registered again with the same key.
    protcheck_key_invalid(pc, 500, K, "LOCAL_INV");
    protcheck_key_valid(pc, 800, K);
    Transfer(900, 1100, Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64));
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    // A DMA of the first life that lands after the invalidation is still caught.
    const hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64);
    protcheck_key_invalid(pc, 1200, K, "LOCAL_INV");
    protcheck_key_valid(pc, 1300, K);
    protcheck_dma_done(pc, 1150, 1400, &r, 1, 0);
    EXPECT_EQ(1u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, QueueRingAccessesWithKeyZeroAreNotChecked)
{
    protcheck_key_invalid(pc, 5, 0, "nonsense");
    Transfer(10, 300, Dma(HCA_DMA_OP_READ_DATA, 0, A, 128));
    Transfer(11, 300, Dma(HCA_DMA_OP_WRITE_DATA, 0, A, 32));
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    protcheck_stats_t st;
    protcheck_get_stats(pc, &st);
    EXPECT_EQ(2u, st.dma_issued);
    EXPECT_EQ(0u, st.dma_keyed);
}

// I6 covers a QP's WQE reads (key 0, dma_req.qpn set): one issued after the
// QP's DESTROY_QP returned, or issued before and served after, is a breach
// naming the QP, the read and the cycles; one served before is legal, and so
// is a read after the QP is connected again.
TEST_F(ProtCheck, AQpsWqeReadsAreFencedByItsDestroy)
{
    auto wqe = [](unsigned tag, uint32_t qpn, uint64_t addr) {
        hca_dma_req_t r = Dma(HCA_DMA_OP_READ_DATA, 0, addr, 128);
        hca_dma_req_set_tag(&r, tag);
        r.qpn = qpn;
        return r;
    };
    Transfer(100, 900, wqe(0x00, 5, A));            // SQ fetch served before the destroy: legal
    const hca_dma_req_t ahead = wqe(0x0d, 5, A + 128), other = wqe(0x7f, 6, A + 512);
    const int fa = protcheck_dma_issue(pc, 200, &ahead), fo = protcheck_dma_issue(pc, 300, &other);
    protcheck_qp_fenced(pc, 1000, 5, "DESTROY_QP");
    protcheck_dma_done(pc, 300, 1001, &other, 1, fo); // another QP's RQ fetch: legal
    Transfer(1100, 1200, wqe(0x00, 5, A + 256));    // SQ fetch issued after the destroy
    protcheck_dma_done(pc, 200, 1500, &ahead, 1, fa); // read-ahead served after it
    ASSERT_EQ(2u, protcheck_count(pc)) << All();
    const protcheck_violation_t after = Get(0), late = Get(1);
    EXPECT_EQ(1500u, late.cycle);
    EXPECT_EQ(200u, late.issue_cycle);
    EXPECT_EQ(1500u, late.land_cycle);
    EXPECT_EQ(1000u, late.inval_cycle);
    EXPECT_EQ(5u, late.qpn);
    EXPECT_NE(nullptr, strstr(late.reason, "I6: SQ WQE read-ahead (READ_DATA) of 128 bytes")) << late.reason;
    EXPECT_NE(nullptr, strstr(late.reason, "read memory at cycle 1500, after its DESTROY_QP returned (cycle 1000)"))
        << late.reason;
    EXPECT_EQ(1100u, after.cycle);
    EXPECT_EQ(PROTCHECK_NONE, after.land_cycle);
    EXPECT_NE(nullptr, strstr(after.reason, "I6: SQ WQE fetch (READ_DATA) of 128 bytes")) << after.reason;
    EXPECT_NE(nullptr, strstr(after.reason, "issued 100 cycles after its DESTROY_QP returned")) << after.reason;

    protcheck_qp_fenced(pc, 2000, 6, "MODIFY_QP RESET");
    Transfer(1900, 2100, wqe(0x7f, 6, A + 512));    // the responder's RQ fetch across the RESET
    ASSERT_EQ(3u, protcheck_count(pc)) << All();
    EXPECT_NE(nullptr, strstr(Get(2).reason, "I6: RQ WQE fetch (READ_DATA)")) << Get(2).reason;
    EXPECT_NE(nullptr, strstr(Get(2).reason, "after its MODIFY_QP RESET returned")) << Get(2).reason;
    protcheck_qp_live(pc, 2500, 6);
    Transfer(2600, 2700, wqe(0x7f, 6, A + 512));    // connected again: legal
    EXPECT_EQ(3u, protcheck_count(pc)) << All();

    // A read answered with a bus error after the fence was still on the bus
    // (the driver freed the ring: an IOMMU fault on a real host).
    const hca_dma_req_t freed = wqe(0x00, 7, A + 1024);
    const int ff = protcheck_dma_issue(pc, 2800, &freed);
    protcheck_qp_fenced(pc, 3000, 7, "DESTROY_QP");
    protcheck_dma_done(pc, 2800, 3100, &freed, 0, ff);
    ASSERT_EQ(4u, protcheck_count(pc)) << All();
    EXPECT_NE(nullptr, strstr(Get(3).reason, "was on the bus (a bus error) at cycle 3100, after its DESTROY_QP"))
        << Get(3).reason;
}

// I6 covers a QP's CQE writes (the CQ writer's WRITE_DATA, key 0, dma_req.qpn
// = the CQE's qpn): one issued before the QP's DESTROY_QP returned and landing
// (or answered with a bus error: the driver freed the CQ ring) after it is a
// breach naming the CQE write; one landing before is legal, and so is another
// QP's on the same ring.
TEST_F(ProtCheck, AQpsCqeWritesAreFencedByItsDestroy)
{
    auto cqe = [](uint32_t qpn, uint64_t addr) {
        hca_dma_req_t r = Dma(HCA_DMA_OP_WRITE_DATA, 0, addr, 32);
        hca_dma_req_set_tag(&r, 0x80);
        r.qpn = qpn;
        return r;
    };
    Transfer(100, 900, cqe(2, A));             // landed before the destroy: legal
    const hca_dma_req_t late = cqe(2, A + 32), freed = cqe(2, A + 64);
    const int f0 = protcheck_dma_issue(pc, 200, &late), f1 = protcheck_dma_issue(pc, 300, &freed);
    protcheck_qp_fenced(pc, 1000, 2, "DESTROY_QP");
    protcheck_dma_done(pc, 200, 1000, &late, 1, f0); // lands in the destroy's very cycle
    Transfer(400, 1500, cqe(3, A + 96));       // another QP's CQE on the same ring: legal
    protcheck_dma_done(pc, 300, 6300, &freed, 0, f1); // a bus error: the ring was freed
    ASSERT_EQ(2u, protcheck_count(pc)) << All();
    EXPECT_EQ(1000u, Get(0).land_cycle);
    EXPECT_EQ(2u, Get(0).qpn);
    EXPECT_NE(nullptr, strstr(Get(0).reason, "I6: CQE write (WRITE_DATA) of 32 bytes")) << Get(0).reason;
    EXPECT_NE(nullptr, strstr(Get(0).reason, "reached memory at cycle 1000, after its DESTROY_QP returned (cycle 1000)"))
        << Get(0).reason;
    EXPECT_EQ(300u, Get(1).issue_cycle);
    EXPECT_EQ(6300u, Get(1).land_cycle);
    EXPECT_NE(nullptr, strstr(Get(1).reason, "was on the bus (a bus error) at cycle 6300")) << Get(1).reason;
}

TEST_F(ProtCheck, RevokedHostRangeIsCaughtOnAnyKey)
{
    ASSERT_EQ(0, protcheck_range_revoke(pc, 100, A, 4096, "peer invalidate"));
    Transfer(50, 99, Dma(HCA_DMA_OP_BUF_TO_HOST, K, A, 64)); // landed before: legal
    Transfer(150, 300, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A + 4096, 64)); // next page: legal
    Transfer(150, 300, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A - 64, 64));   // page before: legal
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    Transfer(150, 300, Dma(HCA_DMA_OP_HOST_TO_BUF, 0x00000001, A + 4000, 200)); // reserved lkey, overlaps
    ASSERT_EQ(1u, protcheck_count(pc));
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("I3")) << Get(0).reason;
    // In flight across the revocation.
    const hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, K, A + 100, 8);
    protcheck_dma_done(pc, 90, 120, &r, 1, 0);
    EXPECT_EQ(2u, protcheck_count(pc));
    protcheck_range_restore(pc, A, 4096);
    Transfer(400, 500, Dma(HCA_DMA_OP_HOST_TO_BUF, K, A, 64));
    EXPECT_EQ(2u, protcheck_count(pc)) << All();
    EXPECT_EQ(-EINVAL, protcheck_range_revoke(pc, 1, ~0ull - 5, 100, "wraps"));
}

// I4: responder QP 3 receives WRITE psn 7 from requester QP 2 in buffer 5.
constexpr unsigned RESP = 3, REQ = 2, PSN = 7, BUF = 5;

class ProtCheckWrite : public ProtCheck {
  protected:
    void Rx(uint64_t at, const hca_pkt_t &p) { protcheck_pkt_rx(pc, at, &p); }
    void Tx(uint64_t at, const hca_pkt_t &p) { protcheck_pkt_tx(pc, at, &p); }
    void WritePkt(uint64_t at, uint32_t psn, bool first, bool last, unsigned buf = BUF)
    {
        Rx(at, Pkt(HCA_PKT_OP_WRITE, RESP, REQ, psn, buf, 256, first, last, K));
    }
    void Nak(uint64_t at, uint32_t psn, unsigned syndrome = HCA_WC_STATUS_REM_ACCESS_ERR)
    {
        Tx(at, Pkt(HCA_PKT_OP_NAK, REQ, RESP, psn, 0, 0, true, true, 0, syndrome));
    }
    void Place(uint64_t at, unsigned buf = BUF, uint64_t addr = A)
    {
        Transfer(at, at + 40, Dma(HCA_DMA_OP_BUF_TO_HOST, K, addr, 256, buf));
    }
};

TEST_F(ProtCheckWrite, AWriteNakedWithoutPlacingIsLegal)
{
    WritePkt(100, PSN, true, false);
    WritePkt(101, PSN, false, true, BUF + 1);
    Nak(130, PSN);
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    protcheck_stats_t st;
    protcheck_get_stats(pc, &st);
    EXPECT_EQ(2u, st.write_pkts);
    EXPECT_EQ(1u, st.access_naks);
}

TEST_F(ProtCheckWrite, ASuccessfulWritePlacesFreely)
{
    WritePkt(100, PSN, true, false);
    Place(110);
    WritePkt(120, PSN, false, true, BUF + 1);
    Place(130, BUF + 1, A + 256);
    Tx(200, Pkt(HCA_PKT_OP_ACK, REQ, RESP, PSN, 0, 0, true, true));
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheckWrite, FirstPacketFailureThatPlacedBytesIsCaught)
{
    // No invalidation of the R_Key since the first packet: the whole-range
    // check failed, so not one byte may have been placed.
    WritePkt(100, PSN, true, false);
    Place(110);
    Nak(130, PSN);
    ASSERT_EQ(1u, protcheck_count(pc)) << All();
    protcheck_violation_t v = Get(0);
    EXPECT_EQ(110u, v.cycle) << "reported at the placement";
    EXPECT_EQ(K, v.key);
    EXPECT_EQ(A, v.addr);
    EXPECT_NE(std::string::npos, std::string(v.reason).find("I4")) << v.reason;
    EXPECT_NE(std::string::npos, std::string(v.reason).find("whole-range")) << v.reason;
}

TEST_F(ProtCheckWrite, KeyInvalidatedBeforeTheFirstPacketMeansNothingPlaced)
{
    protcheck_key_invalid(pc, 50, K, "LOCAL_INV");
    WritePkt(100, PSN, true, true);
    Nak(130, PSN);
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheckWrite, MidMessageInvalidationKeepsTheEarlierChunks)
{
    protcheck_key_valid(pc, 1, K);
    WritePkt(100, PSN, true, false);
    Place(110);
    protcheck_key_invalid(pc, 200, K, "LOCAL_INV");
    WritePkt(210, PSN, false, true, BUF + 1);
    Nak(230, PSN);
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

// An invalidation counts from its request to its completion: a device may
// fail a later packet's re-check (and NAK) before the command that
// invalidates is answered (DESTROY_MKEY waits for a DRAIN after its
// INVALIDATE). A withdrawn request (the command failed) does not count.
TEST_F(ProtCheckWrite, AnInvalidationRequestedBeforeTheNakCountsFromItsRequest)
{
    protcheck_key_valid(pc, 1, K);
    WritePkt(100, PSN, true, false);
    Place(110);
    protcheck_key_invalidating(pc, 150, K, 1);
    WritePkt(160, PSN, false, true, BUF + 1);
    Nak(180, PSN);
    protcheck_key_invalid(pc, 300, K, "DESTROY_MKEY");
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    // The next message, after the invalidation completed: the rule is back.
    protcheck_key_valid(pc, 400, K);
    WritePkt(500, PSN + 1, true, false);
    Place(510);
    Nak(530, PSN + 1);
    EXPECT_EQ(1u, protcheck_count(pc)) << All();
}

// refused_after_inv: a NAK REM_ACCESS_ERR counts when the R_Key's
// invalidation was requested at or after the message arrived (WRITE's first
// packet or READ_REQ) and before the NAK; not when the key was invalid, or
// already being invalidated, when the message arrived, nor for other NAKs.
TEST_F(ProtCheckWrite, RefusalsAfterAnInvalidationAreCountedForWritesAndReads)
{
    auto refused = [&] {
        protcheck_stats_t st;
        protcheck_get_stats(pc, &st);
        return st.refused_after_inv;
    };
    protcheck_key_valid(pc, 1, K);
    WritePkt(100, PSN, true, false);
    Place(110);
    protcheck_key_invalidating(pc, 150, K, 1); // requested mid-message
    WritePkt(160, PSN, false, true, BUF + 1);
    Nak(180, PSN);
    EXPECT_EQ(1u, refused()) << "a WRITE refused under a running invalidation";
    protcheck_key_invalid(pc, 300, K, "LOCAL_INV");
    WritePkt(400, PSN + 1, true, true); // arrives with the key invalid
    Nak(420, PSN + 1);
    EXPECT_EQ(1u, refused()) << "a WRITE that arrived after the invalidation is not one";
    Nak(430, PSN + 1, HCA_WC_STATUS_REM_OP_ERR);
    EXPECT_EQ(1u, refused());
    // a READ: its READ_REQ arrives, the key is invalidated (completed), the NAK follows
    protcheck_key_valid(pc, 500, K);
    Rx(600, Pkt(HCA_PKT_OP_READ_REQ, RESP, REQ, PSN + 2, 0, 0, true, true, K));
    protcheck_key_invalidating(pc, 650, K, 1);
    protcheck_key_invalid(pc, 700, K, "LOCAL_INV");
    Nak(720, PSN + 2);
    EXPECT_EQ(2u, refused()) << "a READ refused after its key was invalidated under it";
    // a READ arriving while an invalidation is already in flight: not counted
    protcheck_key_valid(pc, 800, K);
    protcheck_key_invalidating(pc, 850, K, 1);
    Rx(900, Pkt(HCA_PKT_OP_READ_REQ, RESP, REQ, PSN + 3, 0, 0, true, true, K));
    Nak(920, PSN + 3);
    EXPECT_EQ(2u, refused()) << "the invalidation was requested before the READ arrived";
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheckWrite, AWithdrawnInvalidationRequestDoesNotExcuseAPlacement)
{
    protcheck_key_valid(pc, 1, K);
    protcheck_key_invalidating(pc, 50, K, 1);
    protcheck_key_invalidating(pc, 60, K, 0); // the command failed
    WritePkt(100, PSN, true, false);
    Place(110);
    Nak(130, PSN);
    ASSERT_EQ(1u, protcheck_count(pc)) << All();
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("whole-range")) << Get(0).reason;
}

TEST_F(ProtCheckWrite, PlacementAfterTheNakIsCaught)
{
    protcheck_key_valid(pc, 1, K);
    WritePkt(100, PSN, true, false);
    Place(110);
    protcheck_key_invalid(pc, 200, K, "LOCAL_INV");
    WritePkt(210, PSN, false, true, BUF + 1);
    Nak(230, PSN);
    // A chunk of the failed message placed after the NAK; the key check is
    // I1's business (it was invalid too): use another key to isolate I4.
    Transfer(240, 280, Dma(HCA_DMA_OP_BUF_TO_HOST, 0x00000001, A + 256, 256, BUF + 1));
    ASSERT_EQ(1u, protcheck_count(pc)) << All();
    EXPECT_EQ(240u, Get(0).cycle);
    EXPECT_NE(std::string::npos, std::string(Get(0).reason).find("later")) << Get(0).reason;
}

TEST_F(ProtCheckWrite, OtherNaksAndReusedBuffersAreNotTheFailedWrite)
{
    WritePkt(100, PSN, true, true);
    Nak(130, PSN + 1);                                   // another message (e.g. a READ_REQ)
    Nak(131, PSN, HCA_WC_STATUS_REM_OP_ERR);             // another syndrome
    Place(140);                                          // so this placement is legal
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
    WritePkt(200, PSN + 2, true, true);
    Nak(230, PSN + 2);
    // The buffer is refilled by a sender (HOST_TO_BUF) and its SEND payload placed.
    Transfer(240, 500, Dma(HCA_DMA_OP_HOST_TO_BUF, 0x00000205, A + 8192, 256, BUF));
    Rx(600, Pkt(HCA_PKT_OP_SEND, RESP, REQ, PSN + 3, BUF, 256, true, true));
    Transfer(610, 650, Dma(HCA_DMA_OP_BUF_TO_HOST, 0x00000205, A + 8192, 256, BUF));
    EXPECT_EQ(0u, protcheck_count(pc)) << All();
}

TEST_F(ProtCheck, HarnessReportsAreKeptFormattedAndCapped)
{
    protcheck_report(pc, 42, 0, 0x1000, "engine bug: READ_DATA len %u > 128", 200u);
    ASSERT_EQ(1u, protcheck_count(pc));
    EXPECT_EQ("cycle 42 key 0x00000000 addr 0x1000: engine bug: READ_DATA len 200 > 128\n", All());
    for (unsigned i = 1; i < PROTCHECK_KEEP + 44; i++)
        protcheck_report(pc, 42 + i, i, 0, "r%u", i);
    EXPECT_EQ(PROTCHECK_KEEP + 44u, protcheck_count(pc));
    protcheck_violation_t v;
    EXPECT_EQ(0, protcheck_get(pc, PROTCHECK_KEEP - 1, &v));
    EXPECT_EQ(-ENOENT, protcheck_get(pc, PROTCHECK_KEEP, &v));
    std::string all(1 << 16, '\0');
    protcheck_format(pc, &all[0], all.size());
    EXPECT_NE(std::string::npos, all.find("... and 44 more")) << all.substr(all.size() - 200);
    char tiny[16];
    EXPECT_EQ(PROTCHECK_KEEP + 44u, protcheck_format(pc, tiny, sizeof tiny));
    EXPECT_EQ(15u, strlen(tiny)) << "cut, NUL-terminated";
    protcheck_reset(pc);
    EXPECT_EQ(0u, protcheck_count(pc));
    EXPECT_EQ("", All());
}

// The checker as the device feeds it: from the event log. A DMA through a key
// the log invalidated in flight is I2; a refused (malformed) request is not
// a DMA and counts nowhere; the harness's contract breach becomes I5 with the
// reason; after detach nothing is heard.
TEST_F(ProtCheck, TheEventLogFeedChecksWhatTheDeviceTells)
{
    evlog_t log = {};
    ASSERT_EQ(0, protcheck_attach(pc, &log));
    const uint32_t key = 0x00000705;
    hca_dma_req_t r = Dma(HCA_DMA_OP_BUF_TO_HOST, key, A, 64);
    hca_dma_req_set_tag(&r, 9);
    evlog_event_t issue = {};
    issue.kind = EVLOG_DMA_ISSUE;
    issue.cycle = 10;
    issue.dma = &r;
    evlog_emit(&log, &issue);
    evlog_event_t inv = {};
    inv.kind = EVLOG_KEY_INVALID;
    inv.cycle = 20;
    inv.key = key;
    inv.what = "LOCAL_INV";
    evlog_emit(&log, &inv);
    evlog_event_t done = {};
    done.kind = EVLOG_DMA_DONE;
    done.cycle = 30;
    done.dma = &r;
    done.issue_cycle = 10;
    evlog_emit(&log, &done);
    ASSERT_EQ(1u, protcheck_count(pc)) << All();
    EXPECT_NE(std::string::npos, All().find("I2")) << All();

    hca_dma_req_t bad = Dma(HCA_DMA_OP_READ_DATA, key, A, 4096);
    evlog_event_t refused = {};
    refused.kind = EVLOG_DMA_ISSUE;
    refused.cycle = 40;
    refused.dma = &bad;
    refused.refused = 1;
    evlog_emit(&log, &refused);
    protcheck_stats_t st;
    protcheck_get_stats(pc, &st);
    EXPECT_EQ(1u, st.dma_issued) << "a refused request is no DMA";
    EXPECT_EQ(1u, protcheck_count(pc)) << "nor a breach of I1 through the dead key";

    evlog_event_t bug = {};
    bug.kind = EVLOG_ENGINE_BUG;
    bug.cycle = 41;
    bug.key = key;
    bug.what = "malformed dma_req (READ_DATA longer than 128 bytes)";
    evlog_emit(&log, &bug);
    ASSERT_EQ(2u, protcheck_count(pc));
    EXPECT_STREQ("I5: engine bug: malformed dma_req (READ_DATA longer than 128 bytes)", Get(1).reason);

    protcheck_detach(pc, &log);
    evlog_emit(&log, &bug);
    EXPECT_EQ(2u, protcheck_count(pc)) << "detached: not listening";
}

} // namespace
