// The device in another process: `hcasim serve --socket` (fork/exec'd here)
// and the C client library (sim/cosim/hca_client.h). The reference driver
// runs in this process against it and must see what it sees in process, to
// the cycle; malformed and truncated messages get errors and the server goes
// on; a client that disconnects, even in the middle of a DMA, leaves the next
// one a freshly booted device.
#include <gtest/gtest.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <string>

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cosim_workload.h"
#include "hca_client.h"
#include "hca_dev.h"
#include "hca_wire.h"
#include "hostmem.h"

namespace {

// `hcasim serve` on one engine, for one test.
struct Server : cosim_server {
    explicit Server(dev_engine_kind_t engine)
        : cosim_server("/tmp/hcasim-test-cosim-" + std::to_string(getpid()) + "-" + dev_engine_name(engine) + ".sock",
                       dev_engine_name(engine))
    {
    }
};

class Cosim : public ::testing::TestWithParam<dev_engine_kind_t> {};

void expect_same(const cosim_outcome &in, const cosim_outcome &so)
{
    EXPECT_EQ(0, so.open);
    EXPECT_EQ(in.query, so.query);
    EXPECT_EQ(in.attr.fw_version, so.attr.fw_version);
    EXPECT_EQ(in.attr.max_mr, so.attr.max_mr);
    EXPECT_EQ(in.attr.max_mtt, so.attr.max_mtt);
    EXPECT_EQ(in.pdn, so.pdn);
    EXPECT_EQ(in.mr, so.mr);
    EXPECT_EQ(in.buf, so.buf) << "host memory allocated alike";
    EXPECT_EQ(in.lkey, so.lkey);
    EXPECT_EQ(in.rkey, so.rkey);
    EXPECT_EQ(in.qpn_a, so.qpn_a);
    EXPECT_EQ(in.qpn_b, so.qpn_b);
    EXPECT_EQ(in.connect, so.connect);
    EXPECT_EQ(in.post, so.post);
    EXPECT_EQ(in.polled, so.polled);
    EXPECT_EQ(in.wc.wr_id, so.wc.wr_id);
    EXPECT_EQ(in.wc.status, so.wc.status);
    EXPECT_EQ(in.wc.opcode, so.wc.opcode);
    EXPECT_EQ(in.wc.byte_len, so.wc.byte_len);
    EXPECT_EQ(in.wc.qpn, so.wc.qpn);
    EXPECT_EQ(in.payload_equal, so.payload_equal);
    // The device moves only in WAIT, so the socket costs no device time.
    EXPECT_EQ(in.t_open, so.t_open) << "cycle after hcadrv_open";
    EXPECT_EQ(in.t_setup, so.t_setup) << "cycle after the QP pair's setup";
    EXPECT_EQ(in.t_cqe, so.t_cqe) << "cycle the CQE was polled";
    EXPECT_EQ(in.t_end, so.t_end);
}

// The in-process side of a comparison: a device over host memory, checked on
// the way out as every test device is (no breach, firmware running).
struct InProcess {
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    char err[256] = "";
    explicit InProcess(dev_engine_kind_t engine)
    {
        hca_dev_config_t cfg{};
        cfg.engine = engine;
        if (hostmem_create(&mem) == 0 && hca_dev_create(&dev, &cfg, mem, err, sizeof err))
            dev = nullptr;
    }
    ~InProcess()
    {
        if (dev) {
            char v[1024] = "";
            EXPECT_EQ(0u, hca_dev_violations(dev, v, sizeof v)) << v;
        }
        hca_dev_destroy(dev);
        hostmem_destroy(mem);
    }
    InProcess(const InProcess &) = delete;
    InProcess &operator=(const InProcess &) = delete;
};

TEST_P(Cosim, TheDriverInAnotherProcessSeesWhatItSeesInProcess)
{
    const uint32_t bytes = 16384;
    cosim_outcome in, so;
    {
        InProcess d(GetParam());
        ASSERT_TRUE(d.dev) << d.err;
        cosim_workload(hca_dev_host(d.dev), in, bytes);
    }
    ASSERT_EQ(0, in.connect) << "the in-process run set up its QP pair";
    ASSERT_EQ(1, in.polled);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, in.wc.status);
    EXPECT_EQ(bytes, in.wc.byte_len);
    EXPECT_TRUE(in.payload_equal);

    Server srv(GetParam());
    hca_client_t *cl = nullptr;
    std::string why;
    ASSERT_EQ(0, srv.connect(&cl, &why)) << why;
    EXPECT_STREQ(dev_engine_name(GetParam()), hca_client_engine(cl));
    cosim_workload(hca_client_host(cl), so, bytes);
    hca_client_stats_t st;
    hca_client_get_stats(cl, &st);
    EXPECT_TRUE(hca_client_connected(cl)) << hca_client_last_error(cl);
    hca_client_close(cl);
    expect_same(in, so);
    EXPECT_GT(st.dma_reads, 0u) << "the device read the client's memory through messages";
    EXPECT_GT(st.dma_writes, 0u);
    EXPECT_GE(st.dma_bytes, 2u * bytes) << "the payload crossed twice (read, written)";
    RecordProperty("requests", std::to_string(st.requests));
    RecordProperty("dma_bytes", std::to_string(st.dma_bytes));
}

// A command posted by hand (QUERY_DEVICE into out), then a wait that the
// command's interrupt ends: how many cycles it took, the line before and after.
struct irq_seen {
    int open = 1, low_before = -1, high_after = -1;
    uint64_t woke_after = 0, now = 0;
};
template <class Level> irq_seen wake_on_command(const hca_host_t &h, Level level)
{
    irq_seen s;
    hcadrv_t *drv = nullptr;
    if ((s.open = hcadrv_open(&drv, &h)))
        return s;
    uint64_t out = 0;
    h.ops->mem_alloc(h.ctx, 4096, 4096, &out);
    h.ops->mmio_write(h.ctx, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u); // the open's cmd_done
    h.ops->wait(h.ctx, 10, 0);
    s.low_before = level() == 0;
    h.ops->mmio_write(h.ctx, HCA_HOST_HCR_OFFSET + HCA_HCR_OUT_PARAM_LO, (uint32_t)out);
    h.ops->mmio_write(h.ctx, HCA_HOST_HCR_OFFSET + HCA_HCR_OUT_PARAM_HI, (uint32_t)(out >> 32));
    h.ops->mmio_write(h.ctx, HCA_HOST_HCR_OFFSET + HCA_HCR_CTRL,
                      HCA_HCR_CTRL_OP_PUT(HCA_CMD_OP_QUERY_DEVICE) | HCA_HCR_CTRL_GO_PUT(1));
    s.woke_after = h.ops->wait(h.ctx, 2000000, 1);
    s.high_after = level() != 0;
    s.now = h.ops->now(h.ctx);
    hcadrv_close(drv);
    return s;
}

TEST_P(Cosim, TheCommandsInterruptEndsAWaitAcrossTheSocketAtItsCycle)
{
    irq_seen in, so;
    {
        InProcess d(GetParam());
        ASSERT_TRUE(d.dev) << d.err;
        hca_dev_t *dev = d.dev;
        in = wake_on_command(hca_dev_host(dev), [dev] { return hca_dev_host_irq(dev); });
    }
    ASSERT_EQ(0, in.open);
    EXPECT_EQ(1, in.low_before);
    EXPECT_EQ(1, in.high_after);
    EXPECT_GT(in.woke_after, 0u);
    EXPECT_LT(in.woke_after, 2000000u) << "woken by the interrupt, not the timeout";
    Server srv(GetParam());
    hca_client_t *cl = nullptr;
    ASSERT_EQ(0, srv.connect(&cl));
    hca_client_stats_t st;
    so = wake_on_command(hca_client_host(cl), [cl] { return hca_client_irq(cl); });
    hca_client_get_stats(cl, &st);
    hca_client_close(cl);
    ASSERT_EQ(0, so.open);
    EXPECT_EQ(1, so.low_before) << "the line low once CAUSE is cleared";
    EXPECT_EQ(1, so.high_after) << "its rise, told by an IRQ message before the WAIT's reply";
    EXPECT_EQ(in.woke_after, so.woke_after) << "the wait ends at the same cycle as in process";
    EXPECT_EQ(in.now, so.now);
    EXPECT_GE(st.irqs, 1u);
}

// A raw connection: one message out, what comes back.
struct Raw {
    int fd = -1;
    uint8_t buf[HCA_WIRE_MSG_MAX + 64];
    explicit Raw(const std::string &path)
    {
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        if (::connect(fd, (sockaddr *)&a, sizeof a)) {
            close(fd);
            fd = -1;
        }
    }
    ~Raw()
    {
        if (fd >= 0)
            close(fd);
    }
    void send_bytes(const void *p, size_t n) { ASSERT_EQ((ssize_t)n, send(fd, p, n, MSG_NOSIGNAL)); }
    // A message of type with payload p (len as given, or the true length).
    void send_msg(unsigned type, uint32_t seq, const void *p, size_t n, uint16_t version = HCA_WIRE_VERSION,
                  long len = -1)
    {
        hca_wire_hdr_t h = {(uint32_t)(len < 0 ? sizeof h + n : (size_t)len), version, (uint16_t)type, seq, 0};
        uint8_t m[256];
        memcpy(m, &h, sizeof h);
        memcpy(m + sizeof h, p, n);
        send_bytes(m, sizeof h + n);
    }
    // The next message: its header; payload into buf after it.
    hca_wire_hdr_t recv_msg()
    {
        hca_wire_hdr_t h{};
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n >= (ssize_t)sizeof h)
            memcpy(&h, buf, sizeof h);
        return h;
    }
    template <class T> T payload() const
    {
        T t;
        memcpy(&t, buf + sizeof(hca_wire_hdr_t), sizeof t);
        return t;
    }
    // Expect an ERROR answering (seq, type) with code.
    void expect_error(uint32_t seq, unsigned type, int code, const char *what)
    {
        hca_wire_hdr_t h = recv_msg();
        ASSERT_EQ((unsigned)HCA_WIRE_ERROR, h.type) << what;
        EXPECT_EQ(seq, h.seq) << what;
        hca_wire_error_t e = payload<hca_wire_error_t>();
        EXPECT_EQ(code, e.code) << what << ": " << e.msg;
        EXPECT_EQ(type, e.type) << what;
        EXPECT_NE(0, e.msg[0]) << what << ": a reason is given";
    }
};

TEST_P(Cosim, MalformedAndTruncatedMessagesGetAnErrorAndTheServerGoesOn)
{
    Server srv(GetParam());
    hca_client_t *probe = nullptr;
    ASSERT_EQ(0, srv.connect(&probe)); // the server listens
    hca_client_close(probe);
    Raw r(srv.path);
    ASSERT_GE(r.fd, 0);
    const uint8_t three[3] = {1, 2, 3};
    r.send_bytes(three, sizeof three);
    r.expect_error(0, 0, -EPROTO, "3 bytes: shorter than a header");
    hca_wire_hello_t hi = {HCA_WIRE_VERSION, 0};
    r.send_msg(HCA_WIRE_HELLO, 7, &hi, sizeof hi, HCA_WIRE_VERSION, 200);
    r.expect_error(7, HCA_WIRE_HELLO, -EBADMSG, "length field longer than the message (truncated)");
    r.send_msg(HCA_WIRE_HELLO, 8, &hi, sizeof hi, 9);
    r.expect_error(8, HCA_WIRE_HELLO, -EPROTONOSUPPORT, "version 9");
    r.send_msg(99, 9, &hi, sizeof hi);
    r.expect_error(9, 99, -ENOSYS, "unknown type");
    hca_wire_mmio_t m = {HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_MASK, 0, 0, 0};
    r.send_msg(HCA_WIRE_MMIO_READ, 10, &m, 4);
    r.expect_error(10, HCA_WIRE_MMIO_READ, -EBADMSG, "MMIO_READ with 4 payload bytes");
    r.send_msg(HCA_WIRE_MMIO_READ, 11, &m, sizeof m);
    r.expect_error(11, HCA_WIRE_MMIO_READ, -EPROTO, "a request before HELLO");
    hca_wire_hello_t old = {0, 0};
    r.send_msg(HCA_WIRE_HELLO, 12, &old, sizeof old);
    r.expect_error(12, HCA_WIRE_HELLO, -EPROTONOSUPPORT, "HELLO asking for version 0");

    // Still serving: HELLO, then BAR0.
    r.send_msg(HCA_WIRE_HELLO, 13, &hi, sizeof hi);
    hca_wire_hdr_t h = r.recv_msg();
    ASSERT_EQ((unsigned)(HCA_WIRE_HELLO | HCA_WIRE_REPLY), h.type);
    EXPECT_EQ(13u, h.seq);
    EXPECT_STREQ(dev_engine_name(GetParam()), r.payload<hca_wire_hello_reply_t>().engine);
    r.send_msg(HCA_WIRE_MMIO_WRITE, 14, &m, sizeof m);
    h = r.recv_msg();
    ASSERT_EQ((unsigned)(HCA_WIRE_MMIO_WRITE | HCA_WIRE_REPLY), h.type);
    EXPECT_EQ(0, r.payload<hca_wire_mmio_t>().rc);
    hca_wire_mmio_t bad = {0x100000, 0, 0, 0};
    r.send_msg(HCA_WIRE_MMIO_READ, 15, &bad, sizeof bad);
    h = r.recv_msg();
    ASSERT_EQ((unsigned)(HCA_WIRE_MMIO_READ | HCA_WIRE_REPLY), h.type);
    EXPECT_EQ(-EINVAL, r.payload<hca_wire_mmio_t>().rc) << "no register there: the device's answer, carried";
    hca_wire_dma_t d = {0x1000, 16, 0}; // well-formed, but no DMA of the server's waits for it
    r.send_msg(HCA_WIRE_DMA_WRITE | HCA_WIRE_REPLY, 16, &d, sizeof d);
    r.expect_error(16, HCA_WIRE_DMA_WRITE | HCA_WIRE_REPLY, -EPROTO, "an answer to a DMA nobody asked for");
    hca_wire_wait_t w = {1000, 0, 0};
    r.send_msg(HCA_WIRE_WAIT, 17, &w, sizeof w);
    h = r.recv_msg();
    while (h.type == HCA_WIRE_IRQ)
        h = r.recv_msg();
    ASSERT_EQ((unsigned)(HCA_WIRE_WAIT | HCA_WIRE_REPLY), h.type);
    EXPECT_EQ(1000u, r.payload<hca_wire_time_t>().cycles);
}

TEST_P(Cosim, ADisconnectedClientLeavesTheNextAFreshDevice)
{
    Server srv(GetParam());
    cosim_outcome first;
    uint64_t boot = 0;
    {
        // A client that goes away mid-flight: an RDMA WRITE posted, never polled.
        hca_client_t *cl = nullptr;
        ASSERT_EQ(0, srv.connect(&cl));
        const hca_host_t h = hca_client_host(cl);
        boot = h.ops->now(h.ctx);
        hcadrv_t *drv = nullptr;
        ASSERT_EQ(0, hcadrv_open(&drv, &h));
        ASSERT_EQ(0, hcadrv_alloc_pd(drv, &first.pdn));
        uint32_t pd2 = 0;
        ASSERT_EQ(0, hcadrv_alloc_pd(drv, &pd2));
        hcadrv_close(drv);
        hca_client_close(cl);
    }
    {
        // A raw client that disconnects while the device waits for its DMA answer.
        Raw r(srv.path);
        ASSERT_GE(r.fd, 0);
        hca_wire_hello_t hi = {HCA_WIRE_VERSION, 0};
        r.send_msg(HCA_WIRE_HELLO, 1, &hi, sizeof hi);
        ASSERT_EQ((unsigned)(HCA_WIRE_HELLO | HCA_WIRE_REPLY), r.recv_msg().type);
        const uint64_t out = HOSTMEM_ALLOC_BASE;
        const uint32_t regs[][2] = {{HCA_HOST_HCR_OFFSET + HCA_HCR_OUT_PARAM_LO, (uint32_t)out},
                                    {HCA_HOST_HCR_OFFSET + HCA_HCR_OUT_PARAM_HI, (uint32_t)(out >> 32)},
                                    {HCA_HOST_HCR_OFFSET + HCA_HCR_CTRL,
                                     HCA_HCR_CTRL_OP_PUT(HCA_CMD_OP_QUERY_DEVICE) | HCA_HCR_CTRL_GO_PUT(1)}};
        uint32_t seq = 2;
        for (const auto &rv : regs) {
            hca_wire_mmio_t m = {rv[0], rv[1], 0, 0};
            r.send_msg(HCA_WIRE_MMIO_WRITE, seq, &m, sizeof m);
            hca_wire_hdr_t h = r.recv_msg();
            while (h.type == HCA_WIRE_IRQ)
                h = r.recv_msg();
            ASSERT_EQ((unsigned)(HCA_WIRE_MMIO_WRITE | HCA_WIRE_REPLY), h.type);
            ASSERT_EQ(seq++, h.seq);
        }
        hca_wire_wait_t w = {2000000, 0, 0};
        r.send_msg(HCA_WIRE_WAIT, seq, &w, sizeof w);
        hca_wire_hdr_t h = r.recv_msg();
        while (h.type == HCA_WIRE_IRQ)
            h = r.recv_msg();
        ASSERT_EQ((unsigned)HCA_WIRE_DMA_WRITE, h.type) << "QUERY_DEVICE's answer is DMA'd to the client";
        // and the client is gone without answering
    }
    hca_client_t *cl = nullptr;
    ASSERT_EQ(0, srv.connect(&cl));
    const hca_host_t h = hca_client_host(cl);
    EXPECT_EQ(boot, h.ops->now(h.ctx)) << "a freshly booted device: the clock where the first client found it";
    hcadrv_t *drv = nullptr;
    ASSERT_EQ(0, hcadrv_open(&drv, &h));
    hcadrv_device_attr_t attr{};
    EXPECT_EQ(0, hcadrv_query_device(drv, &attr));
    uint32_t pd = 0;
    EXPECT_EQ(0, hcadrv_alloc_pd(drv, &pd));
    EXPECT_EQ(first.pdn, pd) << "PD numbering starts over: nothing of the earlier clients is left";
    hcadrv_close(drv);
    hca_client_close(cl);
}

TEST(CosimClient, ADeviceThatCannotStartAnswersWithItsReason)
{
    const char *notelf = "/bin/sh"; // exists, not an RV32 image
    cosim_server srv("/tmp/hcasim-test-cosim-" + std::to_string(getpid()) + "-badfw.sock", "model", 0, notelf);
    hca_client_t *cl = nullptr;
    std::string why;
    EXPECT_EQ(-ENOEXEC, srv.connect(&cl, &why)) << why;
    EXPECT_EQ(nullptr, cl);
    EXPECT_NE(std::string::npos, why.find("the device could not start: /bin/sh")) << why;
    // and the server still serves the next client (the same refusal, as it
    // is the same image)
    EXPECT_EQ(-ENOEXEC, srv.connect(&cl, &why)) << why;
}

TEST(CosimClient, ANonexistentSocketIsAClearError)
{
    hca_client_t *cl = nullptr;
    char err[256] = "";
    EXPECT_EQ(-ENOENT, hca_client_connect(&cl, "/tmp/hcasim-no-such-socket", err, sizeof err));
    EXPECT_EQ(nullptr, cl);
    EXPECT_NE(nullptr, strstr(err, "/tmp/hcasim-no-such-socket")) << err;
}

// Found by fuzz_client: a server's DMA_READ request naming more bytes than a
// message carries made the client read that many into its 64 KiB buffer.
TEST(WireCheck, EveryDmaMessageNamesOneTo64KiB)
{
    struct {
        hca_wire_hdr_t h;
        hca_wire_dma_t d;
    } m{};
    const unsigned types[] = {HCA_WIRE_DMA_READ, HCA_WIRE_DMA_WRITE | HCA_WIRE_REPLY};
    for (unsigned type : types)
        for (uint32_t len : {0u, 1u, HCA_WIRE_DMA_MAX, HCA_WIRE_DMA_MAX + 1, 0xffffffffu}) {
            m.h = {(uint32_t)sizeof m, HCA_WIRE_VERSION, (uint16_t)type, 1, 0};
            m.d = {0x1000, len, 0};
            hca_wire_error_t e;
            const bool ok = len >= 1 && len <= HCA_WIRE_DMA_MAX;
            EXPECT_EQ(ok ? 0 : -EBADMSG, hca_wire_check(&m, sizeof m, &e))
                << "type " << type << ", len " << len << ": " << e.msg;
        }
}

INSTANTIATE_TEST_SUITE_P(Engines, Cosim, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) {
                             return std::string(dev_engine_name(i.param));
                         });

} // namespace
