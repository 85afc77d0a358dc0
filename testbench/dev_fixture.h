// dev_fixture.h — one whole device (host memory, device, driver) for a test,
// shared by the device-level suites. Every device must end its test with no
// protection-checker breach and its firmware still running.
#ifndef DEV_FIXTURE_H
#define DEV_FIXTURE_H

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hca_dev.h"
#include "hcadrv.h"

// The device ends its test clean: no protection-checker breach, the firmware
// still running (each failure says which, with the device's own words).
inline void expect_device_clean(hca_dev_t *dev)
{
    char v[4096] = "";
    EXPECT_EQ(0u, hca_dev_violations(dev, v, sizeof v)) << v;
    char why[256] = "";
    EXPECT_EQ(0, hca_dev_fw_health(dev, why, sizeof why)) << why;
}

// A completion as a failing assertion prints it.
inline std::string status_name(unsigned s)
{
    const char *n = hca_wc_status_name(s);
    return n && *n && strcmp(n, "?") ? n : "status " + std::to_string(s);
}

inline std::string describe(const hcadrv_wc_t &w)
{
    char b[200];
    snprintf(b, sizeof b, "{wr_id %llu, %s, opcode %u, byte_len %u, qpn %u, wqe_counter %u, wc_flags %#x, invalidate_rkey %#x}",
             (unsigned long long)w.wr_id, status_name(w.status).c_str(), w.opcode, w.byte_len, w.qpn,
             w.wqe_counter, w.wc_flags, w.invalidate_rkey);
    return b;
}

inline std::string describe(const std::vector<hcadrv_wc_t> &v)
{
    std::string s = "[";
    for (const auto &w : v)
        s += describe(w) + " ";
    return s + "]";
}

struct DevFixture {
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    hcadrv_t *drv = nullptr;
    char err[512] = "";

    explicit DevFixture(dev_engine_kind_t engine, uint32_t mpt_entries = 0, const char *firmware = nullptr)
    {
        hca_dev_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.engine = engine;
        cfg.firmware = firmware;
        if (mpt_entries) {
            cfg.tables.mpt_entries = mpt_entries;
            cfg.tables.mtt_entries = HCA_MTT_ENTRIES_DEFAULT;
        }
        if (hostmem_create(&mem) || hca_dev_create(&dev, &cfg, mem, err, sizeof err))
            return;
        hca_host_t host = hca_dev_host(dev);
        hcadrv_open(&drv, &host);
    }
    ~DevFixture()
    {
        if (dev)
            expect_device_clean(dev);
        hcadrv_close(drv);
        hca_dev_destroy(dev);
        hostmem_destroy(mem);
    }
    DevFixture(const DevFixture &) = delete;
    DevFixture &operator=(const DevFixture &) = delete;

    bool ok() const { return dev && drv; }
    std::string console() const { return dev ? hca_dev_console(dev) : ""; }
    std::string health() const
    {
        char why[256] = "";
        return dev && hca_dev_fw_health(dev, why, sizeof why) ? why : "running";
    }
    uint64_t alloc(uint64_t bytes)
    {
        uint64_t a = 0;
        EXPECT_EQ(0, hostmem_alloc(mem, bytes, 4096, &a));
        return a;
    }
    void fill(uint64_t addr, size_t len, uint8_t seed)
    {
        std::vector<uint8_t> b(len);
        for (size_t i = 0; i < len; i++)
            b[i] = (uint8_t)(seed + i * 7 + (i >> 8));
        ASSERT_EQ(0, hostmem_write(mem, addr, b.data(), len));
    }
    std::vector<uint8_t> read(uint64_t addr, size_t len)
    {
        std::vector<uint8_t> b(len);
        EXPECT_EQ(0, hostmem_read(mem, addr, b.data(), len));
        return b;
    }

    // Poll cq (stepping the device) until n completions came or timeout cycles passed.
    std::vector<hcadrv_wc_t> wait(hcadrv_cq_t *cq, size_t n, uint64_t timeout = 2000000)
    {
        std::vector<hcadrv_wc_t> got;
        const uint64_t t0 = hca_dev_cycle(dev);
        while (got.size() < n && hca_dev_cycle(dev) - t0 < timeout) {
            hcadrv_wc_t w[16];
            int r = hcadrv_poll_cq(drv, cq, w, 16);
            EXPECT_GE(r, 0) << "poll_cq";
            if (r < 0)
                break;
            got.insert(got.end(), w, w + r);
            if (got.size() < n)
                hca_dev_step(dev, 32);
        }
        return got;
    }
    // Nothing more arrives on cq within cycles.
    std::vector<hcadrv_wc_t> drain(hcadrv_cq_t *cq, uint64_t cycles = 20000)
    {
        hca_dev_step(dev, cycles);
        std::vector<hcadrv_wc_t> got;
        hcadrv_wc_t w[16];
        int r;
        while ((r = hcadrv_poll_cq(drv, cq, w, 16)) > 0)
            got.insert(got.end(), w, w + r);
        return got;
    }
    unsigned state(const hcadrv_qp_t &qp)
    {
        unsigned s = 99;
        EXPECT_EQ(0, hcadrv_query_qp(drv, &qp, &s));
        return s;
    }
    uint64_t read64(uint64_t addr)
    {
        uint64_t v = 0;
        EXPECT_EQ(0, hostmem_read(mem, addr, &v, 8));
        return v;
    }

    // One key-check probe through the device's translation unit: its beats.
    std::vector<xu_seg_t> translate(uint32_t key, uint32_t pd, uint64_t va, uint32_t len, uint8_t rights = 0,
                                    uint8_t remote = 0)
    {
        xu_seg_t s;
        while (hca_dev_xlate_collect(dev, &s)) {
        }
        xu_req_t q = {0x5a, rights, remote, key, pd, len, va};
        EXPECT_EQ(0, hca_dev_xlate_submit(dev, &q));
        std::vector<xu_seg_t> beats;
        for (int i = 0; i < 20000; i++) {
            hca_dev_step(dev, 1);
            while (hca_dev_xlate_collect(dev, &s)) {
                beats.push_back(s);
                if (s.last)
                    return beats;
            }
        }
        ADD_FAILURE() << "no last beat for key " << std::hex << key;
        return beats;
    }
};

#define ASSERT_DEV_OK(d) ASSERT_TRUE((d).ok()) << "device did not come up: " << (d).err << "\n" << (d).console()

static const uint32_t ACCESS_RW = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;

// The engine of the running engine-parameterized test (EngineTest): what a
// fixture built without an engine (LoopPair) runs on.
inline dev_engine_kind_t &test_engine()
{
    static dev_engine_kind_t e = DEV_ENGINE_RTL;
    return e;
}

// A test whose behaviour is engine-independent: run it on every engine
// (ENGINE_TEST_SUITE(Suite) after the suite's TEST_Ps).
struct EngineTest : ::testing::TestWithParam<dev_engine_kind_t> {
    void SetUp() override { test_engine() = GetParam(); }
    void TearDown() override { test_engine() = DEV_ENGINE_RTL; }
};
#define ENGINE_TEST_SUITE(Suite)                                                                                       \
    INSTANTIATE_TEST_SUITE_P(Engines, Suite, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),                     \
                             [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) { return std::string(dev_engine_name(i.param)); })

// One connected loopback pair: a (requester) and b (responder), each with its
// own CQ for both of its queues, and two registered 128 KiB buffers.
struct LoopPair : DevFixture {
    uint32_t pd = 0;
    hcadrv_cq_t cqa{}, cqb{};
    hcadrv_qp_t a{}, b{};
    uint64_t src = 0, dst = 0;
    static const uint64_t BUF = 128 * 1024;
    hcadrv_mr_t msrc{}, mdst{};
    bool up = false;
    std::string why; // the setup step that failed

    explicit LoopPair(unsigned rnr_retry = 7, uint32_t rnr_timer = 500, uint32_t mtu = 0, uint32_t cq_depth = 64,
                  uint32_t sq_depth = 16, uint32_t rq_depth = 16, const char *firmware = nullptr)
        : DevFixture(test_engine(), 0, firmware)
    {
        if (!ok())
            return;
        auto step = [&](const char *what, int rc) {
            if (rc && why.empty())
                why = std::string(what) + ": " + strerror(-rc);
            return rc == 0;
        };
        if (!step("alloc_pd", hcadrv_alloc_pd(drv, &pd)) || !step("create_cq a", hcadrv_create_cq(drv, cq_depth, &cqa)) ||
            !step("create_cq b", hcadrv_create_cq(drv, cq_depth, &cqb)))
            return;
        hcadrv_qp_attr_t at = {pd, &cqa, &cqa, sq_depth, rq_depth, rnr_retry, rnr_timer, mtu};
        if (!step("create_qp a", hcadrv_create_qp(drv, &at, &a)))
            return;
        at.send_cq = at.recv_cq = &cqb;
        if (!step("create_qp b", hcadrv_create_qp(drv, &at, &b)) || !step("connect", hcadrv_connect(drv, &a, &b)))
            return;
        src = alloc(BUF);
        dst = alloc(BUF);
        if (!step("reg_mr src", hcadrv_reg_mr(drv, pd, src, BUF, src, ACCESS_RW, 12, &msrc)) ||
            !step("reg_mr dst", hcadrv_reg_mr(drv, pd, dst, BUF, dst, ACCESS_RW, 12, &mdst)))
            return;
        up = true;
    }

    int send(uint64_t wr_id, unsigned opcode, std::vector<hca_sge_t> sges, uint64_t raddr = 0, uint32_t rkey = 0,
             unsigned flags = HCA_SEND_FLAGS_SIGNALED, hcadrv_qp_t *qp = nullptr)
    {
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = wr_id;
        wr.opcode = opcode;
        wr.flags = flags;
        wr.num_sge = (unsigned)sges.size();
        for (size_t i = 0; i < sges.size() && i < HCA_MAX_SEND_SGE; i++)
            wr.sge[i] = sges[i];
        wr.remote_addr = raddr;
        wr.rkey = rkey;
        return hcadrv_post_send(drv, qp ? qp : &a, &wr);
    }
    int recv(uint64_t wr_id, std::vector<hca_sge_t> sges, hcadrv_qp_t *qp = nullptr)
    {
        hcadrv_recv_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = wr_id;
        wr.num_sge = (unsigned)sges.size();
        for (size_t i = 0; i < sges.size() && i < HCA_MAX_RECV_SGE; i++)
            wr.sge[i] = sges[i];
        return hcadrv_post_recv(drv, qp ? qp : &b, &wr);
    }
    hca_sge_t s(uint64_t addr, uint32_t len, uint32_t lkey = 0)
    {
        return hca_sge_t{addr, len, lkey ? lkey : (addr >= dst && addr < dst + BUF ? mdst.lkey : msrc.lkey)};
    }
};

#define ASSERT_PAIR_UP(p) ASSERT_TRUE((p).up) << "setup failed: " << (p).why << (p).err << "\n" << (p).console()

#endif // DEV_FIXTURE_H
