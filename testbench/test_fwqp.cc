// The firmware's queue commands (firmware/qp.c, firmware/pd.c) compiled for
// the host against a mock of the device: a ctx port that records every
// command with the words staged for it and keeps the contexts, a firmware
// DMA over a small host memory, a console. Checks the exact contexts the
// firmware writes, its refusals (named on the console), its bookkeeping and
// that a refusal or a device without a WQE engine leaves nothing allocated.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "cmd.h"
#include "console.h"
#include "dev.h"
#include "start.h"
}

namespace {

const uint64_t HOST_BASE = 0x10000000ull; // the mock's host memory
const size_t HOST_SIZE = 1 << 16;

struct CtxCmd {
    unsigned op;
    uint32_t index;
    bool probing; // ran between probe_begin() and probe_end()
    uint32_t words[HCA_CTX_DATA_COUNT];
};

enum class Engine { PRESENT, ABSENT, STUCK };

struct Mock {
    uint32_t staging[HCA_CTX_DATA_COUNT];
    std::vector<CtxCmd> log;
    hca_qp_ctx_t qp[HCA_MAX_QP];
    hca_cq_ctx_t cq[HCA_MAX_CQ];
    Engine engine = Engine::PRESENT;
    int fail_write_qpc = -1; // the n-th WRITE_QPC (0-based) answers BAD_INDEX
    int write_qpcs = 0;
    bool probing = false;
    std::vector<uint8_t> host = std::vector<uint8_t>(HOST_SIZE);
    std::string console;
};
Mock *M;

} // namespace

extern "C" {
fw_trap_hook_t volatile fw_trap_hook;

// dev.c's bus probe: the mock's ctx port never faults (an absent engine
// answers BAD_OP), so the bracket only records that the probe is one.
void probe_begin(void)
{
    M->probing = true;
}

int probe_end(void)
{
    M->probing = false;
    return 0;
}

void ctx_stage(const void *data, unsigned words)
{
    memcpy(M->staging, data, 4 * words);
}

void ctx_fetch(void *data, unsigned words)
{
    memcpy(data, M->staging, 4 * words);
}

unsigned ctx_run(unsigned op, uint32_t index)
{
    CtxCmd c;
    c.op = op;
    c.index = index;
    c.probing = M->probing;
    memcpy(c.words, M->staging, sizeof c.words);
    M->log.push_back(c);
    if (M->engine == Engine::ABSENT)
        return HCA_FWP_RESULT_BAD_OP;
    if (M->engine == Engine::STUCK)
        return HCA_FWP_RESULT_BUSY; // what ctx_run answers when the port never finishes
    switch (op) {
    case HCA_CTX_OP_NOP: return HCA_FWP_RESULT_OK;
    case HCA_CTX_OP_DRAIN: return HCA_FWP_RESULT_OK;
    case HCA_CTX_OP_WRITE_QPC:
        if (index >= HCA_MAX_QP || M->write_qpcs++ == M->fail_write_qpc)
            return HCA_FWP_RESULT_BAD_INDEX;
        memcpy(&M->qp[index], M->staging, sizeof(hca_qp_ctx_t));
        return HCA_FWP_RESULT_OK;
    case HCA_CTX_OP_READ_QPC:
        if (index >= HCA_MAX_QP)
            return HCA_FWP_RESULT_BAD_INDEX;
        memcpy(M->staging, &M->qp[index], sizeof(hca_qp_ctx_t));
        return HCA_FWP_RESULT_OK;
    case HCA_CTX_OP_WRITE_CQC:
        if (index >= HCA_MAX_CQ)
            return HCA_FWP_RESULT_BAD_INDEX;
        memcpy(&M->cq[index], M->staging, sizeof(hca_cq_ctx_t));
        return HCA_FWP_RESULT_OK;
    default: return HCA_FWP_RESULT_BAD_OP;
    }
}

int fdma_copy(uint64_t host, void *local, uint32_t len, int write)
{
    if (len == 0 || len > HCA_FDMA_MAX_LEN || host < HOST_BASE || host - HOST_BASE + len > HOST_SIZE)
        return -1;
    uint8_t *h = &M->host[host - HOST_BASE];
    if (write)
        memcpy(h, local, len);
    else
        memcpy(local, h, len);
    return 0;
}

void con_putc(char c)
{
    M->console += c;
}

void con_puts(const char *s)
{
    M->console += s;
}
}

namespace {

class FwQueues : public ::testing::Test {
protected:
    Mock mock;
    uint32_t pd = 0;
    void SetUp() override
    {
        M = &mock;
        qp_reset();
        ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, pd_alloc(&pd));
    }
    void TearDown() override { M = nullptr; }

    template <class T> uint64_t put(const T &v, uint64_t off = 0)
    {
        memcpy(&mock.host[off], &v, sizeof v);
        return HOST_BASE + off;
    }
    unsigned create_cq(uint64_t base, uint32_t log, uint32_t *cqn)
    {
        hca_create_cq_in_t in = {base, log, 0};
        return cq_create(put(in), cqn);
    }
    hca_create_qp_in_t qp_in(uint32_t scq, uint32_t rcq)
    {
        hca_create_qp_in_t q;
        memset(&q, 0, sizeof q);
        q.pd = pd;
        hca_create_qp_in_set_send_cqn(&q, scq);
        hca_create_qp_in_set_recv_cqn(&q, rcq);
        q.sq_base = 0x200000000ull;
        q.rq_base = 0x200010040ull;
        hca_create_qp_in_set_sq_log(&q, 6);
        hca_create_qp_in_set_rq_log(&q, 5);
        hca_create_qp_in_set_rnr_retry(&q, 7);
        q.rnr_timer = 1234;
        return q;
    }
    unsigned create_qp(const hca_create_qp_in_t &q, uint32_t *qpn) { return qp_create(put(q), qpn); }
    size_t writes(unsigned op) const
    {
        size_t n = 0;
        for (const auto &c : mock.log)
            n += c.op == op;
        return n;
    }
};

TEST_F(FwQueues, CreateCqProbesTheEngineOnceAndWritesAValidContext)
{
    uint32_t cqn = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x300000020ull, 7, &cqn)) << mock.console;
    EXPECT_EQ(1u, cqn);
    ASSERT_EQ(2u, mock.log.size());
    EXPECT_EQ((unsigned)HCA_CTX_OP_NOP, mock.log[0].op) << "the probe";
    EXPECT_TRUE(mock.log[0].probing) << "the probe runs with bus faults caught";
    EXPECT_FALSE(mock.probing) << "and gives the trap hook back";
    const CtxCmd &w = mock.log[1];
    EXPECT_EQ((unsigned)HCA_CTX_OP_WRITE_CQC, w.op);
    EXPECT_EQ(1u, w.index);
    EXPECT_EQ(0x00000020u, w.words[0]);
    EXPECT_EQ(0x3u, w.words[1]);
    EXPECT_EQ(7u | 1u << 8, w.words[2]) << "log_depth 7, cq_valid";
    EXPECT_EQ(0u, w.words[3]);
    uint32_t second = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x300001000ull, 0, &second));
    EXPECT_EQ(2u, second);
    EXPECT_EQ(1u, writes(HCA_CTX_OP_NOP)) << "probed once";
}

TEST_F(FwQueues, CreateCqRefusalsNameTheArgumentAndAllocateNothing)
{
    uint32_t cqn = 0;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, create_cq(0x1000, HCA_QUEUE_LOG_MAX + 1, &cqn));
    EXPECT_NE(std::string::npos, mock.console.find("CREATE_CQ: log_depth")) << mock.console;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, create_cq(0x1010, 3, &cqn));
    EXPECT_NE(std::string::npos, mock.console.find("CREATE_CQ: base")) << mock.console;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, create_cq(0, 3, &cqn));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_DMA_ERR, cq_create(0x42, &cqn)) << "mailbox out of host memory";
    EXPECT_EQ(0u, writes(HCA_CTX_OP_WRITE_CQC));
    for (uint32_t i = 1; i < HCA_MAX_CQ; i++) {
        ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000 * i, 2, &cqn));
        EXPECT_EQ(i, cqn);
    }
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_NO_RESOURCES, create_cq(0x1000, 2, &cqn));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, cq_destroy(17));
    EXPECT_EQ(0u, mock.cq[17].cfg) << "cq_valid cleared";
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 2, &cqn));
    EXPECT_EQ(17u, cqn) << "the only free number";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, cq_destroy(0));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, cq_destroy(HCA_MAX_CQ));
}

TEST_F(FwQueues, CreateQpWritesTheContextAndCountsItsUsers)
{
    uint32_t c1 = 0, c2 = 0, qpn = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 4, &c1));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x2000, 4, &c2));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c1, c2), &qpn)) << mock.console;
    EXPECT_EQ(1u, qpn);
    const hca_qp_ctx_t &q = mock.qp[qpn];
    EXPECT_EQ((unsigned)HCA_QP_STATE_RESET, hca_qp_ctx_get_state(&q));
    EXPECT_EQ(12u, hca_qp_ctx_get_mtu_log2(&q)) << "mtu_log2 0 = MTU_DEFAULT";
    EXPECT_EQ(7u, hca_qp_ctx_get_rnr_retry(&q));
    EXPECT_EQ(6u, hca_qp_ctx_get_sq_log(&q));
    EXPECT_EQ(5u, hca_qp_ctx_get_rq_log(&q));
    EXPECT_EQ(pd, q.pd);
    EXPECT_EQ(0x200000000ull, q.sq_base);
    EXPECT_EQ(0x200010040ull, q.rq_base);
    EXPECT_EQ(c1, hca_qp_ctx_get_send_cqn(&q));
    EXPECT_EQ(c2, hca_qp_ctx_get_recv_cqn(&q));
    EXPECT_EQ(0u, q.remote_qpn);
    EXPECT_EQ(1234u, q.rnr_timer);
    EXPECT_EQ(0u, q.rsvd0 | q.rsvd1 | q.rsvd2 | q.rsvd3);

    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BUSY, cq_destroy(c1));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BUSY, cq_destroy(c2));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BUSY, pd_dealloc(pd));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_destroy(qpn));
    hca_qp_ctx_t zero;
    memset(&zero, 0, sizeof zero);
    EXPECT_EQ(0, memcmp(&zero, &mock.qp[qpn], sizeof zero)) << "RESET, everything cleared";
    ASSERT_GE(mock.log.size(), 2u);
    EXPECT_EQ((unsigned)HCA_CTX_OP_WRITE_QPC, mock.log[mock.log.size() - 2].op) << "the RESET first";
    EXPECT_EQ((unsigned)HCA_CTX_OP_DRAIN, mock.log.back().op) << "then the fence, before the answer";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_destroy(qpn));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, cq_destroy(c1));
    ASSERT_GE(mock.log.size(), 2u);
    EXPECT_EQ((unsigned)HCA_CTX_OP_WRITE_CQC, mock.log[mock.log.size() - 2].op) << "cq_valid cleared first";
    EXPECT_EQ((unsigned)HCA_CTX_OP_DRAIN, mock.log.back().op) << "then the fence on CQE writes, before the answer";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, cq_destroy(c2));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, pd_dealloc(pd));
}

TEST_F(FwQueues, CreateQpRefusalsNameTheArgumentAndHoldNothing)
{
    uint32_t c = 0, qpn = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 4, &c));
    struct Case {
        const char *what, *console;
        void (*mutate)(hca_create_qp_in_t &);
        unsigned st;
    };
    const Case cases[] = {
        {"pd", "pd", [](hca_create_qp_in_t &q) { q.pd = 77; }, HCA_CMD_STATUS_BAD_INDEX},
        {"send cq", "send_cqn", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_send_cqn(&q, 9); },
         HCA_CMD_STATUS_BAD_INDEX},
        {"recv cq", "recv_cqn", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_recv_cqn(&q, 0); },
         HCA_CMD_STATUS_BAD_INDEX},
        {"sq_base", "sq_base", [](hca_create_qp_in_t &q) { q.sq_base |= 64; }, HCA_CMD_STATUS_BAD_PARAM},
        {"rq_base", "rq_base", [](hca_create_qp_in_t &q) { q.rq_base = 0; }, HCA_CMD_STATUS_BAD_PARAM},
        {"sq_log", "sq_log", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_sq_log(&q, 13); },
         HCA_CMD_STATUS_BAD_PARAM},
        {"rq_log", "rq_log", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_rq_log(&q, 14); },
         HCA_CMD_STATUS_BAD_PARAM},
        {"mtu", "mtu_log2", [](hca_create_qp_in_t &q) { hca_create_qp_in_set_mtu_log2(&q, 7); },
         HCA_CMD_STATUS_BAD_PARAM},
        {"reserved", "logs: reserved", [](hca_create_qp_in_t &q) { q.logs |= 1u << 31; }, HCA_CMD_STATUS_BAD_PARAM},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(k.what);
        hca_create_qp_in_t q = qp_in(c, c);
        k.mutate(q);
        mock.console.clear();
        EXPECT_EQ(k.st, create_qp(q, &qpn));
        EXPECT_EQ(0u, mock.console.rfind(std::string("hcafw: CREATE_QP: ") + k.console, 0)) << mock.console;
    }
    EXPECT_EQ(0u, writes(HCA_CTX_OP_WRITE_QPC));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_DMA_ERR, qp_create(0x5, &qpn));
    // An MTU inside the range is taken as is.
    hca_create_qp_in_t q = qp_in(c, c);
    hca_create_qp_in_set_mtu_log2(&q, 8);
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(q, &qpn));
    EXPECT_EQ(8u, hca_qp_ctx_get_mtu_log2(&mock.qp[qpn]));
    // The engine refusing the write holds nothing either.
    mock.fail_write_qpc = mock.write_qpcs;
    uint32_t other = 0;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_INTERNAL, create_qp(qp_in(c, c), &other));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_destroy(qpn));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, cq_destroy(c)) << "no user left behind";
}

TEST_F(FwQueues, ConnectPutsBothInRtsAsEachOthersPeer)
{
    uint32_t c = 0, a = 0, b = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 4, &c));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &a));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &b));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_connect(a | 9u << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_connect(0u | b << 16));
    // The second write fails: the first QP goes back to RESET.
    mock.fail_write_qpc = mock.write_qpcs + 1;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_INTERNAL, qp_connect(a | b << 16));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RESET, hca_qp_ctx_get_state(&mock.qp[a]));
    EXPECT_EQ(0u, mock.qp[a].remote_qpn);
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_connect(a | b << 16)) << mock.console;
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&mock.qp[a]));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&mock.qp[b]));
    EXPECT_EQ(b, mock.qp[a].remote_qpn);
    EXPECT_EQ(a, mock.qp[b].remote_qpn);
    EXPECT_EQ(0x200000000ull, mock.qp[b].sq_base) << "the rest of the context is kept";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, qp_connect(a | b << 16)) << "already connected";
    // QUERY_QP returns the engine's live copy (hardware moved it to ERROR).
    hca_qp_ctx_set_state(&mock.qp[a], HCA_QP_STATE_ERROR);
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_query(a, HOST_BASE + 0x800));
    hca_qp_ctx_t got;
    memcpy(&got, &mock.host[0x800], sizeof got);
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, hca_qp_ctx_get_state(&got));
    EXPECT_EQ(b, got.remote_qpn);
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_DMA_ERR, qp_query(a, 0x10));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_query(HCA_MAX_QP, HOST_BASE));
    // A QP may be its own peer.
    uint32_t s = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &s));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_connect(s | s << 16));
    EXPECT_EQ(s, mock.qp[s].remote_qpn);
}

// MODIFY_QP: ERROR is written as is (the engine flushes); RESET is written and
// fenced with a DRAIN, the peer forgotten, and CONNECT_QP takes the QP again.
// Refusals (no such QP, a state other than RESET/ERROR, the engine refusing)
// leave the shadow as it was.
TEST_F(FwQueues, ModifyQpErrorFlushesResetFencesAndReconnects)
{
    uint32_t c = 0, a = 0, b = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 4, &c));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &a));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &b));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_connect(a | b << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_modify(9u | HCA_QP_STATE_RESET << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, qp_modify(a | HCA_QP_STATE_RTS << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, qp_modify(a | 3u << 16));
    EXPECT_NE(std::string::npos, mock.console.find("MODIFY_QP: state")) << mock.console;
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&mock.qp[a])) << "refusals wrote nothing";

    const size_t drains = writes(HCA_CTX_OP_DRAIN);
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_modify(a | HCA_QP_STATE_ERROR << 16));
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, hca_qp_ctx_get_state(&mock.qp[a]));
    EXPECT_EQ(b, mock.qp[a].remote_qpn) << "ERROR keeps the peer";
    EXPECT_EQ(drains, writes(HCA_CTX_OP_DRAIN)) << "ERROR is no fence";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, qp_connect(a | b << 16)) << "ERROR is not RESET";

    // The engine refusing the RESET write: nothing changes.
    mock.fail_write_qpc = mock.write_qpcs;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_INTERNAL, qp_modify(a | HCA_QP_STATE_RESET << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_PARAM, qp_connect(a | b << 16)) << "still ERROR in the shadow";

    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_modify(a | HCA_QP_STATE_RESET << 16));
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_modify(b | HCA_QP_STATE_RESET << 16));
    EXPECT_EQ(drains + 2, writes(HCA_CTX_OP_DRAIN)) << "each RESET fenced";
    EXPECT_EQ((unsigned)HCA_CTX_OP_DRAIN, mock.log.back().op);
    EXPECT_EQ((unsigned)HCA_QP_STATE_RESET, hca_qp_ctx_get_state(&mock.qp[a]));
    EXPECT_EQ(0u, mock.qp[a].remote_qpn);
    EXPECT_EQ(0x200000000ull, mock.qp[a].sq_base) << "RESET keeps the rings";
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_connect(a | b << 16)) << mock.console;
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&mock.qp[a]));
    EXPECT_EQ(b, mock.qp[a].remote_qpn);
    // Destroyed QPs are gone for MODIFY_QP too; the number is reused.
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, qp_destroy(a));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, qp_modify(a | HCA_QP_STATE_ERROR << 16));
    uint32_t again = 0;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_qp(qp_in(c, c), &again));
    EXPECT_EQ(a, again) << "the lowest free number";
}

// QUERY_DEVICE's queue limits: the ABI's, and 0 without a WQE engine.
TEST_F(FwQueues, QueueCapsAreTheAbiLimits)
{
    hca_query_device_out_t q = {};
    qp_caps(&q);
    EXPECT_EQ((uint32_t)HCA_MAX_QP - 1, q.max_qp);
    EXPECT_EQ((uint32_t)HCA_MAX_CQ - 1, q.max_cq);
    EXPECT_EQ(1u << HCA_QUEUE_LOG_MAX, q.max_qp_wr);
    EXPECT_EQ(1u << HCA_QUEUE_LOG_MAX, q.max_cqe);
    EXPECT_EQ((uint32_t)HCA_MAX_SEND_SGE, q.max_send_sge);
    EXPECT_EQ((uint32_t)HCA_MAX_RECV_SGE, q.max_recv_sge);
    qp_reset();
    mock.engine = Engine::ABSENT;
    hca_query_device_out_t none = {};
    qp_caps(&none);
    EXPECT_EQ(0u, none.max_qp | none.max_cq | none.max_qp_wr | none.max_cqe | none.max_send_sge | none.max_recv_sge);
}

TEST_F(FwQueues, WithoutAWqeEngineEveryQueueCommandIsBadOpAndAllocatesNothing)
{
    mock.engine = Engine::ABSENT;
    uint32_t n = 0;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, create_cq(0x1000, 4, &n));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, create_qp(qp_in(1, 1), &n));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, qp_connect(1 | 2 << 16));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, qp_destroy(1));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, qp_query(1, HOST_BASE));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, cq_destroy(1));
    ASSERT_EQ(1u, mock.log.size()) << "one probe, no context written";
    EXPECT_NE(std::string::npos, mock.console.find("no WQE engine")) << mock.console;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, pd_dealloc(pd)) << "no user counted";
}

TEST_F(FwQueues, AStuckCtxPortIsInternalNotAHang)
{
    mock.engine = Engine::STUCK; // the probe gives up too: treated as no engine
    uint32_t n = 0;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_OP, create_cq(0x1000, 4, &n));
    qp_reset();
    mock.engine = Engine::PRESENT;
    ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, create_cq(0x1000, 4, &n));
    mock.engine = Engine::STUCK;
    uint32_t m = 0;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_INTERNAL, create_cq(0x2000, 4, &m));
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_INTERNAL, cq_destroy(n));
    mock.engine = Engine::PRESENT;
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, cq_destroy(n)) << "the failed destroy kept it";
}

} // namespace
