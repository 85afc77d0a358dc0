// test_host.cc — the device's boundaries above the engine: the host
// interrupt block (BAR0 HOST_IRQ_OFFSET) and the host's wait, the event log
// (completions, DMA through a key), the bus map routing a peer window, and the
// engine factory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "dev_fixture.h"

namespace {

uint32_t cause(hca_dev_t *dev)
{
    uint32_t v = 0;
    EXPECT_EQ(0, hca_dev_mmio_read(dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, &v));
    return v;
}

class HostIrq : public ::testing::TestWithParam<dev_engine_kind_t> {};

// The mailbox's answer latches CMD_DONE and raises the line; writing the bit
// back clears it; MASK gates the line, not the cause.
TEST_P(HostIrq, CommandDoneRaisesTheLineUntilWrittenBack)
{
    DevFixture d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t attr;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &attr));
    EXPECT_EQ(HCA_HOST_IRQ_CAUSE_CMD_DONE_PUT(1), cause(d.dev)) << "only the command's answer happened";
    EXPECT_EQ(1, hca_dev_host_irq(d.dev));
    ASSERT_EQ(0, hca_dev_mmio_write(d.dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_MASK, 0));
    EXPECT_EQ(0, hca_dev_host_irq(d.dev)) << "masked";
    EXPECT_NE(0u, cause(d.dev)) << "the mask hides the line, not the cause";
    ASSERT_EQ(0, hca_dev_mmio_write(d.dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_MASK, ~0u));
    ASSERT_EQ(0, hca_dev_mmio_write(d.dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, HCA_HOST_IRQ_CAUSE_CMD_DONE_PUT(1)));
    EXPECT_EQ(0u, cause(d.dev));
    EXPECT_EQ(0, hca_dev_host_irq(d.dev));
    // A host that waits with wake-on-interrupt and nothing pending waits it all.
    hca_host_t host = hca_dev_host(d.dev);
    EXPECT_EQ(500u, host.ops->wait(host.ctx, 500, 1));
}

INSTANTIATE_TEST_SUITE_P(Engines, HostIrq, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) {
                             return std::string(dev_engine_name(i.param));
                         });

// A firmware that stops (here a test program that exits at once) shows as
// CAUSE.FATAL, which cannot be cleared, and the driver gives up on the
// mailbox at once instead of spinning to its timeout.
TEST(HostIrqFatal, AStoppedFirmwareIsFatalAndTheDriverGivesUp)
{
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = DEV_ENGINE_RTL;
    cfg.firmware = "build/firmware/tests/exit_code.elf";
    hostmem_t *mem = nullptr;
    ASSERT_EQ(0, hostmem_create(&mem));
    hca_dev_t *dev = nullptr;
    char err[256] = "";
    ASSERT_EQ(0, hca_dev_create(&dev, &cfg, mem, err, sizeof err)) << err;
    for (int i = 0; i < 1000 && !hca_dev_fw_health(dev, nullptr, 0); i++)
        hca_dev_step(dev, 100);
    ASSERT_EQ(-EFAULT, hca_dev_fw_health(dev, nullptr, 0)) << "the test program should have stopped";
    EXPECT_EQ(HCA_HOST_IRQ_CAUSE_FATAL_PUT(1), cause(dev));
    EXPECT_EQ(1, hca_dev_host_irq(dev));
    ASSERT_EQ(0, hca_dev_mmio_write(dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u));
    EXPECT_EQ(HCA_HOST_IRQ_CAUSE_FATAL_PUT(1), cause(dev)) << "FATAL is a state: writing it back does not clear it";
    hcadrv_t *drv = nullptr;
    hca_host_t host = hca_dev_host(dev);
    ASSERT_EQ(0, hcadrv_open(&drv, &host));
    uint32_t pd = 0;
    const uint64_t t0 = hca_dev_cycle(dev);
    EXPECT_EQ(-ETIMEDOUT, hcadrv_alloc_pd(drv, &pd));
    EXPECT_LT(hca_dev_cycle(dev) - t0, 1000u) << "the driver should see FATAL, not wait for its timeout";
    hcadrv_close(drv);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
}

// Completions as the event log tells them: one EVLOG_CQE per CQE, at the ring
// slot the driver then polls, in the cycle the host's wake-on-interrupt wait
// returns after.
TEST(HostWait, WakesWhenTheCompletionIsWrittenAndTheLogNamesItsSlot)
{
    LoopPair p;
    ASSERT_PAIR_UP(p);
    struct Seen {
        std::vector<std::pair<uint64_t, uint64_t>> cqe; // cycle, address
    } seen;
    const evlog_fn_t watch = [](void *c, const evlog_event_t *e) {
        if (e->kind == EVLOG_CQE)
            ((Seen *)c)->cqe.push_back({e->cycle, e->addr});
    };
    ASSERT_EQ(0, evlog_subscribe(hca_dev_log(p.dev), watch, &seen));
    ASSERT_EQ(0, hca_dev_mmio_write(p.dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u));
    ASSERT_EQ(0, p.recv(1, {p.s(p.dst, 256)}));
    ASSERT_EQ(0, p.send(2, HCA_WR_OPCODE_SEND, {p.s(p.src, 256)}));
    hca_host_t host = hca_dev_host(p.dev);
    std::vector<hcadrv_wc_t> got;
    for (int round = 0; round < 2; round++) {
        const uint64_t waited = host.ops->wait(host.ctx, 100000, 1);
        ASSERT_LT(waited, 100000u) << "no completion woke the host";
        ASSERT_FALSE(seen.cqe.empty());
        EXPECT_EQ(hca_dev_cycle(p.dev), seen.cqe.back().first + 1) << "the wait ends with the cycle the CQE was written in";
        EXPECT_TRUE(HCA_HOST_IRQ_CAUSE_CQE_GET(cause(p.dev)));
        ASSERT_EQ(0, hca_dev_mmio_write(p.dev, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u));
        hcadrv_wc_t w[4];
        int n = hcadrv_poll_cq(p.drv, &p.cqa, w, 4);
        ASSERT_GE(n, 0);
        got.insert(got.end(), w, w + n);
        n = hcadrv_poll_cq(p.drv, &p.cqb, w, 4);
        ASSERT_GE(n, 0);
        got.insert(got.end(), w, w + n);
    }
    evlog_unsubscribe(hca_dev_log(p.dev), watch, &seen);
    ASSERT_EQ(2u, got.size()) << describe(got);
    ASSERT_EQ(2u, seen.cqe.size());
    // The receiver's CQE is slot 0 of cqb, the sender's slot 0 of cqa (either order).
    std::vector<uint64_t> want = {p.cqa.base, p.cqb.base}, addrs = {seen.cqe[0].second, seen.cqe[1].second};
    std::sort(want.begin(), want.end());
    std::sort(addrs.begin(), addrs.end());
    EXPECT_EQ(want, addrs);
}

// A peer window: the device's DMA to [base, base + size) goes to another
// memory through the bus map, host memory keeps the rest. An RDMA WRITE into an
// MR over the window lands in the peer memory and nowhere in host memory.
TEST(BusWindow, AWriteIntoAnMrOverAPeerWindowLandsInThePeerMemory)
{
    LoopPair p;
    ASSERT_PAIR_UP(p);
    hostmem_t *peer = nullptr;
    ASSERT_EQ(0, hostmem_create(&peer));
    const uint64_t base = 0x7f0000000000ull, size = 64 * 1024;
    ASSERT_EQ(0, hostmem_map(peer, base, size));
    ASSERT_EQ(0, hca_dev_map_window(p.dev, base, size, hostmem_bus(peer)));
    EXPECT_EQ(-EEXIST, hca_dev_map_window(p.dev, base + 4096, 4096, hostmem_bus(peer)));
    hcadrv_mr_t mr;
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, base, size, base, ACCESS_RW, 12, &mr));
    p.fill(p.src, 8192, 0x31);
    ASSERT_EQ(0, p.send(7, HCA_WR_OPCODE_RDMA_WRITE, {p.s(p.src, 8192)}, base + 4000, mr.rkey));
    auto wc = p.wait(&p.cqa, 1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(HCA_WC_STATUS_SUCCESS, wc[0].status) << describe(wc[0]);
    std::vector<uint8_t> got(8192);
    ASSERT_EQ(0, hostmem_read(peer, base + 4000, got.data(), got.size()));
    EXPECT_EQ(p.read(p.src, 8192), got) << "the payload is not in the peer memory";
    EXPECT_FALSE(hostmem_backed(p.mem, base, 1)) << "nothing of the window exists in host memory";
    ASSERT_EQ(0, hcadrv_dereg_mr(p.drv, &mr));
    EXPECT_EQ(0, hca_dev_unmap_window(p.dev, base));
    EXPECT_EQ(-ENOENT, hca_dev_unmap_window(p.dev, base));
    hostmem_destroy(peer);
}

TEST(DevEngine, TheFactoryKnowsTwoEnginesAndRefusesOthers)
{
    ASSERT_NE(nullptr, dev_engine_get(DEV_ENGINE_RTL));
    ASSERT_NE(nullptr, dev_engine_get(DEV_ENGINE_MODEL));
    EXPECT_STREQ("rtl", dev_engine_get(DEV_ENGINE_RTL)->name);
    EXPECT_STREQ("model", dev_engine_get(DEV_ENGINE_MODEL)->name);
    EXPECT_EQ(nullptr, dev_engine_get(DEV_ENGINE_KINDS));
    EXPECT_STREQ("?", dev_engine_name((dev_engine_kind_t)7));
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = (dev_engine_kind_t)7;
    hostmem_t *mem = nullptr;
    ASSERT_EQ(0, hostmem_create(&mem));
    hca_dev_t *dev = nullptr;
    EXPECT_EQ(-EINVAL, hca_dev_create(&dev, &cfg, mem, nullptr, 0));
    EXPECT_EQ(nullptr, dev);
    hostmem_destroy(mem);
}

} // namespace
