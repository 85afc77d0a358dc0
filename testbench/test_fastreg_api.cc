// The fast-registration consumer API of the reference driver (the seed's
// ib_alloc_fast_reg_page_list / ib_free_fast_reg_page_list /
// ib_update_fast_reg_key, and get_dma_mr with the reserved L_Key):
// page-list limits and ownership, the key byte, the reserved L_Key on both
// engines (translated through the device's unit by hca_dev_xlate_* probes),
// and the FAST_REG_MR WQE as the driver writes it into the SQ ring.
//
// Posted WRs are served by the RTL engine (SEMANTICS.md "FAST_REG_MR"): each
// test expects the exact completion of every WR it posts, and checks that the
// completion ends the driver's ownership of the page list.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "dev_fixture.h"
#include "hca_dev.h"
#include "hcadrv.h"

namespace {

const uint32_t RW = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;

using Dev = DevFixture;

class FastRegApi : public ::testing::TestWithParam<dev_engine_kind_t> {
};

// ---------------------------------------------------------------- page lists

TEST_P(FastRegApi, PageListLengthsFollowTheDeviceLimit)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a));
    ASSERT_EQ((uint32_t)HCA_MAX_FAST_REG_PAGE_LIST_LEN, a.max_fast_reg_page_list_len);
    const uint32_t max = a.max_fast_reg_page_list_len;

    hcadrv_page_list_t pl;
    EXPECT_EQ(-EINVAL, hcadrv_alloc_fast_reg_page_list(d.drv, 0, &pl)) << "len 0";
    EXPECT_EQ(-EINVAL, hcadrv_alloc_fast_reg_page_list(d.drv, max + 1, &pl)) << "above the device maximum";
    EXPECT_EQ(-EINVAL, hcadrv_alloc_fast_reg_page_list(nullptr, 4, &pl));
    EXPECT_EQ(-EINVAL, hcadrv_alloc_fast_reg_page_list(d.drv, 4, nullptr));

    struct Case {
        uint32_t len, actual;
    };
    for (Case k : {Case{1, 8}, Case{8, 8}, Case{13, 16}, Case{max - 1, max}, Case{max, max}}) {
        SCOPED_TRACE("len " + std::to_string(k.len));
        ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(d.drv, k.len, &pl));
        EXPECT_EQ(k.actual, pl.max_page_list_len) << "rounded up to a 64-byte line, at most the device maximum";
        EXPECT_EQ(d.drv, pl.drv);
        EXPECT_NE(0u, pl.handle);
        EXPECT_EQ(0u, pl.bus_addr % 4096) << "page aligned";
        EXPECT_TRUE(hostmem_backed(d.mem, pl.bus_addr, 8ull * pl.max_page_list_len)) << "device-readable";
        for (uint32_t i = 0; i < pl.max_page_list_len; i++)
            ASSERT_EQ(0u, d.read64(pl.bus_addr + 8ull * i)) << "zeroed, entry " << i;
        // The driver view: every entry is written through to host memory.
        for (uint32_t i = 0; i < pl.max_page_list_len; i++)
            ASSERT_EQ(0, hcadrv_page_list_set(&pl, i, 0x100000000ull + 4096ull * i));
        EXPECT_EQ(0x100000000ull + 4096ull * (pl.max_page_list_len - 1),
                  d.read64(pl.bus_addr + 8ull * (pl.max_page_list_len - 1)));
        EXPECT_EQ(-EINVAL, hcadrv_page_list_set(&pl, pl.max_page_list_len, 0x1000)) << "past the end";
        hcadrv_page_list_t copy = pl; // a handle: copies name the same list
        EXPECT_EQ(0, hcadrv_free_fast_reg_page_list(d.drv, &pl));
        EXPECT_EQ(0u, pl.handle);
        EXPECT_FALSE(hostmem_backed(d.mem, copy.bus_addr, 8)) << "the memory is freed";
        EXPECT_EQ(-EINVAL, hcadrv_free_fast_reg_page_list(d.drv, &copy)) << "double free";
        EXPECT_EQ(-EINVAL, hcadrv_page_list_set(&copy, 0, 0x1000)) << "set after free";
    }
    // Many lists at once (the driver's table grows), each its own memory.
    std::vector<hcadrv_page_list_t> many(40);
    for (auto &p : many)
        ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(d.drv, 2, &p));
    for (size_t i = 0; i < many.size(); i++)
        ASSERT_EQ(0, hcadrv_page_list_set(&many[i], 1, 0x5000 + i));
    for (size_t i = 0; i < many.size(); i++)
        EXPECT_EQ(0x5000 + i, d.read64(many[i].bus_addr + 8));
    for (auto &p : many)
        ASSERT_EQ(0, hcadrv_free_fast_reg_page_list(d.drv, &p));
}

// ---------------------------------------------------------------- the key byte

TEST(FastRegApiKey, UpdateChangesOnlyTheKeyByteOfBothKeys)
{
    hcadrv_mr_t mr;
    memset(&mr, 0, sizeof mr);
    mr.lkey = 0x12345678;
    mr.rkey = 0x9abcdef0;
    mr.iova = 77;
    hcadrv_update_fast_reg_key(&mr, 0xab);
    EXPECT_EQ(0x123456abu, mr.lkey);
    EXPECT_EQ(0x9abcdeabu, mr.rkey);
    EXPECT_EQ(77u, mr.iova);
    hcadrv_update_fast_reg_key(&mr, 0);
    EXPECT_EQ(0x12345600u, mr.lkey);
    EXPECT_EQ(0x9abcde00u, mr.rkey);
}

TEST_P(FastRegApi, UpdateFastRegKeyChangesTheDriversCopyNotTheDevice)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_mr_t f;
    ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, 16, &f));
    const uint32_t key = f.lkey;
    const uint64_t t0 = hca_dev_cycle(d.dev);
    hcadrv_update_fast_reg_key(&f, 90);
    EXPECT_EQ(t0, hca_dev_cycle(d.dev)) << "no device access";
    EXPECT_EQ((key & ~0xffu) | 90u, f.lkey);
    EXPECT_EQ(f.lkey, f.rkey);
    hca_mpt_entry_t e;
    ASSERT_EQ(0, hcadrv_query_mkey(d.drv, key >> HCA_KEY_INDEX_SHIFT, &e));
    EXPECT_EQ(key, e.key) << "the device keeps its key until a FAST_REG_MR carries the new one";
    hcadrv_update_fast_reg_key(&f, (uint8_t)key);
    EXPECT_EQ(0, hcadrv_dereg_mr(d.drv, &f));
}

// ---------------------------------------------------------------- get_dma_mr

TEST_P(FastRegApi, GetDmaMrIsTheReservedLkeyValidInEveryPd)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a));
    ASSERT_TRUE(a.reserved_lkey_valid);
    ASSERT_EQ((uint32_t)HCA_RESERVED_LKEY, a.reserved_lkey);
    uint32_t pd0 = 0, pd1 = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd0));
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd1));

    hcadrv_mr_t m0, m1;
    uint64_t t0 = hca_dev_cycle(d.dev);
    ASSERT_EQ(0, hcadrv_get_dma_mr(d.drv, pd0, &m0));
    ASSERT_EQ(0, hcadrv_get_dma_mr(d.drv, pd1, &m1));
    EXPECT_EQ(t0, hca_dev_cycle(d.dev)) << "no mailbox command";
    for (const hcadrv_mr_t *m : {&m0, &m1}) {
        EXPECT_EQ(a.reserved_lkey, m->lkey);
        EXPECT_EQ(0u, m->rkey) << "no R_Key";
        EXPECT_EQ((unsigned)HCA_MKEY_KIND_DMA, m->kind);
        EXPECT_EQ((uint32_t)HCA_ACCESS_LOCAL_WRITE, m->access);
    }
    EXPECT_EQ(pd0, m0.pd);
    EXPECT_EQ(pd1, m1.pd);

    // Bus addresses, no translation, any PD (even one never allocated), local read and write.
    const uint64_t buf = d.alloc(3 * 4096);
    for (uint32_t pd : {pd0, pd1, 0x3ffu}) {
        for (uint8_t rights : {(uint8_t)0, (uint8_t)HCA_ACCESS_LOCAL_WRITE}) {
            SCOPED_TRACE("pd " + std::to_string(pd) + " rights " + std::to_string(rights));
            auto beats = d.translate(m0.lkey, pd, buf + 100, 2 * 4096, rights);
            ASSERT_FALSE(beats.empty());
            uint64_t at = buf + 100, total = 0;
            for (const auto &s : beats) {
                EXPECT_EQ((unsigned)HCA_XLATE_STATUS_OK, s.status);
                EXPECT_EQ(at, s.pa) << "untranslated";
                at += s.len;
                total += s.len;
            }
            EXPECT_EQ(2u * 4096, total);
        }
    }
    auto remote = d.translate(m0.lkey, pd0, buf, 64, HCA_ACCESS_REMOTE_READ, 1);
    ASSERT_FALSE(remote.empty());
    EXPECT_EQ((unsigned)HCA_XLATE_STATUS_ERR_KEY, remote.back().status) << "no R_Key";

    // dereg is a no-op success (no slot); the key keeps working for others.
    t0 = hca_dev_cycle(d.dev);
    EXPECT_EQ(0, hcadrv_dereg_mr(d.drv, &m0));
    EXPECT_EQ(0, hcadrv_dereg_mr(d.drv, &m1));
    EXPECT_EQ(t0, hca_dev_cycle(d.dev)) << "no mailbox command";
    auto after = d.translate(m1.lkey, pd1, buf, 64, HCA_ACCESS_LOCAL_WRITE);
    ASSERT_FALSE(after.empty());
    EXPECT_EQ((unsigned)HCA_XLATE_STATUS_OK, after.back().status);
    // No MPT slot was taken: the first regular MR is index 1.
    hcadrv_mr_t r;
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd0, buf, 4096, buf, HCA_ACCESS_LOCAL_WRITE, 12, &r));
    EXPECT_EQ(1u, r.lkey >> HCA_KEY_INDEX_SHIFT);
    EXPECT_EQ(0, hcadrv_dereg_mr(d.drv, &r));
    EXPECT_EQ(-EINVAL, hcadrv_get_dma_mr(d.drv, pd0, nullptr));
}

INSTANTIATE_TEST_SUITE_P(Engines, FastRegApi, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) {
                             return std::string(dev_engine_name(i.param));
                         });

// ---------------------------------------------------------------- posting (RTL: the WQE engine)

// A connected loopback pair on the RTL engine, one CQ for both QPs' queues.
struct Pair : Dev {
    uint32_t pd = 0;
    hcadrv_cq_t cq{};
    hcadrv_qp_t a{}, b{};
    bool up = false;
    std::string why;

    Pair() : Dev(DEV_ENGINE_RTL)
    {
        if (!ok())
            return;
        auto step = [&](const char *what, int rc) {
            if (rc && why.empty())
                why = std::string(what) + ": " + strerror(-rc);
            return rc == 0;
        };
        if (!step("alloc_pd", hcadrv_alloc_pd(drv, &pd)) || !step("create_cq", hcadrv_create_cq(drv, 64, &cq)))
            return;
        hcadrv_qp_attr_t at = {pd, &cq, &cq, 16, 16, 7, 500, 0};
        if (!step("create_qp a", hcadrv_create_qp(drv, &at, &a)) || !step("create_qp b", hcadrv_create_qp(drv, &at, &b)) ||
            !step("connect", hcadrv_connect(drv, &a, &b)))
            return;
        up = true;
    }
    hca_sq_wqe_t wqe(const hcadrv_qp_t &qp, uint32_t index)
    {
        hca_sq_wqe_t w;
        memset(&w, 0, sizeof w);
        uint64_t at = qp.sq_base + (uint64_t)(index & ((1u << qp.sq_log) - 1)) * sizeof w;
        EXPECT_EQ(0, hostmem_read(mem, at, &w, sizeof w));
        return w;
    }
    // Poll (stepping the device) until n completions came.
    std::vector<hcadrv_wc_t> wait(size_t n, uint64_t timeout = 2000000) { return Dev::wait(&cq, n, timeout); }
};

#define ASSERT_PAIR_UP(p) ASSERT_TRUE((p).up) << "setup failed: " << (p).why << (p).err << "\n" << (p).console()

hcadrv_send_wr_t fast_reg_wr(uint64_t wr_id, const hcadrv_mr_t &mr, const hcadrv_page_list_t *pl, unsigned len,
                             unsigned flags = HCA_SEND_FLAGS_SIGNALED)
{
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id;
    wr.opcode = HCA_WR_OPCODE_FAST_REG_MR;
    wr.flags = flags;
    wr.page_list = pl;
    wr.fr_list = 0xdead0000ull; // ignored when page_list is set
    wr.fr_key = mr.lkey;
    wr.fr_iova = 0x7000123ull;
    wr.fr_length = 3 * 4096 - 0x123;
    wr.fr_page_shift = 12;
    wr.fr_access = RW;
    wr.fr_list_len = len;
    return wr;
}

TEST(FastRegApiPost, TheWqeCarriesThePageListAndTheDriverOwnsItUntilTheWrCompletes)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t f;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 16, &f));
    hcadrv_update_fast_reg_key(&f, 0x42);
    const uint64_t buf = p.alloc(3 * 4096);
    hcadrv_page_list_t pl;
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 3, &pl));
    for (uint32_t i = 0; i < 3; i++)
        ASSERT_EQ(0, hcadrv_page_list_set(&pl, i, buf + 4096ull * i));

    // Refused before anything is written: a list on another opcode, a length past the list.
    hcadrv_send_wr_t wr = fast_reg_wr(1, f, &pl, pl.max_page_list_len + 1);
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "fr_list_len above the list";
    wr = fast_reg_wr(1, f, &pl, 3);
    wr.opcode = HCA_WR_OPCODE_LOCAL_INV;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "a page list on LOCAL_INV";
    hcadrv_page_list_t bogus = pl;
    bogus.handle = 999;
    wr = fast_reg_wr(1, f, &bogus, 3);
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "unknown handle";
    EXPECT_EQ(0u, p.a.sq_pi);

    // A valid registration of f: 3 pages, iova 0x123 into the first.
    wr = fast_reg_wr(7, f, &pl, 3);
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    ASSERT_EQ(1u, p.a.sq_pi);
    hca_sq_wqe_t w = p.wqe(p.a, 0);
    EXPECT_EQ((unsigned)HCA_WR_OPCODE_FAST_REG_MR, hca_sq_wqe_get_opcode(&w));
    EXPECT_EQ((unsigned)HCA_SEND_FLAGS_SIGNALED, hca_sq_wqe_get_flags(&w));
    EXPECT_EQ(0u, hca_sq_wqe_get_num_sge(&w));
    EXPECT_EQ(7u, w.wr_id);
    EXPECT_EQ(pl.bus_addr, w.fr_list) << "the page list's bus address, not wr.fr_list";
    EXPECT_EQ(f.lkey, w.fr_key);
    EXPECT_EQ(0x42u, w.fr_key & 0xff);
    EXPECT_EQ(0x7000123ull, w.fr_iova);
    EXPECT_EQ(3ull * 4096 - 0x123, w.fr_length);
    EXPECT_EQ(12u, hca_sq_wqe_get_fr_page_shift(&w));
    EXPECT_EQ(RW, hca_sq_wqe_get_fr_access(&w));
    EXPECT_EQ(3u, hca_sq_wqe_get_fr_list_len(&w));
    EXPECT_EQ(0u, w.inv_key);
    EXPECT_EQ(0u, w.remote_addr);

    // Outstanding: the driver owns the list.
    EXPECT_EQ(-EBUSY, hcadrv_free_fast_reg_page_list(p.drv, &pl));
    EXPECT_EQ(-EBUSY, hcadrv_page_list_set(&pl, 0, 0x9000));
    EXPECT_EQ(buf, p.read64(pl.bus_addr)) << "the refused set wrote nothing";
    wr = fast_reg_wr(8, f, &pl, 3);
    EXPECT_EQ(-EBUSY, hcadrv_post_send(p.drv, &p.a, &wr)) << "one outstanding WR per page list";
    EXPECT_EQ(1u, p.a.sq_pi);
    // Even when the device has answered, the list stays owned until the CQE is polled.
    hca_dev_step(p.dev, 20000);
    EXPECT_EQ(-EBUSY, hcadrv_free_fast_reg_page_list(p.drv, &pl));

    // The raw path still works: fr_list as given, no page list (the device
    // refuses this one: f is VALID after WR 7).
    hcadrv_send_wr_t raw = fast_reg_wr(9, f, nullptr, 5);
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &raw));
    w = p.wqe(p.a, 1);
    EXPECT_EQ(0xdead0000ull, w.fr_list);
    EXPECT_EQ(5u, hca_sq_wqe_get_fr_list_len(&w));
    // LOCAL_INV and SEND_WITH_INV carry inv_key.
    hcadrv_send_wr_t inv;
    memset(&inv, 0, sizeof inv);
    inv.wr_id = 10;
    inv.opcode = HCA_WR_OPCODE_LOCAL_INV;
    inv.flags = HCA_SEND_FLAGS_SIGNALED;
    inv.inv_key = f.lkey;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &inv));
    w = p.wqe(p.a, 2);
    EXPECT_EQ((unsigned)HCA_WR_OPCODE_LOCAL_INV, hca_sq_wqe_get_opcode(&w));
    EXPECT_EQ(f.lkey, w.inv_key);
    inv.wr_id = 11;
    inv.opcode = HCA_WR_OPCODE_SEND_WITH_INV;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &inv));
    w = p.wqe(p.a, 3);
    EXPECT_EQ((unsigned)HCA_WR_OPCODE_SEND_WITH_INV, hca_sq_wqe_get_opcode(&w));
    EXPECT_EQ(f.lkey, w.inv_key);

    // Every one completes: WR 7 registers f (SUCCESS); WR 9 re-registers the
    // now VALID f, refused MW_BIND_ERR with the QP to ERROR; 10 and 11 are
    // flushed. WR 7's completion ends the driver's ownership of the list.
    auto c = p.wait(4);
    ASSERT_EQ(4u, c.size()) << p.console();
    const struct {
        uint64_t wr_id;
        unsigned status;
    } want[4] = {{7, HCA_WC_STATUS_SUCCESS},
                 {9, HCA_WC_STATUS_MW_BIND_ERR},
                 {10, HCA_WC_STATUS_WR_FLUSH_ERR},
                 {11, HCA_WC_STATUS_WR_FLUSH_ERR}};
    for (size_t i = 0; i < 4; i++) {
        EXPECT_EQ(want[i].wr_id, c[i].wr_id) << i;
        EXPECT_EQ(p.a.qpn, c[i].qpn) << i;
        EXPECT_EQ(want[i].status, (unsigned)c[i].status)
            << "wr " << c[i].wr_id << ": " << hca_wc_status_name(c[i].status) << "\n" << p.console();
    }
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_FAST_REG_MR, (unsigned)c[0].opcode);
    EXPECT_EQ(0, hcadrv_page_list_set(&pl, 0, buf)) << "the WR completed: the consumer may change the list";
    EXPECT_EQ(0, hcadrv_free_fast_reg_page_list(p.drv, &pl));
}

// The WR names its MR (wr.mr) apart from the key it carries: the WQE's rkey
// is the MR's key as the driver holds it, or fr_key when no MR is given.
TEST(FastRegApiPost, TheWqesRkeyNamesTheMrTheWrRegisters)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t f, g;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 4, &f));
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 4, &g));
    ASSERT_NE(f.lkey >> HCA_KEY_INDEX_SHIFT, g.lkey >> HCA_KEY_INDEX_SHIFT);
    const uint32_t f_before = f.lkey;
    hcadrv_update_fast_reg_key(&f, 0x42);
    const uint64_t buf = p.alloc(3 * 4096);
    hcadrv_page_list_t pl;
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 3, &pl));
    for (uint32_t i = 0; i < 3; i++)
        ASSERT_EQ(0, hcadrv_page_list_set(&pl, i, buf + 4096ull * i));

    // The seed's way (no MR given): the MR is fr_key's.
    hcadrv_send_wr_t wr = fast_reg_wr(1, f, nullptr, 3);
    wr.fr_list = pl.bus_addr;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    hca_sq_wqe_t w = p.wqe(p.a, 0);
    EXPECT_EQ(wr.fr_key, w.rkey) << std::hex << "no MR given: rkey = fr_key 0x" << wr.fr_key << ", got 0x" << w.rkey;
    auto c = p.wait(1);
    ASSERT_EQ(1u, c.size()) << p.console();
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, c[0].status) << p.console();

    // The MR named: its key as the driver holds it (here not the key the device
    // holds, which only the index matters for), fr_key as given.
    wr = fast_reg_wr(2, g, nullptr, 3);
    wr.fr_list = pl.bus_addr;
    wr.mr = &g;
    hcadrv_update_fast_reg_key(&g, 0x17);
    wr.fr_key = g.lkey;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    w = p.wqe(p.a, 1);
    EXPECT_EQ(g.lkey, w.rkey) << std::hex << "rkey = the MR's key 0x" << g.lkey << ", got 0x" << w.rkey;
    EXPECT_EQ(g.lkey, w.fr_key);
    c = p.wait(1);
    ASSERT_EQ(1u, c.size()) << p.console();
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, c[0].status) << p.console();

    // A key of another MR than the one named: posted as given (the device
    // refuses it MW_BIND_ERR, SEMANTICS.md FAST_REG_MR), g left as it was.
    hcadrv_mr_t h;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 4, &h));
    wr = fast_reg_wr(3, h, nullptr, 3);
    wr.fr_list = pl.bus_addr;
    wr.mr = &f; // f is VALID: named with h's key, the index rule comes first
    wr.fr_key = (h.lkey & ~0xffu) | 0x99;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    w = p.wqe(p.a, 2);
    EXPECT_EQ(f.lkey, w.rkey) << std::hex << "rkey = the named MR's key 0x" << f.lkey << ", got 0x" << w.rkey;
    EXPECT_EQ(wr.fr_key, w.fr_key);
    EXPECT_NE(f_before, w.rkey) << "the driver's copy (after update_fast_reg_key), not the key at alloc";
    c = p.wait(1);
    ASSERT_EQ(1u, c.size()) << p.console();
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, c[0].status) << p.console();
    EXPECT_NE(std::string::npos, p.console().find("the WR's key index differs from the MR's")) << p.console();

    // Only the registrations write it: an RDMA WRITE's rkey is its own.
    hcadrv_send_wr_t wr2;
    memset(&wr2, 0, sizeof wr2);
    wr2.opcode = HCA_WR_OPCODE_RDMA_WRITE;
    wr2.rkey = 0x1234;
    wr2.mr = &f;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr2));
    w = p.wqe(p.a, 3);
    EXPECT_EQ(0x1234u, w.rkey) << "RDMA WRITE: wr.rkey, wr.mr ignored";
}

TEST(FastRegApiPost, AnUnsignaledWrReleasesItsListWithALaterCqeOrItsQpsDestruction)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t f;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 8, &f));
    hcadrv_page_list_t pl, pl2;
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 2, &pl));
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 2, &pl2));
    const uint64_t buf = p.alloc(2 * 4096);
    for (uint32_t i = 0; i < 2; i++) {
        ASSERT_EQ(0, hcadrv_page_list_set(&pl, i, buf + 4096ull * i));
        ASSERT_EQ(0, hcadrv_page_list_set(&pl2, i, buf + 4096ull * i));
    }
    // An unsignaled registration that succeeds (two pages: iova 0x123 into
    // the first), so it writes no CQE of its own.
    hcadrv_send_wr_t wr = fast_reg_wr(1, f, &pl, 2, 0);
    wr.fr_length = 2 * 4096 - 0x123;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    EXPECT_EQ(-EBUSY, hcadrv_free_fast_reg_page_list(p.drv, &pl));
    // A signaled WR behind it (LOCAL_INV of the key it registers): its CQE
    // retires both.
    hcadrv_send_wr_t s;
    memset(&s, 0, sizeof s);
    s.wr_id = 3;
    s.opcode = HCA_WR_OPCODE_LOCAL_INV;
    s.flags = HCA_SEND_FLAGS_SIGNALED;
    s.inv_key = f.lkey;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &s));
    auto c1 = p.wait(1);
    ASSERT_EQ(1u, c1.size()) << p.console();
    EXPECT_EQ(3u, c1[0].wr_id) << "the unsignaled registration succeeded: no CQE of its own";
    EXPECT_EQ(p.a.qpn, c1[0].qpn);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, (unsigned)c1[0].status)
        << hca_wc_status_name(c1[0].status) << "\n" << p.console();
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_LOCAL_INV, (unsigned)c1[0].opcode);
    EXPECT_EQ(0, hcadrv_free_fast_reg_page_list(p.drv, &pl));

    // pl2 on a self-connected QP c with a CQ of its own that is never polled:
    // released when c is destroyed.
    hcadrv_cq_t cq2;
    ASSERT_EQ(0, hcadrv_create_cq(p.drv, 16, &cq2));
    hcadrv_qp_attr_t at = {p.pd, &cq2, &cq2, 16, 16, 7, 500, 0};
    hcadrv_qp_t c;
    ASSERT_EQ(0, hcadrv_create_qp(p.drv, &at, &c));
    ASSERT_EQ(0, hcadrv_connect(p.drv, &c, &c));
    wr = fast_reg_wr(2, f, &pl2, 2);
    wr.fr_length = 2 * 4096 - 0x123;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &c, &wr));
    hca_dev_step(p.dev, 20000);
    EXPECT_EQ(-EBUSY, hcadrv_free_fast_reg_page_list(p.drv, &pl2)) << "no CQE polled";
    int rc = hcadrv_destroy_qp(p.drv, &c);
    ASSERT_EQ(0, rc) << strerror(-rc);
    EXPECT_EQ(0, hcadrv_free_fast_reg_page_list(p.drv, &pl2)) << "the QP is gone: so is its hold";
}

// After a registration WR is posted the consumer's copy of its MR holds the
// registration (the runner and consumers rely on it, as on ib_map_mr_sg): the
// new key byte, iova, length and access. A key on another index (refused by
// the device) leaves the copy's keys, and a WR naming a regular MR leaves it
// untouched.
TEST(FastRegApiPost, ThePostedRegistrationIsTheMrCopys)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_mr_t f, g;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 16, &f));
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_FAST_REG, 16, &g));
    hcadrv_page_list_t pl;
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 3, &pl));
    const uint32_t old_key = f.lkey;
    hcadrv_send_wr_t wr = fast_reg_wr(1, f, &pl, 3);
    wr.fr_key = (f.lkey & ~0xffu) | 0x9c;
    wr.mr = &f;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    EXPECT_EQ((old_key & ~0xffu) | 0x9c, f.lkey);
    EXPECT_EQ(f.lkey, f.rkey);
    EXPECT_EQ(0x7000123ull, f.iova);
    EXPECT_EQ(3ull * 4096 - 0x123, f.length);
    EXPECT_EQ(RW, f.access);
    auto wc = p.wait(1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(HCA_WC_STATUS_SUCCESS, wc[0].status) << describe(wc[0]);

    const hcadrv_mr_t before = g;
    wr = fast_reg_wr(2, g, &pl, 3);
    wr.fr_key = f.lkey; // another MR's index: the device refuses it
    wr.mr = &g;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    EXPECT_EQ(before.lkey, g.lkey) << "a key on another index is not this MR's";
    EXPECT_EQ(0x7000123ull, g.iova);
    wc = p.wait(1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(HCA_WC_STATUS_MW_BIND_ERR, wc[0].status) << describe(wc[0]);

    // A FAST_REG_MR naming a regular MR: its copy is not a fast-reg MR's to take.
    const uint64_t buf = p.alloc(4096);
    hcadrv_mr_t reg;
    ASSERT_EQ(0, hcadrv_reg_mr(p.drv, p.pd, buf, 4096, buf, RW, 12, &reg));
    const hcadrv_mr_t reg_before = reg;
    wr = fast_reg_wr(3, reg, &pl, 3);
    wr.mr = &reg;
    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    EXPECT_EQ(0, memcmp(&reg_before, &reg, sizeof reg)) << "a regular MR's copy changed";
    wc = p.wait(1);
    ASSERT_EQ(1u, wc.size());
    EXPECT_EQ(HCA_WC_STATUS_WR_FLUSH_ERR, wc[0].status) << "the QP is in ERROR since the refusal: " << describe(wc[0]);
}

// KLM lists: the driver allocates them in device-readable memory, writes
// entries through, carries their bus address in REG_INDIR_MR and owns them
// until the WR completes, as page lists.
TEST(FastRegApiPost, KlmListsAreAllocatedWrittenCarriedAndOwnedLikePageLists)
{
    Pair p;
    ASSERT_PAIR_UP(p);
    hcadrv_device_attr_t attr;
    ASSERT_EQ(0, hcadrv_query_device(p.drv, &attr));
    hcadrv_indir_reg_list_t l;
    EXPECT_EQ(-EINVAL, hcadrv_alloc_indir_reg_list(p.drv, 0, &l));
    EXPECT_EQ(-EINVAL, hcadrv_alloc_indir_reg_list(p.drv, attr.max_indir_reg_list_len + 1, &l));
    ASSERT_EQ(0, hcadrv_alloc_indir_reg_list(p.drv, 2, &l));
    EXPECT_EQ(2u, l.max_indir_list_len);
    const hca_sge_t e0 = {0x100003001ull, 77, 0x12345601}, e1 = {0x100005000ull, 4096, 0x22222201};
    ASSERT_EQ(0, hcadrv_indir_reg_list_set(&l, 0, &e0));
    ASSERT_EQ(0, hcadrv_indir_reg_list_set(&l, 1, &e1));
    EXPECT_EQ(-EINVAL, hcadrv_indir_reg_list_set(&l, 2, &e1)) << "past the list";
    hca_sge_t got[2];
    ASSERT_EQ(0, hostmem_read(p.mem, l.bus_addr, got, sizeof got));
    EXPECT_EQ(0, memcmp(&e0, &got[0], sizeof e0));
    EXPECT_EQ(0, memcmp(&e1, &got[1], sizeof e1));

    hcadrv_mr_t ind;
    ASSERT_EQ(0, hcadrv_alloc_mr(p.drv, p.pd, HCA_MKEY_KIND_INDIRECT, 4, &ind));
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = 5;
    wr.opcode = HCA_WR_OPCODE_REG_INDIR_MR;
    wr.flags = HCA_SEND_FLAGS_SIGNALED;
    wr.fr_key = ind.lkey;
    wr.mr = &ind;
    wr.fr_iova = 0x9000;
    wr.fr_length = 77 + 4096;
    wr.fr_access = RW;
    wr.fr_list_len = 3;
    wr.indir_list = &l;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "fr_list_len above the list";
    wr.fr_list_len = 2;
    hcadrv_page_list_t pl;
    ASSERT_EQ(0, hcadrv_alloc_fast_reg_page_list(p.drv, 2, &pl));
    wr.page_list = &pl;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "a page list and a KLM list";
    wr.page_list = nullptr;
    hcadrv_indir_reg_list_t as_klm = {p.drv, pl.bus_addr, pl.max_page_list_len, pl.handle};
    wr.indir_list = &as_klm;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "a page list's handle is no KLM list";
    wr.indir_list = &l;
    wr.opcode = HCA_WR_OPCODE_FAST_REG_MR;
    EXPECT_EQ(-EINVAL, hcadrv_post_send(p.drv, &p.a, &wr)) << "a KLM list on FAST_REG_MR";
    wr.opcode = HCA_WR_OPCODE_REG_INDIR_MR;
    EXPECT_EQ(0u, p.a.sq_pi);

    ASSERT_EQ(0, hcadrv_post_send(p.drv, &p.a, &wr));
    hca_sq_wqe_t w = p.wqe(p.a, 0);
    EXPECT_EQ(l.bus_addr, w.fr_list);
    EXPECT_EQ(2u, hca_sq_wqe_get_fr_list_len(&w));
    EXPECT_EQ(0x9000ull, ind.iova) << "the indirect MR's copy took the registration";
    EXPECT_EQ(-EBUSY, hcadrv_indir_reg_list_set(&l, 0, &e1)) << "owned while the WR is outstanding";
    EXPECT_EQ(-EBUSY, hcadrv_free_indir_reg_list(p.drv, &l));
    auto wc = p.wait(1);
    ASSERT_EQ(1u, wc.size()) << "REG_INDIR_MR did not complete";
    EXPECT_EQ(5u, wc[0].wr_id);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, (unsigned)wc[0].status)
        << hca_wc_status_name(wc[0].status) << "\n" << p.console();
    EXPECT_EQ(0, hcadrv_free_indir_reg_list(p.drv, &l)) << "completed: the list is the consumer's again";
    EXPECT_EQ(0u, l.handle);
    EXPECT_EQ(-EINVAL, hcadrv_free_indir_reg_list(p.drv, &l));
}

} // namespace
