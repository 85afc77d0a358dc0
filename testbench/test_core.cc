// test_core.cc — the engine core's harness (sim/core.h).
//
// Suites:
//   CoreDma.*   the DMA block alone, driven through its pins by the test
//               acting as the engine: timing of READ_DATA, WRITE_DATA and
//               64 KiB streams, copies at completion, bus errors, malformed
//               requests, outstanding limit and response back-pressure, the
//               checker fed;
//   CoreLink.*  the loopback link alone: latency, serialization, order,
//               back-pressure, the checker fed.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "core.h"

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
    core_dma_t *dma = nullptr;
    std::vector<uint8_t> pbufs = std::vector<uint8_t>((size_t)HCA_PKT_BUFS * HCA_PKT_BUF_SIZE);
    hostmem_timing_t t = hostmem_default_timing();
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

    explicit DmaBench(unsigned max_outstanding = CORE_DMA_OUTSTANDING_DEFAULT)
    {
        memset(&p, 0, sizeof p);
        EXPECT_EQ(0, hostmem_create(&mem));
        EXPECT_EQ(0, protcheck_create(&pc));
        EXPECT_EQ(0, core_dma_create(&dma, mem, &t, max_outstanding, pbufs.data(), pc));
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
    EXPECT_EQ(b.accepted[0] + hostmem_transfer_cycles(&b.t, 0, 128), b.rsps[0].cycle)
        << "read latency " << b.t.read_latency << " + 128 B / " << b.t.bytes_per_cycle << " B/cycle";
    const hca_dma_rsp_t &r = b.rsps[0].rsp;
    EXPECT_EQ(0x41u, hca_dma_rsp_get_rtag(&r));
    EXPECT_EQ(0u, hca_dma_rsp_get_err(&r));
    uint8_t want[128];
    ASSERT_EQ(0, hostmem_read(b.mem, a + 64, want, sizeof want));
    EXPECT_EQ(0, memcmp(want, r.rdata, sizeof want));
    core_stats_t st;
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
    const uint64_t done = hostmem_transfer_cycles(&b.t, 1, 32); // accepted in cycle 0
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
    core_stats_t st;
    core_dma_get_stats(b.dma, &st);
    EXPECT_EQ(65536u, st.dma_rd_bytes);
    EXPECT_EQ(65536u, st.dma_wr_bytes);
    EXPECT_EQ(32 * per, st.dma_busy_cycles);
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
    core_stats_t st;
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
    core_stats_t st;
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
    core_observer_t obs;
    memset(&obs, 0, sizeof obs);
    obs.ctx = &log;
    obs.dma_issue = [](void *c, uint64_t cycle, const hca_dma_req_t *) { ((Log *)c)->issue.push_back(cycle); };
    obs.dma_done = [](void *c, uint64_t cycle, const hca_dma_req_t *, int err) {
        ((Log *)c)->done.push_back(cycle);
        ((Log *)c)->err.push_back(err);
    };
    core_dma_set_observer(b.dma, &obs);
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
        EXPECT_EQ(0, core_link_create(&link, latency, bpc, pc));
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
    core_stats_t st;
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
    hostmem_timing_t t = hostmem_default_timing();
    core_dma_t *d = nullptr;
    EXPECT_EQ(-EINVAL, core_dma_create(&d, mem, &t, 0, bufs.data(), nullptr));
    EXPECT_EQ(-EINVAL, core_dma_create(&d, mem, &t, CORE_DMA_OUTSTANDING_MAX + 1, bufs.data(), nullptr));
    t.bytes_per_cycle = 0;
    EXPECT_EQ(-EINVAL, core_dma_create(&d, mem, &t, 4, bufs.data(), nullptr));
    core_link_t *l = nullptr;
    EXPECT_EQ(-EINVAL, core_link_create(&l, 10, 0, nullptr));
    EXPECT_EQ(-EINVAL, core_create(nullptr, nullptr, nullptr, mem, nullptr));
    hostmem_destroy(mem);
}

} // namespace
