// The verbs end to end: the reference driver posts work requests into rings in
// host memory, the firmware's queue commands set up the WQE engine's
// contexts, and the engine (RTL: rtl/hca_core.sv) moves the data over its
// loopback link and writes CQEs. Every row of SEMANTICS.md "Where a failed
// check lands" is exercised; payload bytes are checked in host memory.
//
// Every suite runs on both engines (EngineTest): the verbs' behaviour is the
// device's, whichever engine serves it.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "dev_fixture.h"
#include "hca_dev.h"
#include "hcadrv.h"

namespace {

struct Verbs : EngineTest {};
struct VerbsErrors : EngineTest {};

const uint32_t RW = ACCESS_RW;


using Dev = DevFixture;
using Pair = LoopPair;

void expect_wc(const hcadrv_wc_t &w, uint64_t wr_id, unsigned status, unsigned opcode, uint32_t byte_len,
               uint32_t qpn, const char *what)
{
    SCOPED_TRACE(what);
    EXPECT_EQ(wr_id, w.wr_id) << describe(w);
    EXPECT_EQ(status_name(status), status_name(w.status)) << describe(w);
    if (status == HCA_WC_STATUS_SUCCESS) { // opcode and length are defined on success only
        EXPECT_EQ(opcode, w.opcode) << describe(w);
        EXPECT_EQ(byte_len, w.byte_len) << describe(w);
    }
    EXPECT_EQ(qpn, w.qpn) << describe(w);
}

// Expected bytes of a gather list, in order.
std::vector<uint8_t> gather(Dev &d, const std::vector<hca_sge_t> &sges)
{
    std::vector<uint8_t> out;
    for (const auto &s : sges) {
        auto b = d.read(s.addr, s.length);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

// ---------------------------------------------------------------- commands and misuse

TEST_P(Verbs, QueueCommandsValidateTheirArguments)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_cq_t cq;
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 10, &cq)) << d.console();
    EXPECT_EQ(4u, cq.log_depth) << "10 rounds up to 16";
    EXPECT_NE(0u, cq.cqn);
    hcadrv_cq_t big;
    EXPECT_EQ(-EINVAL, hcadrv_create_cq(d.drv, (1u << HCA_QUEUE_LOG_MAX) + 1, &big));

    uint64_t in = d.alloc(4096), ring = d.alloc(1 << 20);
    auto raw_cq = [&](uint64_t base, uint32_t log) {
        hca_create_cq_in_t c;
        memset(&c, 0, sizeof c);
        c.base = base;
        c.log_depth = log;
        EXPECT_EQ(0, hostmem_write(d.mem, in, &c, sizeof c));
        uint32_t n = 0;
        return hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_CQ, in, 0, 0, &n);
    };
    EXPECT_EQ(-EINVAL, raw_cq(ring, HCA_QUEUE_LOG_MAX + 1));
    EXPECT_EQ(-EINVAL, raw_cq(ring + 16, 4)) << "base not 32-byte aligned";
    EXPECT_EQ(-EINVAL, raw_cq(0, 4));
    EXPECT_EQ(-EFAULT, hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_CQ, 0xbad000ull, 0, 0, nullptr));

    auto good = [&]() {
        hca_create_qp_in_t q;
        memset(&q, 0, sizeof q);
        q.pd = pd;
        hca_create_qp_in_set_send_cqn(&q, cq.cqn);
        hca_create_qp_in_set_recv_cqn(&q, cq.cqn);
        q.sq_base = ring;
        q.rq_base = ring + 0x10000;
        hca_create_qp_in_set_sq_log(&q, 4);
        hca_create_qp_in_set_rq_log(&q, 4);
        return q;
    };
    struct Case {
        const char *what;
        void (*mutate)(hca_create_qp_in_t &);
        int rc;
    };
    const Case cases[] = {
        {"no such PD", [](hca_create_qp_in_t &q) { q.pd = 999; }, -ENOENT},
        {"PD 0", [](hca_create_qp_in_t &q) { q.pd = 0; }, -ENOENT},
        {"send CQ 0", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_send_cqn(&q, 0); }, -ENOENT},
        {"recv CQ not created", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_recv_cqn(&q, 63); }, -ENOENT},
        {"recv CQ beyond MAX_CQ", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_recv_cqn(&q, 0xffff); },
         -ENOENT},
        {"sq_base not 128-aligned", [](hca_create_qp_in_t &q) { q.sq_base += 64; }, -EINVAL},
        {"rq_base not 64-aligned", [](hca_create_qp_in_t &q) { q.rq_base += 32; }, -EINVAL},
        {"sq_base 0", [](hca_create_qp_in_t &q) { q.sq_base = 0; }, -EINVAL},
        {"sq_log 13", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_sq_log(&q, 13); }, -EINVAL},
        {"rq_log 15", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_rq_log(&q, 15); }, -EINVAL},
        {"mtu_log2 7", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_mtu_log2(&q, 7); }, -EINVAL},
        {"mtu_log2 13", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_mtu_log2(&q, 13); }, -EINVAL},
        {"reserved logs bits", [](hca_create_qp_in_t &q) { q.logs |= 1u << 20; }, -EINVAL},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(k.what);
        hca_create_qp_in_t q = good();
        k.mutate(q);
        ASSERT_EQ(0, hostmem_write(d.mem, in, &q, sizeof q));
        EXPECT_EQ(k.rc, hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_QP, in, 0, 0, nullptr));
    }
    EXPECT_NE(std::string::npos, d.console().find("CREATE_QP: sq_base")) << d.console();
    // A good one; mtu_log2 0 means MTU_DEFAULT. The refusals held nothing: PD and CQ are free again after it.
    hca_create_qp_in_t q = good();
    ASSERT_EQ(0, hostmem_write(d.mem, in, &q, sizeof q));
    uint32_t qpn = 0;
    ASSERT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_QP, in, 0, 0, &qpn)) << d.console();
    EXPECT_EQ(1u, qpn) << "the refusals allocated no QP number";
    uint64_t out = d.alloc(4096);
    ASSERT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_QUERY_QP, 0, out, qpn, nullptr));
    hca_qp_ctx_t c;
    ASSERT_EQ(0, hostmem_read(d.mem, out, &c, sizeof c));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RESET, hca_qp_ctx_get_state(&c));
    EXPECT_EQ(12u, hca_qp_ctx_get_mtu_log2(&c));
    EXPECT_EQ(ring, c.sq_base);
    EXPECT_EQ(ring + 0x10000, c.rq_base);
    EXPECT_EQ(pd, c.pd);
    EXPECT_EQ(cq.cqn, hca_qp_ctx_get_send_cqn(&c));

    EXPECT_EQ(-EBUSY, hcadrv_dealloc_pd(d.drv, pd)) << "a QP uses the PD";
    EXPECT_EQ(-EBUSY, hcadrv_destroy_cq(d.drv, &cq)) << "a QP uses the CQ";
    EXPECT_EQ(-ENOENT, hcadrv_cmd(d.drv, HCA_CMD_OP_CONNECT_QP, 0, 0, qpn | 5u << 16, nullptr)) << "no QP 5";
    EXPECT_EQ(-ENOENT, hcadrv_cmd(d.drv, HCA_CMD_OP_DESTROY_QP, 0, 0, 0, nullptr));
    EXPECT_EQ(-ENOENT, hcadrv_cmd(d.drv, HCA_CMD_OP_QUERY_QP, 0, out, 64, nullptr));
    ASSERT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_CONNECT_QP, 0, 0, qpn | qpn << 16, nullptr)) << "its own peer";
    EXPECT_EQ(-EINVAL, hcadrv_cmd(d.drv, HCA_CMD_OP_CONNECT_QP, 0, 0, qpn | qpn << 16, nullptr))
        << "already connected";
    ASSERT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_QUERY_QP, 0, out, qpn, nullptr));
    ASSERT_EQ(0, hostmem_read(d.mem, out, &c, sizeof c));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&c));
    EXPECT_EQ(qpn, c.remote_qpn);
    ASSERT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_DESTROY_QP, 0, 0, qpn, nullptr));
    EXPECT_EQ(-ENOENT, hcadrv_cmd(d.drv, HCA_CMD_OP_DESTROY_QP, 0, 0, qpn, nullptr)) << "destroyed twice";
    EXPECT_EQ(0, hcadrv_destroy_cq(d.drv, &cq));
    EXPECT_EQ(-ENOENT, hcadrv_cmd(d.drv, HCA_CMD_OP_DESTROY_CQ, 0, 0, cq.cqn, nullptr));
    EXPECT_EQ(0, hcadrv_dealloc_pd(d.drv, pd));
    EXPECT_EQ("running", d.health()) << d.console();
}

// What each queue command costs, post to answer (device cycles), recorded in the test XML.
TEST_P(Verbs, QueueCommandCosts)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_cq_t cq;
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 64, &cq));
    const uint64_t create_cq = hcadrv_last_cmd_cycles(d.drv);
    hcadrv_qp_attr_t at = {pd, &cq, &cq, 64, 64, 7, 500, 0};
    hcadrv_qp_t a, b;
    ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &a));
    const uint64_t create_qp = hcadrv_last_cmd_cycles(d.drv);
    ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &b));
    ASSERT_EQ(0, hcadrv_connect(d.drv, &a, &b));
    const uint64_t connect = hcadrv_last_cmd_cycles(d.drv);
    unsigned st = 0;
    ASSERT_EQ(0, hcadrv_query_qp(d.drv, &a, &st));
    const uint64_t query = hcadrv_last_cmd_cycles(d.drv);
    ASSERT_EQ(0, hcadrv_modify_qp(d.drv, &a, HCA_QP_STATE_ERROR));
    const uint64_t modify_error = hcadrv_last_cmd_cycles(d.drv);
    ASSERT_EQ(0, hcadrv_modify_qp(d.drv, &a, HCA_QP_STATE_RESET));
    const uint64_t modify_reset = hcadrv_last_cmd_cycles(d.drv);
    ASSERT_EQ(0, hcadrv_modify_qp(d.drv, &b, HCA_QP_STATE_RESET));
    ASSERT_EQ(0, hcadrv_connect(d.drv, &a, &b));
    ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &a));
    const uint64_t destroy_qp = hcadrv_last_cmd_cycles(d.drv);
    ASSERT_EQ(0, hcadrv_destroy_qp(d.drv, &b));
    ASSERT_EQ(0, hcadrv_destroy_cq(d.drv, &cq));
    const uint64_t destroy_cq = hcadrv_last_cmd_cycles(d.drv);
    RecordProperty("create_cq_cycles", std::to_string(create_cq));
    RecordProperty("create_qp_cycles", std::to_string(create_qp));
    RecordProperty("connect_qp_cycles", std::to_string(connect));
    RecordProperty("query_qp_cycles", std::to_string(query));
    RecordProperty("destroy_qp_cycles", std::to_string(destroy_qp));
    RecordProperty("destroy_cq_cycles", std::to_string(destroy_cq));
    RecordProperty("modify_qp_error_cycles", std::to_string(modify_error));
    RecordProperty("modify_qp_reset_cycles", std::to_string(modify_reset));
    for (uint64_t c : {create_cq, create_qp, connect, query, destroy_qp, destroy_cq, modify_error, modify_reset})
        EXPECT_LT(c, 20000u) << "a queue command should take a few host round trips, not more";
}

TEST_P(Verbs, MisuseIsRefusedWithAnErrorCode)
{
    Pair p(7, 500, 0, 64, 2, 2);
    ASSERT_PAIR_UP(p);
    // Not connected.
    hcadrv_qp_attr_t at = {p.pd, &p.cqa, &p.cqa, 4, 4, 0, 0, 0};
    hcadrv_qp_t c;
    ASSERT_EQ(0, hcadrv_create_qp(p.drv, &at, &c));
    EXPECT_EQ(-ENOTCONN, p.send(1, HCA_WR_OPCODE_SEND, {}, 0, 0, HCA_SEND_FLAGS_SIGNALED, &c));
    EXPECT_EQ(-ENOTCONN, p.recv(1, {}, &c));
    hcadrv_qp_attr_t bad = at;
    bad.mtu = 1000;
    EXPECT_EQ(-EINVAL, hcadrv_create_qp(p.drv, &bad, &c)) << "MTU not a power of two";
    bad = at;
    bad.rnr_retry = 8;
    EXPECT_EQ(-EINVAL, hcadrv_create_qp(p.drv, &bad, &c));
    // Bad work requests.
    EXPECT_EQ(-EINVAL, p.send(1, HCA_WR_OPCODE_MAX + 1, {}));
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.num_sge = HCA_MAX_SEND_SGE + 1;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr));
    wr.num_sge = 0;
    wr.flags = 1u << 2;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "reserved flag";
    hcadrv_recv_wr_t rw;
    memset(&rw, 0, sizeof rw);
    rw.num_sge = HCA_MAX_RECV_SGE + 1;
    EXPECT_EQ(-EINVAL, hcadrv_post_recv(p.drv, &p.b, &rw));
    EXPECT_EQ(-EINVAL, hcadrv_post_send_raw(p.drv, &p.a, &wr, 129));
    EXPECT_EQ(0u, p.a.sq_pi) << "nothing was posted";
    // Full queues: depth 2, posting takes no device time.
    EXPECT_EQ(0, p.recv(1, {p.s(p.dst, 16)}));
    EXPECT_EQ(0, p.recv(2, {p.s(p.dst, 16)}));
    EXPECT_EQ(-ENOMEM, p.recv(3, {p.s(p.dst, 16)}));
    EXPECT_EQ(0, p.send(1, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}));
    EXPECT_EQ(0, p.send(2, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}));
    EXPECT_EQ(-ENOMEM, p.send(3, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}));
    // The completions give the space back.
    auto wa = p.wait(&p.cqa, 2);
    auto wb = p.wait(&p.cqb, 2);
    ASSERT_EQ(2u, wa.size()) << describe(wa) << p.console();
    ASSERT_EQ(2u, wb.size()) << describe(wb);
    EXPECT_EQ(0, p.send(3, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}, 0, 0, 0));
    EXPECT_EQ(2u, p.a.sq_done);
    EXPECT_EQ(3u, p.a.sq_pi);
    EXPECT_EQ(0, p.recv(3, {p.s(p.dst, 16)}));
    EXPECT_EQ(2u, p.b.rq_done);
    // A CQ with a QP on it.
    EXPECT_EQ(-EBUSY, hcadrv_destroy_cq(p.drv, &p.cqa));
    EXPECT_EQ(0, hcadrv_destroy_qp(p.drv, &c));
    EXPECT_EQ(-EINVAL, p.send(1, HCA_WR_OPCODE_SEND, {}, 0, 0, 0, &c)) << "a destroyed QP";
}

// ---------------------------------------------------------------- data movement (RTL)

TEST_P(Verbs, SendOnePacket)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    p.fill(p.src, 4096, 3);
    ASSERT_EQ(0, p.recv(77, {p.s(p.dst + 100, 1000)}));
    ASSERT_EQ(0, p.send(11, HCA_WR_OPCODE_SEND, {p.s(p.src + 5, 300)}));
    auto wb = p.wait(&p.cqb, 1);
    auto wa = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wb.size()) << p.console();
    ASSERT_EQ(1u, wa.size());
    expect_wc(wb[0], 77, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 300, p.b.qpn, "recv");
    expect_wc(wa[0], 11, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 300, p.a.qpn, "send");
    EXPECT_EQ(0u, wa[0].wqe_counter);
    EXPECT_EQ(p.read(p.src + 5, 300), p.read(p.dst + 100, 300));
    EXPECT_EQ(std::vector<uint8_t>(100, 0), p.read(p.dst, 100)) << "nothing before the SGE";
    EXPECT_EQ(std::vector<uint8_t>(100, 0), p.read(p.dst + 400, 100)) << "nothing past the message";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.b));
}

TEST_P(Verbs, SendOfSeveralPacketsAndSgesAcrossPageSeams)
{
    Pair p(7, 500, 1024); // MTU 1024: a 10000-byte message is 10 packets
    ASSERT_PAIR_UP(p);
    p.fill(p.src, Pair::BUF, 9);
    std::vector<hca_sge_t> g = {p.s(p.src + 4000, 3000), p.s(p.src + 20000, 5), p.s(p.src + 8190, 6995)};
    std::vector<hca_sge_t> r = {p.s(p.dst + 4090, 100), p.s(p.dst + 12000, 8000), p.s(p.dst + 30000, 5000)};
    const uint32_t len = 3000 + 5 + 6995;
    ASSERT_EQ(0, p.recv(5, r));
    ASSERT_EQ(0, p.send(6, HCA_WR_OPCODE_SEND, g));
    auto wb = p.wait(&p.cqb, 1);
    auto wa = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wb.size()) << p.console();
    ASSERT_EQ(1u, wa.size());
    expect_wc(wb[0], 5, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, len, p.b.qpn, "recv");
    expect_wc(wa[0], 6, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, len, p.a.qpn, "send");
    auto want = gather(p, g);
    std::vector<hca_sge_t> placed = {r[0], r[1], p.s(p.dst + 30000, len - 8100)};
    EXPECT_TRUE(want == gather(p, placed)) << "payload differs";
    EXPECT_EQ(std::vector<uint8_t>(100, 0), p.read(p.dst + 30000 + len - 8100, 100));
}

class VerbsRdma : public ::testing::TestWithParam<uint32_t> {
};

TEST_P(VerbsRdma, WriteAndReadMoveTheBytes)
{
    const uint32_t len = GetParam();
    Pair p;
    ASSERT_PAIR_UP(p);
    p.fill(p.src, Pair::BUF, 21);
    // WRITE src[100..) -> dst[300..), one SGE.
    ASSERT_EQ(0, p.send(1, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src + 100, len)}, p.dst + 300, p.mdst.rkey));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 1, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, len, p.a.qpn, "write");
    EXPECT_TRUE(p.read(p.src + 100, len) == p.read(p.dst + 300, len)) << "write payload";
    EXPECT_TRUE(p.drain(&p.cqb).empty()) << "a WRITE completes nothing at the responder";
    // READ dst[300..) back into src[BUF/2 + 7 ..).
    const uint64_t back = p.src + Pair::BUF / 2 - 4096 + 7;
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_RDMA_READ, {p.s(back, len)}, p.dst + 300, p.mdst.rkey));
    w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 2, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, len, p.a.qpn, "read");
    EXPECT_TRUE(p.read(p.dst + 300, len) == p.read(back, len)) << "read payload";
}

INSTANTIATE_TEST_SUITE_P(Lengths, VerbsRdma, ::testing::Values(4096u, 65536u, 1u, 4097u),
                         [](const ::testing::TestParamInfo<uint32_t> &i) { return std::to_string(i.param); });

TEST_P(Verbs, RdmaWithSeveralSgesAcrossPageSeams)
{
    Pair p(7, 500, 512);
    ASSERT_PAIR_UP(p);
    p.fill(p.src, Pair::BUF, 33);
    std::vector<hca_sge_t> g = {p.s(p.src + 4095, 2), p.s(p.src + 9000, 7000), p.s(p.src + 40000, 1),
                                p.s(p.src + 61439, 4098)};
    uint32_t len = 2 + 7000 + 1 + 4098;
    ASSERT_EQ(0, p.send(1, HCA_WR_OPCODE_RDMA_WRITE, g, p.dst + 4093, p.mdst.rkey));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 1, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, len, p.a.qpn, "write");
    EXPECT_TRUE(gather(p, g) == p.read(p.dst + 4093, len));
    // Scatter the READ response over four SGEs of the source buffer's far half.
    const uint64_t h = p.src + Pair::BUF / 2;
    std::vector<hca_sge_t> s = {p.s(h + 4090, 10), p.s(h + 12000, 5000), p.s(h + 30000, 91), p.s(h + 40959, len - 5101)};
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_RDMA_READ, s, p.dst + 4093, p.mdst.rkey));
    w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 2, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, len, p.a.qpn, "read");
    EXPECT_TRUE(gather(p, g) == gather(p, s));
}

TEST_P(Verbs, ZeroLengthRdmaSkipsTheRkeyCheck)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    // IBA C9-88: a zero-length RDMA READ/WRITE does not check its R_Key.
    ASSERT_EQ(0, p.send(1, HCA_WR_OPCODE_RDMA_WRITE, {}, 0xdeadbeef000ull, 0xbad0bad));
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_RDMA_READ, {}, 0xdeadbeef000ull, 0xbad0bad));
    ASSERT_EQ(0, p.send(3, HCA_WR_OPCODE_SEND, {}, 0, 0)); // zero-length SEND needs a receive
    ASSERT_EQ(0, p.recv(4, {}));
    auto w = p.wait(&p.cqa, 3);
    ASSERT_EQ(3u, w.size()) << describe(w) << p.console();
    expect_wc(w[0], 1, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 0, p.a.qpn, "write");
    expect_wc(w[1], 2, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_READ, 0, p.a.qpn, "read");
    expect_wc(w[2], 3, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 0, p.a.qpn, "send");
    auto r = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, r.size());
    expect_wc(r[0], 4, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RECV, 0, p.b.qpn, "recv");
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.b));
}

TEST_P(Verbs, UnsignaledWrsCompleteSilentlyAndFreeTheirSlotsWithTheNextCqe)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    p.fill(p.src, 4096, 1);
    for (int i = 0; i < 5; i++)
        ASSERT_EQ(0, p.send(10 + i, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src + i * 100, 100)}, p.dst + i * 100,
                            p.mdst.rkey, i == 4 ? HCA_SEND_FLAGS_SIGNALED : 0));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 14, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 100, p.a.qpn, "the signaled one");
    EXPECT_EQ(4u, w[0].wqe_counter);
    EXPECT_TRUE(p.drain(&p.cqa).empty());
    EXPECT_TRUE(p.read(p.src, 500) == p.read(p.dst, 500));
    ASSERT_EQ(0, p.send(20, HCA_WR_OPCODE_SEND, {}, 0, 0, 0)); // refreshes the view
    EXPECT_EQ(5u, p.a.sq_done) << "one CQE retires every WQE up to its wqe_counter";
}

TEST_P(Verbs, CqWrapsAroundAndTheOwnerBitFlips)
{
    Pair p(7, 500, 0, 4, 16, 16); // CQs of 4 entries
    ASSERT_PAIR_UP(p);
    p.fill(p.src, 4096, 5);
    for (uint32_t i = 0; i < 11; i++) {
        ASSERT_EQ(0, p.send(100 + i, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src + i, 64)}, p.dst + 64 * i, p.mdst.rkey));
        auto w = p.wait(&p.cqa, 1);
        ASSERT_EQ(1u, w.size()) << "WR " << i << "\n" << p.console();
        expect_wc(w[0], 100 + i, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_RDMA_WRITE, 64, p.a.qpn, "wrap");
        EXPECT_EQ(i + 1, p.cqa.ci);
        hca_cqe_t e;
        ASSERT_EQ(0, hostmem_read(p.mem, p.cqa.base + (i % 4) * 32, &e, sizeof e));
        EXPECT_EQ(((i >> 2) & 1) ^ 1, hca_cqe_get_owner(&e)) << "CQE " << i;
    }
    // Three posted at once fit a ring of four; polled together, in order.
    for (uint32_t i = 0; i < 3; i++)
        ASSERT_EQ(0, p.send(200 + i, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8)}, p.dst, p.mdst.rkey));
    auto w = p.wait(&p.cqa, 3);
    ASSERT_EQ(3u, w.size()) << describe(w);
    for (uint32_t i = 0; i < 3; i++)
        EXPECT_EQ(200 + i, w[i].wr_id);
}

TEST_P(Verbs, TwoPairsShareOneCqAndEachQpGetsItsOwnCompletions)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_cq_t cq;
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 64, &cq));
    hcadrv_qp_attr_t at = {pd, &cq, &cq, 8, 8, 7, 500, 0};
    hcadrv_qp_t q[4];
    for (auto &x : q)
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &x)) << d.console();
    ASSERT_EQ(0, hcadrv_connect(d.drv, &q[0], &q[1]));
    ASSERT_EQ(0, hcadrv_connect(d.drv, &q[2], &q[3]));
    uint64_t buf = d.alloc(65536);
    hcadrv_mr_t mr;
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 65536, buf, RW, 12, &mr));
    d.fill(buf, 8192, 4);
    // q0 -> q1 and q2 -> q3: one SEND each; two RDMA WRITEs on q2.
    for (int i = 0; i < 2; i++) {
        hcadrv_recv_wr_t r = {100u + i, 1, {{buf + 32768 + 4096 * i, 4096, mr.lkey}}};
        ASSERT_EQ(0, hcadrv_post_recv(d.drv, &q[1 + 2 * i], &r));
        hcadrv_send_wr_t w;
        memset(&w, 0, sizeof w);
        w.wr_id = 200 + i;
        w.opcode = HCA_WR_OPCODE_SEND;
        w.flags = HCA_SEND_FLAGS_SIGNALED;
        w.num_sge = 1;
        w.sge[0] = {buf + 1000 * i, 1000, mr.lkey};
        ASSERT_EQ(0, hcadrv_post_send(d.drv, &q[2 * i], &w));
    }
    for (int i = 0; i < 2; i++) {
        hcadrv_send_wr_t w;
        memset(&w, 0, sizeof w);
        w.wr_id = 300 + i;
        w.opcode = HCA_WR_OPCODE_RDMA_WRITE;
        w.flags = HCA_SEND_FLAGS_SIGNALED;
        w.num_sge = 1;
        w.sge[0] = {buf + 4096, 512, mr.lkey};
        w.remote_addr = buf + 49152 + 512 * i;
        w.rkey = mr.rkey;
        ASSERT_EQ(0, hcadrv_post_send(d.drv, &q[2], &w));
    }
    auto got = d.wait(&cq, 6);
    ASSERT_EQ(6u, got.size()) << describe(got) << d.console();
    std::vector<uint64_t> order_q2;
    for (const auto &w : got) {
        EXPECT_EQ(status_name(HCA_WC_STATUS_SUCCESS), status_name(w.status)) << describe(w);
        uint32_t want_qpn = w.wr_id == 100 ? q[1].qpn : w.wr_id == 101 ? q[3].qpn : w.wr_id == 200 ? q[0].qpn : q[2].qpn;
        EXPECT_EQ(want_qpn, w.qpn) << describe(w);
        if (w.qpn == q[2].qpn)
            order_q2.push_back(w.wr_id);
    }
    EXPECT_EQ((std::vector<uint64_t>{201, 300, 301}), order_q2) << "one QP's completions come in order";
    EXPECT_TRUE(d.read(buf, 1000) == d.read(buf + 32768, 1000));
    EXPECT_TRUE(d.read(buf + 1000, 1000) == d.read(buf + 36864, 1000));
    EXPECT_TRUE(d.read(buf + 4096, 512) == d.read(buf + 49152 + 512, 512));
    // Every queue's done index followed its own CQEs (a post refreshes the view).
    hcadrv_send_wr_t nop;
    memset(&nop, 0, sizeof nop);
    nop.opcode = HCA_WR_OPCODE_RDMA_WRITE;
    ASSERT_EQ(0, hcadrv_post_send(d.drv, &q[2], &nop));
    EXPECT_EQ(3u, q[2].sq_done);
    ASSERT_EQ(0, hcadrv_post_send(d.drv, &q[0], &nop));
    EXPECT_EQ(1u, q[0].sq_done);
    hcadrv_recv_wr_t r = {1, 0, {}};
    ASSERT_EQ(0, hcadrv_post_recv(d.drv, &q[3], &r));
    EXPECT_EQ(1u, q[3].rq_done);
    EXPECT_EQ(0u, q[3].sq_done);
    for (auto &x : q)
        EXPECT_EQ(0, hcadrv_destroy_qp(d.drv, &x));
    EXPECT_EQ(0, hcadrv_destroy_cq(d.drv, &cq));
}

// The CQ writer never overwrites an unconsumed CQE: with the ring full the
// extra CQEs are dropped (the device sets the CQ's overflow flag, which the
// driver cannot read yet: see hcadrv_poll_cq), and what was written stays intact.
TEST_P(Verbs, AnOverrunCqIsReportedAndStaysBroken)
{
    Pair p(7, 500, 0, 4, 16, 16);
    ASSERT_PAIR_UP(p);
    for (uint32_t i = 0; i < 6; i++)
        ASSERT_EQ(0, p.send(400 + i, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8)}, p.dst, p.mdst.rkey));
    hca_dev_step(p.dev, 200000);
    hcadrv_wc_t w[8];
    EXPECT_EQ(-EIO, hcadrv_poll_cq(p.drv, &p.cqa, w, 8)) << "6 CQEs into a 4-entry ring: two were dropped\n"
                                                          << p.console();
    EXPECT_EQ(-EIO, hcadrv_poll_cq(p.drv, &p.cqa, w, 8)) << "an overrun CQ stays broken";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.a));
}

TEST_P(Verbs, AFullCqThatDroppedNothingIsNotAnOverrun)
{
    Pair p(7, 500, 0, 4, 16, 16);
    ASSERT_PAIR_UP(p);
    for (uint32_t i = 0; i < 4; i++)
        ASSERT_EQ(0, p.send(400 + i, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8)}, p.dst, p.mdst.rkey));
    hca_dev_step(p.dev, 200000);
    hcadrv_wc_t w[8];
    int n = hcadrv_poll_cq(p.drv, &p.cqa, w, 8);
    ASSERT_EQ(4, n) << "exactly full: the device is asked and says nothing was dropped\n" << p.console();
    for (int i = 0; i < n; i++)
        EXPECT_EQ(400u + i, w[i].wr_id);
    ASSERT_EQ(0, p.send(404, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8)}, p.dst, p.mdst.rkey));
    EXPECT_EQ(404u, p.wait(&p.cqa, 1).at(0).wr_id) << "the ring keeps working after it was full";
}

// ---------------------------------------------------------------- SEMANTICS.md "Where a failed check lands" (RTL)

TEST_P(VerbsErrors, GatherLkeyFailsLocProtErrNothingSent)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    ASSERT_EQ(0, p.recv(1, {p.s(p.dst, 4096)}));
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_SEND, {p.s(p.src, 100), p.s(p.src, 100, p.msrc.lkey ^ 0x80)}));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 2, HCA_WC_STATUS_LOC_PROT_ERR, 0, 0, p.a.qpn, "gather");
    EXPECT_TRUE(p.drain(&p.cqb).empty()) << "nothing was sent";
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.b));
}

TEST_P(VerbsErrors, ReadSinkWithoutLocalWriteIsLocProtErr)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t ro;
    uint64_t buf = p.alloc(4096);
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, buf, 4096, buf, HCA_ACCESS_REMOTE_READ, 12, &ro));
    ASSERT_EQ(0, p.send(3, HCA_WR_OPCODE_RDMA_READ, {p.s(buf, 64, ro.lkey)}, p.dst, p.mdst.rkey));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 3, HCA_WC_STATUS_LOC_PROT_ERR, 0, 0, p.a.qpn, "read sink");
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
}

TEST_P(VerbsErrors, DmaMrAtAnUnbackedBusAddressIsLocAccessErr)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    ASSERT_EQ(0, p.recv(1, {p.s(p.dst, 4096)}));
    ASSERT_EQ(0, p.send(4, HCA_WR_OPCODE_SEND, {p.s(0xdead0000ull, 64, HCA_RESERVED_LKEY)}));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 4, HCA_WC_STATUS_LOC_ACCESS_ERR, 0, 0, p.a.qpn, "bus error");
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
}

TEST_P(VerbsErrors, RkeyFailsAtTheResponderForWriteRemAccessErrNothingPlaced)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    p.fill(p.src, 8192, 7);
    hcadrv_mr_t ronly;
    uint64_t buf = p.alloc(8192);
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, buf, 8192, buf, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ, 12,
                               &ronly));
    // No REMOTE_WRITE right; then a range running past the MR's end.
    ASSERT_EQ(0, p.send(5, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 6000)}, buf, ronly.rkey));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 5, HCA_WC_STATUS_REM_ACCESS_ERR, 0, 0, p.a.qpn, "write rkey");
    EXPECT_EQ(std::vector<uint8_t>(8192, 0), p.read(buf, 8192)) << "no byte placed";
    EXPECT_TRUE(p.drain(&p.cqb).empty()) << "no completion at the responder";
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));

    Pair q;
    ASSERT_PAIR_UP(q);
    q.fill(q.src, 8192, 7);
    ASSERT_EQ(0, q.send(6, HCA_WR_OPCODE_RDMA_WRITE, {q.s(q.src, 8192)}, q.dst + Pair::BUF - 4096, q.mdst.rkey));
    w = q.wait(&q.cqa, 1);
    ASSERT_EQ(1u, w.size()) << q.console();
    expect_wc(w[0], 6, HCA_WC_STATUS_REM_ACCESS_ERR, 0, 0, q.a.qpn, "write past the MR");
    EXPECT_EQ(std::vector<uint8_t>(4096, 0), q.read(q.dst + Pair::BUF - 4096, 4096)) << "no byte placed";
}

TEST_P(VerbsErrors, RkeyFailsAtTheResponderForReadRemAccessErr)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t wonly;
    uint64_t buf = p.alloc(8192);
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, buf, 8192, buf, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE, 12,
                               &wonly));
    p.fill(buf, 8192, 1);
    ASSERT_EQ(0, p.send(7, HCA_WR_OPCODE_RDMA_READ, {p.s(p.dst, 4096)}, buf, wonly.rkey));
    auto w = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, w.size()) << p.console();
    expect_wc(w[0], 7, HCA_WC_STATUS_REM_ACCESS_ERR, 0, 0, p.a.qpn, "read rkey");
    EXPECT_EQ(std::vector<uint8_t>(4096, 0), p.read(p.dst, 4096));
    EXPECT_TRUE(p.drain(&p.cqb).empty());
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
}

TEST_P(VerbsErrors, ReceiveSgeLkeyFailsRemOpErrAndRecvLocProtErr)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t ro;
    uint64_t buf = p.alloc(4096);
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, buf, 4096, buf, 0, 12, &ro)); // no LOCAL_WRITE
    ASSERT_EQ(0, p.recv(8, {p.s(buf, 4096, ro.lkey)}));
    ASSERT_EQ(0, p.send(9, HCA_WR_OPCODE_SEND, {p.s(p.src, 100)}));
    auto wa = p.wait(&p.cqa, 1);
    auto wb = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, wa.size()) << p.console();
    ASSERT_EQ(1u, wb.size());
    expect_wc(wa[0], 9, HCA_WC_STATUS_REM_OP_ERR, 0, 0, p.a.qpn, "requester");
    expect_wc(wb[0], 8, HCA_WC_STATUS_LOC_PROT_ERR, 0, 0, p.b.qpn, "responder");
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
}

TEST_P(VerbsErrors, SendLongerThanTheReceiveBufferRemInvReqErrAndRecvLocLenErr)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    ASSERT_EQ(0, p.recv(10, {p.s(p.dst, 100), p.s(p.dst + 200, 100)}));
    ASSERT_EQ(0, p.send(11, HCA_WR_OPCODE_SEND, {p.s(p.src, 201)}));
    auto wa = p.wait(&p.cqa, 1);
    auto wb = p.wait(&p.cqb, 1);
    ASSERT_EQ(1u, wa.size()) << p.console();
    ASSERT_EQ(1u, wb.size());
    expect_wc(wa[0], 11, HCA_WC_STATUS_REM_INV_REQ_ERR, 0, 0, p.a.qpn, "requester");
    expect_wc(wb[0], 10, HCA_WC_STATUS_LOC_LEN_ERR, 0, 0, p.b.qpn, "responder");
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.b));
}

TEST_P(VerbsErrors, RnrRetriesThenSucceedsWhenAReceiveArrives)
{
    Pair p(3, 2000);
    ASSERT_PAIR_UP(p);
    p.fill(p.src, 64, 2);
    ASSERT_EQ(0, p.send(12, HCA_WR_OPCODE_SEND, {p.s(p.src, 64)}));
    hca_dev_step(p.dev, 3000); // at least one RNR_NAK
    EXPECT_TRUE(p.drain(&p.cqa, 0).empty()) << "still retrying";
    ASSERT_EQ(0, p.recv(13, {p.s(p.dst, 64)}));
    auto wa = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wa.size()) << p.console();
    expect_wc(wa[0], 12, HCA_WC_STATUS_SUCCESS, HCA_WC_OPCODE_SEND, 64, p.a.qpn, "after RNR");
    EXPECT_EQ(p.read(p.src, 64), p.read(p.dst, 64));
}

TEST_P(VerbsErrors, RnrRetryExhaustedIsRnrRetryExcErr)
{
    Pair p(2, 1000);
    ASSERT_PAIR_UP(p);
    const uint64_t t0 = hca_dev_cycle(p.dev);
    ASSERT_EQ(0, p.send(14, HCA_WR_OPCODE_SEND, {p.s(p.src, 64)}));
    auto wa = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wa.size()) << p.console();
    expect_wc(wa[0], 14, HCA_WC_STATUS_RNR_RETRY_EXC_ERR, 0, 0, p.a.qpn, "rnr");
    EXPECT_GE(hca_dev_cycle(p.dev) - t0, 2000u) << "two retries, rnr_timer 1000 cycles apart";
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.b)) << "only the requester moves to ERROR";
}

TEST_P(VerbsErrors, MalformedWqesAreLocQpOpErr)
{
    struct Case {
        const char *what;
        void (*mutate)(hca_sq_wqe_t &);
    };
    const Case cases[] = {
        {"opcode 8", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_opcode(&w, 8); }},
        {"opcode 0xff", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_opcode(&w, 0xff); }},
        {"num_sge 5", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_num_sge(&w, 5); }},
        {"ctrl_rsvd", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_ctrl_rsvd(&w, 1); }},
        {"rsvd0", [](hca_sq_wqe_t &w) { w.rsvd0 = 1; }},
        {"flag above FENCE", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_flags(&w, 4); }},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(k.what);
        Pair p;
        ASSERT_PAIR_UP(p);
        hca_sq_wqe_t w;
        memset(&w, 0, sizeof w);
        hca_sq_wqe_set_opcode(&w, HCA_WR_OPCODE_RDMA_WRITE);
        hca_sq_wqe_set_flags(&w, HCA_SEND_FLAGS_SIGNALED);
        w.wr_id = 0x1234;
        k.mutate(w);
        ASSERT_EQ(0, hcadrv_post_send_raw(p.drv, &p.a, &w, sizeof w));
        auto wa = p.wait(&p.cqa, 1);
        ASSERT_EQ(1u, wa.size()) << p.console();
        EXPECT_EQ(status_name(HCA_WC_STATUS_LOC_QP_OP_ERR), status_name(wa[0].status)) << describe(wa[0]);
        EXPECT_EQ(p.a.qpn, wa[0].qpn);
        EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, p.state(p.a));
    }
}

TEST_P(VerbsErrors, WrsOnAQpInErrorFlushOnBothQueues)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    // Put a in ERROR (malformed WQE) with two more WRs behind it, one unsignaled.
    hca_sq_wqe_t bad;
    memset(&bad, 0, sizeof bad);
    hca_sq_wqe_set_opcode(&bad, 0x55);
    ASSERT_EQ(0, hcadrv_post_send_raw(p.drv, &p.a, &bad, sizeof bad));
    ASSERT_EQ(0, p.send(21, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8)}, p.dst, p.mdst.rkey, 0));
    ASSERT_EQ(0, p.send(22, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}));
    ASSERT_EQ(0, p.recv(23, {p.s(p.dst, 64)}, &p.a));
    auto w = p.wait(&p.cqa, 4);
    ASSERT_EQ(4u, w.size()) << describe(w) << p.console();
    // The receive's flush may come before or after the send queue's.
    std::vector<hcadrv_wc_t> sq, rq;
    for (const auto &c : w)
        (c.wr_id == 23 ? rq : sq).push_back(c);
    ASSERT_EQ(3u, sq.size()) << describe(w);
    ASSERT_EQ(1u, rq.size()) << describe(w);
    EXPECT_EQ(status_name(HCA_WC_STATUS_LOC_QP_OP_ERR), status_name(sq[0].status));
    expect_wc(sq[1], 21, HCA_WC_STATUS_WR_FLUSH_ERR, 0, 0, p.a.qpn, "unsignaled, flushed");
    expect_wc(sq[2], 22, HCA_WC_STATUS_WR_FLUSH_ERR, 0, 0, p.a.qpn, "flushed");
    expect_wc(rq[0], 23, HCA_WC_STATUS_WR_FLUSH_ERR, 0, 0, p.a.qpn, "receive flushed");
    // And later posts flush too.
    ASSERT_EQ(0, p.send(24, HCA_WR_OPCODE_SEND, {p.s(p.src, 8)}, 0, 0, 0));
    ASSERT_EQ(0, p.recv(25, {p.s(p.dst, 64)}, &p.a));
    w = p.wait(&p.cqa, 2);
    ASSERT_EQ(2u, w.size()) << describe(w);
    for (const auto &c : w)
        EXPECT_EQ(status_name(HCA_WC_STATUS_WR_FLUSH_ERR), status_name(c.status)) << describe(c);
    ASSERT_EQ(0, p.send(26, HCA_WR_OPCODE_SEND, {}, 0, 0, 0));
    EXPECT_EQ(4u, p.a.sq_done) << "flushes retire the send queue";
    ASSERT_EQ(0, p.recv(27, {}, &p.a));
    EXPECT_EQ(2u, p.a.rq_done) << "and the receive queue";
    EXPECT_TRUE(p.drain(&p.cqb).empty()) << "b saw nothing";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, p.state(p.b));
}

ENGINE_TEST_SUITE(Verbs);
ENGINE_TEST_SUITE(VerbsErrors);

} // namespace
