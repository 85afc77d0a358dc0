// test_peer.cc — peer memory (SEMANTICS.md "Peer memory", hcadrv_peer.h) on
// both engines: a simulated GPU's memory behind its own bus window, its peer
// client registered with the driver, MRs over it, and the invalidate callback
// against everything that can race it: operations in flight on many QPs,
// deregistration (from inside the callback's wait and the other way round), a
// storm over many MRs, a client unregistering while its MRs live; and a
// firmware mutant whose callback returns before the DMA drain, caught.
//
// The races that need two actors at once (a GPU revoking while the consumer
// deregisters) run one inside the other's wait for the device: the rig's host
// boundary runs a scheduled action from inside its wait, as an interrupt
// handler or another thread would run inside a driver's sleep.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dev_fixture.h"
#include "hcadrv_peer.h"
#include "peermem.h"
#include "protcheck.h"

#ifndef FW_MUTANT_PEER_NO_DRAIN
#define FW_MUTANT_PEER_NO_DRAIN "build/firmware/mutants/hcafw_peer_no_drain.elf"
#endif

namespace {

const uint64_t kWindow = 0x100000000000ull, kWindowSize = 16ull << 20, kGpuPage = 64 * 1024;

// A whole device with a GPU beside it. The driver reaches the device through
// a host boundary that can run one scheduled action inside its wait.
struct PeerRig {
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    hcadrv_t *drv = nullptr;
    peermem_t *gpu = nullptr;
    hcadrv_peer_window_t *win = nullptr;
    hca_host_t base{}; // the device's own boundary
    hca_host_ops_t ops{};
    uint32_t pd = 0;
    hcadrv_cq_t cq{};
    std::vector<hcadrv_qp_t> a, b; // connected pairs a[i] -> b[i]
    uint64_t src = 0, dst = 0;
    hcadrv_mr_t msrc{}, mdst{};
    bool up = false, expect_breach = false;
    std::string why;
    char err[512] = "";
    // The scheduled action: runs inside the driver's next wait at or after cycle `at`.
    uint64_t at = 0;
    std::function<void()> action;
    static const uint64_t BUF = 64 * 1024;

    static PeerRig *self(void *ctx) { return static_cast<PeerRig *>(ctx); }
    static int rd(void *c, uint32_t o, uint32_t *v) { return self(c)->base.ops->mmio_read(self(c)->base.ctx, o, v); }
    static int wr(void *c, uint32_t o, uint32_t v) { return self(c)->base.ops->mmio_write(self(c)->base.ctx, o, v); }
    static int ma(void *c, uint64_t s, uint64_t al, uint64_t *a)
    {
        return self(c)->base.ops->mem_alloc(self(c)->base.ctx, s, al, a);
    }
    static int mf(void *c, uint64_t a, uint64_t s) { return self(c)->base.ops->mem_free(self(c)->base.ctx, a, s); }
    static int mr(void *c, uint64_t a, void *b, size_t l) { return self(c)->base.ops->mem_read(self(c)->base.ctx, a, b, l); }
    static int mw(void *c, uint64_t a, const void *b, size_t l)
    {
        return self(c)->base.ops->mem_write(self(c)->base.ctx, a, b, l);
    }
    static uint64_t now(void *c) { return self(c)->base.ops->now(self(c)->base.ctx); }
    static uint64_t wait(void *c, uint64_t max, int irq)
    {
        PeerRig *r = self(c);
        if (r->action && now(c) >= r->at) {
            std::function<void()> f = std::move(r->action);
            r->action = nullptr;
            f(); // nested: the driver is inside a wait of its own
        }
        return r->base.ops->wait(r->base.ctx, max, irq);
    }

    explicit PeerRig(unsigned npairs = 1, const char *firmware = nullptr, int no_peer_invalidation = 0,
                     uint32_t mtu = 256)
    {
        hca_dev_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.engine = test_engine();
        cfg.firmware = firmware;
        cfg.no_peer_invalidation = no_peer_invalidation;
        if (hostmem_create(&mem) || hca_dev_create(&dev, &cfg, mem, err, sizeof err))
            return;
        base = hca_dev_host(dev);
        ops = hca_host_ops_t{rd, wr, ma, mf, mr, mw, wait, now};
        hca_host_t h{&ops, this};
        auto step = [&](const char *what, int rc) {
            if (rc && why.empty())
                why = std::string(what) + ": " + strerror(-rc);
            return rc == 0;
        };
        const bus_timing_t t = {400, 20, 16};
        if (!step("hcadrv_open", hcadrv_open(&drv, &h)) ||
            !step("peermem", peermem_create(&gpu, kWindow, kWindowSize, &t)) ||
            !step("map window", hca_dev_map_window(dev, kWindow, kWindowSize, peermem_bus(gpu))) ||
            !step("peer client", hcadrv_peer_window_create(&win, drv, "gpu0", kWindow, kWindowSize, kGpuPage, 1)) ||
            !step("alloc_pd", hcadrv_alloc_pd(drv, &pd)) || !step("create_cq", hcadrv_create_cq(drv, 256, &cq)))
            return;
        a.resize(npairs);
        b.resize(npairs);
        for (unsigned i = 0; i < npairs; i++) {
            hcadrv_qp_attr_t at = {pd, &cq, &cq, 16, 16, 7, 500, mtu};
            if (!step("create_qp", hcadrv_create_qp(drv, &at, &a[i])) ||
                !step("create_qp", hcadrv_create_qp(drv, &at, &b[i])) || !step("connect", hcadrv_connect(drv, &a[i], &b[i])))
                return;
        }
        if (hostmem_alloc(mem, BUF, 4096, &src) || hostmem_alloc(mem, BUF, 4096, &dst))
            return;
        if (!step("reg_mr src", hcadrv_reg_mr(drv, pd, src, BUF, src, ACCESS_RW, 12, &msrc)) ||
            !step("reg_mr dst", hcadrv_reg_mr(drv, pd, dst, BUF, dst, ACCESS_RW, 12, &mdst)))
            return;
        up = true;
    }
    ~PeerRig()
    {
        if (dev && !expect_breach)
            expect_device_clean(dev);
        hcadrv_close(drv);
        hcadrv_peer_window_free(win);
        hca_dev_destroy(dev);
        peermem_destroy(gpu);
        hostmem_destroy(mem);
    }

    uint64_t cycle() { return hca_dev_cycle(dev); }
    unsigned state(const hcadrv_qp_t &qp)
    {
        unsigned st = 99;
        EXPECT_EQ(0, hcadrv_query_qp(drv, &qp, &st));
        return st;
    }
    std::vector<uint8_t> read_host(uint64_t addr, size_t n)
    {
        std::vector<uint8_t> v(n);
        EXPECT_EQ(0, hostmem_read(mem, addr, v.data(), n));
        return v;
    }
    uint64_t galloc(uint64_t bytes)
    {
        uint64_t g = 0;
        EXPECT_EQ(0, peermem_alloc(gpu, bytes, kGpuPage, &g));
        return g;
    }
    // An MR over GPU memory; the pages may be touched again (a new registration).
    int reg(uint64_t addr, uint64_t len, hcadrv_mr_t *m, uint32_t access = ACCESS_RW)
    {
        int rc = hcadrv_reg_mr(drv, pd, addr, len, addr, access, 12, m);
        if (!rc)
            protcheck_range_restore(hca_dev_protcheck(dev), addr, len);
        return rc;
    }
    // The GPU takes [addr, +len) back: every callback returned, then no DMA may touch it.
    int revoke(uint64_t addr, uint64_t len, unsigned *n = nullptr)
    {
        int rc = hcadrv_peer_window_revoke(win, addr, len, n);
        if (!rc)
            protcheck_range_revoke(hca_dev_protcheck(dev), cycle(), addr, len, "peer revoke");
        return rc;
    }
    hcadrv_peer_stats_t stats()
    {
        hcadrv_peer_stats_t st{};
        EXPECT_EQ(0, hcadrv_peer_get_stats(drv, hcadrv_peer_window_handle(win), &st));
        return st;
    }
    int post(hcadrv_qp_t *qp, uint64_t wr_id, unsigned opcode, hca_sge_t sge, uint64_t raddr, uint32_t rkey)
    {
        hcadrv_send_wr_t w;
        memset(&w, 0, sizeof w);
        w.wr_id = wr_id;
        w.opcode = opcode;
        w.flags = HCA_SEND_FLAGS_SIGNALED;
        w.num_sge = 1;
        w.sge[0] = sge;
        w.remote_addr = raddr;
        w.rkey = rkey;
        return hcadrv_post_send(drv, qp, &w);
    }
    std::vector<hcadrv_wc_t> wait_cqes(size_t n, uint64_t timeout = 3000000)
    {
        std::vector<hcadrv_wc_t> got;
        const uint64_t t0 = cycle();
        while (got.size() < n && cycle() - t0 < timeout) {
            hcadrv_wc_t w[16];
            int r = hcadrv_poll_cq(drv, &cq, w, 16);
            EXPECT_GE(r, 0);
            if (r < 0)
                break;
            got.insert(got.end(), w, w + r);
            if (got.size() < n)
                hca_dev_step(dev, 32);
        }
        return got;
    }
};

#define ASSERT_RIG_UP(r) ASSERT_TRUE((r).up) << "setup failed: " << (r).why << (r).err

std::string counters(const hcadrv_peer_stats_t &s)
{
    char b[300];
    snprintf(b, sizeof b, "alloc %llu dealloc %llu reg_pages %llu dereg_pages %llu reg_bytes %llu dereg_bytes %llu callbacks %llu",
             (unsigned long long)s.num_alloc_mrs, (unsigned long long)s.num_dealloc_mrs,
             (unsigned long long)s.num_reg_pages, (unsigned long long)s.num_dereg_pages,
             (unsigned long long)s.num_reg_bytes, (unsigned long long)s.num_dereg_bytes,
             (unsigned long long)s.num_free_callbacks);
    return b;
}

struct Peer : EngineTest {};

// Misuse of the client API is an error code, never a crash; names are unique.
TEST_P(Peer, RegistrationRefusesBadClientsAndDuplicateNames)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    void *h = nullptr;
    hcadrv_peer_invalidate_t inv = nullptr;
    hcadrv_peer_client_t c;
    memset(&c, 0, sizeof c);
    EXPECT_EQ(-EINVAL, hcadrv_peer_register(r.drv, nullptr, &h, &inv));
    EXPECT_EQ(-EINVAL, hcadrv_peer_register(r.drv, &c, &h, &inv)) << "no name, no ops";
    strcpy(c.name, "gpu0");
    hcadrv_peer_client_ops_t ops;
    memset(&ops, 0, sizeof ops);
    c.ops = &ops;
    EXPECT_EQ(-EINVAL, hcadrv_peer_register(r.drv, &c, &h, &inv)) << "callbacks missing";
    hcadrv_peer_window_t *w = nullptr;
    EXPECT_EQ(-EEXIST, hcadrv_peer_window_create(&w, r.drv, "gpu0", kWindow + kWindowSize, 1 << 20, 4096, 1))
        << "the rig's client is gpu0 already";
    EXPECT_EQ(-EINVAL, hcadrv_peer_window_create(&w, r.drv, "gpu1", kWindow + kWindowSize, 1 << 20, 3000, 1))
        << "page size not a power of two";
    EXPECT_EQ(-EINVAL, hcadrv_peer_window_create(&w, r.drv, "gpu1", kWindow + 4096, 1 << 20, 65536, 1))
        << "window not aligned to its pages";
    EXPECT_EQ(-EINVAL, hcadrv_peer_unregister(r.drv, &c)) << "a handle the driver never gave";
    EXPECT_EQ(-EINVAL, hcadrv_peer_get_stats(r.drv, nullptr, nullptr));
    std::vector<hcadrv_peer_window_t *> more;
    int rc = 0;
    for (unsigned i = 1; i <= HCADRV_PEER_CLIENTS_MAX && !rc; i++) {
        hcadrv_peer_window_t *x = nullptr;
        rc = hcadrv_peer_window_create(&x, r.drv, ("c" + std::to_string(i)).c_str(), kWindow + kWindowSize * (i + 1),
                                       4096, 4096, 0);
        if (!rc)
            more.push_back(x);
    }
    EXPECT_EQ(-ENOSPC, rc);
    EXPECT_EQ(HCADRV_PEER_CLIENTS_MAX - 1, more.size());
    for (auto *x : more)
        EXPECT_EQ(0, hcadrv_peer_window_destroy(x));
}

// Data moves in and out of GPU memory across its 64 KiB pages; the MTT is in the client's page size.
TEST_P(Peer, WriteAndReadAcrossGpuPageSeams)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    const uint64_t g = r.galloc(4 * kGpuPage);
    hcadrv_mr_t m{};
    ASSERT_EQ(0, r.reg(g + kGpuPage - 5000, 2 * kGpuPage, &m));
    std::vector<uint8_t> pat(20000);
    for (size_t i = 0; i < pat.size(); i++)
        pat[i] = (uint8_t)(i * 13 + 1);
    ASSERT_EQ(0, hostmem_write(r.mem, r.src, pat.data(), pat.size()));
    ASSERT_EQ(0, r.post(&r.a[0], 1, HCA_WR_OPCODE_RDMA_WRITE, {r.src, 20000, r.msrc.lkey}, m.iova + 100, m.rkey));
    auto w = r.wait_cqes(1);
    ASSERT_EQ(1u, w.size());
    EXPECT_EQ(HCA_WC_STATUS_SUCCESS, w[0].status) << describe(w[0]);
    std::vector<uint8_t> got(20000);
    ASSERT_EQ(0, peermem_read(r.gpu, m.iova + 100, got.data(), got.size()));
    EXPECT_EQ(pat, got) << "the payload is not in GPU memory across its page seam";
    ASSERT_EQ(0, r.post(&r.a[0], 2, HCA_WR_OPCODE_RDMA_READ, {r.dst, 20000, r.mdst.lkey}, m.iova + 100, m.rkey));
    w = r.wait_cqes(1);
    ASSERT_EQ(1u, w.size());
    EXPECT_EQ(HCA_WC_STATUS_SUCCESS, w[0].status) << describe(w[0]);
    EXPECT_EQ(pat, std::vector<uint8_t>(r.read_host(r.dst, 20000)));
    hcadrv_peer_stats_t st = r.stats();
    EXPECT_EQ(1u, st.num_alloc_mrs) << counters(st);
    EXPECT_EQ(3u, st.num_reg_pages) << "2 pages starting 5000 bytes before a seam touch 3: " << counters(st);
    EXPECT_EQ(3 * kGpuPage, st.num_reg_bytes) << counters(st);
    ASSERT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
    st = r.stats();
    EXPECT_EQ(1u, st.num_dealloc_mrs) << counters(st);
    EXPECT_EQ(3u, st.num_dereg_pages) << counters(st);
    EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win));
}

// The seed's sample client: peer memory that is host memory (the window
// client over a host range, 4 KiB pages). reg_mr over that range goes
// through the client, RDMA reaches it, and its owner can revoke it.
TEST_P(Peer, HostMemoryClientAsTheSeedsSample)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    uint64_t h = 0;
    ASSERT_EQ(0, hostmem_alloc(r.mem, 64 * 1024, 64 * 1024, &h));
    hcadrv_peer_window_t *w = nullptr;
    ASSERT_EQ(0, hcadrv_peer_window_create(&w, r.drv, "host_mem", h, 64 * 1024, 4096, 1));
    hcadrv_mr_t m{};
    ASSERT_EQ(0, hcadrv_reg_mr(r.drv, r.pd, h + 100, 9000, h + 100, ACCESS_RW, 12, &m));
    EXPECT_NE(0u, m.peer) << "the range is the client's: the MR is a peer MR";
    hcadrv_peer_stats_t st{};
    ASSERT_EQ(0, hcadrv_peer_get_stats(r.drv, hcadrv_peer_window_handle(w), &st));
    EXPECT_EQ(3u, st.num_reg_pages) << "9000 bytes from offset 100 touch 3 pages of 4 KiB: " << counters(st);
    std::vector<uint8_t> pat(9000);
    for (size_t i = 0; i < pat.size(); i++)
        pat[i] = (uint8_t)(i * 7 + 3);
    ASSERT_EQ(0, hostmem_write(r.mem, r.src, pat.data(), pat.size()));
    ASSERT_EQ(0, r.post(&r.a[0], 1, HCA_WR_OPCODE_RDMA_WRITE, {r.src, 9000, r.msrc.lkey}, m.iova, m.rkey));
    auto c = r.wait_cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_EQ(HCA_WC_STATUS_SUCCESS, c[0].status) << describe(c[0]);
    EXPECT_EQ(pat, r.read_host(h + 100, 9000));
    unsigned n = 0;
    ASSERT_EQ(0, hcadrv_peer_window_revoke(w, h, 64 * 1024, &n));
    protcheck_range_revoke(hca_dev_protcheck(r.dev), r.cycle(), h, 64 * 1024, "host client revoke");
    EXPECT_EQ(1u, n);
    ASSERT_EQ(0, r.post(&r.a[0], 2, HCA_WR_OPCODE_RDMA_WRITE, {r.src, 64, r.msrc.lkey}, m.iova, m.rkey));
    c = r.wait_cqes(1);
    ASSERT_EQ(1u, c.size());
    EXPECT_EQ(HCA_WC_STATUS_REM_ACCESS_ERR, c[0].status) << "after the revoke: " << describe(c[0]);
    ASSERT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
    EXPECT_EQ(0, hcadrv_peer_window_destroy(w));
}

// A device built without peer invalidation refuses MRs over a client that
// requires it (nothing pinned) and serves one that does not.
TEST_P(Peer, NoInvalidationSupportRefusesClientsThatRequireIt)
{
    PeerRig r(1, nullptr, 1);
    ASSERT_RIG_UP(r);
    hcadrv_device_attr_t at{};
    ASSERT_EQ(0, hcadrv_query_device(r.drv, &at));
    EXPECT_FALSE(at.peer_memory);
    const uint64_t g = r.galloc(kGpuPage);
    hcadrv_mr_t m{};
    EXPECT_EQ(-EOPNOTSUPP, r.reg(g, kGpuPage, &m));
    hcadrv_peer_stats_t st = r.stats();
    EXPECT_EQ(0u, st.num_alloc_mrs + st.num_reg_pages + st.num_dealloc_mrs) << counters(st);
    EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win)) << "a refused registration keeps nothing pinned";
    EXPECT_EQ(-EOPNOTSUPP, hcadrv_cmd(r.drv, HCA_CMD_OP_INVALIDATE_MKEY, 0, 0, r.mdst.lkey, nullptr))
        << "the firmware refuses the fence the device cannot do";
    hcadrv_peer_window_t *w = nullptr;
    const uint64_t base2 = kWindow + kWindowSize;
    ASSERT_EQ(0, hcadrv_peer_window_create(&w, r.drv, "nic1", base2, 1 << 20, 4096, 0));
    peermem_t *pm = nullptr;
    const bus_timing_t t = {300, 20, 16};
    ASSERT_EQ(0, peermem_create(&pm, base2, 1 << 20, &t));
    ASSERT_EQ(0, hca_dev_map_window(r.dev, base2, 1 << 20, peermem_bus(pm)));
    uint64_t n0 = 0;
    ASSERT_EQ(0, peermem_alloc(pm, 8192, 4096, &n0));
    EXPECT_EQ(0, hcadrv_reg_mr(r.drv, r.pd, n0, 8192, n0, ACCESS_RW, 12, &m)) << "a client that needs no invalidation";
    EXPECT_EQ(-EBUSY, hcadrv_peer_window_destroy(w)) << "its MR lives";
    EXPECT_EQ(-EOPNOTSUPP, hcadrv_peer_window_revoke(w, n0, 8192, nullptr)) << "it never revokes";
    EXPECT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
    EXPECT_EQ(0, hcadrv_peer_window_destroy(w));
    hca_dev_unmap_window(r.dev, base2);
    peermem_destroy(pm);
}

// The callback fences: once it returns the MR is FREE, later RDMA through the
// R_Key fails moving nothing, a second revoke finds nothing to do, and the
// MR is still deregistered, its pages put exactly once.
TEST_P(Peer, InvalidateFencesAndPagesArePutOnce)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    const uint64_t g = r.galloc(kGpuPage);
    hcadrv_mr_t m{};
    ASSERT_EQ(0, r.reg(g, kGpuPage, &m));
    unsigned n = 0;
    ASSERT_EQ(0, r.revoke(g, kGpuPage, &n));
    EXPECT_EQ(1u, n);
    hcadrv_peer_stats_t st = r.stats();
    EXPECT_EQ(1u, st.num_free_callbacks) << counters(st);
    EXPECT_EQ(1u, st.num_dealloc_mrs) << counters(st);
    EXPECT_EQ(1u, st.num_dereg_pages) << counters(st);
    EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win));
    ASSERT_EQ(0, r.post(&r.a[0], 1, HCA_WR_OPCODE_RDMA_WRITE, {r.src, 64, r.msrc.lkey}, m.iova, m.rkey));
    auto w = r.wait_cqes(1);
    ASSERT_EQ(1u, w.size());
    EXPECT_EQ(HCA_WC_STATUS_REM_ACCESS_ERR, w[0].status) << describe(w[0]);
    ASSERT_EQ(0, r.revoke(g, kGpuPage, &n));
    EXPECT_EQ(0u, n) << "nothing pinned is left to revoke";
    EXPECT_EQ(-EBUSY, hcadrv_peer_unregister(r.drv, hcadrv_peer_window_handle(r.win))) << "the MR still lives";
    ASSERT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
    st = r.stats();
    EXPECT_EQ(1u, st.num_dealloc_mrs) << "put once: " << counters(st);
    EXPECT_EQ(1u, st.num_dereg_pages) << "unmapped once: " << counters(st);
    EXPECT_EQ(0, hcadrv_peer_unregister(r.drv, hcadrv_peer_window_handle(r.win)));
    hcadrv_peer_window_free(r.win);
    r.win = nullptr;
}

// The GPU revokes while the consumer's DESTROY_MKEY waits for the device: the
// callback waits for it, the pages go once, both return 0.
TEST_P(Peer, InvalidationDuringDeregistration)
{
    for (uint64_t delay : {0u, 100u, 250u, 400u}) { // DESTROY_MKEY takes ~530 cycles
        PeerRig r;
        ASSERT_RIG_UP(r);
        const uint64_t g = r.galloc(2 * kGpuPage);
        hcadrv_mr_t m{};
        ASSERT_EQ(0, r.reg(g, 2 * kGpuPage, &m));
        int rrc = 1;
        unsigned n = 9;
        r.at = r.cycle() + delay;
        r.action = [&] { rrc = r.revoke(g, 2 * kGpuPage, &n); };
        EXPECT_EQ(0, hcadrv_dereg_mr(r.drv, &m)) << "delay " << delay;
        EXPECT_EQ(nullptr, r.action) << "the revoke did not run inside the dereg (delay " << delay << ")";
        EXPECT_EQ(0, rrc) << "delay " << delay;
        EXPECT_EQ(1u, n);
        hcadrv_peer_stats_t st = r.stats();
        EXPECT_EQ(1u, st.num_dealloc_mrs) << "delay " << delay << ": " << counters(st);
        EXPECT_EQ(2u, st.num_dereg_pages) << "delay " << delay << ": " << counters(st);
        EXPECT_EQ(1u, st.num_free_callbacks) << counters(st);
        EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win));
        EXPECT_EQ(0, hcadrv_peer_unregister(r.drv, hcadrv_peer_window_handle(r.win))) << "nothing dangles";
        hcadrv_peer_window_free(r.win);
        r.win = nullptr;
    }
}

// The consumer deregisters while the callback's INVALIDATE_MKEY waits for the
// device: the dereg lets it finish, then destroys; the pages go once.
TEST_P(Peer, DeregistrationDuringInvalidation)
{
    for (uint64_t delay : {0u, 50u, 100u, 150u}) { // INVALIDATE_MKEY takes ~240 cycles
        PeerRig r;
        ASSERT_RIG_UP(r);
        const uint64_t g = r.galloc(kGpuPage);
        hcadrv_mr_t m{};
        ASSERT_EQ(0, r.reg(g, kGpuPage, &m));
        int drc = 1;
        r.at = r.cycle() + delay;
        r.action = [&] { drc = hcadrv_dereg_mr(r.drv, &m); };
        EXPECT_EQ(0, r.revoke(g, kGpuPage)) << "delay " << delay;
        EXPECT_EQ(nullptr, r.action) << "the dereg did not run inside the callback (delay " << delay << ")";
        EXPECT_EQ(0, drc) << "delay " << delay;
        EXPECT_EQ(0u, m.peer) << "the driver's record is gone";
        hcadrv_peer_stats_t st = r.stats();
        EXPECT_EQ(1u, st.num_dealloc_mrs) << "delay " << delay << ": " << counters(st);
        EXPECT_EQ(1u, st.num_dereg_pages) << "delay " << delay << ": " << counters(st);
        EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win));
        EXPECT_EQ(0, hcadrv_peer_unregister(r.drv, hcadrv_peer_window_handle(r.win)));
        hcadrv_peer_window_free(r.win);
        r.win = nullptr;
    }
}

// Many MRs, revoked one after another while some are deregistered: every
// registration's pages are put exactly once.
TEST_P(Peer, StormOfInvalidationsOverManyMrs)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    const unsigned N = 48;
    std::vector<uint64_t> g(N);
    std::vector<hcadrv_mr_t> m(N);
    for (unsigned i = 0; i < N; i++) {
        g[i] = r.galloc(kGpuPage);
        ASSERT_EQ(0, r.reg(g[i], kGpuPage, &m[i])) << i;
    }
    unsigned callbacks = 0;
    for (unsigned i = 0; i < N; i++) {
        if (i % 3 == 0) { // gone before its revoke
            ASSERT_EQ(0, hcadrv_dereg_mr(r.drv, &m[i])) << i;
        }
        unsigned n = 0;
        ASSERT_EQ(0, r.revoke(g[i], kGpuPage, &n)) << i;
        callbacks += n;
    }
    EXPECT_EQ(N - N / 3, callbacks);
    hcadrv_peer_stats_t st = r.stats();
    EXPECT_EQ(N, st.num_alloc_mrs) << counters(st);
    EXPECT_EQ(N, st.num_dealloc_mrs) << counters(st);
    EXPECT_EQ(N, st.num_dereg_pages) << counters(st);
    EXPECT_EQ(N - N / 3, st.num_free_callbacks) << counters(st);
    for (unsigned i = 0; i < N; i++)
        if (i % 3) {
            ASSERT_EQ(0, hcadrv_dereg_mr(r.drv, &m[i])) << i;
        }
    st = r.stats();
    EXPECT_EQ(N, st.num_dealloc_mrs) << "no page put twice: " << counters(st);
    EXPECT_EQ(0u, hcadrv_peer_window_pinned(r.win));
}

// One revoke against multi-chunk WRITEs into and READs out of GPU memory on
// many QPs at once: every WR completes SUCCESS or fails by the table, the
// checker stays silent, and afterwards every access fails.
TEST_P(Peer, InvalidationWithManyOperationsInFlightOnManyQps)
{
    const unsigned Q = 6;
    PeerRig r(Q);
    ASSERT_RIG_UP(r);
    const uint64_t g = r.galloc(Q * 8192);
    hcadrv_mr_t m{};
    ASSERT_EQ(0, r.reg(g, Q * 8192, &m));
    for (unsigned i = 0; i < Q; i++) {
        const bool rd = i & 1;
        ASSERT_EQ(0, r.post(&r.a[i], 100 + i, rd ? HCA_WR_OPCODE_RDMA_READ : HCA_WR_OPCODE_RDMA_WRITE,
                            {(rd ? r.dst : r.src) + i * 8192, 8192, rd ? r.mdst.lkey : r.msrc.lkey}, g + i * 8192,
                            m.rkey));
    }
    hca_dev_step(r.dev, 1500); // every QP is moving bytes
    ASSERT_EQ(0, r.revoke(g, Q * 8192));
    auto w = r.wait_cqes(Q);
    ASSERT_EQ(Q, w.size());
    unsigned ok = 0, failed = 0;
    for (const auto &c : w) {
        if (c.status == HCA_WC_STATUS_SUCCESS)
            ok++;
        else if (c.status == HCA_WC_STATUS_REM_ACCESS_ERR)
            failed++;
        else
            ADD_FAILURE() << "a completion outside the failure table: " << describe(c);
    }
    EXPECT_GT(failed, 0u) << "the revoke landed after every operation: the test does not race";
    hcadrv_qp_t *fresh = nullptr;
    for (unsigned i = 0; i < Q && !fresh; i++)
        if (r.state(r.a[i]) == HCA_QP_STATE_RTS)
            fresh = &r.a[i];
    if (!fresh) { // every pair broke: a new one for the probe
        r.a.emplace_back();
        r.b.emplace_back();
        hcadrv_qp_attr_t at = {r.pd, &r.cq, &r.cq, 16, 16, 7, 500, 256};
        ASSERT_EQ(0, hcadrv_create_qp(r.drv, &at, &r.a.back()));
        ASSERT_EQ(0, hcadrv_create_qp(r.drv, &at, &r.b.back()));
        ASSERT_EQ(0, hcadrv_connect(r.drv, &r.a.back(), &r.b.back()));
        fresh = &r.a.back();
    }
    ASSERT_EQ(0, r.post(fresh, 9, HCA_WR_OPCODE_RDMA_READ, {r.dst, 64, r.mdst.lkey}, g, m.rkey));
    w = r.wait_cqes(1);
    ASSERT_EQ(1u, w.size());
    EXPECT_EQ(HCA_WC_STATUS_REM_ACCESS_ERR, w[0].status) << "after the callback: " << describe(w[0]);
    EXPECT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
    (void)ok;
}

// The sweep: 8 KiB RDMA ops (MTU 256: 32 chunks) through a fresh MR over GPU
// memory, the GPU revoking at offsets spread over the op's own duration
// (measured first, without a revoke). A QP pair is used until an op fails.
struct Sweep {
    PeerRig &r;
    bool read;
    uint64_t g;
    hcadrv_qp_t a{}, b{};
    bool fresh_pair = true;
    static const uint32_t LEN = 8192;

    // One op, the revoke `offset` cycles after its post (none: UINT64_MAX).
    // Returns its status and the cycles it took.
    unsigned round(uint64_t offset, uint64_t *took = nullptr)
    {
        if (fresh_pair) {
            hcadrv_qp_attr_t at = {r.pd, &r.cq, &r.cq, 16, 16, 7, 500, 256};
            EXPECT_EQ(0, hcadrv_create_qp(r.drv, &at, &a));
            EXPECT_EQ(0, hcadrv_create_qp(r.drv, &at, &b));
            EXPECT_EQ(0, hcadrv_connect(r.drv, &a, &b));
            fresh_pair = false;
        }
        hcadrv_mr_t m{};
        EXPECT_EQ(0, r.reg(g, LEN, &m));
        const uint64_t t0 = r.cycle();
        EXPECT_EQ(0, r.post(&a, 7, read ? HCA_WR_OPCODE_RDMA_READ : HCA_WR_OPCODE_RDMA_WRITE,
                            {read ? r.dst : r.src, LEN, read ? r.mdst.lkey : r.msrc.lkey}, g, m.rkey));
        std::vector<hcadrv_wc_t> w;
        if (offset != UINT64_MAX) {
            hca_dev_step(r.dev, offset);
            EXPECT_EQ(0, r.revoke(g, LEN));
        }
        w = r.wait_cqes(1);
        if (took)
            *took = r.cycle() - t0;
        EXPECT_EQ(1u, w.size());
        EXPECT_EQ(0, hcadrv_dereg_mr(r.drv, &m));
        const unsigned st = w.empty() ? 99 : w[0].status;
        fresh_pair = st != HCA_WC_STATUS_SUCCESS; // a failed op left the pair in ERROR
        return st;
    }
};

// peer_invalidate against multi-chunk WRITEs and READs at many offsets: both
// outcomes are seen and the checker (which fails the fixture on any DMA into
// a revoked page after its callback returned) stays silent.
TEST_P(Peer, RaceSweepSeesBothOutcomesAndNoDmaAfterTheCallback)
{
    PeerRig r;
    ASSERT_RIG_UP(r);
    const uint64_t g = r.galloc(Sweep::LEN);
    for (bool read : {false, true}) {
        Sweep sw{r, read, g};
        uint64_t T = 0;
        ASSERT_EQ(HCA_WC_STATUS_SUCCESS, sw.round(UINT64_MAX, &T)) << "calibration";
        unsigned ok = 0, failed = 0;
        for (uint64_t k = 0; k <= 10; k++) {
            const uint64_t off = T * k / 10;
            unsigned st = sw.round(off);
            if (HasFatalFailure())
                return;
            if (st == HCA_WC_STATUS_SUCCESS)
                ok++;
            else if (st == HCA_WC_STATUS_REM_ACCESS_ERR)
                failed++;
            else
                ADD_FAILURE() << (read ? "READ" : "WRITE") << " at offset " << off << ": " << status_name(st);
        }
        EXPECT_GT(ok, 0u) << (read ? "READ" : "WRITE") << ": the revoke always won (op " << T << " cycles)";
        EXPECT_GT(failed, 0u) << (read ? "READ" : "WRITE") << ": the revoke never caught an operation in flight";
    }
    hcadrv_peer_stats_t st = r.stats();
    EXPECT_EQ(st.num_alloc_mrs, st.num_dealloc_mrs) << counters(st);
    EXPECT_EQ(st.num_reg_pages, st.num_dereg_pages) << counters(st);
}

// The same sweep on firmware whose INVALIDATE_MKEY answers before the DMA
// drain (the callback returns too early): the checker catches a DMA into the
// revoked pages. Proves the sweep and the peer invariant can fail.
TEST_P(Peer, SweepCatchesACallbackReturningBeforeTheDrain)
{
    PeerRig r(1, FW_MUTANT_PEER_NO_DRAIN);
    ASSERT_RIG_UP(r);
    r.expect_breach = true;
    const uint64_t g = r.galloc(Sweep::LEN);
    Sweep sw{r, true, g};
    uint64_t T = 0;
    ASSERT_EQ(HCA_WC_STATUS_SUCCESS, sw.round(UINT64_MAX, &T)) << "calibration";
    uint64_t caught = 0;
    for (uint64_t k = 0; k <= 40 && !caught; k++) {
        sw.round(T * k / 40);
        if (HasFatalFailure())
            return;
        caught = hca_dev_violations(r.dev, nullptr, 0);
    }
    char v[512] = "";
    hca_dev_violations(r.dev, v, sizeof v);
    EXPECT_GT(caught, 0u) << "no breach: the sweep or the checker misses a callback that does not fence DMA";
}

ENGINE_TEST_SUITE(Peer);

} // namespace
