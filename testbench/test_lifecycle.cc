// QP, CQ and PD lifecycle (SEMANTICS.md "QP, CQ and PD lifecycle"), end to
// end through the driver, the firmware's queue commands and the WQE engine,
// on both engines: destroy is a fence (no DMA of the QP after it returns, no
// completion of its WRs), MODIFY_QP RESET / ERROR, recovery by RESET +
// connect, refusals (EBUSY, EINVAL, ENOMEM) that change nothing, numbers
// recycled far beyond MAX_QP, and the firmware mutant that skips the fence's
// DRAIN caught by the protection checker (which every fixture consults).
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "dev_fixture.h"
#include "hca_dev.h"
#include "hcadrv.h"
#include "protcheck.h"

#ifndef FW_MUTANT_QP_NO_DRAIN
#define FW_MUTANT_QP_NO_DRAIN "build/firmware/mutants/hcafw_qp_no_drain.elf"
#endif

namespace {

struct Lifecycle : EngineTest {};

using Dev = DevFixture;
using Pair = LoopPair;

const uint32_t RW = ACCESS_RW;

// One SEND of len bytes a -> b (a receive posted first), both completions SUCCESS.
void send_ok(Pair &p, uint64_t wr_id, uint32_t len, const char *what)
{
    SCOPED_TRACE(what);
    p.fill(p.src, len, (uint8_t)wr_id);
    ASSERT_EQ(0, p.recv(wr_id, {p.s(p.dst, len)}));
    ASSERT_EQ(0, p.send(wr_id, HCA_WR_OPCODE_SEND, {p.s(p.src, len)}));
    auto ra = p.wait(&p.cqa, 1), rb = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, ra.size()) << describe(ra) << p.console();
    ASSERT_EQ(1u, rb.size()) << describe(rb) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(ra[0].status)) << describe(ra);
    EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(rb[0].status)) << describe(rb);
    EXPECT_EQ(p.read(p.src, len), p.read(p.dst, len)) << "payload";
}

hcadrv_qp_attr_t attr(uint32_t pd, hcadrv_cq_t *cq)
{
    return hcadrv_qp_attr_t{pd, cq, cq, 16, 16, 7, 500, 0};
}

// ---------------------------------------------------------------- query_device and limits

TEST_P(Lifecycle, QueryDeviceReportsTheQueueLimits)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a)) << d.console();
    EXPECT_EQ((uint32_t)HCA_MAX_QP - 1, a.max_qp);
    EXPECT_EQ((uint32_t)HCA_MAX_CQ - 1, a.max_cq);
    EXPECT_EQ(1u << HCA_QUEUE_LOG_MAX, a.max_qp_wr);
    EXPECT_EQ(1u << HCA_QUEUE_LOG_MAX, a.max_cqe);
    EXPECT_EQ((uint32_t)HCA_MAX_SEND_SGE, a.max_send_sge);
    EXPECT_EQ((uint32_t)HCA_MAX_RECV_SGE, a.max_recv_sge);
}

// Every CQ and QP the device reports can be created, one more is ENOMEM and
// takes nothing; a destroyed number is the next one handed out.
TEST_P(Lifecycle, CreatingMoreThanTheDeviceHoldsIsEnomemAndChangesNothing)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a));
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    std::vector<hcadrv_cq_t> cqs(a.max_cq);
    for (uint32_t i = 0; i < a.max_cq; i++)
        ASSERT_EQ(0, hcadrv_create_cq(d.drv, 4, &cqs[i])) << "CQ " << i << " of " << a.max_cq << "\n" << d.console();
    hcadrv_cq_t extra{};
    EXPECT_EQ(-ENOMEM, hcadrv_create_cq(d.drv, 4, &extra)) << "CQ " << a.max_cq + 1;
    const uint32_t freed = cqs[5].cqn;
    ASSERT_EQ(0, hcadrv_destroy_cq(d.drv, &cqs[5]));
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 4, &cqs[5])) << "the refusal took nothing";
    EXPECT_EQ(freed, cqs[5].cqn) << "the freed number is handed out again";

    std::vector<hcadrv_qp_t> qps(a.max_qp);
    hcadrv_qp_attr_t at = attr(pd, &cqs[0]);
    for (uint32_t i = 0; i < a.max_qp; i++)
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &qps[i])) << "QP " << i << " of " << a.max_qp << "\n"
                                                            << d.console();
    hcadrv_qp_t qx{};
    EXPECT_EQ(-ENOMEM, hcadrv_create_qp(d.drv, &at, &qx)) << "QP " << a.max_qp + 1;
    const uint32_t qfreed = qps[7].qpn;
    ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &qps[7]));
    ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &qps[7]));
    EXPECT_EQ(qfreed, qps[7].qpn);
    // The ENOMEM refusal changed nothing: two of the QPs still connect and carry a SEND.
    ASSERT_EQ(0, hcadrv_connect(d.drv, &qps[0], &qps[1]));
    uint64_t buf = d.alloc(4096);
    hcadrv_mr_t mr{};
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 4096, buf, RW, 12, &mr));
    d.fill(buf, 64, 9);
    hcadrv_recv_wr_t rw{};
    rw.wr_id = 2;
    rw.num_sge = 1;
    rw.sge[0] = hca_sge_t{buf + 1024, 64, mr.lkey};
    ASSERT_EQ(0, hcadrv_post_recv(d.drv, &qps[1], &rw));
    hcadrv_send_wr_t sw{};
    sw.wr_id = 1;
    sw.opcode = HCA_WR_OPCODE_SEND;
    sw.flags = HCA_SEND_FLAGS_SIGNALED;
    sw.num_sge = 1;
    sw.sge[0] = hca_sge_t{buf, 64, mr.lkey};
    ASSERT_EQ(0, hcadrv_post_send(d.drv, &qps[0], &sw));
    auto got = d.wait(&cqs[0], 2);
    ASSERT_EQ(2u, got.size()) << describe(got) << d.console();
    for (const auto &w : got)
        EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(w.status)) << describe(got);
    EXPECT_EQ(d.read(buf, 64), d.read(buf + 1024, 64));
}

// Lifecycle at scale: every QP the device holds is created, connected in
// pairs and destroyed; the two highest numbers then carry a SEND (QP numbers
// of every bit the RTL's QW-bit index has), and every number is handed out
// again.
TEST_P(Lifecycle, EveryQpIsCreatedConnectedAndDestroyed)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a));
    ASSERT_GE(a.max_qp, 2u);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_cq_t cq{};
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 4, &cq));
    hcadrv_qp_attr_t at = attr(pd, &cq);
    std::vector<hcadrv_qp_t> qps(a.max_qp);
    for (int round = 0; round < 2; round++) {
        SCOPED_TRACE(round == 0 ? "first round" : "numbers reused");
        for (uint32_t i = 0; i < a.max_qp; i++)
            ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &qps[i])) << "QP " << i << "\n" << d.console();
        for (uint32_t i = 0; i + 1 < a.max_qp; i += 2)
            ASSERT_EQ(0, hcadrv_connect(d.drv, &qps[i], &qps[i + 1])) << "pair " << i << "\n" << d.console();
        if (round == 1)
            break;
        for (uint32_t i = 0; i < a.max_qp; i++)
            ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &qps[i])) << "QP " << i << "\n" << d.console();
    }
    // The last pair connected (max_qp odd: the last QP stays in RESET).
    const uint32_t hi = (a.max_qp & ~1u) - 1u, lo = hi - 1u;
    EXPECT_EQ(a.max_qp - (a.max_qp & 1u), std::max(qps[lo].qpn, qps[hi].qpn)) << "the highest QP numbers";
    uint64_t buf = d.alloc(4096);
    hcadrv_mr_t mr{};
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 4096, buf, RW, 12, &mr));
    d.fill(buf, 64, 5);
    hcadrv_recv_wr_t rw{};
    rw.wr_id = 2;
    rw.num_sge = 1;
    rw.sge[0] = hca_sge_t{buf + 1024, 64, mr.lkey};
    ASSERT_EQ(0, hcadrv_post_recv(d.drv, &qps[hi], &rw));
    hcadrv_send_wr_t sw{};
    sw.wr_id = 1;
    sw.opcode = HCA_WR_OPCODE_SEND;
    sw.flags = HCA_SEND_FLAGS_SIGNALED;
    sw.num_sge = 1;
    sw.sge[0] = hca_sge_t{buf, 64, mr.lkey};
    ASSERT_EQ(0, hcadrv_post_send(d.drv, &qps[lo], &sw));
    auto got = d.wait(&cq, 2);
    ASSERT_EQ(2u, got.size()) << describe(got) << d.console();
    for (const auto &w : got)
        EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(w.status)) << describe(got);
    EXPECT_EQ(d.read(buf, 64), d.read(buf + 1024, 64));
}

// ---------------------------------------------------------------- refusals

TEST_P(Lifecycle, ObjectsInUseOrGoneAreRefusedAndNothingChanges)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    EXPECT_EQ(-EBUSY, hcadrv_destroy_cq(p.drv, &p.cqa)) << "QP a uses it";
    EXPECT_EQ(-EBUSY, hcadrv_dealloc_pd(p.drv, p.pd)) << "MRs and QPs use it";
    EXPECT_EQ(-EINVAL, hcadrv_modify_qp(p.drv, &p.a, HCA_QP_STATE_RTS)) << "RTS is connect's";
    EXPECT_EQ(-EINVAL, hcadrv_cmd(p.drv, HCA_CMD_OP_MODIFY_QP, 0, 0, p.a.qpn | 3u << 16, nullptr)) << "state 3";
    EXPECT_EQ(-ENOENT, hcadrv_cmd(p.drv, HCA_CMD_OP_MODIFY_QP, 0, 0, 60 | HCA_QP_STATE_RESET << 16, nullptr))
        << "no QP 60 (BAD_INDEX)";
    EXPECT_EQ(-EINVAL, hcadrv_connect(p.drv, &p.a, &p.b)) << "connected QPs are not in RESET";
    send_ok(p, 1, 200, "after the refusals");
    if (HasFatalFailure())
        return;

    // A PD used only by a QP (no MR) is busy too; free once the QP is gone.
    uint32_t pd2 = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(p.drv, &pd2));
    hcadrv_cq_t cq2{};
    ASSERT_EQ(0, hcadrv_create_cq(p.drv, 8, &cq2));
    hcadrv_qp_attr_t at = attr(pd2, &cq2);
    hcadrv_qp_t q{};
    ASSERT_EQ(0, hcadrv_create_qp(p.drv, &at, &q));
    EXPECT_EQ(-EBUSY, hcadrv_dealloc_pd(p.drv, pd2)) << "a QP uses it";
    EXPECT_EQ(-EBUSY, hcadrv_destroy_cq(p.drv, &cq2));
    hcadrv_qp_t copy = q;
    ASSERT_EQ(0, hcadrv_destroy_qp(p.drv, &q));
    EXPECT_EQ(-EINVAL, hcadrv_destroy_qp(p.drv, &copy)) << "destroyed twice";
    EXPECT_EQ(-EINVAL, hcadrv_modify_qp(p.drv, &copy, HCA_QP_STATE_RESET)) << "destroyed";
    EXPECT_EQ(-ENOENT, hcadrv_cmd(p.drv, HCA_CMD_OP_DESTROY_QP, 0, 0, copy.qpn, nullptr))
        << "the device refuses it too (BAD_INDEX)";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, hcadrv_last_status(p.drv));
    ASSERT_EQ(0, hcadrv_dealloc_pd(p.drv, pd2));
    EXPECT_EQ(-EINVAL, hcadrv_dealloc_pd(p.drv, pd2)) << "deallocated twice";
    hcadrv_cq_t cq2copy = cq2;
    ASSERT_EQ(0, hcadrv_destroy_cq(p.drv, &cq2));
    EXPECT_EQ(-EINVAL, hcadrv_destroy_cq(p.drv, &cq2copy)) << "destroyed twice";
    EXPECT_EQ(-ENOENT, hcadrv_cmd(p.drv, HCA_CMD_OP_DESTROY_CQ, 0, 0, cq2copy.cqn, nullptr))
        << "the device refuses it too (BAD_INDEX)";
    send_ok(p, 2, 300, "the pair is untouched by all of it");
}

// ---------------------------------------------------------------- MODIFY_QP

TEST_P(Lifecycle, ModifyErrorFlushesOutstandingWork)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    for (uint64_t i = 0; i < 3; i++)
        ASSERT_EQ(0, p.recv(10 + i, {p.s(p.dst + 4096 * i, 256)}));
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.b, HCA_QP_STATE_ERROR)) << p.console();
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
    auto rb = p.wait(&p.cqb, 3);
    ASSERT_EQ(3u, rb.size()) << describe(rb) << p.console();
    for (uint64_t i = 0; i < 3; i++) {
        EXPECT_EQ(10 + i, rb[i].wr_id) << describe(rb);
        EXPECT_EQ(status_name(HCA_WC_STATUS_WR_FLUSH_ERR), status_name(rb[i].status)) << describe(rb);
    }
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.a, HCA_QP_STATE_ERROR));
    ASSERT_EQ(0, p.send(20, HCA_WR_OPCODE_SEND, {p.s(p.src, 64)})) << "posts to a QP in ERROR are taken";
    auto ra = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, ra.size()) << describe(ra) << p.console();
    EXPECT_EQ(20u, ra[0].wr_id);
    EXPECT_EQ(status_name(HCA_WC_STATUS_WR_FLUSH_ERR), status_name(ra[0].status));
}

// A fault moves the pair to ERROR; RESET empties the queues without a
// completion; connect brings both back and they carry traffic again.
TEST_P(Lifecycle, ResetAndConnectRecoverFromError)
{
    Pair p(0 /* rnr_retry 0: a SEND without a receive fails at once */);
    ASSERT_PAIR_UP(p);
    ASSERT_EQ(0, p.send(1, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 128)}, p.dst, p.mdst.rkey ^ 0x1));
    auto ra = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, ra.size()) << describe(ra) << p.console();
    EXPECT_EQ(status_name(HCA_WC_STATUS_REM_ACCESS_ERR), status_name(ra[0].status));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
    EXPECT_EQ(-EINVAL, hcadrv_connect(p.drv, &p.a, &p.b)) << "ERROR is not RESET";

    // Receives outstanding on b when it is reset: emptied, never completed.
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.a, HCA_QP_STATE_RESET));
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.b, HCA_QP_STATE_RESET));
    EXPECT_TRUE(p.drain(&p.cqb).size() <= 1) << "b's flush of the failed WRITE's receive side, if any";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RESET, p.state(p.a));
    EXPECT_EQ(0u, p.a.sq_pi) << "the driver's indices restart";
    EXPECT_EQ(-ENOTCONN, p.send(2, HCA_WR_OPCODE_SEND, {p.s(p.src, 64)})) << "a QP in RESET takes no post";
    ASSERT_EQ(0, hcadrv_connect(p.drv, &p.a, &p.b)) << p.console();
    for (uint64_t i = 0; i < 2; i++)
        ASSERT_EQ(0, p.recv(100 + i, {p.s(p.dst + 8192, 256)}));
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.b, HCA_QP_STATE_RESET));
    EXPECT_TRUE(p.drain(&p.cqb).empty()) << "RESET completes nothing";
    ASSERT_EQ(0, hcadrv_modify_qp(p.drv, &p.a, HCA_QP_STATE_RESET));
    ASSERT_EQ(0, hcadrv_connect(p.drv, &p.a, &p.b));
    send_ok(p, 3, 1000, "after RESET + connect");
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.a));
}

TEST_P(Lifecycle, PostsToADestroyedQpAreRefused)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_qp_t a = p.a;
    ASSERT_EQ(0, hcadrv_destroy_qp(p.drv, &p.a));
    EXPECT_EQ(-EINVAL, p.send(1, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}, 0, 0, HCA_SEND_FLAGS_SIGNALED, &a));
    EXPECT_EQ(-EINVAL, p.recv(1, {p.s(p.dst, 8)}, &a));
    unsigned st = 0;
    EXPECT_EQ(-EINVAL, hcadrv_query_qp(p.drv, &a, &st));
    EXPECT_TRUE(p.drain(&p.cqa).empty()) << "nothing was posted";
}

// ---------------------------------------------------------------- destroy as a fence

// The cycles of the CQEs written (the event log's CQE events).
struct CqeCycles {
    std::vector<uint64_t> at;
    evlog_t *log;
    explicit CqeCycles(hca_dev_t *dev) : log(hca_dev_log(dev)) { evlog_subscribe(log, on, this); }
    ~CqeCycles() { evlog_unsubscribe(log, on, this); }
    static void on(void *ctx, const evlog_event_t *e)
    {
        if (e->kind == EVLOG_CQE)
            static_cast<CqeCycles *>(ctx)->at.push_back(e->cycle);
    }
    size_t after(uint64_t c) const
    {
        size_t n = 0;
        for (uint64_t x : at)
            n += x > c;
        return n;
    }
};

// A long RDMA WRITE a -> b and a long READ are under way when both QPs are
// destroyed: after destroy returned no byte changes in either sink, no CQE
// is written, and the checker saw no DMA of a destroyed QP.
TEST_P(Lifecycle, DestroyWithLongTransfersInFlightIsAFence)
{
    const uint32_t len = 64 * 1024;
    unsigned landed_mid = 0;
    for (unsigned k = 0; k < 4; k++) {
        SCOPED_TRACE("round " + std::to_string(k));
        Pair q;
        ASSERT_PAIR_UP(q);
        CqeCycles cqes(q.dev);
        q.fill(q.src, Pair::BUF, (uint8_t)(k + 1));
        ASSERT_EQ(0, q.send(1, HCA_WR_OPCODE_RDMA_WRITE, {q.s(q.src, len)}, q.dst, q.mdst.rkey));
        ASSERT_EQ(0, q.send(2, HCA_WR_OPCODE_RDMA_READ, {q.s(q.dst + len, len)}, q.src + len, q.msrc.rkey));
        hca_dev_step(q.dev, 3000 + 2500 * k);
        ASSERT_EQ(0, hcadrv_destroy_qp(q.drv, &q.b)) << q.console();
        ASSERT_EQ(0, hcadrv_destroy_qp(q.drv, &q.a)) << q.console();
        const uint64_t t = hca_dev_cycle(q.dev);
        auto snap = q.read(q.dst, Pair::BUF);
        q.drain(&q.cqa, 60000);
        EXPECT_EQ(0u, cqes.after(t)) << "WRs of a destroyed QP never complete";
        EXPECT_TRUE(snap == q.read(q.dst, Pair::BUF)) << "bytes landed after destroy returned";
        auto want = q.read(q.src, len);
        if (snap != std::vector<uint8_t>(snap.size(), 0) && std::vector<uint8_t>(snap.begin(), snap.begin() + len) != want)
            landed_mid++;
    }
    EXPECT_GT(landed_mid, 0u) << "no round destroyed the QPs mid-transfer: the delays miss it";
}

// The same against a firmware whose DESTROY_QP answers without the ctx DRAIN:
// a placement checked before the RESET lands after the answer, and the
// checker reports the QP's DMA after its destroy (kept in every run: the
// fence test above can fail).
TEST_P(Lifecycle, TheCheckerCatchesADestroyThatSkipsTheDrain)
{
    const uint32_t len = 64 * 1024;
    uint64_t caught = 0;
    std::string v;
    for (unsigned k = 0; k < 12 && !caught; k++) {
        Pair q(7, 500, 0, 64, 16, 16, FW_MUTANT_QP_NO_DRAIN);
        ASSERT_PAIR_UP(q);
        q.fill(q.src, Pair::BUF, (uint8_t)(k + 1));
        ASSERT_EQ(0, q.send(1, HCA_WR_OPCODE_RDMA_WRITE, {q.s(q.src, len)}, q.dst, q.mdst.rkey));
        hca_dev_step(q.dev, 2000 + 700 * k);
        ASSERT_EQ(0, hcadrv_destroy_qp(q.drv, &q.b)) << q.console();
        q.drain(&q.cqa, 20000);
        char buf[1024] = "";
        caught = hca_dev_violations(q.dev, buf, sizeof buf);
        v = buf;
        protcheck_reset(hca_dev_protcheck(q.dev)); // the breach is the point: let the fixture pass
    }
    EXPECT_GT(caught, 0u) << "no breach: the checker misses a destroy that does not fence the QP's DMA";
    EXPECT_NE(std::string::npos, v.find("I6")) << v;
    EXPECT_NE(std::string::npos, v.find("after its DESTROY_QP returned")) << v;
}

// ---------------------------------------------------------------- recycling

// Fault, RESET + connect, then destroy and create again, far more times than
// the device has QPs: numbers are reused, with the checker on throughout.
TEST_P(Lifecycle, QpsRecycleFarBeyondMaxQp)
{
    const unsigned rounds = GetParam() == DEV_ENGINE_MODEL ? 500 : 100;
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_cq_t cq{};
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 64, &cq));
    uint64_t buf = d.alloc(8192);
    hcadrv_mr_t mr{};
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 8192, buf, RW, 12, &mr));
    uint32_t max_qpn = 0;
    for (unsigned r = 0; r < rounds; r++) {
        SCOPED_TRACE("round " + std::to_string(r));
        hcadrv_qp_attr_t at = attr(pd, &cq);
        at.rnr_retry = 0;
        hcadrv_qp_t a{}, b{};
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &a)) << d.console();
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &b));
        max_qpn = std::max(max_qpn, std::max(a.qpn, b.qpn));
        ASSERT_EQ(0, hcadrv_connect(d.drv, &a, &b));
        hcadrv_send_wr_t sw{};
        sw.wr_id = r;
        sw.opcode = HCA_WR_OPCODE_SEND;
        sw.flags = HCA_SEND_FLAGS_SIGNALED;
        sw.num_sge = 1;
        sw.sge[0] = hca_sge_t{buf, 32, mr.lkey};
        // No receive posted: RNR with rnr_retry 0 fails the SEND, a -> ERROR.
        ASSERT_EQ(0, hcadrv_post_send(d.drv, &a, &sw));
        auto f = d.wait(&cq, 1);
        ASSERT_EQ(1u, f.size()) << describe(f) << d.console();
        ASSERT_EQ(status_name(HCA_WC_STATUS_RNR_RETRY_EXC_ERR), status_name(f[0].status)) << describe(f);
        ASSERT_EQ(0, hcadrv_modify_qp(d.drv, &a, HCA_QP_STATE_RESET));
        ASSERT_EQ(0, hcadrv_modify_qp(d.drv, &b, HCA_QP_STATE_RESET));
        ASSERT_EQ(0, hcadrv_connect(d.drv, &a, &b));
        hcadrv_recv_wr_t rw{};
        rw.wr_id = 1000 + r;
        rw.num_sge = 1;
        rw.sge[0] = hca_sge_t{buf + 4096, 32, mr.lkey};
        ASSERT_EQ(0, hcadrv_post_recv(d.drv, &b, &rw));
        ASSERT_EQ(0, hcadrv_post_send(d.drv, &a, &sw));
        auto ok = d.wait(&cq, 2);
        ASSERT_EQ(2u, ok.size()) << describe(ok) << d.console();
        for (const auto &w : ok)
            ASSERT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(w.status)) << describe(ok);
        ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &a));
        ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &b));
    }
    EXPECT_LE(max_qpn, 2u) << "numbers are reused";
    EXPECT_EQ(0, hcadrv_destroy_cq(d.drv, &cq)) << "no QP holds the CQ any more";
}

ENGINE_TEST_SUITE(Lifecycle);

} // namespace
