// test_core.cc — the engine core's harness (sim/harness/core.h).
//
// Suites:
//   CoreDma.*   the DMA block alone, driven through its pins by the test
//               acting as the engine: timing of READ_DATA, WRITE_DATA and
//               64 KiB streams, copies at completion, bus errors, malformed
//               requests, outstanding limit and response back-pressure, the
//               checker fed;
//   CoreLink.*  the loopback link alone: latency, serialization, order,
//               back-pressure, the checker fed;
//   CoreRtl.*   the whole harness around rtl/hca_core.sv: firmware port
//               (fwp and ctx blocks), key-check probes, doorbells and WQE
//               fetch timing, link latency, bus errors, a 64 KiB WRITE
//               stream, failed and invalidated WRITEs witnessed by the checker,
//               ctx DRAIN waiting for the placement on the bus;
//   CoreRtlNak.* WRITEs (and CoreRtl.ASendNaked… a SEND) NAKed while the
//               requester is still sending them complete with the syndrome;
//   CoreRtlEvt.* the memory-management event queue (regs evt, fw_irq) and the
//               requester's FAST_REG_MR / REG_INDIR_MR / LOCAL_INV /
//               SEND_WITH_INV / RDMA_READ_WITH_INV, the test as the firmware.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core.h"
#include "hostmem.h"
#include "protcheck.h"

namespace {

constexpr uint32_t kKey = 0x00000305;

hca_dma_req_t Req(unsigned op, unsigned tag, uint64_t addr, uint32_t len, unsigned buf = 0, uint32_t buf_off = 0,
                  uint32_t key = 0)
{
    hca_dma_req_t r;
    memset(&r, 0, sizeof r);
    hca_dma_req_set_op(&r, op);
    hca_dma_req_set_tag(&r, tag);
    hca_dma_req_set_buf(&r, buf);
    r.len = len;
    r.addr = addr;
    r.buf_off = buf_off;
    r.key = key;
    return r;
}

// The test plays the engine on the DMA pins: a request stays valid until accepted.
struct DmaBench {
    hostmem_t *mem = nullptr;
    protcheck_t *pc = nullptr;
    evlog_t log = {};
    core_dma_t *dma = nullptr;
    std::vector<uint8_t> pbufs = std::vector<uint8_t>((size_t)HCA_PKT_BUFS * HCA_PKT_BUF_SIZE);
    bus_timing_t t = bus_default_timing();
    core_pins_t p;
    uint64_t now = 0;
    std::deque<hca_dma_req_t> q;
    std::vector<uint64_t> accepted;
    struct Rsp {
        uint64_t cycle;
        hca_dma_rsp_t rsp;
    };
    std::vector<Rsp> rsps;
    bool rsp_ready = true;

    explicit DmaBench(unsigned max_outstanding = DEV_ENGINE_DMA_OUTSTANDING_DEFAULT)
    {
        memset(&p, 0, sizeof p);
        EXPECT_EQ(0, hostmem_create(&mem));
        EXPECT_EQ(0, protcheck_create(&pc));
        EXPECT_EQ(0, protcheck_attach(pc, &log));
        const bus_t bus = hostmem_bus(mem);
        EXPECT_EQ(0, core_dma_create(&dma, &bus, &t, max_outstanding, pbufs.data(), &log));
    }
    ~DmaBench()
    {
        core_dma_destroy(dma);
        protcheck_destroy(pc);
        hostmem_destroy(mem);
    }
    void Tick()
    {
        core_dma_drive(dma, &p, now);
        p.dma_req_valid = !q.empty();
        if (p.dma_req_valid)
            p.dma_req = q.front();
        p.dma_rsp_ready = rsp_ready;
        const bool acc = p.dma_req_valid && p.dma_req_ready;
        if (p.dma_rsp_valid && p.dma_rsp_ready)
            rsps.push_back({now, p.dma_rsp});
        core_dma_sample(dma, &p, now);
        if (acc) {
            accepted.push_back(now);
            q.pop_front();
        }
        now++;
    }
    // Run until n responses came (or a generous bound).
    void RunUntil(size_t n, uint64_t bound = 1000000)
    {
        for (uint64_t i = 0; i < bound && rsps.size() < n; i++)
            Tick();
        ASSERT_EQ(n, rsps.size()) << "responses missing after " << bound << " cycles";
    }
    uint8_t *Buf(unsigned id) { return pbufs.data() + (size_t)id * HCA_PKT_BUF_SIZE; }
    uint64_t Alloc(uint64_t size, uint8_t fill_base)
    {
        uint64_t a = 0;
        EXPECT_EQ(0, hostmem_alloc(mem, size, 4096, &a));
        std::vector<uint8_t> v(size);
        for (size_t i = 0; i < size; i++)
            v[i] = (uint8_t)(fill_base + i * 7);
        EXPECT_EQ(0, hostmem_write(mem, a, v.data(), v.size()));
        return a;
    }
};

TEST(CoreDma, ReadDataAnswersAfterTheReadLatencyAndItsBytes)
{
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 3);
    b.Tick(); // an idle cycle first
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 0x41, a + 64, 128));
    b.RunUntil(1);
    ASSERT_EQ(1u, b.accepted.size());
    EXPECT_EQ(1u, b.accepted[0]) << "accepted in the first cycle it was offered";
    EXPECT_EQ(b.accepted[0] + bus_transfer_cycles(&b.t, 0, 128), b.rsps[0].cycle)
        << "read latency " << b.t.read_latency << " + 128 B / " << b.t.bytes_per_cycle << " B/cycle";
    const hca_dma_rsp_t &r = b.rsps[0].rsp;
    EXPECT_EQ(0x41u, hca_dma_rsp_get_rtag(&r));
    EXPECT_EQ(0u, hca_dma_rsp_get_err(&r));
    uint8_t want[128];
    ASSERT_EQ(0, hostmem_read(b.mem, a + 64, want, sizeof want));
    EXPECT_EQ(0, memcmp(want, r.rdata, sizeof want));
    dev_engine_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(1u, st.dma_reqs);
    EXPECT_EQ(128u, st.dma_rd_bytes);
    EXPECT_EQ(0u, core_dma_outstanding(b.dma));
}

TEST(CoreDma, ShortReadsPipelineTheirLatency)
{
    // Eight 64-byte RQ WQE fetches back to back: one latency, then 4 cycles each.
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 1);
    for (unsigned i = 0; i < 8; i++)
        b.q.push_back(Req(HCA_DMA_OP_READ_DATA, i, a + 64 * i, 64));
    b.RunUntil(8);
    for (unsigned i = 0; i < 8; i++) {
        EXPECT_EQ(i, hca_dma_rsp_get_rtag(&b.rsps[i].rsp)) << "in order";
        EXPECT_EQ(b.t.read_latency + 4 * (i + 1), b.rsps[i].cycle) << "response " << i;
    }
}

TEST(CoreDma, WriteDataLandsInTheCycleItCompletes)
{
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 0);
    hca_dma_req_t r = Req(HCA_DMA_OP_WRITE_DATA, 7, a + 32, 32);
    for (unsigned i = 0; i < 4; i++)
        r.data[i] = 0x1111111111111111ull * (i + 1);
    b.q.push_back(r);
    const uint64_t done = bus_transfer_cycles(&b.t, 1, 32); // accepted in cycle 0
    uint8_t before[32], after[32];
    ASSERT_EQ(0, hostmem_read(b.mem, a + 32, before, 32));
    while (b.now < done) // cycles 0 .. done-1
        b.Tick();
    ASSERT_EQ(0, hostmem_read(b.mem, a + 32, after, 32));
    EXPECT_EQ(0, memcmp(before, after, 32)) << "nothing lands before the transfer ends";
    EXPECT_TRUE(b.rsps.empty());
    b.Tick(); // cycle done
    ASSERT_EQ(1u, b.rsps.size());
    EXPECT_EQ(done, b.rsps[0].cycle);
    ASSERT_EQ(0, hostmem_read(b.mem, a + 32, after, 32));
    EXPECT_EQ(0, memcmp(r.data, after, 32));
}

TEST(CoreDma, A64KiBStreamTakesItsBytesOverTheBandwidth)
{
    DmaBench b;
    const uint64_t src = b.Alloc(64 * 1024, 9), dst = b.Alloc(64 * 1024, 0);
    for (unsigned i = 0; i < 16; i++)
        b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, i, src + 4096ull * i, 4096, i, 0, kKey));
    b.RunUntil(16);
    const uint64_t per = 4096 / b.t.bytes_per_cycle;
    for (unsigned i = 0; i < 16; i++)
        EXPECT_EQ(b.t.read_latency + per * (i + 1), b.rsps[i].cycle) << "buffer " << i;
    std::vector<uint8_t> want(4096);
    ASSERT_EQ(0, hostmem_read(b.mem, src + 5 * 4096, want.data(), 4096));
    EXPECT_EQ(0, memcmp(want.data(), b.Buf(5), 4096)) << "buffer 5 holds page 5";

    // ...and back: 64 KiB of BUF_TO_HOST, write cost once, then the bandwidth.
    const uint64_t t0 = b.now;
    for (unsigned i = 0; i < 16; i++)
        b.q.push_back(Req(HCA_DMA_OP_BUF_TO_HOST, 16 + i, dst + 4096ull * i, 4096, i, 0, kKey));
    b.RunUntil(32);
    EXPECT_EQ(t0 + b.t.write_cost + 16 * per, b.rsps.back().cycle);
    std::vector<uint8_t> s(64 * 1024), d(64 * 1024);
    ASSERT_EQ(0, hostmem_read(b.mem, src, s.data(), s.size()));
    ASSERT_EQ(0, hostmem_read(b.mem, dst, d.data(), d.size()));
    EXPECT_TRUE(s == d) << "64 KiB copied through the packet buffers";
    dev_engine_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(65536u, st.dma_rd_bytes);
    EXPECT_EQ(65536u, st.dma_wr_bytes);
    EXPECT_EQ(32 * per, st.dma_busy_cycles);
    EXPECT_EQ(0u, protcheck_count(b.pc));
}

TEST(CoreDma, ReadsAndWritesMoveAtOnceAndAWriteOvertakesAnOlderRead)
{
    // Full duplex: 4 KiB in and 4 KiB out, issued together, each take their
    // own channel's time; the write (short posted cost) is answered first.
    DmaBench b;
    const uint64_t src = b.Alloc(4096, 3), dst = b.Alloc(4096, 0);
    b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, 1, src, 4096, 0, 0, kKey));
    b.q.push_back(Req(HCA_DMA_OP_BUF_TO_HOST, 2, dst, 4096, 1, 0, kKey));
    b.RunUntil(2);
    const uint64_t per = 4096 / b.t.bytes_per_cycle;
    EXPECT_EQ(2u, hca_dma_rsp_get_rtag(&b.rsps[0].rsp)) << "the write first";
    EXPECT_EQ(1u + b.t.write_cost + per, b.rsps[0].cycle) << "the write, accepted in cycle 1";
    EXPECT_EQ(1u, hca_dma_rsp_get_rtag(&b.rsps[1].rsp));
    EXPECT_EQ(b.t.read_latency + per, b.rsps[1].cycle) << "the read did not wait for the write's channel";
    dev_engine_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(2 * per, st.dma_busy_cycles);
    EXPECT_EQ(0u, protcheck_count(b.pc));
}

TEST(CoreDma, ALongStreamIsBandwidthBoundPastTheOutstandingLimit)
{
    // 64 x 4 KiB through 16 outstanding slots: the channel never idles.
    DmaBench b;
    const uint64_t src = b.Alloc(64 * 4096, 1);
    for (unsigned i = 0; i < 64; i++)
        b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, i, src + 4096ull * i, 4096, i % 16, 0, kKey));
    b.RunUntil(64);
    EXPECT_EQ(b.t.read_latency + 64 * 4096 / b.t.bytes_per_cycle, b.rsps.back().cycle);
}

TEST(CoreDma, BusErrorsAnswerErrAndMoveNothing)
{
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 5);
    const uint64_t hole = a + 4096; // the page after is not backed
    memset(b.Buf(2), 0xee, HCA_PKT_BUF_SIZE);
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 1, hole, 64));
    b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, 2, a + 4000, 200, 2, 0, kKey)); // straddles into the hole
    b.q.push_back(Req(HCA_DMA_OP_BUF_TO_HOST, 3, a + 4000, 200, 2, 0, kKey));
    b.q.push_back(Req(HCA_DMA_OP_WRITE_DATA, 4, ~0ull - 8, 32)); // wraps 2^64
    b.RunUntil(4);
    for (const auto &r : b.rsps)
        EXPECT_EQ(1u, hca_dma_rsp_get_err(&r.rsp)) << "tag " << hca_dma_rsp_get_rtag(&r.rsp);
    for (unsigned i = 0; i < 16; i++)
        EXPECT_EQ(0u, b.rsps[0].rsp.rdata[i]);
    EXPECT_EQ(std::vector<uint8_t>(HCA_PKT_BUF_SIZE, 0xee), std::vector<uint8_t>(b.Buf(2), b.Buf(2) + HCA_PKT_BUF_SIZE));
    uint8_t tail[96];
    ASSERT_EQ(0, hostmem_read(b.mem, a + 4000, tail, sizeof tail));
    for (unsigned i = 0; i < sizeof tail; i++)
        ASSERT_EQ((uint8_t)(5 + (4000 + i) * 7), tail[i]) << "host byte " << i << " changed";
    dev_engine_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(4u, st.dma_bus_errs);
    EXPECT_EQ(0u, st.dma_rd_bytes + st.dma_wr_bytes);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << "a bus error is the engine's to report, not a breach";
}

TEST(CoreDma, MalformedRequestsAreAnsweredErrAndReportedAsEngineBugs)
{
    DmaBench b;
    const uint64_t a = b.Alloc(8192, 0);
    const hca_dma_req_t bad[] = {
        Req(HCA_DMA_OP_READ_DATA, 1, a, 129),
        Req(HCA_DMA_OP_WRITE_DATA, 2, a, 33),
        Req(HCA_DMA_OP_HOST_TO_BUF, 3, a, 64, HCA_PKT_BUFS, 0, kKey),
        Req(HCA_DMA_OP_BUF_TO_HOST, 4, a, 64, 0, HCA_PKT_BUF_SIZE - 63, kKey),
        Req(HCA_DMA_OP_BUF_TO_HOST, 5, a, 1, 0, 0xffffffffu, kKey), // buf_off + len wraps
        Req(9, 6, a, 8),
    };
    for (const auto &r : bad)
        b.q.push_back(r);
    b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, 7, a, 4096, HCA_PKT_BUFS - 1, 0, kKey)); // the largest legal one
    b.RunUntil(7);
    for (unsigned i = 0; i < 6; i++) {
        EXPECT_EQ(i + 1, hca_dma_rsp_get_rtag(&b.rsps[i].rsp));
        EXPECT_EQ(1u, hca_dma_rsp_get_err(&b.rsps[i].rsp)) << "request " << i;
        EXPECT_LE(b.rsps[i].cycle, 10u) << "no bus time for a refused request";
    }
    EXPECT_EQ(0u, hca_dma_rsp_get_err(&b.rsps[6].rsp));
    dev_engine_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(6u, st.dma_bad_reqs);
    ASSERT_EQ(6u, protcheck_count(b.pc));
    char all[4096];
    protcheck_format(b.pc, all, sizeof all);
    EXPECT_NE(nullptr, strstr(all, "READ_DATA longer than 128")) << all;
    EXPECT_NE(nullptr, strstr(all, "beyond PKT_BUFS")) << all;
    EXPECT_NE(nullptr, strstr(all, "unknown op")) << all;
}

TEST(CoreDma, OutstandingLimitAndResponseBackPressure)
{
    DmaBench b(4);
    const uint64_t a = b.Alloc(4096, 0);
    b.rsp_ready = false;
    for (unsigned i = 0; i < 6; i++)
        b.q.push_back(Req(HCA_DMA_OP_READ_DATA, i, a, 8));
    for (int i = 0; i < 400; i++)
        b.Tick();
    EXPECT_EQ(4u, b.accepted.size()) << "at most 4 outstanding";
    EXPECT_EQ(4u, core_dma_outstanding(b.dma));
    EXPECT_TRUE(b.rsps.empty());
    EXPECT_TRUE(b.p.dma_rsp_valid) << "the oldest answer waits on the pins";
    EXPECT_EQ(0u, hca_dma_rsp_get_rtag(&b.p.dma_rsp));
    b.rsp_ready = true;
    b.RunUntil(6);
    for (unsigned i = 0; i < 6; i++)
        EXPECT_EQ(i, hca_dma_rsp_get_rtag(&b.rsps[i].rsp));
    EXPECT_EQ(400u, b.rsps[0].cycle) << "handed over as soon as ready rose";
    EXPECT_EQ(401u, b.rsps[1].cycle) << "one response per cycle";
}

TEST(CoreDma, ATagReusedWhileOutstandingIsAnEngineBug)
{
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 0);
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 9, a, 8));
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 9, a, 8));
    b.RunUntil(2);
    EXPECT_EQ(1u, protcheck_count(b.pc));
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 9, a, 8)); // answered: free again
    b.RunUntil(3);
    EXPECT_EQ(1u, protcheck_count(b.pc));
}

TEST(CoreDma, TheCheckerSeesEveryKeyedTransfer)
{
    DmaBench b;
    const uint64_t a = b.Alloc(8192, 0);
    b.q.push_back(Req(HCA_DMA_OP_BUF_TO_HOST, 1, a, 4096, 0, 0, kKey)); // issued in cycle 0
    b.Tick();
    protcheck_key_invalid(b.pc, b.now, kKey, "DESTROY_MKEY"); // while it is on the bus
    b.RunUntil(1);
    ASSERT_EQ(1u, protcheck_count(b.pc));
    protcheck_violation_t v;
    ASSERT_EQ(0, protcheck_get(b.pc, 0, &v));
    EXPECT_EQ(b.rsps[0].cycle, v.cycle) << "reported when the bytes landed";
    EXPECT_EQ(kKey, v.key);
    EXPECT_EQ(a, v.addr);
    b.q.push_back(Req(HCA_DMA_OP_HOST_TO_BUF, 2, a, 64, 0, 0, kKey)); // issued after
    b.RunUntil(2);
    EXPECT_EQ(2u, protcheck_count(b.pc));
    protcheck_stats_t st;
    protcheck_get_stats(b.pc, &st);
    EXPECT_EQ(2u, st.dma_keyed);
}

TEST(CoreDma, AnObserverSeesEveryRequestAndItsEnd)
{
    DmaBench b;
    const uint64_t a = b.Alloc(4096, 0);
    struct Log {
        std::vector<uint64_t> issue, done, err;
    } log;
    const evlog_fn_t watch = [](void *c, const evlog_event_t *e) {
        if (e->kind == EVLOG_DMA_ISSUE)
            ((Log *)c)->issue.push_back(e->cycle);
        if (e->kind == EVLOG_DMA_DONE) {
            ((Log *)c)->done.push_back(e->cycle);
            ((Log *)c)->err.push_back(e->err);
        }
    };
    ASSERT_EQ(0, evlog_subscribe(&b.log, watch, &log));
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 1, a, 128));
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 2, a + 4096, 8)); // bus error
    b.q.push_back(Req(HCA_DMA_OP_READ_DATA, 3, a, 200));      // malformed
    b.RunUntil(3);
    EXPECT_EQ((std::vector<uint64_t>{0, 1, 2}), log.issue);
    ASSERT_EQ(3u, log.done.size());
    EXPECT_EQ(b.rsps[0].cycle, log.done[0]) << "the transfer ends in the cycle its answer is offered";
    EXPECT_EQ((std::vector<uint64_t>{0, 1, 1}), log.err);
}

// The test plays the engine on the link pins.
struct LinkBench {
    protcheck_t *pc = nullptr;
    evlog_t log = {};
    core_link_t *link = nullptr;
    core_pins_t p;
    uint64_t now = 0;
    std::deque<hca_pkt_t> tx;
    struct Got {
        uint64_t cycle;
        hca_pkt_t pkt;
    };
    std::vector<Got> rx;
    std::vector<uint64_t> sent;
    bool rx_ready = true;

    LinkBench(uint32_t latency, uint32_t bpc)
    {
        memset(&p, 0, sizeof p);
        EXPECT_EQ(0, protcheck_create(&pc));
        EXPECT_EQ(0, protcheck_attach(pc, &log));
        EXPECT_EQ(0, core_link_create(&link, latency, bpc, &log));
    }
    ~LinkBench()
    {
        core_link_destroy(link);
        protcheck_destroy(pc);
    }
    void Tick()
    {
        core_link_drive(link, &p, now);
        p.tx_valid = !tx.empty();
        if (p.tx_valid)
            p.tx = tx.front();
        p.rx_ready = rx_ready;
        const bool took = p.tx_valid && p.tx_ready;
        if (p.rx_valid && p.rx_ready)
            rx.push_back({now, p.rx});
        core_link_sample(link, &p, now);
        if (took) {
            sent.push_back(now);
            tx.pop_front();
        }
        now++;
    }
    void RunUntil(size_t n, uint64_t bound = 100000)
    {
        for (uint64_t i = 0; i < bound && rx.size() < n; i++)
            Tick();
        ASSERT_EQ(n, rx.size());
    }
};

hca_pkt_t Packet(unsigned op, uint32_t psn, uint32_t len, unsigned pbuf = 0)
{
    hca_pkt_t k;
    memset(&k, 0, sizeof k);
    hca_pkt_set_op(&k, op);
    hca_pkt_set_first(&k, 1);
    hca_pkt_set_last(&k, 1);
    hca_pkt_set_pbuf(&k, pbuf);
    hca_pkt_set_dst_qpn(&k, 2);
    hca_pkt_set_src_qpn(&k, 1);
    k.psn = psn;
    k.len = len;
    return k;
}

TEST(CoreLink, AHeaderArrivesAfterTheLatencyAPayloadAfterItsSerialization)
{
    LinkBench b(100, 16);
    b.tx.push_back(Packet(HCA_PKT_OP_ACK, 1, 0));
    b.RunUntil(1);
    EXPECT_EQ(b.sent[0] + 100, b.rx[0].cycle);
    b.tx.push_back(Packet(HCA_PKT_OP_SEND, 2, 4096, 3));
    b.RunUntil(2);
    EXPECT_EQ(b.sent[1] + 4096 / 16 + 100, b.rx[1].cycle);
    EXPECT_EQ(2u, b.rx[1].pkt.psn);
    EXPECT_EQ(3u, hca_pkt_get_pbuf(&b.rx[1].pkt)) << "the header arrives whole";
    dev_engine_stats_t st;
    core_link_get_stats(b.link, &st);
    EXPECT_EQ(2u, st.pkts);
    EXPECT_EQ(4096u, st.pkt_bytes);
}

TEST(CoreLink, PacketsShareTheWireAndArriveInOrder)
{
    LinkBench b(100, 16);
    for (uint32_t i = 0; i < 8; i++)
        b.tx.push_back(Packet(HCA_PKT_OP_WRITE, i, 4096, i));
    b.tx.push_back(Packet(HCA_PKT_OP_ACK, 99, 0)); // a header behind them waits its turn
    b.RunUntil(9);
    for (uint32_t i = 0; i < 8; i++) {
        EXPECT_EQ(i, b.rx[i].pkt.psn);
        EXPECT_EQ(256 * (i + 1) + 100, b.rx[i].cycle) << "packet " << i;
    }
    EXPECT_EQ(99u, b.rx[8].pkt.psn);
    EXPECT_EQ(b.rx[7].cycle + 1, b.rx[8].cycle) << "off the wire with the last payload, delivered the cycle after";
}

TEST(CoreLink, BackPressureHoldsTheHeadAndFillsTheLink)
{
    LinkBench b(10, 16);
    b.rx_ready = false;
    for (uint32_t i = 0; i < CORE_LINK_DEPTH + 5; i++)
        b.tx.push_back(Packet(HCA_PKT_OP_ACK, i, 0));
    for (int i = 0; i < 500; i++)
        b.Tick();
    EXPECT_EQ(CORE_LINK_DEPTH, b.sent.size()) << "tx_ready falls when the link is full";
    EXPECT_EQ(CORE_LINK_DEPTH, core_link_in_flight(b.link));
    EXPECT_TRUE(b.p.rx_valid);
    EXPECT_EQ(0u, b.p.rx.psn) << "the oldest packet waits on rx";
    b.rx_ready = true;
    b.RunUntil(CORE_LINK_DEPTH + 5);
    for (uint32_t i = 0; i < CORE_LINK_DEPTH + 5; i++)
        ASSERT_EQ(i, b.rx[i].pkt.psn);
}

TEST(CoreLink, TheCheckerSeesWritesDeliveredAndNaksSent)
{
    LinkBench b(10, 16);
    hca_pkt_t w = Packet(HCA_PKT_OP_WRITE, 5, 256, 1);
    hca_pkt_t n = Packet(HCA_PKT_OP_NAK, 5, 0);
    hca_pkt_set_syndrome(&n, HCA_WC_STATUS_REM_ACCESS_ERR);
    b.tx.push_back(w);
    b.tx.push_back(n);
    b.RunUntil(2);
    protcheck_stats_t st;
    protcheck_get_stats(b.pc, &st);
    EXPECT_EQ(1u, st.write_pkts);
    EXPECT_EQ(1u, st.access_naks);
}

TEST(CoreDma, BadArgumentsAreRefused)
{
    hostmem_t *mem = nullptr;
    ASSERT_EQ(0, hostmem_create(&mem));
    std::vector<uint8_t> bufs((size_t)HCA_PKT_BUFS * HCA_PKT_BUF_SIZE);
    bus_timing_t t = bus_default_timing();
    core_dma_t *d = nullptr;
    const bus_t bus = hostmem_bus(mem);
    EXPECT_EQ(-EINVAL, core_dma_create(&d, &bus, &t, 0, bufs.data(), nullptr));
    EXPECT_EQ(-EINVAL, core_dma_create(&d, &bus, &t, CORE_DMA_OUTSTANDING_MAX + 1, bufs.data(), nullptr));
    EXPECT_EQ(-EINVAL, core_dma_create(&d, nullptr, &t, 4, bufs.data(), nullptr));
    t.bytes_per_cycle = 0;
    EXPECT_EQ(-EINVAL, core_dma_create(&d, &bus, &t, 4, bufs.data(), nullptr));
    core_link_t *l = nullptr;
    EXPECT_EQ(-EINVAL, core_link_create(&l, 10, 0, nullptr));
    const dev_engine_env_t env = {bus, nullptr};
    EXPECT_EQ(-EINVAL, core_create(nullptr, nullptr, nullptr, &env));
    core_t *c = nullptr;
    EXPECT_EQ(-EINVAL, core_create(&c, &core_rtl_ops, nullptr, nullptr)) << "no environment";
    hostmem_destroy(mem);
}

// ---------------------------------------------------------------- the core on the RTL engine
//
// CoreRtl.* drive rtl/hca_core.sv through the whole harness (core_t): the
// firmware port's two blocks, doorbells, WQE fetch timing, the loopback link's
// latency, bus errors and a 64 KiB RDMA WRITE stream, with contexts, MPT and
// MTT written through the firmware port as the firmware would.

constexpr uint32_t kFwp = HCA_FWP_BASE - HCA_DEVREG_BASE;
constexpr uint32_t kCtx = HCA_FW_CTX_BASE - HCA_DEVREG_BASE;
constexpr uint32_t kEvt = HCA_FW_EVT_BASE - HCA_DEVREG_BASE;
constexpr uint32_t kPd = 7;

struct CoreRtlBench {
    hostmem_t *mem = nullptr;
    protcheck_t *pc = nullptr;
    evlog_t log = {};
    core_t *core = nullptr;
    bus_timing_t t = bus_default_timing();
    struct Dma {
        uint64_t cycle;
        hca_dma_req_t req;
        int err; // -1: issue event
    };
    struct Pkt {
        uint64_t cycle;
        hca_pkt_t pkt;
        bool tx;
    };
    std::vector<Dma> dma;
    std::vector<Pkt> pkts;

    // lockstep: the model runs as the RTL's shadow on its inputs, every output pin compared each cycle (a
    // difference is an engine bug the checker counts: protcheck_count).
    explicit CoreRtlBench(uint32_t link_latency = 100, uint32_t link_bpc = 16, const bus_timing_t *host = nullptr,
                          bool lockstep = false)
    {
        EXPECT_EQ(0, hostmem_create(&mem));
        EXPECT_EQ(0, protcheck_create(&pc));
        EXPECT_EQ(0, protcheck_attach(pc, &log));
        dev_engine_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.link_latency = link_latency;
        cfg.link_bytes_per_cycle = link_bpc;
        if (host) {
            cfg.dma = *host;
            t = *host;
        }
        const dev_engine_env_t env = {hostmem_bus(mem), &log};
        if (lockstep)
            EXPECT_EQ(0, core_create_lockstep(&core, &core_rtl_ops, &core_model_ops, &cfg, &env));
        else
            EXPECT_EQ(0, core_create(&core, &core_rtl_ops, &cfg, &env));
        EXPECT_EQ(0, evlog_subscribe(&log, Watch, this));
    }
    // What the harness reports on the log: DMA and packets, in order.
    static void Watch(void *c, const evlog_event_t *e)
    {
        CoreRtlBench *b = (CoreRtlBench *)c;
        switch (e->kind) {
        case EVLOG_DMA_ISSUE: b->dma.push_back({e->cycle, *e->dma, -1}); break;
        case EVLOG_DMA_DONE: b->dma.push_back({e->cycle, *e->dma, e->err}); break;
        case EVLOG_PKT_TX: b->pkts.push_back({e->cycle, *e->pkt, true}); break;
        case EVLOG_PKT_RX: b->pkts.push_back({e->cycle, *e->pkt, false}); break;
        default: break;
        }
    }
    ~CoreRtlBench()
    {
        core_destroy(core);
        protcheck_destroy(pc);
        hostmem_destroy(mem);
    }
    bool ok() const { return core != nullptr; }

    uint32_t Rd(uint32_t off)
    {
        uint32_t v = 0xdeadbeef;
        EXPECT_EQ(0, core_fw_read(core, off, &v)) << "fw read 0x" << std::hex << off;
        return v;
    }
    void Wr(uint32_t off, uint32_t v) { EXPECT_EQ(0, core_fw_write(core, off, v)) << "fw write 0x" << std::hex << off; }

    // One command of a block (fwp or ctx): wait idle, CMD, wait idle; the result.
    unsigned Cmd(uint32_t base, uint32_t cmd_off, uint32_t status_off, uint32_t cmd)
    {
        for (int i = 0; i < 100000 && (Rd(base + status_off) & 1); i++) {
        }
        Wr(base + cmd_off, cmd);
        uint32_t st = 1;
        for (int i = 0; i < 100000 && ((st = Rd(base + status_off)) & 1); i++) {
        }
        EXPECT_EQ(0u, st & 1) << "command still busy";
        return (st >> 4) & 0xf;
    }
    unsigned CtxCmd(unsigned op, uint32_t index)
    {
        return Cmd(kCtx, HCA_CTX_CMD, HCA_CTX_STATUS, HCA_CTX_CMD_OP_PUT(op) | HCA_CTX_CMD_INDEX_PUT(index));
    }
    unsigned FwpCmd(unsigned op, uint32_t index)
    {
        return Cmd(kFwp, HCA_FWP_CMD, HCA_FWP_STATUS, HCA_FWP_CMD_OP_PUT(op) | HCA_FWP_CMD_INDEX_PUT(index));
    }
    void Stage(uint32_t base, const void *p, size_t n)
    {
        const uint32_t *w = (const uint32_t *)p;
        for (size_t i = 0; i < n / 4; i++)
            Wr(base + 4 * (uint32_t)i, w[i]);
    }
    void Unstage(uint32_t base, void *p, size_t n)
    {
        uint32_t *w = (uint32_t *)p;
        for (size_t i = 0; i < n / 4; i++)
            w[i] = Rd(base + 4 * (uint32_t)i);
    }
    void WriteQpc(uint32_t qpn, const hca_qp_ctx_t &q)
    {
        Stage(kCtx + HCA_CTX_DATA, &q, sizeof q);
        ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, CtxCmd(HCA_CTX_OP_WRITE_QPC, qpn));
    }
    void WriteCqc(uint32_t cqn, const hca_cq_ctx_t &c)
    {
        Stage(kCtx + HCA_CTX_DATA, &c, sizeof c);
        ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, CtxCmd(HCA_CTX_OP_WRITE_CQC, cqn));
    }
    // A regular MR over [addr, addr+len) (4 KiB pages, page-aligned addr), iova = addr.
    uint32_t RegMr(uint32_t index, uint32_t mtt_base, uint64_t addr, uint64_t len, unsigned access)
    {
        const uint32_t pages = (uint32_t)((len + 4095) / 4096);
        for (uint32_t i = 0; i < pages; i++) {
            hca_mtt_entry_t m;
            m.word = 0;
            hca_mtt_entry_set_present(&m, 1);
            hca_mtt_entry_set_pfn(&m, (addr >> 12) + i);
            Stage(kFwp + HCA_FWP_MTT_DATA, &m, sizeof m);
            EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, FwpCmd(HCA_FWP_OP_WRITE_MTT, mtt_base + i));
        }
        hca_mpt_entry_t e;
        memset(&e, 0, sizeof e);
        hca_mpt_entry_set_alloc(&e, 1);
        hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_kind(&e, HCA_MKEY_KIND_REGULAR);
        hca_mpt_entry_set_access(&e, access);
        hca_mpt_entry_set_page_shift(&e, 12);
        e.key = index << 8 | 0x33;
        e.pd = kPd;
        e.mtt_base = mtt_base;
        e.iova = addr;
        e.length = len;
        e.mtt_count = pages;
        Stage(kFwp + HCA_FWP_MPT_DATA, &e, sizeof e);
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, FwpCmd(HCA_FWP_OP_WRITE_MPT, index));
        return e.key;
    }
    uint64_t Alloc(uint64_t size)
    {
        uint64_t a = 0;
        EXPECT_EQ(0, hostmem_alloc(mem, size, 4096, &a));
        return a;
    }
    // CQ cqn (2^log CQEs) and QPs a <-> b in RTS on it; rings in fresh host memory.
    struct Qp {
        uint32_t qpn;
        uint64_t sq, rq;
        uint32_t sq_pi = 0, rq_pi = 0;
    };
    uint64_t cq_base = 0;
    uint32_t cq_ci = 0;
    void Setup(Qp &a, Qp &b, uint64_t sq_base_a = 0, unsigned mtu_log2 = 12)
    {
        cq_base = Alloc(64 * 32);
        hca_cq_ctx_t c;
        memset(&c, 0, sizeof c);
        c.base = cq_base;
        hca_cq_ctx_set_log_depth(&c, 6);
        hca_cq_ctx_set_cq_valid(&c, 1);
        WriteCqc(1, c);
        SetupQp(a, b.qpn, mtu_log2, sq_base_a);
        SetupQp(b, a.qpn, mtu_log2);
    }
    // QP q in RTS on CQ 1 (Setup made it), connected to remote_qpn; rings in fresh host memory.
    void SetupQp(Qp &q, uint32_t remote_qpn, unsigned mtu_log2 = 12, uint64_t sq_base = 0)
    {
        q.sq = sq_base ? sq_base : Alloc(16 * 128);
        q.rq = Alloc(16 * 64);
        hca_qp_ctx_t x;
        memset(&x, 0, sizeof x);
        hca_qp_ctx_set_state(&x, HCA_QP_STATE_RTS);
        hca_qp_ctx_set_mtu_log2(&x, mtu_log2);
        hca_qp_ctx_set_sq_log(&x, 4);
        hca_qp_ctx_set_rq_log(&x, 4);
        hca_qp_ctx_set_send_cqn(&x, 1);
        hca_qp_ctx_set_recv_cqn(&x, 1);
        x.pd = kPd;
        x.sq_base = q.sq;
        x.rq_base = q.rq;
        x.remote_qpn = remote_qpn;
        x.rnr_timer = 1000;
        WriteQpc(q.qpn, x);
    }
    void PostSend(Qp &q, const hca_sq_wqe_t &w)
    {
        ASSERT_EQ(0, hostmem_write(mem, q.sq + (q.sq_pi % 16) * 128, &w, sizeof w));
        q.sq_pi++;
        ASSERT_EQ(0, core_db_write(core, HCA_DB_SQ, HCA_DB_SQ_QPN_PUT(q.qpn) | HCA_DB_SQ_PI_PUT(q.sq_pi)));
    }
    void PostRecv(Qp &q, const hca_rq_wqe_t &w)
    {
        ASSERT_EQ(0, hostmem_write(mem, q.rq + (q.rq_pi % 16) * 64, &w, sizeof w));
        q.rq_pi++;
        ASSERT_EQ(0, core_db_write(core, HCA_DB_RQ, HCA_DB_RQ_QPN_PUT(q.qpn) | HCA_DB_RQ_PI_PUT(q.rq_pi)));
    }
    // Wait for n new CQEs (owner bit of the first pass); they are returned in
    // order. each: run every 50 cycles (a firmware serving events).
    std::vector<hca_cqe_t> Cqes(size_t n, uint64_t bound = 2000000, const std::function<void()> &each = {})
    {
        std::vector<hca_cqe_t> out;
        for (uint64_t i = 0; i < bound && out.size() < n; i += 50) {
            core_step(core, 50);
            if (each)
                each();
            hca_cqe_t e;
            while (out.size() < n && hostmem_read(mem, cq_base + (cq_ci % 64) * 32, &e, sizeof e) == 0 &&
                   hca_cqe_get_owner(&e) == (((cq_ci >> 6) & 1) ^ 1)) {
                out.push_back(e);
                cq_ci++;
            }
        }
        EXPECT_EQ(n, out.size()) << "CQEs missing";
        return out;
    }
    // NAKs with this syndrome the engine sent.
    size_t Naks(unsigned syndrome) const
    {
        size_t n = 0;
        for (const Pkt &p : pkts)
            n += p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_NAK && hca_pkt_get_syndrome(&p.pkt) == syndrome;
        return n;
    }
    std::vector<Dma> DmaOf(unsigned op, int issue) const
    {
        std::vector<Dma> v;
        for (const Dma &d : dma)
            if (hca_dma_req_get_op(&d.req) == op && (d.err == -1) == (issue != 0))
                v.push_back(d);
        return v;
    }
    // A CQE is waiting at cq_ci.
    bool CqeReady()
    {
        hca_cqe_t e;
        return hostmem_read(mem, cq_base + (cq_ci % 64) * 32, &e, sizeof e) == 0 &&
               hca_cqe_get_owner(&e) == (((cq_ci >> 6) & 1) ^ 1);
    }
    // The cycle CQE slot idx of the ring was written (UINT64_MAX: not written).
    uint64_t CqeWritten(uint32_t idx) const
    {
        for (const Dma &d : dma)
            if (d.err == 0 && hca_dma_req_get_op(&d.req) == HCA_DMA_OP_WRITE_DATA &&
                d.req.addr == cq_base + (idx % 64) * 32)
                return d.cycle;
        return UINT64_MAX;
    }

    // The firmware's side of regs evt.
    uint32_t EvtStatus() { return Rd(kEvt + HCA_EVT_STATUS); }
    // Poll STATUS until an event is pending: the cycle it was seen, UINT64_MAX if not within bound cycles.
    uint64_t WaitEvent(uint64_t bound = 400000)
    {
        const uint64_t t0 = core_cycle(core);
        while (core_cycle(core) - t0 < bound)
            if (HCA_EVT_STATUS_PENDING_GET(EvtStatus()))
                return core_cycle(core);
        return UINT64_MAX;
    }
    hca_fw_event_t ReadEvent()
    {
        hca_fw_event_t e;
        Unstage(kEvt + HCA_EVT_DATA, &e, sizeof e);
        return e;
    }
    void Pop() { Wr(kEvt + HCA_EVT_POP, 0); }
    void Done(unsigned tag, unsigned status)
    {
        Wr(kEvt + HCA_EVT_DONE, HCA_EVT_DONE_STATUS_PUT(status) | HCA_EVT_DONE_TAG_PUT(tag));
    }
    // The head event, read and popped (one must be pending).
    hca_fw_event_t Take()
    {
        hca_fw_event_t e = ReadEvent();
        Pop();
        return e;
    }
    // Answer every pending event with status (what a firmware that accepts everything does).
    void ServeAll(unsigned status)
    {
        while (HCA_EVT_STATUS_PENDING_GET(EvtStatus())) {
            hca_fw_event_t e = Take();
            served.push_back(e);
            Done(hca_fw_event_get_tag(&e), status);
        }
    }
    std::vector<hca_fw_event_t> served;
    unsigned QpState(uint32_t qpn)
    {
        hca_qp_ctx_t q;
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, CtxCmd(HCA_CTX_OP_READ_QPC, qpn));
        Unstage(kCtx + HCA_CTX_DATA, &q, sizeof q);
        return hca_qp_ctx_get_state(&q);
    }
    std::string Violations() const
    {
        char b[4096];
        protcheck_format(pc, b, sizeof b);
        return b;
    }
};

hca_sq_wqe_t SqWqe(unsigned opcode, uint64_t wr_id, bool signaled)
{
    hca_sq_wqe_t w;
    memset(&w, 0, sizeof w);
    hca_sq_wqe_set_opcode(&w, opcode);
    hca_sq_wqe_set_flags(&w, signaled ? HCA_SEND_FLAGS_SIGNALED : 0);
    w.wr_id = wr_id;
    return w;
}

#define ASSERT_CORE_OK(b) ASSERT_TRUE((b).ok()) << "the RTL core did not come up"

TEST(CoreRtl, FirmwarePortReachesTheTranslationUnitAndTheContexts)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    const uint32_t sizes = b.Rd(kFwp + HCA_FWP_SIZES);
    EXPECT_EQ(12u, HCA_FWP_SIZES_MPT_LOG2_GET(sizes));
    EXPECT_EQ(16u, HCA_FWP_SIZES_MTT_LOG2_GET(sizes));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_NOP, 0));

    hca_cq_ctx_t c;
    memset(&c, 0, sizeof c);
    c.base = 0x123456789000ull;
    hca_cq_ctx_set_log_depth(&c, 5);
    hca_cq_ctx_set_cq_valid(&c, 1);
    b.WriteCqc(3, c);
    hca_qp_ctx_t q;
    memset(&q, 0, sizeof q);
    hca_qp_ctx_set_state(&q, HCA_QP_STATE_RTS);
    hca_qp_ctx_set_mtu_log2(&q, 10);
    hca_qp_ctx_set_sq_log(&q, 6);
    hca_qp_ctx_set_rq_log(&q, 5);
    hca_qp_ctx_set_send_cqn(&q, 3);
    hca_qp_ctx_set_recv_cqn(&q, 3);
    q.pd = kPd;
    q.sq_base = 0x200000000ull;
    q.rq_base = 0x300000000ull;
    q.remote_qpn = 9;
    q.rnr_timer = 777;
    b.WriteQpc(5, q);

    const hca_qp_ctx_t zero_q = {};
    b.Stage(kCtx + HCA_CTX_DATA, &zero_q, sizeof zero_q);
    ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_READ_QPC, 5));
    hca_qp_ctx_t rq;
    b.Unstage(kCtx + HCA_CTX_DATA, &rq, sizeof rq);
    EXPECT_EQ(q.sq_base, rq.sq_base);
    EXPECT_EQ(q.rq_base, rq.rq_base);
    EXPECT_EQ(q.pd, rq.pd);
    EXPECT_EQ(q.cqns, rq.cqns);
    EXPECT_EQ(q.remote_qpn, rq.remote_qpn);
    EXPECT_EQ(q.rnr_timer, rq.rnr_timer);
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, hca_qp_ctx_get_state(&rq));
    EXPECT_EQ(10u, hca_qp_ctx_get_mtu_log2(&rq));
    ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_READ_CQC, 3));
    hca_cq_ctx_t rc;
    b.Unstage(kCtx + HCA_CTX_DATA, &rc, sizeof rc);
    EXPECT_EQ(c.base, rc.base);
    EXPECT_EQ(5u, hca_cq_ctx_get_log_depth(&rc));
    EXPECT_EQ(1u, hca_cq_ctx_get_cq_valid(&rc));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_OP, b.CtxCmd(9, 0)) << "an unknown ctx op";
    EXPECT_EQ(0u, b.Rd(0xc00)) << "outside the three blocks reads 0";
}

TEST(CoreRtl, KeyCheckProbesGoThroughTheCoresArbiter)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    const uint64_t buf = b.Alloc(2 * 4096);
    const uint32_t key = b.RegMr(4, 0, buf, 2 * 4096, HCA_ACCESS_LOCAL_WRITE);
    xu_req_t q = {0x21, HCA_ACCESS_LOCAL_WRITE, 0, key, kPd, 5000, buf + 100};
    ASSERT_EQ(0, core_xlate_submit(b.core, &q));
    std::vector<xu_seg_t> segs;
    xu_seg_t s;
    for (int i = 0; i < 1000 && (segs.empty() || !segs.back().last); i++) {
        core_step(b.core, 1);
        while (core_xlate_collect(b.core, &s))
            segs.push_back(s);
    }
    ASSERT_EQ(2u, segs.size());
    EXPECT_EQ(buf + 100, segs[0].pa);
    EXPECT_EQ(4096u - 100, segs[0].len);
    EXPECT_EQ(buf + 4096, segs[1].pa);
    EXPECT_EQ(HCA_XLATE_STATUS_OK, segs[1].status);
    EXPECT_EQ(0x21u, segs[1].tag);
    EXPECT_NE(UINT64_MAX, core_xlate_accept_cycle(b.core, 0));
}

TEST(CoreRtl, ADoorbellStartsAWqeFetchThatTakesTheBusLatency)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    b.PostRecv(qb, [] {
        hca_rq_wqe_t r;
        memset(&r, 0, sizeof r);
        r.wr_id = 77;
        return r;
    }());
    const uint64_t t0 = core_cycle(b.core);
    b.PostSend(qa, SqWqe(HCA_WR_OPCODE_SEND, 11, true)); // zero-length SEND
    std::vector<hca_cqe_t> e = b.Cqes(2);
    dev_engine_stats_t st;
    core_get_stats(b.core, &st);
    EXPECT_EQ(2u, st.doorbells);
    auto fetch = b.DmaOf(HCA_DMA_OP_READ_DATA, 1);
    auto fetched = b.DmaOf(HCA_DMA_OP_READ_DATA, 0);
    ASSERT_GE(fetch.size(), 2u) << "RQ and SQ WQE fetches";
    bool sq_seen = false;
    for (size_t i = 0; i < fetch.size(); i++) {
        if (fetch[i].req.addr != qa.sq)
            continue;
        sq_seen = true;
        EXPECT_EQ(128u, fetch[i].req.len);
        EXPECT_EQ(0u, fetch[i].req.key) << "a ring access carries key 0";
        EXPECT_GT(fetch[i].cycle, t0);
        EXPECT_LT(fetch[i].cycle, t0 + 20) << "the doorbell reached the requester";
        for (const auto &d : fetched) {
            if (d.req.addr == qa.sq) {
                EXPECT_EQ(fetch[i].cycle + bus_transfer_cycles(&b.t, 0, 128), d.cycle);
            }
        }
    }
    EXPECT_TRUE(sq_seen) << "no fetch of the SQ WQE";
    ASSERT_EQ(2u, e.size());
    unsigned nrecv = 0, nsend = 0;
    for (const hca_cqe_t &c : e) {
        EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, hca_cqe_get_status(&c)) << "wr_id " << c.wr_id;
        if (hca_cqe_get_opcode(&c) == HCA_WC_OPCODE_RECV) {
            nrecv++;
            EXPECT_EQ(77u, c.wr_id);
            EXPECT_EQ(2u, c.qpn);
        } else {
            nsend++;
            EXPECT_EQ(11u, c.wr_id);
            EXPECT_EQ((unsigned)HCA_WC_OPCODE_SEND, hca_cqe_get_opcode(&c));
        }
    }
    EXPECT_EQ(1u, nrecv);
    EXPECT_EQ(1u, nsend);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

TEST(CoreRtl, PacketsTakeTheLinkLatencyAndTheirSerialization)
{
    CoreRtlBench b(300, 8);
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint64_t src = b.Alloc(4096), dst = b.Alloc(4096);
    std::vector<uint8_t> pat(4096);
    for (size_t i = 0; i < pat.size(); i++)
        pat[i] = (uint8_t)(i * 13 + 1);
    ASSERT_EQ(0, hostmem_write(b.mem, src, pat.data(), pat.size()));
    const uint32_t ks = b.RegMr(1, 0, src, 4096, 0), kd = b.RegMr(2, 1, dst, 4096, HCA_ACCESS_LOCAL_WRITE);
    hca_rq_wqe_t r;
    memset(&r, 0, sizeof r);
    r.wr_id = 5;
    hca_rq_wqe_set_num_sge(&r, 1);
    r.sge[0] = {dst, 4096, kd};
    b.PostRecv(qb, r);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_SEND, 6, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, 4096, ks};
    b.PostSend(qa, w);
    std::vector<hca_cqe_t> e = b.Cqes(2);
    for (const hca_cqe_t &c : e)
        EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, hca_cqe_get_status(&c)) << "wr_id " << c.wr_id;
    std::vector<uint8_t> got(4096);
    ASSERT_EQ(0, hostmem_read(b.mem, dst, got.data(), got.size()));
    EXPECT_TRUE(got == pat) << "the payload crossed the link";
    // Every packet: rx no earlier than tx + latency + serialization, and the
    // uncontended SEND exactly then.
    const CoreRtlBench::Pkt *send_tx = nullptr, *send_rx = nullptr;
    for (const auto &p : b.pkts) {
        if (hca_pkt_get_op(&p.pkt) != HCA_PKT_OP_SEND)
            continue;
        (p.tx ? send_tx : send_rx) = &p;
    }
    ASSERT_TRUE(send_tx && send_rx);
    EXPECT_EQ(4096u, send_tx->pkt.len);
    EXPECT_EQ(send_tx->cycle + 300 + 4096 / 8, send_rx->cycle) << "latency 300 + 4096 B at 8 B/cycle";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

TEST(CoreRtl, ABusErrorOnTheWqeFetchIsAnsweredErrAndCompletesLocAccessErr)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    const uint64_t hole = 0x7700000000ull; // never mapped
    b.Setup(qa, qb, hole);
    ASSERT_EQ(0, core_db_write(b.core, HCA_DB_SQ, HCA_DB_SQ_QPN_PUT(1) | HCA_DB_SQ_PI_PUT(1)));
    std::vector<hca_cqe_t> e = b.Cqes(1);
    auto done = b.DmaOf(HCA_DMA_OP_READ_DATA, 0);
    ASSERT_FALSE(done.empty());
    EXPECT_EQ(hole, done[0].req.addr);
    EXPECT_EQ(1, done[0].err);
    dev_engine_stats_t st;
    core_get_stats(b.core, &st);
    EXPECT_GE(st.dma_bus_errs, 1u);
    ASSERT_EQ(1u, e.size());
    EXPECT_EQ((unsigned)HCA_WC_STATUS_LOC_ACCESS_ERR, hca_cqe_get_status(&e[0]));
    EXPECT_EQ(1u, e[0].qpn);
}

TEST(CoreRtl, A64KiBRdmaWriteStreamsAtTheBusBandwidth)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint64_t n = 64 * 1024;
    const uint64_t src = b.Alloc(n), dst = b.Alloc(n);
    std::vector<uint8_t> pat(n);
    for (size_t i = 0; i < n; i++)
        pat[i] = (uint8_t)(i * 31 + (i >> 12));
    ASSERT_EQ(0, hostmem_write(b.mem, src, pat.data(), n));
    const uint32_t ks = b.RegMr(1, 0, src, n, 0);
    const uint32_t kd = b.RegMr(2, 16, dst, n, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 8, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, (uint32_t)n, ks};
    w.remote_addr = dst;
    w.rkey = kd;
    const uint64_t t0 = core_cycle(b.core);
    b.PostSend(qa, w);
    std::vector<hca_cqe_t> e = b.Cqes(1);
    const uint64_t took = core_cycle(b.core) - t0;
    ASSERT_EQ(1u, e.size());
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, hca_cqe_get_status(&e[0]));
    EXPECT_EQ(n, e[0].byte_len);
    std::vector<uint8_t> got(n);
    ASSERT_EQ(0, hostmem_read(b.mem, dst, got.data(), n));
    EXPECT_TRUE(got == pat);
    dev_engine_stats_t st;
    core_get_stats(b.core, &st);
    EXPECT_EQ(n, st.pkt_bytes);
    EXPECT_GE(st.dma_rd_bytes, n);
    EXPECT_GE(st.dma_wr_bytes, n);
    // Each direction's channel carries 64 KiB: at least 4096 cycles.
    EXPECT_GE(took, n / b.t.bytes_per_cycle);
    RecordProperty("write_64k_cycles", std::to_string(took));
    RecordProperty("dma_busy_cycles", std::to_string(st.dma_busy_cycles));
    printf("64 KiB RDMA WRITE: %llu cycles post to CQE (bus busy %llu cycles, floor %llu)\n",
           (unsigned long long)took, (unsigned long long)st.dma_busy_cycles,
           (unsigned long long)(n / b.t.bytes_per_cycle));
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// The responder's side of a failed WRITE (the requester's completion is
// test_verbs' business): NAK REM_ACCESS_ERR, no byte placed, the checker saw
// the packets and the NAK and found nothing wrong.
TEST(CoreRtl, AWriteThroughABadRkeyIsNakedAndPlacesNothing)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb, 0, 10); // MTU 1024: a 4 KiB WRITE is 4 packets
    const uint64_t src = b.Alloc(4096), dst = b.Alloc(4096);
    const uint32_t ks = b.RegMr(1, 0, src, 4096, 0);
    const uint32_t kd = b.RegMr(2, 1, dst, 4096, HCA_ACCESS_LOCAL_WRITE); // no REMOTE_WRITE
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 8, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, 4096, ks};
    w.remote_addr = dst;
    w.rkey = kd;
    b.PostSend(qa, w);
    core_step(b.core, 20000);
    ASSERT_EQ(1u, b.Naks(HCA_WC_STATUS_REM_ACCESS_ERR)) << "one NAK REM_ACCESS_ERR sent";
    EXPECT_TRUE(b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).empty()) << "no byte placed";
    std::vector<uint8_t> zero(4096, 0), got(4096);
    ASSERT_EQ(0, hostmem_read(b.mem, dst, got.data(), got.size()));
    EXPECT_TRUE(got == zero);
    protcheck_stats_t st;
    protcheck_get_stats(b.pc, &st);
    EXPECT_GE(st.write_pkts, 1u);
    EXPECT_EQ(1u, st.access_naks);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// A READ whose remote range runs past the end of the responder's MR: one
// access is checked over its whole range before any byte moves (SEMANTICS.md
// "What one access covers"), so the responder NAKs REM_ACCESS_ERR before its
// first READ_RESP: nothing gathered, nothing sent, the requester's sink
// untouched. (The responder used to check per chunk and send the in-range
// chunks first, which the requester placed.)
TEST(CoreRtl, AReadPastTheMrsEndIsNakedBeforeAnyResponse)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb, 0, 10); // MTU 1024: an 8 KiB READ is 8 chunks, 4 of them in range
    const uint64_t src = b.Alloc(4096), sink = b.Alloc(8192);
    std::vector<uint8_t> pat(4096), fill(8192, 0x5a), got(8192);
    for (size_t i = 0; i < pat.size(); i++)
        pat[i] = (uint8_t)(i * 7 + 1);
    ASSERT_EQ(0, hostmem_write(b.mem, src, pat.data(), pat.size()));
    ASSERT_EQ(0, hostmem_write(b.mem, sink, fill.data(), fill.size()));
    const uint32_t ks = b.RegMr(1, 0, src, 4096, HCA_ACCESS_REMOTE_READ);
    const uint32_t kl = b.RegMr(2, 1, sink, 8192, HCA_ACCESS_LOCAL_WRITE);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_READ, 9, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {sink, 8192, kl};
    w.remote_addr = src;
    w.rkey = ks;
    b.PostSend(qa, w);
    std::vector<hca_cqe_t> e = b.Cqes(1);
    ASSERT_EQ(1u, e.size());
    EXPECT_EQ((unsigned)HCA_WC_STATUS_REM_ACCESS_ERR, hca_cqe_get_status(&e[0]));
    EXPECT_EQ(1u, b.Naks(HCA_WC_STATUS_REM_ACCESS_ERR)) << "one NAK REM_ACCESS_ERR sent";
    size_t resps = 0;
    for (const CoreRtlBench::Pkt &p : b.pkts)
        resps += p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_READ_RESP;
    EXPECT_EQ(0u, resps) << "READ_RESP packets sent before the NAK";
    EXPECT_TRUE(b.DmaOf(HCA_DMA_OP_HOST_TO_BUF, 1).empty()) << "the responder gathered chunks";
    EXPECT_TRUE(b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).empty()) << "the requester placed chunks";
    ASSERT_EQ(0, hostmem_read(b.mem, sink, got.data(), got.size()));
    for (size_t i = 0; i < got.size(); i++)
        ASSERT_EQ(0x5a, got[i]) << "sink byte " << i << " written";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// An invalidate-and-fence of the target MR while a long WRITE is being placed:
// after the fence completes (the moment firmware would answer), no DMA may
// reach memory through the old key (SEMANTICS.md, invariants I1/I2).
TEST(CoreRtl, InvalidationDuringALongWriteStopsItsPlacement)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint64_t n = 64 * 1024;
    const uint64_t src = b.Alloc(n), dst = b.Alloc(n);
    const uint32_t ks = b.RegMr(1, 0, src, n, 0);
    const uint32_t kd = b.RegMr(2, 16, dst, n, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 8, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, (uint32_t)n, ks};
    w.remote_addr = dst;
    w.rkey = kd;
    b.PostSend(qa, w);
    // Wait for the third placement, then invalidate the target MR.
    for (int i = 0; i < 200000 && b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).size() < 3; i++)
        core_step(b.core, 1);
    ASSERT_GE(b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).size(), 3u);
    // Invalidate-and-fence, then the ctx DRAIN, as the firmware does: a
    // placement checked before the INVALIDATE may still be on the bus after
    // it (posted), the DRAIN waits for it.
    protcheck_key_invalidating(b.pc, core_cycle(b.core), kd, 1);
    ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_INVALIDATE, 2));
    ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_DRAIN, 0));
    const uint64_t fenced = core_cycle(b.core);
    protcheck_key_invalid(b.pc, fenced, kd, "INVALIDATE (fwp)");
    core_step(b.core, 50000);
    EXPECT_EQ(1u, b.Naks(HCA_WC_STATUS_REM_ACCESS_ERR)) << "the rest of the WRITE fails at the responder";
    size_t placed = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).size();
    RecordProperty("chunks_placed", std::to_string(placed));
    EXPECT_LT(placed, 16u) << "the rest of the message failed";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}


// ctx DRAIN (docs/engine.md "Invalidation and in-flight DMA"): written while
// the responder's placement engine has a packet's BUF_TO_HOSTs on the bus
// (slow posted writes), it stays busy until they are answered, and no longer
// than that packet: the packets placed after the command are not waited for.
TEST(CoreRtl, DrainWaitsForTheKeyCheckedDmasInFlightAndNoLater)
{
    bus_timing_t slow = bus_default_timing();
    slow.write_cost = 1500;
    CoreRtlBench b(100, 16, &slow);
    ASSERT_CORE_OK(b);
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_DRAIN, 0)) << "nothing to drain: done at once";
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint32_t n = 32 * 1024;
    const uint64_t src = b.Alloc(n), dst = b.Alloc(n);
    const uint32_t ks = b.RegMr(1, 0, src, n, 0);
    const uint32_t kd = b.RegMr(2, 16, dst, n, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 8, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, n, ks};
    w.remote_addr = dst;
    w.rkey = kd;
    b.PostSend(qa, w);
    // The third packet's placement is on the bus.
    for (int i = 0; i < 400000 && b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).size() < 3; i++)
        core_step(b.core, 1);
    ASSERT_EQ(3u, b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1).size());
    ASSERT_LT(b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0).size(), 3u) << "the third placement already landed";
    b.Wr(kCtx + HCA_CTX_CMD, HCA_CTX_CMD_OP_PUT(HCA_CTX_OP_DRAIN));
    const uint64_t cmd = core_cycle(b.core);
    uint32_t st = 0;
    unsigned busy_reads = 0;
    while ((st = b.Rd(kCtx + HCA_CTX_STATUS)) & 1)
        ASSERT_LT(++busy_reads, 100000u) << "DRAIN never finished";
    const uint64_t drained = core_cycle(b.core);
    EXPECT_GT(busy_reads, 0u) << "DRAIN did not wait for the placement on the bus";
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, (st >> 4) & 0xf);
    std::vector<hca_cqe_t> e = b.Cqes(1);
    ASSERT_EQ(1u, e.size());
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, hca_cqe_get_status(&e[0]));
    // Every BUF_TO_HOST issued before the command landed before DRAIN
    // finished; one issued after the command landed after it.
    auto issued = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1), done = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0);
    ASSERT_EQ(issued.size(), done.size());
    ASSERT_EQ(8u, issued.size());
    for (size_t i = 0; i < issued.size(); i++) {
        if (issued[i].cycle < cmd) {
            EXPECT_LE(done[i].cycle, drained) << "placement " << i << " landed after DRAIN finished";
        }
    }
    EXPECT_GT(done.back().cycle, drained) << "DRAIN waited for work started after it";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// A WRITE the responder NAKs REM_ACCESS_ERR while the requester is still
// sending it (the NAK comes back before the last packet left): the requester
// completes the WR with the NAK's syndrome, moves the QP to ERROR and flushes
// the next WR. Two causes: an rkey without REMOTE_WRITE (the first packet's
// whole-range check fails) and an invalidation of the target MR after the
// first packet was placed (a later packet's re-check fails). Sizes: 2..4
// packets at MTU 1024, 4 at MTU 2048 and 4096 (the report: 2 packets
// completed, 3 and more never did).
struct NakCase {
    unsigned mtu_log2;
    uint32_t len;
    bool invalidate; // else: no REMOTE_WRITE on the target
};

void PrintTo(const NakCase &k, std::ostream *os)
{
    *os << "MTU " << (1u << k.mtu_log2) << ", " << k.len << " bytes, "
        << (k.invalidate ? "invalidated after the first packet" : "no REMOTE_WRITE");
}

class CoreRtlNak : public ::testing::TestWithParam<NakCase> {
};

TEST_P(CoreRtlNak, AWriteNakedWhileStillSendingCompletesWithTheSyndromeAndFlushes)
{
    const NakCase k = GetParam();
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb, 0, k.mtu_log2);
    const uint64_t src = b.Alloc(k.len), dst = b.Alloc(k.len);
    const uint32_t ks = b.RegMr(1, 0, src, k.len, 0);
    const uint32_t kd = b.RegMr(2, 16, dst, k.len,
                                HCA_ACCESS_LOCAL_WRITE | (k.invalidate ? HCA_ACCESS_REMOTE_WRITE : 0));
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 8, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, k.len, ks};
    w.remote_addr = dst;
    w.rkey = kd;
    b.PostSend(qa, w);
    if (k.invalidate) {
        // The first packet placed (answered), then invalidate-and-fence and
        // the ctx DRAIN (as the firmware does: posted placements checked
        // before the INVALIDATE land before the DRAIN answers).
        for (int i = 0; i < 200000 && b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0).empty(); i++)
            core_step(b.core, 1);
        ASSERT_FALSE(b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0).empty()) << "the first packet was not placed";
        protcheck_key_invalidating(b.pc, core_cycle(b.core), kd, 1);
        ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_INVALIDATE, 2));
        ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_DRAIN, 0));
        protcheck_key_invalid(b.pc, core_cycle(b.core), kd, "INVALIDATE (fwp)");
    }
    hca_sq_wqe_t w2 = SqWqe(HCA_WR_OPCODE_RDMA_WRITE, 9, false); // unsignaled: its flush is written anyway
    hca_sq_wqe_set_num_sge(&w2, 1);
    w2.sge[0] = {src, 64, ks};
    w2.remote_addr = dst;
    w2.rkey = kd;
    b.PostSend(qa, w2);
    std::vector<hca_cqe_t> e = b.Cqes(2, 400000);
    ASSERT_EQ(2u, e.size()) << "the NAKed WRITE (and the WR after it) never completed";
    EXPECT_EQ(8u, e[0].wr_id);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_REM_ACCESS_ERR, hca_cqe_get_status(&e[0]));
    EXPECT_EQ(1u, e[0].qpn);
    EXPECT_EQ(0u, e[0].wqe_counter);
    EXPECT_EQ(9u, e[1].wr_id);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_WR_FLUSH_ERR, hca_cqe_get_status(&e[1]));
    EXPECT_EQ(1u, e[1].wqe_counter);
    EXPECT_EQ(1u, b.Naks(HCA_WC_STATUS_REM_ACCESS_ERR));
    // The NAK came back before the requester sent the message's last packet
    // (the case of the report; 2 packets at MTU 1024 do not race), and the
    // requester stopped sending: at most the packet it was handing over then.
    uint64_t nak_rx = UINT64_MAX, last_tx = UINT64_MAX;
    for (const auto &p : b.pkts) {
        if (!p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_NAK && nak_rx == UINT64_MAX)
            nak_rx = p.cycle;
        if (p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_WRITE && p.pkt.psn == 0 && hca_pkt_get_last(&p.pkt))
            last_tx = p.cycle;
    }
    ASSERT_NE(UINT64_MAX, nak_rx) << "no NAK reached the requester";
    size_t after = 0;
    for (const auto &p : b.pkts)
        after += p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_WRITE && p.pkt.psn == 0 && p.cycle > nak_rx;
    if (k.len >> k.mtu_log2 >= 3) {
        EXPECT_TRUE(last_tx == UINT64_MAX || last_tx > nak_rx) << "the NAK did not race the send";
        EXPECT_LE(after, 1u) << "packets sent after the NAK came back";
    }
    // Both QPs in ERROR; nothing else completes; every packet buffer returned.
    core_step(b.core, 20000);
    for (uint32_t q : {1u, 2u}) {
        ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.CtxCmd(HCA_CTX_OP_READ_QPC, q));
        hca_qp_ctx_t x;
        b.Unstage(kCtx + HCA_CTX_DATA, &x, sizeof x);
        EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, hca_qp_ctx_get_state(&x)) << "QP " << q;
    }
    hca_cqe_t extra;
    ASSERT_EQ(0, hostmem_read(b.mem, b.cq_base + (b.cq_ci % 64) * 32, &extra, sizeof extra));
    EXPECT_EQ(0u, hca_cqe_get_owner(&extra)) << "a third CQE";
    if (!k.invalidate) {
        std::vector<uint8_t> zero(k.len, 0), got(k.len);
        ASSERT_EQ(0, hostmem_read(b.mem, dst, got.data(), got.size()));
        EXPECT_TRUE(got == zero) << "a failed WRITE placed bytes";
    }
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// The same race on a SEND: 16 packets at MTU 1024 into a 1 KiB receive
// buffer: the responder NAKs REM_INV_REQ_ERR on the first packet (recv CQE
// LOC_LEN_ERR) while the requester is still sending.
TEST(CoreRtl, ASendNakedWhileStillSendingCompletesWithTheSyndrome)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    CoreRtlBench::Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb, 0, 10);
    const uint32_t n = 16 * 1024;
    const uint64_t src = b.Alloc(n), dst = b.Alloc(4096);
    const uint32_t ks = b.RegMr(1, 0, src, n, 0), kd = b.RegMr(2, 16, dst, 4096, HCA_ACCESS_LOCAL_WRITE);
    hca_rq_wqe_t r;
    memset(&r, 0, sizeof r);
    r.wr_id = 5;
    hca_rq_wqe_set_num_sge(&r, 1);
    r.sge[0] = {dst, 1024, kd};
    b.PostRecv(qb, r);
    hca_sq_wqe_t w = SqWqe(HCA_WR_OPCODE_SEND, 6, true);
    hca_sq_wqe_set_num_sge(&w, 1);
    w.sge[0] = {src, n, ks};
    b.PostSend(qa, w);
    std::vector<hca_cqe_t> e = b.Cqes(2, 400000);
    ASSERT_EQ(2u, e.size()) << "the NAKed SEND never completed";
    bool send_seen = false, recv_seen = false;
    for (const hca_cqe_t &c : e) {
        if (c.wr_id == 6) {
            send_seen = true;
            EXPECT_EQ((unsigned)HCA_WC_STATUS_REM_INV_REQ_ERR, hca_cqe_get_status(&c));
        } else {
            recv_seen = true;
            EXPECT_EQ(5u, c.wr_id);
            EXPECT_EQ((unsigned)HCA_WC_STATUS_LOC_LEN_ERR, hca_cqe_get_status(&c));
        }
    }
    EXPECT_TRUE(send_seen && recv_seen);
    size_t sent = 0;
    for (const auto &p : b.pkts)
        sent += p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_SEND;
    EXPECT_LT(sent, 16u) << "the requester sent the whole message after the NAK";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

INSTANTIATE_TEST_SUITE_P(Sizes, CoreRtlNak,
                         ::testing::Values(NakCase{10, 2048, false}, NakCase{10, 3072, false},
                                           NakCase{10, 4096, false}, NakCase{11, 8192, false},
                                           NakCase{12, 16384, false}, NakCase{10, 16384, true},
                                           NakCase{11, 32768, true}),
                         [](const ::testing::TestParamInfo<NakCase> &i) {
                             return std::string(i.param.invalidate ? "Invalidated" : "NoRemoteWrite") + "Mtu" +
                                    std::to_string(1u << i.param.mtu_log2) + "Len" + std::to_string(i.param.len);
                         });


// ---------------------------------------------------------------- memory-management events
//
// CoreRtlEvt.* — the engine -> firmware event queue (regs evt, rtl/hca_evt.sv)
// and the requester's memory-management work requests, with the test as the
// firmware: it polls STATUS, reads EVT_DATA, POPs and answers DONE.

using Qp = CoreRtlBench::Qp;

// A FAST_REG_MR / REG_INDIR_MR work request with recognizable fr_* fields;
// rkey names the MR (default: fr_key's).
hca_sq_wqe_t RegWqe(unsigned opcode, uint64_t wr_id, bool signaled, uint32_t key, uint32_t mr_key = 0)
{
    hca_sq_wqe_t w = SqWqe(opcode, wr_id, signaled);
    w.rkey = mr_key ? mr_key : key;
    w.fr_iova = 0x123456789100ull;
    w.fr_length = 3 * 4096 + 5;
    w.fr_list = 0xabcd000ull;
    w.fr_key = key;
    hca_sq_wqe_set_fr_page_shift(&w, 12);
    hca_sq_wqe_set_fr_access(&w, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ);
    hca_sq_wqe_set_fr_list_len(&w, 4);
    return w;
}

hca_sq_wqe_t InvWqe(unsigned opcode, uint64_t wr_id, bool signaled, uint32_t inv_key)
{
    hca_sq_wqe_t w = SqWqe(opcode, wr_id, signaled);
    w.inv_key = inv_key;
    return w;
}

// A source MR (index 1) and a target MR (index 2) of n bytes each, in fresh memory.
struct Mrs {
    uint64_t src, dst;
    uint32_t ks, kd;
};

Mrs TwoMrs(CoreRtlBench &b, uint32_t n, unsigned src_access, unsigned dst_access)
{
    Mrs m;
    m.src = b.Alloc(n);
    m.dst = b.Alloc(n);
    m.ks = b.RegMr(1, 0, m.src, n, src_access);
    m.kd = b.RegMr(2, (n + 4095) / 4096, m.dst, n, dst_access);
    return m;
}

// One SGE of n bytes over m: a READ (with or without invalidation) of src
// into dst; a WRITE of src to dst; a SEND of src.
hca_sq_wqe_t OneSge(unsigned opcode, uint64_t wr_id, bool signaled, const Mrs &m, uint32_t n, uint32_t inv_key = 0)
{
    hca_sq_wqe_t w = InvWqe(opcode, wr_id, signaled, inv_key);
    hca_sq_wqe_set_num_sge(&w, 1);
    if (opcode == HCA_WR_OPCODE_RDMA_READ || opcode == HCA_WR_OPCODE_RDMA_READ_WITH_INV) {
        w.sge[0] = {m.dst, n, m.kd};
        w.remote_addr = m.src;
        w.rkey = m.ks;
    } else {
        w.sge[0] = {m.src, n, m.ks};
        w.remote_addr = opcode == HCA_WR_OPCODE_RDMA_WRITE ? m.dst : 0;
        w.rkey = opcode == HCA_WR_OPCODE_RDMA_WRITE ? m.kd : 0;
    }
    return w;
}

// QPs 1 <-> 2 and 3 <-> 4 on CQ 1.
struct FourQps {
    Qp a{1, 0, 0}, b{2, 0, 0}, c{3, 0, 0}, d{4, 0, 0};
    explicit FourQps(CoreRtlBench &x)
    {
        x.Setup(a, b);
        x.SetupQp(c, d.qpn);
        x.SetupQp(d, c.qpn);
    }
};

#define EXPECT_CQE(e, opcode, status, wr_id_)                                                                  \
    do {                                                                                                       \
        EXPECT_EQ((unsigned)(opcode), hca_cqe_get_opcode(&(e))) << "opcode of wr_id " << (e).wr_id;           \
        EXPECT_EQ((unsigned)(status), hca_cqe_get_status(&(e))) << "status of wr_id " << (e).wr_id;           \
        EXPECT_EQ((uint64_t)(wr_id_), (e).wr_id) << "wr_id";                                                   \
    } while (0)

TEST(CoreRtlEvt, AFastRegMrIsOneEventWithTheWqesFieldsAndCompletesOnDone)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    EXPECT_EQ(0u, b.EvtStatus()) << "an empty queue reads STATUS 0";
    EXPECT_EQ(0, core_fw_irq(b.core)) << "no event, no interrupt";

    // The MR named (rkey) is not fr_key's: the engine carries both, the firmware judges.
    const hca_sq_wqe_t w = RegWqe(HCA_WR_OPCODE_FAST_REG_MR, 0x51, true, 0x000a42, 0x000b17);
    const uint64_t t0 = core_cycle(b.core);
    b.PostSend(qa, w);
    const uint64_t seen = b.WaitEvent();
    ASSERT_NE(UINT64_MAX, seen) << "no event came for the FAST_REG_MR";
    EXPECT_EQ(1, core_fw_irq(b.core)) << "an event is pending: fw_irq must be high";
    const uint32_t st = b.EvtStatus();
    EXPECT_EQ(1u, HCA_EVT_STATUS_PENDING_GET(st)) << "STATUS 0x" << std::hex << st;
    EXPECT_EQ(1u, HCA_EVT_STATUS_COUNT_GET(st)) << "STATUS 0x" << std::hex << st;
    const hca_fw_event_t e = b.ReadEvent();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_FAST_REG_MR, hca_fw_event_get_kind(&e));
    EXPECT_EQ(1u, hca_fw_event_get_tag(&e)) << "the requester's tag is the QP number";
    EXPECT_EQ(1u, hca_fw_event_get_qpn(&e));
    EXPECT_EQ(kPd, e.pd) << "the QP's PD from its context";
    EXPECT_EQ(w.fr_key, e.key);
    EXPECT_EQ(w.fr_params, e.params);
    EXPECT_EQ(w.fr_iova, e.iova);
    EXPECT_EQ(w.fr_length, e.length);
    EXPECT_EQ(w.fr_list, e.list);
    EXPECT_EQ(0x000b17u, e.mr_key) << "mr_key is the WQE's rkey (0x" << std::hex << w.rkey << "), read 0x" << e.mr_key;
    EXPECT_EQ(0u, hca_fw_event_get_wqe_ok(&e)) << "a 4-page list is not the engine-checked case (one inline page)";
    EXPECT_EQ(0u, e.mpt_flags) << "mpt_flags is 0 without wqe_ok";

    b.Pop();
    EXPECT_EQ(0u, b.EvtStatus()) << "POP emptied the queue";
    EXPECT_EQ(0, core_fw_irq(b.core)) << "the interrupt falls with the last POP";
    EXPECT_EQ(0u, b.Rd(kEvt + HCA_EVT_DATA)) << "EVT_DATA of an empty queue reads 0";
    core_step(b.core, 3000);
    EXPECT_FALSE(b.CqeReady()) << "the FAST_REG_MR completed before its DONE";

    const uint64_t done = core_cycle(b.core);
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_FAST_REG_MR, HCA_WC_STATUS_SUCCESS, 0x51);
    EXPECT_EQ(1u, c[0].qpn);
    EXPECT_EQ(0u, c[0].wqe_counter);
    const uint64_t cqe_at = b.CqeWritten(0);
    ASSERT_NE(UINT64_MAX, cqe_at);

    // The same with a firmware that answers at once: post to CQE.
    const uint64_t t1 = core_cycle(b.core);
    b.PostSend(qa, RegWqe(HCA_WR_OPCODE_FAST_REG_MR, 0x52, true, 0x000b42));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    b.Take();
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_FAST_REG_MR, HCA_WC_STATUS_SUCCESS, 0x52);
    EXPECT_EQ(1u, c[0].wqe_counter);
    const uint64_t post_to_cqe = b.CqeWritten(1) - t1;
    RecordProperty("post_to_event_cycles", std::to_string(seen - t0));
    RecordProperty("done_to_cqe_cycles", std::to_string(cqe_at - done));
    RecordProperty("post_to_cqe_cycles", std::to_string(post_to_cqe));
    printf("FAST_REG_MR: post to event seen %llu cycles, DONE write to CQE %llu, post to CQE (answered at once) "
           "%llu\n",
           (unsigned long long)(seen - t0), (unsigned long long)(cqe_at - done), (unsigned long long)post_to_cqe);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// fw_event.wqe_ok and mpt_flags (abi/hca.toml): the send engine's verdict on
// a FAST_REG_MR's WQE-local rules, which the firmware's fast path trusts. A
// good one-page inline WR, then the same with each rule broken once: the bit
// must be set for the first only, and mpt_flags carry the MPT flags word then.
TEST(CoreRtlEvt, TheEngineChecksAOnePageFastRegMrsOwnRules)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const unsigned LW = HCA_ACCESS_LOCAL_WRITE, RW = HCA_ACCESS_REMOTE_WRITE;
    auto good = [&] {
        hca_sq_wqe_t w = RegWqe(HCA_WR_OPCODE_FAST_REG_MR, 0x70, true, 0x000a42, 0x000a01);
        w.fr_iova = 0x123456789100ull; // offset 0x100 in its 4 KiB page
        w.fr_length = 0x1000 - 0x100;  // up to the page's end
        w.fr_list = 0xabcd000ull;      // the page itself (inline)
        hca_sq_wqe_set_fr_inline(&w, 1);
        hca_sq_wqe_set_fr_list_len(&w, 1);
        hca_sq_wqe_set_fr_access(&w, LW | RW);
        return w;
    };
    struct Case {
        const char *what;
        std::function<void(hca_sq_wqe_t &)> f;
        unsigned ok;
    };
    const std::vector<Case> cases = {
        {"good", [](hca_sq_wqe_t &) {}, 1},
        {"mr_key 0 (the key's MR)", [](hca_sq_wqe_t &w) { w.rkey = 0; }, 1},
        {"page_shift 30, length 2^30 - 0x100", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_page_shift(&w, 30); w.fr_iova = 0x40000100; w.fr_length = (1u << 30) - 0x100; w.fr_list = 0x40000000; }, 1},
        {"page_shift 30, length one past", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_page_shift(&w, 30); w.fr_iova = 0x40000100; w.fr_length = (1u << 30) - 0xff; w.fr_list = 0x40000000; }, 0},
        {"not inline", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_inline(&w, 0); }, 0},
        {"list_len 2", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_list_len(&w, 2); }, 0},
        {"mr_key of another index", [](hca_sq_wqe_t &w) { w.rkey = 0x000b01; }, 0},
        {"page_shift 11", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_page_shift(&w, 11); w.fr_length = 0x100; }, 0},
        {"page_shift 31", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_page_shift(&w, 31); w.fr_list = 0x80000000; }, 0},
        {"length 0", [](hca_sq_wqe_t &w) { w.fr_length = 0; }, 0},
        {"length one past the page", [](hca_sq_wqe_t &w) { w.fr_length++; }, 0},
        {"length 2^32 + 1", [](hca_sq_wqe_t &w) { w.fr_length = (1ull << 32) + 1; }, 0},
        {"iova + length = 2^64", [](hca_sq_wqe_t &w) { w.fr_iova = ~0ull - 0xfff; w.fr_length = 0x1000; }, 0},
        {"page at +0x800", [](hca_sq_wqe_t &w) { w.fr_list += 0x800; }, 0},
        {"REMOTE_WRITE without LOCAL_WRITE", [=](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_access(&w, RW); }, 0},
        {"REMOTE_ATOMIC without LOCAL_WRITE", [](hca_sq_wqe_t &w) { hca_sq_wqe_set_fr_access(&w, HCA_ACCESS_REMOTE_ATOMIC); }, 0},
    };
    for (const Case &c : cases) {
        hca_sq_wqe_t w = good();
        c.f(w);
        b.PostSend(qa, w);
        ASSERT_NE(UINT64_MAX, b.WaitEvent()) << c.what << ": no event";
        const hca_fw_event_t e = b.Take();
        EXPECT_EQ((unsigned)HCA_EVT_KIND_FAST_REG_MR, hca_fw_event_get_kind(&e)) << c.what;
        EXPECT_EQ(c.ok, hca_fw_event_get_wqe_ok(&e)) << c.what << ": wqe_ok";
        hca_mpt_entry_t f = {};
        if (c.ok) {
            hca_mpt_entry_set_alloc(&f, 1);
            hca_mpt_entry_set_state(&f, HCA_MKEY_STATE_VALID);
            hca_mpt_entry_set_kind(&f, HCA_MKEY_KIND_FAST_REG);
            hca_mpt_entry_set_mode(&f, HCA_MKEY_MODE_MTT);
            hca_mpt_entry_set_access(&f, hca_sq_wqe_get_fr_access(&w));
            hca_mpt_entry_set_page_shift(&f, hca_sq_wqe_get_fr_page_shift(&w));
        }
        EXPECT_EQ(f.flags, e.mpt_flags) << c.what << ": mpt_flags 0x" << std::hex << e.mpt_flags;
        b.Done(1, HCA_WC_STATUS_SUCCESS);
        std::vector<hca_cqe_t> cq = b.Cqes(1);
        ASSERT_EQ(1u, cq.size()) << c.what;
        EXPECT_CQE(cq[0], HCA_WC_OPCODE_FAST_REG_MR, HCA_WC_STATUS_SUCCESS, 0x70);
    }
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// fwp FAST_REG (abi/hca.toml): the one-shot commit of a one-page
// FAST_REG_MR from what the registration bank kept of its event at POP
// (POP.slot), over the MR's own pd and mtt_base. On the RTL with the model
// in lockstep (every pin compared each cycle, the staging reads included):
// every word of the MPT entry and the MTT word read back; a slot out of
// range, a slot holding an event without wqe_ok, a key beyond the MPT and
// an MR whose mtt_base is beyond the MTT are refused with nothing written.
TEST(CoreRtlEvt, FastRegWritesTheDecidedRegistrationFromThePoppedEvent)
{
    CoreRtlBench b(100, 16, nullptr, true);
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const unsigned LW = HCA_ACCESS_LOCAL_WRITE, RR = HCA_ACCESS_REMOTE_READ;
    // MRs 0xa (mtt_base 77) and 0xb (mtt_base past the MTT), FREE, as CREATE_MKEY leaves a fast_reg MR.
    auto create = [&](uint32_t index, uint32_t mtt_base) {
        hca_mpt_entry_t m = {};
        hca_mpt_entry_set_alloc(&m, 1);
        hca_mpt_entry_set_kind(&m, HCA_MKEY_KIND_FAST_REG);
        hca_mpt_entry_set_page_shift(&m, HCA_PAGE_SHIFT_MIN);
        m.key = index << 8 | 0x01;
        m.pd = kPd;
        m.mtt_base = mtt_base;
        m.mtt_count = 4;
        b.Stage(kFwp + HCA_FWP_MPT_DATA, &m, sizeof m);
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_WRITE_MPT, index));
        return m;
    };
    const hca_mpt_entry_t mr_a = create(0xa, 77);
    const uint32_t mtt_entries = 1u << HCA_FWP_SIZES_MTT_LOG2_GET(b.Rd(kFwp + HCA_FWP_SIZES));
    const hca_mpt_entry_t mr_b = create(0xb, mtt_entries);
    auto read_mpt = [&](uint32_t index) {
        hca_mpt_entry_t m;
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_READ_MPT, index));
        b.Unstage(kFwp + HCA_FWP_MPT_DATA, &m, sizeof m);
        return m;
    };
    auto read_mtt = [&](uint32_t index) {
        uint32_t w[2];
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_READ_MTT, index));
        b.Unstage(kFwp + HCA_FWP_MTT_DATA, w, sizeof w);
        return (uint64_t)w[1] << 32 | w[0];
    };
    const uint64_t mtt_before = read_mtt(77);
    // A one-page inline FAST_REG_MR on key 0x000a42 (wqe_ok), popped into slot 5.
    auto reg = [&](uint32_t key, uint64_t wr_id, unsigned pages, unsigned slot) {
        hca_sq_wqe_t w = RegWqe(HCA_WR_OPCODE_FAST_REG_MR, wr_id, true, key, (key & ~0xffu) | 0x01);
        w.fr_iova = 0x123456789100ull;
        w.fr_length = 0x1000 - 0x100;
        w.fr_list = 0xabcd000ull;
        hca_sq_wqe_set_fr_inline(&w, pages == 1);
        hca_sq_wqe_set_fr_list_len(&w, pages);
        hca_sq_wqe_set_fr_access(&w, LW | RR);
        b.PostSend(qa, w);
        EXPECT_NE(UINT64_MAX, b.WaitEvent()) << "no event";
        const hca_fw_event_t e = b.ReadEvent();
        b.Wr(kEvt + HCA_EVT_POP, HCA_EVT_POP_SLOT_PUT(slot));
        return e;
    };
    const hca_fw_event_t e = reg(0x000a42, 0x81, 1, 5);
    ASSERT_EQ(1u, hca_fw_event_get_wqe_ok(&e)) << "the engine's verdict: the WQE's own rules pass";
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, b.FwpCmd(HCA_FWP_OP_FAST_REG, HCA_EVT_QUEUE_DEPTH)) << "no such slot";
    const hca_mpt_entry_t still = read_mpt(0xa);
    EXPECT_EQ(0, memcmp(&mr_a, &still, sizeof mr_a)) << "a refused FAST_REG writes nothing";
    ASSERT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_FAST_REG, 5));
    hca_mpt_entry_t want = {};
    want.flags = e.mpt_flags;
    want.key = 0x000a42;
    want.pd = kPd;
    want.mtt_base = 77;
    want.iova = 0x123456789100ull;
    want.length = 0x1000 - 0x100;
    want.mtt_count = 1;
    const hca_mpt_entry_t got = read_mpt(0xa);
    EXPECT_EQ(want.flags, got.flags) << "flags: the event's mpt_flags";
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&got));
    EXPECT_EQ(want.key, got.key);
    EXPECT_EQ(want.pd, got.pd) << "the MR's own";
    EXPECT_EQ(want.mtt_base, got.mtt_base) << "the MR's own";
    EXPECT_EQ(want.iova, got.iova);
    EXPECT_EQ(want.length, got.length);
    EXPECT_EQ(1u, got.mtt_count);
    EXPECT_EQ(0u, got.reserved);
    EXPECT_EQ(0xabcd000ull | 1u, read_mtt(77)) << "the page, present, at the MR's mtt_base (was 0x" << std::hex
                                                << mtt_before << ")";
    EXPECT_EQ(0u, read_mtt(78) & 1u) << "one word only";
    b.Done(1, HCA_WC_STATUS_SUCCESS);

    // Refused, nothing written: a slot whose event failed the WQE's rules
    // (two pages: no wqe_ok); a key beyond the MPT; an MR whose mtt_base is past the MTT.
    const hca_fw_event_t e2 = reg(0x000a43, 0x82, 2, 3);
    EXPECT_EQ(0u, hca_fw_event_get_wqe_ok(&e2));
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_OP, b.FwpCmd(HCA_FWP_OP_FAST_REG, 3)) << "no wqe_ok in the slot";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    const uint32_t mpt_entries = 1u << HCA_FWP_SIZES_MPT_LOG2_GET(b.Rd(kFwp + HCA_FWP_SIZES));
    reg(mpt_entries << 8 | 0x42, 0x83, 1, 2);
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, b.FwpCmd(HCA_FWP_OP_FAST_REG, 2)) << "key beyond the MPT";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    reg(0x000b42, 0x84, 1, 2);
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_BAD_INDEX, b.FwpCmd(HCA_FWP_OP_FAST_REG, 2)) << "mtt_base past the MTT";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    const hca_mpt_entry_t b_now = read_mpt(0xb), a_now = read_mpt(0xa);
    EXPECT_EQ(0, memcmp(&mr_b, &b_now, sizeof mr_b)) << "MR 0xb as created";
    EXPECT_EQ(0, memcmp(&got, &a_now, sizeof got)) << "MR 0xa as registered";
    std::vector<hca_cqe_t> cq = b.Cqes(4);
    ASSERT_EQ(4u, cq.size());
    for (unsigned i = 0; i < 4; i++)
        EXPECT_CQE(cq[i], HCA_WC_OPCODE_FAST_REG_MR, HCA_WC_STATUS_SUCCESS, 0x81 + i);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << "the model differs from the RTL, or a breach: " << b.Violations();
}

// hdr.inv_ok (abi fw_event): an invalidation's word 0 carries the
// translation unit's verdict on MPT[index(key)] as the table is when word 0
// is read — index in 1..MPT_ENTRIES-1, allocated, kind FAST_REG or INDIRECT,
// the entry's key = the event's, its pd = the event's — and nothing else of
// the event changes. Lockstep: the model's verdict is the RTL's pin for pin.
TEST(CoreRtlEvt, AnInvalidationsHdrCarriesTheMptVerdictOnItsKey)
{
    CoreRtlBench b(100, 16, nullptr, true);
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint32_t mpt_entries = 1u << HCA_FWP_SIZES_MPT_LOG2_GET(b.Rd(kFwp + HCA_FWP_SIZES));
    const auto mpt = [&](uint32_t idx, unsigned kind, uint32_t pd, bool alloc) {
        hca_mpt_entry_t e;
        memset(&e, 0, sizeof e);
        hca_mpt_entry_set_alloc(&e, alloc);
        hca_mpt_entry_set_kind(&e, kind);
        e.key = idx << 8 | 0x44;
        e.pd = pd;
        b.Stage(kFwp + HCA_FWP_MPT_DATA, &e, sizeof e);
        EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_WRITE_MPT, idx));
    };
    mpt(3, HCA_MKEY_KIND_FAST_REG, kPd, true);
    mpt(4, HCA_MKEY_KIND_INDIRECT, kPd, true);
    mpt(5, HCA_MKEY_KIND_REGULAR, kPd, true);
    mpt(6, HCA_MKEY_KIND_FAST_REG, kPd + 1, true);
    mpt(7, HCA_MKEY_KIND_FAST_REG, kPd, false); // a destroyed MR's entry
    mpt(8, HCA_MKEY_KIND_DMA, kPd, true);
    const struct {
        uint32_t key;
        unsigned ok;
        const char *what;
    } cases[] = {
        {3u << 8 | 0x44, 1, "fast_reg, its key, its pd"},
        {4u << 8 | 0x44, 1, "indirect"},
        {3u << 8 | 0x45, 0, "another key byte"},
        {5u << 8 | 0x44, 0, "a regular MR"},
        {8u << 8 | 0x44, 0, "a DMA MR"},
        {6u << 8 | 0x44, 0, "another PD"},
        {7u << 8 | 0x44, 0, "not allocated"},
        {9u << 8 | 0x44, 0, "never written"},
        {mpt_entries << 8 | 0x44, 0, "past the table"},
    };
    uint64_t wr = 0x100;
    for (const auto &c : cases) {
        b.PostSend(qa, InvWqe(HCA_WR_OPCODE_LOCAL_INV, ++wr, true, c.key));
        ASSERT_NE(UINT64_MAX, b.WaitEvent()) << c.what;
        const uint32_t hdr = b.Rd(kEvt + HCA_EVT_DATA);
        const hca_fw_event_t e = b.Take();
        EXPECT_EQ((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e)) << c.what;
        EXPECT_EQ(c.ok, hdr >> HCA_FW_EVENT_INV_OK_LSB & 1u) << c.what << ": hdr 0x" << std::hex << hdr;
        EXPECT_EQ(hdr, e.hdr) << c.what << ": read again, the same";
        EXPECT_EQ(c.key, e.key) << c.what;
        EXPECT_EQ(kPd, e.pd) << c.what;
        b.Done(1, HCA_WC_STATUS_SUCCESS);
        const std::vector<hca_cqe_t> q = b.Cqes(1);
        ASSERT_EQ(1u, q.size()) << c.what;
        EXPECT_CQE(q[0], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, wr);
    }
    // The state is no rule (an MR already FREE is invalidated again); a table
    // write between two reads of the head shows in the second.
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, b.FwpCmd(HCA_FWP_OP_INVALIDATE, 3));
    b.PostSend(qa, InvWqe(HCA_WR_OPCODE_LOCAL_INV, ++wr, true, 3u << 8 | 0x44));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    EXPECT_EQ(1u, b.Rd(kEvt + HCA_EVT_DATA) >> HCA_FW_EVENT_INV_OK_LSB & 1u) << "FREE: still every rule";
    mpt(3, HCA_MKEY_KIND_FAST_REG, kPd, false);
    EXPECT_EQ(0u, b.Rd(kEvt + HCA_EVT_DATA) >> HCA_FW_EVENT_INV_OK_LSB & 1u) << "freed meanwhile";
    b.Take();
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    ASSERT_EQ(1u, b.Cqes(1).size());
    // A registration's hdr never carries it, on an MR that passes every invalidation rule.
    b.PostSend(qa, RegWqe(HCA_WR_OPCODE_FAST_REG_MR, ++wr, true, 4u << 8 | 0x44));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    EXPECT_EQ(0u, b.Rd(kEvt + HCA_EVT_DATA) >> HCA_FW_EVENT_INV_OK_LSB & 1u) << "a FAST_REG_MR";
    b.Take();
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    ASSERT_EQ(1u, b.Cqes(1).size());
    EXPECT_EQ(0u, protcheck_count(b.pc)) << "the model differed from the RTL (lockstep) or a breach";
}

TEST(CoreRtlEvt, AnUnsignaledRegistrationCompletesSilentlyAndTheNextWrFollows)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    b.PostSend(qa, RegWqe(HCA_WR_OPCODE_REG_INDIR_MR, 0x61, false, 0x000c07, 0x000cf0));
    hca_sq_wqe_t inv = InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0x62, true, 0x000c07);
    inv.rkey = 0x000d33; // not a LOCAL_INV field: the event's mr_key stays 0
    b.PostSend(qa, inv);
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    hca_fw_event_t e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_REG_INDIR_MR, hca_fw_event_get_kind(&e));
    EXPECT_EQ(0x000c07u, e.key);
    EXPECT_EQ(0x000cf0u, e.mr_key) << "REG_INDIR_MR's mr_key is the WQE's rkey";
    core_step(b.core, 2000);
    EXPECT_EQ(0u, b.EvtStatus()) << "the LOCAL_INV was posted before the REG_INDIR_MR completed";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e));
    EXPECT_EQ(0x000c07u, e.key) << "LOCAL_INV's key is inv_key";
    EXPECT_EQ(0u, e.mr_key) << "LOCAL_INV carries no mr_key (its WQE's rkey is 0x" << std::hex << inv.rkey << ")";
    EXPECT_EQ(0u, e.params);
    EXPECT_EQ(0u, e.iova);
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0x62);
    EXPECT_EQ(1u, c[0].wqe_counter) << "the unsignaled REG_INDIR_MR wrote no CQE";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, b.QpState(1));
}

TEST(CoreRtlEvt, ARefusedLocalInvCompletesMwBindErrMovesTheQpToErrorAndFlushesTheRest)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    b.PostSend(qa, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0x71, false, 0x000777)); // unsignaled: fails anyway
    b.PostSend(qa, SqWqe(HCA_WR_OPCODE_SEND, 0x72, true));
    b.PostSend(qa, RegWqe(HCA_WR_OPCODE_FAST_REG_MR, 0x73, false, 0x000a42));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    const hca_fw_event_t e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e));
    EXPECT_EQ(0x000777u, e.key);
    b.Done(1, HCA_WC_STATUS_MW_BIND_ERR);
    std::vector<hca_cqe_t> c = b.Cqes(3);
    ASSERT_EQ(3u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_MW_BIND_ERR, 0x71);
    EXPECT_CQE(c[1], HCA_WC_OPCODE_SEND, HCA_WC_STATUS_WR_FLUSH_ERR, 0x72);
    EXPECT_CQE(c[2], HCA_WC_OPCODE_FAST_REG_MR, HCA_WC_STATUS_WR_FLUSH_ERR, 0x73);
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, b.QpState(1)) << "MW_BIND_ERR moves the QP to ERROR";
    EXPECT_EQ(0u, b.EvtStatus()) << "a flushed FAST_REG_MR posts no event";
    for (const auto &p : b.pkts)
        EXPECT_FALSE(p.tx) << "nothing was sent, op " << hca_pkt_get_op(&p.pkt);
}

// LOCAL_INV starts only after every earlier WR completed: its event comes
// after the WRITE's ACK (after its last placement). Its WQE is read ahead
// while the WRITE is in flight (the send engine's prefetch: one READ_DATA
// with tag {0000_1, read slot}), once, and served from there.
TEST(CoreRtlEvt, ALocalInvPostedAfterALongWriteWaitsForIt)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint32_t n = 64 * 1024;
    const Mrs m = TwoMrs(b, n, 0, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
    b.PostSend(qa, OneSge(HCA_WR_OPCODE_RDMA_WRITE, 0x81, true, m, n));
    b.PostSend(qa, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0x82, true, m.ks));
    const uint64_t seen = b.WaitEvent();
    ASSERT_NE(UINT64_MAX, seen);
    uint64_t ack_at = UINT64_MAX;
    for (const auto &p : b.pkts)
        if (!p.tx && hca_pkt_get_op(&p.pkt) == HCA_PKT_OP_ACK && hca_pkt_get_dst_qpn(&p.pkt) == 1)
            ack_at = p.cycle;
    ASSERT_NE(UINT64_MAX, ack_at) << "the WRITE's ACK came back before the LOCAL_INV event";
    EXPECT_LT(ack_at, seen) << "event seen at " << seen;
    const auto placed = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0);
    ASSERT_EQ(16u, placed.size()) << "all 16 chunks placed before the LOCAL_INV event";
    for (const auto &d : placed)
        EXPECT_LT(d.cycle, seen) << "a placement landed after the LOCAL_INV event";
    unsigned reads = 0;
    for (const auto &d : b.DmaOf(HCA_DMA_OP_READ_DATA, 1)) {
        if (d.req.addr == qa.sq + 128) {
            reads++;
            EXPECT_EQ(0x08u, hca_dma_req_get_tag(&d.req) & 0xf8u) << "the LOCAL_INV's WQE read at cycle " << d.cycle
                                                                  << " is not the prefetch (tag {0000_1, slot})";
            EXPECT_LT(d.cycle, ack_at) << "the LOCAL_INV's WQE was not read ahead of the WRITE's ACK (" << ack_at
                                       << ")";
        }
    }
    EXPECT_EQ(1u, reads) << "the LOCAL_INV's WQE is read once (ahead), not fetched again";
    const hca_fw_event_t e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e));
    EXPECT_EQ(m.ks, e.key);
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(2);
    ASSERT_EQ(2u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_WRITE, HCA_WC_STATUS_SUCCESS, 0x81);
    EXPECT_CQE(c[1], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0x82);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// The send engine reads a QP's WQEs two ahead (rtl/hca_req_send.sv "WQE
// prefetch", docs/engine.md "Requester" step 2): while the first of four
// posted LOCAL_INVs waits for its DONE, the WQEs at indexes 1 and 2 were
// read ahead (tag {0000_1, slot}), the one at 3 not yet (two deep, not
// more); every WQE is read once and the WRs complete in order. In
// lockstep: the model twin is compared on every pin each cycle.
TEST(CoreRtlEvt, TheSendEngineReadsTwoWqesAheadOfTheOneWaitingForItsDone)
{
    CoreRtlBench b(100, 16, nullptr, true);
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    for (unsigned i = 0; i < 4; i++)
        b.PostSend(qa, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0xa0 + i, true, 0x000100 + i));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    core_step(b.core, 20); // the take's reads leave within a few cycles of the event
    auto reads_of = [&](unsigned idx) {
        unsigned n = 0;
        for (const auto &d : b.DmaOf(HCA_DMA_OP_READ_DATA, 1))
            if (d.req.addr == qa.sq + idx * 128) {
                n++;
                EXPECT_EQ(0x08u, hca_dma_req_get_tag(&d.req) & 0xf8u)
                    << "WQE " << idx << " read at cycle " << d.cycle << " not through the read-ahead";
            }
        return n;
    };
    EXPECT_EQ(1u, reads_of(1)) << "WQE 1 not read ahead while WQE 0 waits for its DONE";
    EXPECT_EQ(1u, reads_of(2)) << "WQE 2 not read ahead while WQE 0 waits for its DONE (one deep only?)";
    EXPECT_EQ(0u, reads_of(3)) << "WQE 3 read before WQE 1 was taken (more than two ahead)";
    for (unsigned i = 0; i < 4; i++) {
        if (i) {
            ASSERT_NE(UINT64_MAX, b.WaitEvent()) << "no event for WR " << i;
        }
        const hca_fw_event_t e = b.Take();
        EXPECT_EQ((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e));
        EXPECT_EQ(0x000100u + i, e.key) << "event " << i;
        b.Done(1, HCA_WC_STATUS_SUCCESS);
    }
    std::vector<hca_cqe_t> c = b.Cqes(4);
    ASSERT_EQ(4u, c.size());
    for (unsigned i = 0; i < 4; i++) {
        EXPECT_CQE(c[i], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0xa0 + i);
        EXPECT_EQ(1u, reads_of(i)) << "WQE " << i << " read more than once";
    }
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// RDMA_READ_WITH_INV: READ_INV for sge[0]'s lkey (inv_key 0) only after
// every placement of the last byte was answered; completion RDMA_READ with
// DONE's status.
TEST(CoreRtlEvt, AReadWithInvPostsReadInvOnlyAfterTheLastBytePlaced)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb);
    const uint32_t n = 16 * 1024;
    const Mrs m = TwoMrs(b, n, HCA_ACCESS_REMOTE_READ, HCA_ACCESS_LOCAL_WRITE);
    std::vector<uint8_t> pat(n);
    for (size_t i = 0; i < n; i++)
        pat[i] = (uint8_t)(i * 29 + 3);
    ASSERT_EQ(0, hostmem_write(b.mem, m.src, pat.data(), n));
    b.PostSend(qa, OneSge(HCA_WR_OPCODE_RDMA_READ_WITH_INV, 0x91, true, m, n));
    const uint64_t seen = b.WaitEvent();
    ASSERT_NE(UINT64_MAX, seen);
    const auto issued = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 1);
    const auto placed = b.DmaOf(HCA_DMA_OP_BUF_TO_HOST, 0);
    uint64_t bytes = 0;
    for (const auto &d : placed) {
        bytes += d.req.len;
        EXPECT_LT(d.cycle, seen) << "a placement of the READ landed after its READ_INV event";
        EXPECT_EQ(m.kd, d.req.key);
    }
    EXPECT_EQ(issued.size(), placed.size()) << "every placement answered before the event";
    EXPECT_EQ(n, bytes) << "every byte placed before the event";
    const hca_fw_event_t e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_READ_INV, hca_fw_event_get_kind(&e));
    EXPECT_EQ(m.kd, e.key) << "inv_key 0: sge[0]'s lkey";
    EXPECT_EQ(1u, hca_fw_event_get_tag(&e));
    EXPECT_EQ(1u, hca_fw_event_get_qpn(&e));
    EXPECT_EQ(kPd, e.pd);
    core_step(b.core, 2000);
    EXPECT_FALSE(b.CqeReady()) << "the READ completed before its READ_INV's DONE";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_READ, HCA_WC_STATUS_SUCCESS, 0x91);
    EXPECT_EQ(n, c[0].byte_len);
    std::vector<uint8_t> got(n);
    ASSERT_EQ(0, hostmem_read(b.mem, m.dst, got.data(), n));
    EXPECT_TRUE(got == pat) << "the READ's data";
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// A refused READ_INV: RDMA_READ MW_BIND_ERR, QP -> ERROR, the next WR
// flushed. A READ_WITH_INV naming no key at all (inv_key 0, no SGE): nothing
// to invalidate, so the WR is malformed: LOC_QP_OP_ERR, no READ_REQ sent.
TEST(CoreRtlEvt, AReadWithInvRefusedOrNamingNoKeyFails)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    FourQps q(b);
    const uint32_t n = 4096;
    const Mrs m = TwoMrs(b, n, HCA_ACCESS_REMOTE_READ, HCA_ACCESS_LOCAL_WRITE);
    b.PostSend(q.a, OneSge(HCA_WR_OPCODE_RDMA_READ_WITH_INV, 0xa1, false, m, n, 0x000999));
    b.PostSend(q.a, SqWqe(HCA_WR_OPCODE_SEND, 0xa2, true));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    const hca_fw_event_t e = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_READ_INV, hca_fw_event_get_kind(&e));
    EXPECT_EQ(0x000999u, e.key) << "an explicit inv_key wins over sge[0]'s lkey";
    b.Done(1, HCA_WC_STATUS_MW_BIND_ERR);
    std::vector<hca_cqe_t> c = b.Cqes(2);
    ASSERT_EQ(2u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_READ, HCA_WC_STATUS_MW_BIND_ERR, 0xa1);
    EXPECT_CQE(c[1], HCA_WC_OPCODE_SEND, HCA_WC_STATUS_WR_FLUSH_ERR, 0xa2);
    EXPECT_EQ((unsigned)HCA_QP_STATE_ERROR, b.QpState(1));

    const size_t pkts_before = b.pkts.size();
    b.PostSend(q.c, InvWqe(HCA_WR_OPCODE_RDMA_READ_WITH_INV, 0xa3, false, 0));
    c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_READ, HCA_WC_STATUS_LOC_QP_OP_ERR, 0xa3);
    EXPECT_EQ(pkts_before, b.pkts.size()) << "a READ_WITH_INV naming no key sent a packet";
    EXPECT_EQ(0u, b.EvtStatus()) << "and posted no event";
}

// SEND_WITH_INV: SEND_INV packets, each carrying inv_key; the requester's
// completion opcode is SEND with what the responder answered (the responder's
// invalidation is served by the firmware here: every event answered SUCCESS).
TEST(CoreRtlEvt, ASendWithInvSendsSendInvPacketsCarryingTheKey)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    Qp qa{1, 0, 0}, qb{2, 0, 0};
    b.Setup(qa, qb, 0, 10); // MTU 1024: 3 packets
    const uint32_t n = 3 * 1024;
    const Mrs m = TwoMrs(b, n, 0, HCA_ACCESS_LOCAL_WRITE);
    hca_rq_wqe_t r;
    memset(&r, 0, sizeof r);
    r.wr_id = 0xb0;
    hca_rq_wqe_set_num_sge(&r, 1);
    r.sge[0] = {m.dst, n, m.kd};
    b.PostRecv(qb, r);
    b.PostSend(qa, OneSge(HCA_WR_OPCODE_SEND_WITH_INV, 0xb1, true, m, n, 0x004455));
    std::vector<hca_cqe_t> c = b.Cqes(2, 2000000, [&] { b.ServeAll(HCA_WC_STATUS_SUCCESS); });
    ASSERT_EQ(2u, c.size());
    unsigned sent = 0;
    for (const auto &p : b.pkts) {
        if (!p.tx || hca_pkt_get_src_qpn(&p.pkt) != 1)
            continue;
        EXPECT_EQ((unsigned)HCA_PKT_OP_SEND_INV, hca_pkt_get_op(&p.pkt)) << "packet " << sent;
        EXPECT_EQ(0x004455u, p.pkt.inv_key) << "packet " << sent;
        EXPECT_EQ(sent == 0 ? 1u : 0u, hca_pkt_get_first(&p.pkt)) << "packet " << sent;
        EXPECT_EQ(sent == 2 ? 1u : 0u, hca_pkt_get_last(&p.pkt)) << "packet " << sent;
        sent++;
    }
    EXPECT_EQ(3u, sent) << "SEND_INV packets of a 3 KiB SEND_WITH_INV at MTU 1024";
    for (const hca_fw_event_t &e : b.served)
        EXPECT_NE((unsigned)HCA_EVT_KIND_LOCAL_INV, hca_fw_event_get_kind(&e)) << "the requester posted an event";
    const hca_cqe_t &s = hca_cqe_get_opcode(&c[0]) == HCA_WC_OPCODE_RECV ? c[1] : c[0];
    const bool naked = b.Naks(HCA_WC_STATUS_REM_INV_REQ_ERR) > 0;
    EXPECT_CQE(s, HCA_WC_OPCODE_SEND, naked ? HCA_WC_STATUS_REM_INV_REQ_ERR : HCA_WC_STATUS_SUCCESS, 0xb1);
}

// More events than the queue holds: the producers wait (no event lost, none
// twice), the queue fills to EVT_QUEUE_DEPTH, and each POP lets one more in.
TEST(CoreRtlEvt, AFullQueueHoldsTheProducersBackAndLosesNothing)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    constexpr unsigned kQps = HCA_EVT_QUEUE_DEPTH + 3;
    std::vector<Qp> q;
    for (unsigned i = 0; i < kQps; i++)
        q.push_back(Qp{1 + i, 0, 0});
    Qp unused{40, 0, 0};
    b.Setup(q[0], unused);
    for (unsigned i = 1; i < kQps; i++)
        b.SetupQp(q[i], 40);
    for (unsigned i = 0; i < kQps; i++)
        b.PostSend(q[i], InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0x100 + i, true, 0x1000 + i));
    core_step(b.core, 5000);
    uint32_t st = b.EvtStatus();
    EXPECT_EQ(1u, HCA_EVT_STATUS_PENDING_GET(st));
    EXPECT_EQ((unsigned)HCA_EVT_QUEUE_DEPTH, HCA_EVT_STATUS_COUNT_GET(st)) << "a full queue: STATUS 0x" << std::hex
                                                                         << st;
    std::vector<unsigned> seen(kQps, 0);
    for (unsigned k = 0; k < kQps; k++) {
        ASSERT_NE(UINT64_MAX, b.WaitEvent(20000)) << "event " << k << " never came";
        const hca_fw_event_t e = b.Take();
        const unsigned qpn = hca_fw_event_get_qpn(&e);
        ASSERT_TRUE(qpn >= 1 && qpn <= kQps) << "event for QP " << qpn;
        seen[qpn - 1]++;
        EXPECT_EQ(0x1000u + qpn - 1, e.key) << "QP " << qpn;
        if (k == 0) {
            core_step(b.core, 200);
            st = b.EvtStatus();
            EXPECT_EQ((unsigned)HCA_EVT_QUEUE_DEPTH, HCA_EVT_STATUS_COUNT_GET(st))
                << "one POP of a full queue let one waiting event in: STATUS 0x" << std::hex << st;
        }
        b.Done(hca_fw_event_get_tag(&e), HCA_WC_STATUS_SUCCESS);
    }
    for (unsigned i = 0; i < kQps; i++)
        EXPECT_EQ(1u, seen[i]) << "events of QP " << i + 1;
    std::vector<hca_cqe_t> c = b.Cqes(kQps);
    ASSERT_EQ(kQps, c.size());
    std::vector<unsigned> done(kQps, 0);
    for (const hca_cqe_t &e : c) {
        EXPECT_CQE(e, HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0x100 + e.qpn - 1);
        if (e.qpn >= 1 && e.qpn <= kQps)
            done[e.qpn - 1]++;
    }
    for (unsigned i = 0; i < kQps; i++)
        EXPECT_EQ(1u, done[i]) << "completions of QP " << i + 1;
}

TEST(CoreRtlEvt, AQpWaitingForDoneDoesNotStallOtherQps)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    FourQps q(b);
    const uint32_t n = 8192;
    const Mrs m = TwoMrs(b, n, 0, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
    b.PostSend(q.a, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0xc1, true, 0x000c01));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    b.PostSend(q.c, OneSge(HCA_WR_OPCODE_RDMA_WRITE, 0xc2, true, m, n));
    std::vector<hca_cqe_t> c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_WRITE, HCA_WC_STATUS_SUCCESS, 0xc2);
    EXPECT_EQ(3u, c[0].qpn) << "QP 3's WRITE completed while QP 1 waits for its DONE";
    const hca_fw_event_t e = b.Take();
    b.Done(hca_fw_event_get_tag(&e), HCA_WC_STATUS_SUCCESS);
    c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0xc1);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

// DONE names its waiter by tag: a DONE for another QP, or with the
// responder's tag bit for the same QP number, completes nothing here.
TEST(CoreRtlEvt, ADoneCompletesOnlyTheQpItsTagNames)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    FourQps q(b);
    b.PostSend(q.a, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0xe1, true, 0x000e01));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    b.Take();
    b.Done(HCA_EVT_TAG_RESPONDER | 1, HCA_WC_STATUS_MW_BIND_ERR);
    b.Done(3, HCA_WC_STATUS_MW_BIND_ERR); // QP 3 waits for nothing
    b.Done(0xff, HCA_WC_STATUS_MW_BIND_ERR);
    core_step(b.core, 2000);
    EXPECT_FALSE(b.CqeReady()) << "a DONE for another tag completed QP 1's LOCAL_INV";
    b.Done(1, HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0xe1);
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, b.QpState(1));
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, b.QpState(3)) << "a stray DONE moved QP 3";
    b.Done(1, HCA_WC_STATUS_MW_BIND_ERR); // late duplicate: nobody waits
    core_step(b.core, 2000);
    EXPECT_FALSE(b.CqeReady()) << "a second DONE for QP 1 completed something";
    EXPECT_EQ((unsigned)HCA_QP_STATE_RTS, b.QpState(1));
}

// The firmware invalidates with INVALIDATE then DRAIN before it answers
// DONE: DRAIN must finish while the requester waits for DONE (a send engine
// parked on a LOCAL_INV, a response engine parked on a READ_INV, one event
// still queued), or the invalidation deadlocks.
TEST(CoreRtlEvt, DrainFinishesWhileEventsAreOutstanding)
{
    CoreRtlBench b;
    ASSERT_CORE_OK(b);
    FourQps q(b);
    const uint32_t n = 8192;
    const Mrs m = TwoMrs(b, n, HCA_ACCESS_REMOTE_READ, HCA_ACCESS_LOCAL_WRITE);
    b.PostSend(q.a, InvWqe(HCA_WR_OPCODE_LOCAL_INV, 0xd1, true, 0x000d01));
    ASSERT_NE(UINT64_MAX, b.WaitEvent());
    const hca_fw_event_t e1 = b.Take(); // popped, being worked on
    b.PostSend(q.c, OneSge(HCA_WR_OPCODE_RDMA_READ_WITH_INV, 0xd2, true, m, n));
    ASSERT_NE(UINT64_MAX, b.WaitEvent()) << "the READ_INV event";
    // Both QPs wait for DONE; the READ_INV is still queued.
    b.Wr(kCtx + HCA_CTX_CMD, HCA_CTX_CMD_OP_PUT(HCA_CTX_OP_DRAIN));
    const uint64_t cmd = core_cycle(b.core);
    uint32_t st = 0;
    unsigned busy_reads = 0;
    while (((st = b.Rd(kCtx + HCA_CTX_STATUS)) & 1) && busy_reads < 10000)
        busy_reads++;
    ASSERT_EQ(0u, st & 1) << "DRAIN still busy " << core_cycle(b.core) - cmd << " cycles after the command";
    EXPECT_EQ((unsigned)HCA_FWP_RESULT_OK, (st >> 4) & 0xf);
    EXPECT_LT(core_cycle(b.core) - cmd, 100u) << "DRAIN waited for clients that only wait for DONE";
    const hca_fw_event_t e2 = b.Take();
    EXPECT_EQ((unsigned)HCA_EVT_KIND_READ_INV, hca_fw_event_get_kind(&e2));
    b.Done(hca_fw_event_get_tag(&e2), HCA_WC_STATUS_SUCCESS);
    b.Done(hca_fw_event_get_tag(&e1), HCA_WC_STATUS_SUCCESS);
    std::vector<hca_cqe_t> c = b.Cqes(2);
    ASSERT_EQ(2u, c.size());
    EXPECT_CQE(c[0], HCA_WC_OPCODE_RDMA_READ, HCA_WC_STATUS_SUCCESS, 0xd2);
    EXPECT_CQE(c[1], HCA_WC_OPCODE_LOCAL_INV, HCA_WC_STATUS_SUCCESS, 0xd1);
    EXPECT_EQ(0u, protcheck_count(b.pc)) << b.Violations();
}

} // namespace

// ---------------------------------------------------------------- lockstep
//
// core_create_lockstep runs a shadow engine on the first one's inputs and
// reports the first output pin that differs. Held against a shadow that is
// the model with one pin broken from a known cycle on, so the comparison
// is shown to catch what it is for; the model itself agrees with the RTL.

namespace {
uint64_t g_break_at = UINT64_MAX;
void broken_cycle(void *eng, core_pins_t *p, uint64_t now)
{
    core_model_ops.cycle(eng, p, now);
    if (now >= g_break_at)
        p->fw_irq ^= 1; // an interrupt the RTL does not raise
}

struct Lockstep {
    hostmem_t *mem = nullptr;
    evlog_t log = {};
    std::vector<std::string> bugs;
    core_t *c = nullptr;
    static void on(void *ctx, const evlog_event_t *e)
    {
        if (e->kind == EVLOG_ENGINE_BUG)
            static_cast<Lockstep *>(ctx)->bugs.push_back(e->what);
    }
    explicit Lockstep(const core_engine_ops_t *shadow)
    {
        EXPECT_EQ(0, hostmem_create(&mem));
        evlog_subscribe(&log, on, this);
        const dev_engine_env_t env = {hostmem_bus(mem), &log};
        EXPECT_EQ(0, core_create_lockstep(&c, &core_rtl_ops, shadow, nullptr, &env));
    }
    ~Lockstep()
    {
        core_destroy(c);
        hostmem_destroy(mem);
    }
};
} // namespace

TEST(CoreLockstep, TheModelAgreesWithTheRtlThroughFirmwareAccesses)
{
    Lockstep l(&core_model_ops);
    ASSERT_NE(nullptr, l.c);
    uint32_t v = 0;
    ASSERT_EQ(0, core_fw_read(l.c, kFwp + HCA_FWP_SIZES, &v));
    EXPECT_NE(0u, v);
    ASSERT_EQ(0, core_fw_write(l.c, kCtx + HCA_CTX_CMD, 0)); // a ctx command of op 0
    core_step(l.c, 1000);
    EXPECT_TRUE(l.bugs.empty()) << l.bugs.front();
}

TEST(CoreLockstep, TheFirstDifferingPinIsReportedWithItsCycle)
{
    core_engine_ops_t broken = core_model_ops;
    broken.cycle = broken_cycle;
    g_break_at = 500;
    Lockstep l(&broken);
    ASSERT_NE(nullptr, l.c);
    core_step(l.c, 1000);
    ASSERT_EQ(1u, l.bugs.size()) << "the first difference only";
    EXPECT_NE(std::string::npos, l.bugs[0].find("differ at cycle 500, fw_irq: rtl 0x0, model 0x1")) << l.bugs[0];
    g_break_at = UINT64_MAX;
}
