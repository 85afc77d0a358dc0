// The device end to end: firmware booted from its ELF on the RV32IM core,
// driven through the HCR mailbox by the reference driver, changing the
// translation unit's tables through its firmware port — on both engines.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "dev_fixture.h"
#include "elf_build.h"
#include "hca_dev.h"
#include "hcadrv.h"
#include "rv32_asm.h"

namespace {

std::string engine_name(dev_engine_kind_t k)
{
    return dev_engine_name(k);
}

using Dev = DevFixture;

class Device : public ::testing::TestWithParam<dev_engine_kind_t> {
};

TEST_P(Device, BootsPrintsItsBannerAndIdlesWithoutTrapping)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    // Boot zeroes ~100 KiB of bookkeeping tables: give it up to 1M cycles.
    for (int i = 0; i < 100 && d.console().find("hcafw: idle\n") == std::string::npos; i++)
        hca_dev_step(d.dev, 10000);
    const std::string con = d.console();
    RecordProperty("boot_cycles", std::to_string(hca_dev_cycle(d.dev)));
    EXPECT_EQ(0u, con.rfind("hcafw: firmware core up, fw_version 1.0", 0)) << con;
    EXPECT_NE(std::string::npos, con.find("hcafw: idle\n")) << con;
    EXPECT_EQ("running", d.health());
    // Asleep in wfi: more time, no more instructions.
    uint64_t n = hca_dev_fw_instret(d.dev);
    hca_dev_step(d.dev, 5000);
    EXPECT_EQ(n, hca_dev_fw_instret(d.dev)) << "the idle firmware should sleep, not spin";
}

TEST_P(Device, QueryDeviceReportsWhatTheDeviceServes)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    hcadrv_device_attr_t a;
    ASSERT_EQ(0, hcadrv_query_device(d.drv, &a)) << d.console();
    EXPECT_EQ(HCA_FW_VERSION, a.fw_version);
    EXPECT_TRUE(a.reserved_lkey_valid);
    EXPECT_EQ(HCA_RESERVED_LKEY, a.reserved_lkey);
    // Both engines serve the memory-management WRs, indirect registration
    // (the translation unit walks KLM lists) and peer invalidation (the
    // default device is strapped with it, and with the deepest KLM walk).
    EXPECT_TRUE(a.mem_mgt_extensions);
    EXPECT_TRUE(a.read_with_inv);
    EXPECT_TRUE(a.indir_reg);
    EXPECT_TRUE(a.peer_memory);
    EXPECT_EQ(HCA_MAX_INDIR_REG_LIST_LEN, a.max_indir_reg_list_len);
    EXPECT_EQ(HCA_MAX_INDIRECTION, a.max_indirection);
    EXPECT_EQ(HCA_MAX_FAST_REG_PAGE_LIST_LEN, a.max_fast_reg_page_list_len);
    EXPECT_EQ(HCA_MPT_ENTRIES_DEFAULT - 1, a.max_mr) << "index 0 is never an MR";
    EXPECT_EQ(HCA_MTT_ENTRIES_DEFAULT, a.max_mtt);
    for (unsigned s = 0; s < 32; s++)
        EXPECT_EQ(s >= HCA_PAGE_SHIFT_MIN && s <= HCA_PAGE_SHIFT_MAX, !!(a.page_shifts & (1u << s))) << "shift " << s;
}

TEST_P(Device, ProtectionDomainsAreUniqueAndCannotBeFreedWhileUsed)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t a = 0, b = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &a));
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &b));
    EXPECT_NE(a, b);
    EXPECT_NE(0u, a);
    hcadrv_mr_t mr;
    ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, a, HCA_MKEY_KIND_FAST_REG, 4, &mr));
    EXPECT_EQ(-EBUSY, hcadrv_dealloc_pd(d.drv, a)) << "an MR still uses the PD";
    EXPECT_EQ(HCA_CMD_STATUS_BUSY, hcadrv_last_status(d.drv));
    ASSERT_EQ(0, hcadrv_dereg_mr(d.drv, &mr));
    EXPECT_EQ(0, hcadrv_dealloc_pd(d.drv, a));
    // Not allocated (freed twice, never a PD): EINVAL (SEMANTICS.md "QP, CQ and
    // PD lifecycle"); the device's answer is BAD_INDEX.
    EXPECT_EQ(-EINVAL, hcadrv_dealloc_pd(d.drv, a)) << "freed twice";
    EXPECT_EQ(HCA_CMD_STATUS_BAD_INDEX, hcadrv_last_status(d.drv));
    EXPECT_EQ(-EINVAL, hcadrv_dealloc_pd(d.drv, 0));
    EXPECT_EQ(-EINVAL, hcadrv_dealloc_pd(d.drv, 0xffffff));
    hcadrv_mr_t m2;
    EXPECT_EQ(-ENOENT, hcadrv_alloc_mr(d.drv, a, HCA_MKEY_KIND_FAST_REG, 4, &m2)) << "MR in a freed PD";
}

TEST_P(Device, RegularRegistrationTranslatesToTheHostPages)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    uint64_t buf = 0;
    ASSERT_EQ(0, hostmem_alloc(d.mem, 3 * 4096, 4096, &buf));
    const uint64_t iova = 0x7f0000001000ull + 0x100, addr = buf + 0x100, len = 2 * 4096 + 0x80;
    hcadrv_mr_t mr;
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, addr, len, iova, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ, 12, &mr))
        << d.console();
    EXPECT_EQ(mr.lkey, mr.rkey);

    hca_mpt_entry_t e;
    ASSERT_EQ(0, hcadrv_query_mkey(d.drv, mr.lkey >> 8, &e));
    EXPECT_EQ(1u, hca_mpt_entry_get_alloc(&e));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&e));
    EXPECT_EQ((unsigned)HCA_MKEY_KIND_REGULAR, hca_mpt_entry_get_kind(&e));
    EXPECT_EQ(mr.lkey, e.key);
    EXPECT_EQ(pd, e.pd);
    EXPECT_EQ(iova, e.iova);
    EXPECT_EQ(len, e.length);
    EXPECT_EQ(3u, e.mtt_count);
    EXPECT_EQ(12u, hca_mpt_entry_get_page_shift(&e));

    // A write over the whole MR lands on the three host pages in order.
    std::vector<xu_seg_t> s = d.translate(mr.lkey, pd, iova, (uint32_t)len, HCA_ACCESS_LOCAL_WRITE);
    ASSERT_EQ(3u, s.size());
    EXPECT_EQ(addr, s[0].pa);
    EXPECT_EQ(4096u - 0x100, s[0].len);
    EXPECT_EQ(buf + 4096, s[1].pa);
    EXPECT_EQ(4096u, s[1].len);
    EXPECT_EQ(buf + 8192, s[2].pa);
    EXPECT_EQ(0x180u, s[2].len);
    for (const xu_seg_t &b : s)
        EXPECT_EQ(HCA_XLATE_STATUS_OK, b.status);
    // The rights it was given, and only those.
    EXPECT_EQ(HCA_XLATE_STATUS_OK, d.translate(mr.rkey, pd, iova, 8, HCA_ACCESS_REMOTE_READ, 1).back().status);
    EXPECT_EQ(HCA_XLATE_STATUS_ERR_RIGHTS,
              d.translate(mr.rkey, pd, iova, 8, HCA_ACCESS_REMOTE_WRITE, 1).back().status);
}

TEST_P(Device, FastRegAndIndirectMrsStartFreeWithTheirListSpace)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    hcadrv_mr_t f, ind;
    ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, 16, &f));
    ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_INDIRECT, 8, &ind));
    hca_mpt_entry_t e;
    ASSERT_EQ(0, hcadrv_query_mkey(d.drv, f.lkey >> 8, &e));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, hca_mpt_entry_get_state(&e));
    EXPECT_EQ((unsigned)HCA_MKEY_KIND_FAST_REG, hca_mpt_entry_get_kind(&e));
    EXPECT_EQ(16u, e.mtt_count);
    ASSERT_EQ(0, hcadrv_query_mkey(d.drv, ind.lkey >> 8, &e));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, hca_mpt_entry_get_state(&e));
    EXPECT_EQ((unsigned)HCA_MKEY_MODE_KLM, hca_mpt_entry_get_mode(&e));
    EXPECT_EQ(16u, e.mtt_count) << "8 KLM entries take two MTT words each";
    EXPECT_EQ(HCA_XLATE_STATUS_ERR_STATE, d.translate(f.lkey, pd, 0, 8).back().status) << "FREE until registered";
    hcadrv_mr_t bad;
    EXPECT_EQ(0, hcadrv_cmd(d.drv, HCA_CMD_OP_NOP, 0, 0, 0, nullptr));
    uint32_t too_many = HCA_MAX_FAST_REG_PAGE_LIST_LEN + 1;
    EXPECT_EQ(-EINVAL, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, too_many, &bad));
    EXPECT_EQ(HCA_CMD_STATUS_BAD_PARAM, hcadrv_last_status(d.drv)) << "the firmware refused it, not the driver";
    EXPECT_EQ(-EINVAL, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_INDIRECT, HCA_MAX_INDIR_REG_LIST_LEN + 1, &bad));
}

// Raw CREATE_MKEY commands with one bad argument each: refused with the
// right status, and no slot left allocated behind.
TEST_P(Device, BadCreateMkeyArgumentsAreRefusedAndLeaveNothingBehind)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    uint64_t in = 0, pages = 0, buf = 0;
    ASSERT_EQ(0, hostmem_alloc(d.mem, 4096, 4096, &in));
    ASSERT_EQ(0, hostmem_alloc(d.mem, 4096, 4096, &pages));
    ASSERT_EQ(0, hostmem_alloc(d.mem, 4 * 4096, 4096, &buf));
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t p = buf + i * 4096;
        ASSERT_EQ(0, hostmem_write(d.mem, pages + 8 * i, &p, 8));
    }
    auto good = [&]() {
        hca_create_mkey_in_t c;
        memset(&c, 0, sizeof c);
        c.pd = pd;
        hca_create_mkey_in_set_kind(&c, HCA_MKEY_KIND_REGULAR);
        hca_create_mkey_in_set_access(&c, HCA_ACCESS_LOCAL_WRITE);
        hca_create_mkey_in_set_page_shift(&c, 12);
        c.iova = 0x10000;
        c.length = 4 * 4096;
        c.page_list = pages;
        c.npages = 4;
        return c;
    };
    struct Case {
        const char *what;
        void (*mutate)(hca_create_mkey_in_t &, uint64_t);
        int rc;
        unsigned status;
    };
    const Case cases[] = {
        {"remote write without local write",
         [](hca_create_mkey_in_t &c, uint64_t) { hca_create_mkey_in_set_access(&c, HCA_ACCESS_REMOTE_WRITE); },
         -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
        {"page shift 11", [](hca_create_mkey_in_t &c, uint64_t) { hca_create_mkey_in_set_page_shift(&c, 11); },
         -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
        {"page shift 31", [](hca_create_mkey_in_t &c, uint64_t) { hca_create_mkey_in_set_page_shift(&c, 31); },
         -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
        {"zero length", [](hca_create_mkey_in_t &c, uint64_t) { c.length = 0; }, -EINVAL,
         HCA_CMD_STATUS_BAD_PARAM},
        {"length past the page list", [](hca_create_mkey_in_t &c, uint64_t) { c.length = 4 * 4096 + 1; }, -EINVAL,
         HCA_CMD_STATUS_BAD_PARAM},
        {"first-byte offset pushes past the list",
         [](hca_create_mkey_in_t &c, uint64_t) { c.iova = 0x10001; }, -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
        {"iova + length wraps 2^64", [](hca_create_mkey_in_t &c, uint64_t) { c.iova = ~0ull - 100; }, -EINVAL,
         HCA_CMD_STATUS_BAD_PARAM},
        {"no pages", [](hca_create_mkey_in_t &c, uint64_t) { c.npages = 0; }, -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
        {"page list in unbacked memory", [](hca_create_mkey_in_t &c, uint64_t) { c.page_list = 0xdead0000ull; },
         -EFAULT, HCA_CMD_STATUS_DMA_ERR},
        {"no such PD", [](hca_create_mkey_in_t &c, uint64_t) { c.pd = 999; }, -ENOENT, HCA_CMD_STATUS_BAD_INDEX},
        {"misaligned page address",
         [](hca_create_mkey_in_t &c, uint64_t pl) { (void)c, (void)pl; }, -EINVAL, HCA_CMD_STATUS_BAD_PARAM},
    };
    for (const Case &k : cases) {
        SCOPED_TRACE(k.what);
        hca_create_mkey_in_t c = good();
        k.mutate(c, pages);
        if (!strcmp(k.what, "misaligned page address")) {
            uint64_t odd = buf + 4096 + 8; // third entry not page aligned
            ASSERT_EQ(0, hostmem_write(d.mem, pages + 16, &odd, 8));
        }
        ASSERT_EQ(0, hostmem_write(d.mem, in, &c, sizeof c));
        uint32_t key = 0;
        EXPECT_EQ(k.rc, hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_MKEY, in, 0, 0, &key));
        EXPECT_EQ(k.status, hcadrv_last_status(d.drv));
    }
    EXPECT_EQ(-EFAULT, hcadrv_cmd(d.drv, HCA_CMD_OP_CREATE_MKEY, 0xbad000ull, 0, 0, nullptr))
        << "input mailbox in unbacked memory";
    EXPECT_EQ(-EOPNOTSUPP, hcadrv_cmd(d.drv, 0x77, 0, 0, 0, nullptr));
    // Nothing was allocated by the refusals: every slot the firmware could
    // have picked is still unallocated.
    for (uint32_t idx = 1; idx < 16; idx++) {
        hca_mpt_entry_t e;
        ASSERT_EQ(0, hcadrv_query_mkey(d.drv, idx, &e));
        EXPECT_EQ(0u, hca_mpt_entry_get_alloc(&e)) << "slot " << idx;
    }
    EXPECT_EQ(-EINVAL, hcadrv_query_mkey(d.drv, 1, nullptr)) << "the driver refuses a NULL output";
    hca_mpt_entry_t e;
    EXPECT_EQ(-ENOENT, hcadrv_query_mkey(d.drv, HCA_MPT_ENTRIES_DEFAULT, &e)) << "index beyond the MPT";
    EXPECT_EQ("running", d.health()) << d.console();
}

TEST_P(Device, DestroyFencesFreesTheSlotAndStaleKeysFail)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    uint64_t buf = 0;
    ASSERT_EQ(0, hostmem_alloc(d.mem, 8 * 4096, 4096, &buf));
    hcadrv_mr_t mr;
    ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 8 * 4096, buf, HCA_ACCESS_LOCAL_WRITE, 12, &mr));

    // Keep the unit busy with multi-page requests on this key while the
    // firmware destroys the MR. Heavy response back-pressure makes the old
    // requests drain slower than the firmware finishes its command, so only
    // the invalidate-and-fence keeps their segments from appearing after it.
    ASSERT_EQ(0, hca_dev_xlate_backpressure(d.dev, 0, 95, 7));
    for (int i = 0; i < 400; i++) {
        xu_req_t q = {(uint8_t)i, HCA_ACCESS_LOCAL_WRITE, 0, mr.lkey, pd, 3 * 4096, buf + (uint64_t)(i % 5) * 4096};
        ASSERT_EQ(0, hca_dev_xlate_submit(d.dev, &q));
    }
    hca_dev_step(d.dev, 200); // some requests are in flight when the command lands
    ASSERT_EQ(0, hcadrv_dereg_mr(d.drv, &mr)) << d.console();
    const uint64_t done = hca_dev_cycle(d.dev);
    hca_dev_step(d.dev, 200000);
    uint64_t ok_before = 0, ok_after = 0, failed = 0;
    xu_seg_t s;
    while (hca_dev_xlate_collect(d.dev, &s)) {
        if (s.status == HCA_XLATE_STATUS_OK)
            (s.cycle < done ? ok_before : ok_after)++;
        else
            failed++;
    }
    EXPECT_GT(ok_before, 0u) << "the race was not exercised: no request translated before the destroy";
    EXPECT_GT(failed, 0u) << "the race was not exercised: no request came after the destroy";
    EXPECT_EQ(0u, ok_after) << "a segment was produced through a destroyed key after DESTROY_MKEY completed";
    ASSERT_EQ(0, hca_dev_xlate_backpressure(d.dev, 0, 0, 0));
    // The checker saw the key born (CREATE_MKEY answer) and die (DESTROY_MKEY answer).
    protcheck_stats_t pst;
    protcheck_get_stats(hca_dev_protcheck(d.dev), &pst);
    EXPECT_EQ(1u, pst.validations);
    EXPECT_EQ(1u, pst.invalidations);
    char why[1024];
    EXPECT_EQ(0u, hca_dev_violations(d.dev, why, sizeof why)) << why;

    EXPECT_EQ(HCA_XLATE_STATUS_ERR_SLOT, d.translate(mr.lkey, pd, buf, 8).back().status);
    hca_mpt_entry_t e;
    ASSERT_EQ(0, hcadrv_query_mkey(d.drv, mr.lkey >> 8, &e));
    EXPECT_EQ(0u, hca_mpt_entry_get_alloc(&e));
    EXPECT_EQ(-ENOENT, hcadrv_dereg_mr(d.drv, &mr)) << "destroyed twice";
    hcadrv_mr_t wrong = mr;
    wrong.lkey ^= 1;
    EXPECT_EQ(-ENOENT, hcadrv_dereg_mr(d.drv, &wrong));
}

// With a 16-slot MPT (model engine only: the RTL is built with the default
// size) every slot is used, one is freed and taken again: same index, new key.
TEST(DeviceSmallMpt, ReusedIndexGetsANewKeyByteAndTheTableRunsOut)
{
    Dev d(DEV_ENGINE_MODEL, 16);
    ASSERT_DEV_OK(d);
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
    std::vector<hcadrv_mr_t> mrs(15);
    for (auto &m : mrs)
        ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, 1, &m));
    hcadrv_mr_t extra;
    EXPECT_EQ(-ENOMEM, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, 1, &extra)) << "15 slots + index 0";
    const uint32_t old = mrs[6].lkey;
    ASSERT_EQ(0, hcadrv_dereg_mr(d.drv, &mrs[6]));
    ASSERT_EQ(0, hcadrv_alloc_mr(d.drv, pd, HCA_MKEY_KIND_FAST_REG, 1, &extra));
    EXPECT_EQ(old >> 8, extra.lkey >> 8) << "the only free index";
    EXPECT_NE(old & 0xff, extra.lkey & 0xff) << "a new life needs a new key byte";
    EXPECT_EQ(-ENOENT, hcadrv_dereg_mr(d.drv, &mrs[6])) << "the stale key no longer names the MR";
}

// There is no C model of the WQE engine yet: on the model engine the queue
// commands are refused as unsupported and doorbells have nothing behind them.
// Both engines serve the queues, and time passes the same on both. The
// device skips the cycles in which nothing can happen (the firmware asleep,
// every block of the core waiting): on either engine an idle stretch with
// live queues passes without being stepped (the RTL's core takes time as an
// input and says when it is quiet, hca_core quiet_o). A doorbell ends the
// quiet at once: the CQ's doorbell is taken in the next cycles, and the
// device is stepped again.
TEST_P(Device, QueuesAreServedAndIdleTimeIsSkipped)
{
    Dev d(GetParam());
    ASSERT_DEV_OK(d);
    EXPECT_EQ(dev_engine_name(GetParam()), std::string(hca_dev_engine_name(d.dev)));
    hcadrv_cq_t cq;
    ASSERT_EQ(0, hcadrv_create_cq(d.drv, 16, &cq)) << d.console();
    EXPECT_EQ(-EINVAL, hca_dev_mmio_write(d.dev, HCA_HOST_DB_OFFSET + 0xc, 1)) << "no such doorbell";
    hca_dev_step(d.dev, 10000); // the firmware back asleep after the command
    const uint64_t before = hca_dev_skipped_cycles(d.dev), c0 = hca_dev_cycle(d.dev);
    hca_dev_step(d.dev, 200000);
    EXPECT_EQ(c0 + 200000, hca_dev_cycle(d.dev)) << "time passes the same on both engines";
    const uint64_t skipped = hca_dev_skipped_cycles(d.dev) - before;
    EXPECT_EQ(200000u, skipped);
    EXPECT_EQ(UINT64_MAX - hca_dev_cycle(d.dev), hca_dev_quiet_cycles(d.dev)) << "quiet for ever";
    ASSERT_EQ(0, hca_dev_mmio_write(d.dev, HCA_HOST_DB_OFFSET + HCA_DB_CQ, cq.cqn));
    EXPECT_EQ(0u, hca_dev_quiet_cycles(d.dev)) << "a doorbell waits to be taken";
    EXPECT_EQ("running", d.health()) << d.console();
}

// The firmware profile (hca_dev_fw_profile, --fw-profile, the fuzzers'
// firmware coverage) counts each cycle at the pc a stepped device shows. The
// RTL engine here steps every cycle (HCASIM_RTL_SKIP=0); the model skips
// quiet cycles and lets the firmware run ahead alone while it is profiled
// too: over commands and a transfer both must count the same cycles at the
// same words.
TEST(DeviceFwProfile, TheModelCountsEveryWordAsTheSteppedRtlDoes)
{
    std::vector<uint64_t> prof[3];
    uint64_t cycles[3] = {0, 0, 0}, skipped[3] = {0, 0, 0};
    const dev_engine_kind_t engines[3] = {DEV_ENGINE_RTL, DEV_ENGINE_MODEL, DEV_ENGINE_RTL};
    for (int e = 0; e < 3; e++) {
        /* read when the engine is made; the third run skips as the RTL does
           by default, each skipped span also stepped and checked unchanged
           (outputs, registers, memories: an abort names the cycle) */
        setenv("HCASIM_RTL_SKIP", e == 2 ? "check" : "0", 1);
        Dev d(engines[e]);
        unsetenv("HCASIM_RTL_SKIP");
        ASSERT_DEV_OK(d);
        ASSERT_EQ(0, hca_dev_fw_profile_start(d.dev));
        uint32_t pd = 0;
        hcadrv_cq_t cq;
        hcadrv_qp_t a, b;
        hcadrv_mr_t mr;
        ASSERT_EQ(0, hcadrv_alloc_pd(d.drv, &pd));
        ASSERT_EQ(0, hcadrv_create_cq(d.drv, 16, &cq));
        hcadrv_qp_attr_t at = {pd, &cq, &cq, 16, 16, 7, 500, 0};
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &a));
        ASSERT_EQ(0, hcadrv_create_qp(d.drv, &at, &b));
        ASSERT_EQ(0, hcadrv_connect(d.drv, &a, &b));
        const uint64_t buf = d.alloc(16384);
        ASSERT_EQ(0, hcadrv_reg_mr(d.drv, pd, buf, 16384, buf, ACCESS_RW, 12, &mr));
        hcadrv_send_wr_t wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = 1;
        wr.opcode = HCA_WR_OPCODE_RDMA_WRITE;
        wr.flags = HCA_SEND_FLAGS_SIGNALED;
        wr.num_sge = 1;
        wr.sge[0] = hca_sge_t{buf, 8192, mr.lkey};
        wr.remote_addr = buf + 8192;
        wr.rkey = mr.rkey;
        ASSERT_EQ(0, hcadrv_post_send(d.drv, &a, &wr));
        ASSERT_EQ(1u, d.wait(&cq, 1).size());
        ASSERT_EQ(0, hcadrv_dereg_mr(d.drv, &mr));
        hca_dev_step(d.dev, 20000);
        size_t words = 0;
        const uint64_t *p = hca_dev_fw_profile(d.dev, &words);
        ASSERT_NE(nullptr, p);
        prof[e].assign(p, p + words);
        cycles[e] = hca_dev_cycle(d.dev);
        skipped[e] = hca_dev_skipped_cycles(d.dev);
    }
    EXPECT_EQ(cycles[0], cycles[1]) << "the engines are cycle-exact twins";
    EXPECT_EQ(0u, skipped[0]) << "the RTL stepped";
    EXPECT_EQ(cycles[0], cycles[2]) << "skipping on the RTL changes no cycle";
    EXPECT_GT(skipped[2], cycles[2] / 2) << "the profiled RTL skips";
    EXPECT_EQ(prof[0], prof[2]) << "the RTL's profile with skipping";
    EXPECT_GT(skipped[1], cycles[1] / 2) << "the profiled model still skips";
    ASSERT_EQ(prof[0].size(), prof[1].size());
    uint64_t total = 0;
    for (size_t w = 0; w < prof[0].size(); w++) {
        total += prof[0][w];
        ASSERT_EQ(prof[0][w], prof[1][w]) << "cycles at firmware word " << w << " (address 0x" << std::hex
                                          << HCA_FW_RAM_BASE + 4 * w << "): RTL, model";
    }
    EXPECT_GT(total, 10000u) << "the commands ran the firmware";
}

// DESTROY_MKEY of an MR that RDMA WRITEs are being placed into and an RDMA
// READ is being gathered from, on the RTL engine, with slow host memory (a
// placement's DMAs take ~1500 cycles to reach memory, far longer than the
// firmware's INVALIDATE-to-answer path), at many cycle offsets into the
// stream. The responder's placement engine takes a packet's translation beats
// before it issues the packet's DMAs, so the translation unit's INVALIDATE
// alone would let some of them land after the mailbox answered (I2); the
// firmware's ctx DRAIN between INVALIDATE and freeing the slot closes that.
// Every WR still completes (SUCCESS, REM_ACCESS_ERR or WR_FLUSH_ERR).
TEST(DeviceRtlDrain, DestroyMkeyWaitsForPlacementsAndGathersInFlight)
{
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = DEV_ENGINE_RTL;
    cfg.host.read_latency = 1500;
    cfg.host.write_cost = 1500;
    cfg.host.bytes_per_cycle = 16;
    hostmem_t *mem = nullptr;
    ASSERT_EQ(0, hostmem_create(&mem));
    hca_dev_t *dev = nullptr;
    char err[512] = "";
    ASSERT_EQ(0, hca_dev_create(&dev, &cfg, mem, err, sizeof err)) << err;
    hcadrv_t *drv = nullptr;
    hca_host_t host = hca_dev_host(dev);
    ASSERT_EQ(0, hcadrv_open(&drv, &host));

    // Who touched memory through the MR of the round, and when.
    struct Obs {
        uint32_t key = 0;
        std::vector<std::pair<uint64_t, uint64_t>> dma; // issue, done (UINT64_MAX: not yet)
    } obs;
    const evlog_fn_t watch = [](void *c, const evlog_event_t *e) {
        Obs *b = (Obs *)c;
        if ((e->kind != EVLOG_DMA_ISSUE && e->kind != EVLOG_DMA_DONE) || !e->dma->key || e->dma->key != b->key)
            return;
        if (e->kind == EVLOG_DMA_ISSUE) {
            b->dma.push_back({e->cycle, UINT64_MAX});
            return;
        }
        for (auto &d : b->dma)
            if (d.second == UINT64_MAX) { // served in order of arrival
                d.second = e->cycle;
                break;
            }
    };
    ASSERT_EQ(0, evlog_subscribe(hca_dev_log(dev), watch, &obs));

    const uint32_t RWX = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;
    const uint32_t LEN = 16 * 1024;
    uint32_t pd = 0;
    ASSERT_EQ(0, hcadrv_alloc_pd(drv, &pd));
    hcadrv_cq_t cq;
    ASSERT_EQ(0, hcadrv_create_cq(drv, 256, &cq));
    uint64_t src = 0;
    ASSERT_EQ(0, hostmem_alloc(mem, 8 * LEN, 4096, &src));
    hcadrv_mr_t msrc;
    ASSERT_EQ(0, hcadrv_reg_mr(drv, pd, src, 8 * LEN, src, RWX, 12, &msrc));

    const int ROUNDS = 14;
    int raced = 0; // rounds with a DMA through the MR still on its way when DESTROY_MKEY was posted
    for (int round = 0; round < ROUNDS; round++) {
        SCOPED_TRACE("round " + std::to_string(round));
        uint64_t dst = 0;
        ASSERT_EQ(0, hostmem_alloc(mem, 4 * LEN, 4096, &dst));
        hcadrv_mr_t mdst;
        ASSERT_EQ(0, hcadrv_reg_mr(drv, pd, dst, 4 * LEN, dst, RWX, 12, &mdst));
        obs.key = mdst.lkey;
        obs.dma.clear();
        hcadrv_qp_attr_t at = {pd, &cq, &cq, 16, 16, 7, 500, 4096};
        hcadrv_qp_t w[2], r[2]; // WRITE pair, READ pair
        for (hcadrv_qp_t *q : {&w[0], &w[1], &r[0], &r[1]})
            ASSERT_EQ(0, hcadrv_create_qp(drv, &at, q));
        ASSERT_EQ(0, hcadrv_connect(drv, &w[0], &w[1]));
        ASSERT_EQ(0, hcadrv_connect(drv, &r[0], &r[1]));
        // Four 16 KiB WRITEs into the MR, two 16 KiB READs out of it.
        for (unsigned i = 0; i < 4; i++) {
            hcadrv_send_wr_t wr;
            memset(&wr, 0, sizeof wr);
            wr.wr_id = 100 + i;
            wr.opcode = HCA_WR_OPCODE_RDMA_WRITE;
            wr.flags = HCA_SEND_FLAGS_SIGNALED;
            wr.num_sge = 1;
            wr.sge[0] = {src + i * LEN, LEN, msrc.lkey};
            wr.remote_addr = dst + i * LEN;
            wr.rkey = mdst.rkey;
            ASSERT_EQ(0, hcadrv_post_send(drv, &w[0], &wr));
        }
        for (unsigned i = 0; i < 2; i++) {
            hcadrv_send_wr_t wr;
            memset(&wr, 0, sizeof wr);
            wr.wr_id = 200 + i;
            wr.opcode = HCA_WR_OPCODE_RDMA_READ;
            wr.flags = HCA_SEND_FLAGS_SIGNALED;
            wr.num_sge = 1;
            wr.sge[0] = {src + (4 + i) * LEN, LEN, msrc.lkey};
            wr.remote_addr = dst + (2 + i) * LEN;
            wr.rkey = mdst.rkey;
            ASSERT_EQ(0, hcadrv_post_send(drv, &r[0], &wr));
        }
        hca_dev_step(dev, 3000 + (uint64_t)round * 2900);
        const uint64_t posted = hca_dev_cycle(dev);
        ASSERT_EQ(0, hcadrv_dereg_mr(drv, &mdst)) << hca_dev_console(dev);
        const uint64_t answered = hca_dev_cycle(dev);
        bool in_flight = false;
        for (const auto &d : obs.dma) {
            in_flight |= d.first < answered && d.second >= posted;
            EXPECT_FALSE(d.first < answered && d.second >= answered)
                << "a DMA through the destroyed key issued at " << d.first << " completed at " << d.second
                << ", after DESTROY_MKEY answered at " << answered;
        }
        raced += in_flight;
        // Every WR completes: SUCCESS before the destroy, the failed one with
        // the responder's NAK, the rest flushed.
        std::vector<hcadrv_wc_t> got;
        for (uint64_t t0 = hca_dev_cycle(dev); got.size() < 6 && hca_dev_cycle(dev) - t0 < 400000;) {
            hcadrv_wc_t wc[16];
            int n = hcadrv_poll_cq(drv, &cq, wc, 16);
            ASSERT_GE(n, 0);
            got.insert(got.end(), wc, wc + n);
            if (got.size() < 6)
                hca_dev_step(dev, 64);
        }
        EXPECT_EQ(6u, got.size()) << "WRs did not complete";
        for (const auto &wc : got) {
            EXPECT_TRUE(wc.status == HCA_WC_STATUS_SUCCESS || wc.status == HCA_WC_STATUS_REM_ACCESS_ERR ||
                        wc.status == HCA_WC_STATUS_WR_FLUSH_ERR)
                << "wr_id " << wc.wr_id << " status " << wc.status;
        }
        for (hcadrv_qp_t *q : {&w[0], &w[1], &r[0], &r[1]})
            ASSERT_EQ(0, hcadrv_destroy_qp(drv, q));
    }
    evlog_unsubscribe(hca_dev_log(dev), watch, &obs);
    EXPECT_GE(raced, ROUNDS / 2) << "the destroy rarely raced a DMA through the MR: the test lost its point";
    expect_device_clean(dev);
    RecordProperty("rounds_raced", std::to_string(raced));
    hcadrv_close(drv);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
}

TEST(DeviceFirmware, ABadImageIsRefusedWithTheSegmentAtFault)
{
    // A text file is no ELF; a test program is an ELF but no device firmware
    // is required to be refused: only the loader's checks apply. Use a
    // truncated copy of the real image.
    FILE *in = fopen(hca_dev_default_firmware(), "rb");
    ASSERT_NE(nullptr, in);
    std::vector<char> img(1 << 20);
    size_t n = fread(img.data(), 1, img.size(), in);
    fclose(in);
    ASSERT_GT(n, 1000u);
    char path[] = "/tmp/test_dev_truncated_hcafw_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0) << strerror(errno);
    FILE *out = fdopen(fd, "wb");
    ASSERT_NE(nullptr, out);
    fwrite(img.data(), 1, 600, out); // header and program headers, no segment data
    fclose(out);
    Dev d(DEV_ENGINE_MODEL, 0, path);
    unlink(path);
    EXPECT_EQ(nullptr, d.dev);
    EXPECT_NE(std::string::npos, std::string(d.err).find("segment")) << d.err;
    EXPECT_NE(std::string::npos, std::string(d.err).find("truncated")) << d.err;
    Dev missing(DEV_ENGINE_MODEL, 0, "/nonexistent/fw.elf");
    EXPECT_EQ(nullptr, missing.dev);
    EXPECT_NE(std::string::npos, std::string(missing.err).find("/nonexistent/fw.elf")) << missing.err;
}

TEST(DeviceOnBus, FallbackIsTheGivenBusAndThePlatformAllocates)
{
    hostmem_t *mem = nullptr;
    ASSERT_EQ(0, hostmem_create(&mem));
    uint64_t buf = 0;
    ASSERT_EQ(0, hostmem_alloc(mem, 4096, 4096, &buf));
    hca_dev_config_t cfg{};
    cfg.engine = DEV_ENGINE_MODEL;
    hca_dev_t *dev = nullptr;
    char err[256] = "";
    EXPECT_EQ(-EINVAL, hca_dev_create_on_bus(&dev, &cfg, bus_t{nullptr, nullptr}, err, sizeof err));
    ASSERT_EQ(0, hca_dev_create_on_bus(&dev, &cfg, hostmem_bus(mem), err, sizeof err)) << err;
    hca_host_t h = hca_dev_host(dev);
    uint64_t a = 0;
    EXPECT_EQ(-ENOMEM, h.ops->mem_alloc(h.ctx, 64, 64, &a)) << "the platform allocates";
    const uint32_t v = 0x5eedf00d;
    uint32_t got = 0;
    ASSERT_EQ(0, h.ops->mem_write(h.ctx, buf + 8, &v, 4));
    ASSERT_EQ(0, hostmem_read(mem, buf + 8, &got, 4));
    EXPECT_EQ(v, got) << "host writes reach the given bus";
    EXPECT_EQ(-EFAULT, h.ops->mem_read(h.ctx, 0x10, &got, 4)) << "unbacked, as the bus says";
    hca_dev_step(dev, 1000);
    EXPECT_EQ(0, hca_dev_fw_health(dev, nullptr, 0)) << "the firmware boots over it";
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
}

INSTANTIATE_TEST_SUITE_P(Engines, Device, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) { return engine_name(i.param); });

// ---------------------------------------------------------------- port sequencer (regs fseq)

// A tiny firmware for the sequencer itself: PROG = its entries, RUN = count,
// poll STATUS, save it in front of the entries, exit with the word at
// exit_at (bytes from the first entry; -8: the saved STATUS). Entries live in
// the image after the code, words of a 4-byte data area before them too.
struct SeqImage {
    static constexpr uint32_t kEntries = 72; // byte offset of entry 0 in the image (8-aligned)
    std::vector<uint32_t> words;
    SeqImage(const std::vector<hca_fseq_entry_t> &e, uint32_t count, int32_t exit_at,
             const std::vector<uint32_t> &data = {}, bool go = false, bool idle = false, bool timed = false)
    {
        const uint32_t T0 = 5, T1 = 6, T2 = 7, T3 = 28, T4 = 29, T5 = 30, A0 = 10;
        words = {
            rv_lui(T0, HCA_FW_FSEQ_BASE >> 12),                 // 0
            rv_auipc(T1, 0),                                     // 1: t1 = base + 4
            rv_addi(T1, T1, kEntries - 4),                       // 2: t1 = &entry 0
            rv_sw(T1, T0, HCA_FSEQ_PROG),                        // 3
            rv_addi(T2, 0, (int32_t)count),                      // 4
            rv_sw(T2, T0, HCA_FSEQ_RUN),                         // 5
            rv_lw(T3, T0, HCA_FSEQ_STATUS),                      // 6: poll
            rv_andi(T4, T3, 1),                                  // 7
            rv_bne(T4, 0, -8),                                   // 8
            rv_sw(T3, T1, -8),                                   // 9: STATUS in front of the entries
            rv_lw(A0, T1, exit_at),                              // 10
            rv_lui(T5, HCA_CONSOLE_BASE >> 12),                  // 11
            rv_sw(A0, T5, HCA_CONSOLE_EXIT),                     // 12
            rv_wfi(),                                            // 13
            rv_jal(0, -4),                                       // 14
        };
        if (go) { // 3..5: GO = {entry 0's index in RAM, count} in one store instead of PROG, RUN
            const uint32_t w = HCA_FSEQ_GO_ENTRY_PUT(kEntries / 8) | HCA_FSEQ_GO_COUNT_PUT(count);
            words[3] = rv_lui(T2, w >> 12);
            words[4] = rv_addi(T2, T2, (int32_t)(w & 0xfffu));
            words[5] = rv_sw(T2, T0, HCA_FSEQ_GO);
            static_assert(HCA_FSEQ_MAX_OPS < 0x800, "count is addi's positive immediate");
        }
        if (idle) { // 6..8: one read of IDLE, held until the program ends, instead of the poll loop
            words[6] = rv_lw(T3, T0, HCA_FSEQ_IDLE);
            words[7] = rv_addi(0, 0, 0);
            words[8] = rv_addi(0, 0, 0);
        }
        if (timed) { // GO, one held IDLE read, exit with the core cycles from the GO store to the read's answer
            const uint32_t w = HCA_FSEQ_GO_ENTRY_PUT(kEntries / 8) | HCA_FSEQ_GO_COUNT_PUT(count);
            const uint32_t MCYCLE = 0xb00u;
            words = {
                rv_lui(T0, HCA_FW_FSEQ_BASE >> 12),                  // 0
                rv_lui(T2, (w + 0x800u) >> 12),                      // 1
                rv_addi(T2, T2, (int32_t)(w << 20) >> 20),           // 2
                rv_csrrs(T1, MCYCLE, 0),                             // 3
                rv_sw(T2, T0, HCA_FSEQ_GO),                          // 4
                rv_lw(T3, T0, HCA_FSEQ_IDLE),                        // 5: held until the program ends
                rv_csrrs(T4, MCYCLE, 0),                             // 6
                rv_sub(A0, T4, T1),                                  // 7
                rv_lui(T5, HCA_CONSOLE_BASE >> 12),                  // 8
                rv_sw(A0, T5, HCA_CONSOLE_EXIT),                     // 9
                rv_wfi(),                                            // 10
                rv_jal(0, -4),                                       // 11
            };
        }
        words.resize(kEntries / 4, 0);
        for (const hca_fseq_entry_t &x : e) {
            words.push_back(x.ctl);
            words.push_back(x.val);
        }
        words.insert(words.end(), data.begin(), data.end());
    }
    // The firmware address of the data word i (after the entries).
    static uint32_t data_addr(size_t nentries, size_t i) { return HCA_FW_RAM_BASE + kEntries + 8 * nentries + 4 * i; }
};

hca_fseq_entry_t seq(uint32_t fw_addr, unsigned kind, uint32_t arg, uint32_t val)
{
    hca_fseq_entry_t e{0, val};
    hca_fseq_entry_set_off(&e, fw_addr - HCA_DEVREG_BASE);
    hca_fseq_entry_set_kind(&e, kind);
    hca_fseq_entry_set_arg(&e, arg);
    return e;
}

// Runs the image on a device of engine k; returns the firmware's exit code
// (or ~0u and a test failure).
uint32_t run_seq(dev_engine_kind_t k, const SeqImage &im)
{
    const std::vector<uint8_t> img = elfb::program(HCA_FW_RAM_BASE, im.words).bytes();
    char path[] = "/tmp/test_dev_fseq_XXXXXX";
    int fd = mkstemp(path);
    EXPECT_GE(fd, 0) << strerror(errno);
    if (fd < 0)
        return ~0u;
    EXPECT_EQ((ssize_t)img.size(), write(fd, img.data(), img.size()));
    close(fd);
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = k;
    cfg.firmware = path;
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    char err[512] = "";
    uint32_t code = ~0u;
    if (hostmem_create(&mem) == 0 && hca_dev_create(&dev, &cfg, mem, err, sizeof err) == 0) {
        char why[512] = "";
        for (int i = 0; i < 100 && hca_dev_fw_health(dev, why, sizeof why) == 0; i++)
            hca_dev_step(dev, 100);
        const char *at = strstr(why, "exit code 0x");
        EXPECT_NE(nullptr, at) << "the program did not exit: " << why;
        if (at)
            code = (uint32_t)strtoul(at + strlen("exit code "), nullptr, 16);
    } else {
        ADD_FAILURE() << "device: " << err;
    }
    unlink(path);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
    return code;
}

uint32_t fseq_status(uint32_t error, uint32_t stopped, uint32_t done)
{
    return HCA_FSEQ_STATUS_ERROR_PUT(error) | HCA_FSEQ_STATUS_STOPPED_PUT(stopped) | HCA_FSEQ_STATUS_DONE_PUT(done);
}

class Sequencer : public ::testing::TestWithParam<dev_engine_kind_t> {
};

const uint32_t MTT_LO = HCA_FWP_BASE + HCA_FWP_MTT_DATA, MTT_HI = MTT_LO + 4;

TEST_P(Sequencer, WritesReadsAndRamBlocksGoThroughThePortInOrder)
{
    // WRITE two staging words, READ one back: entry 2's val.
    std::vector<hca_fseq_entry_t> e = {seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 0x12345001u),
                                       seq(MTT_HI, HCA_FSEQ_KIND_WRITE, 0, 0x77u),
                                       seq(MTT_LO, HCA_FSEQ_KIND_READ, 0, 0)};
    EXPECT_EQ(0x12345001u, run_seq(GetParam(), SeqImage(e, 3, 8 * 2 + 4)));
    EXPECT_EQ(fseq_status(0, 0, 3), run_seq(GetParam(), SeqImage(e, 3, -8))) << "done = every entry";
    // WRITE_RAM of two data words, then READ_RAM of the staging into data words 2..3.
    const size_t n = 2;
    std::vector<hca_fseq_entry_t> r = {
        seq(MTT_LO, HCA_FSEQ_KIND_WRITE_RAM, 2, SeqImage::data_addr(n, 0)),
        seq(MTT_LO, HCA_FSEQ_KIND_READ_RAM, 2, SeqImage::data_addr(n, 2))};
    const std::vector<uint32_t> data = {0xabcde001u, 0x5u, 0, 0};
    const int32_t d2 = (int32_t)(8 * n + 8), d3 = d2 + 4;
    EXPECT_EQ(0xabcde001u, run_seq(GetParam(), SeqImage(r, 2, d2, data)));
    EXPECT_EQ(0x5u, run_seq(GetParam(), SeqImage(r, 2, d3, data)));
}

TEST_P(Sequencer, AWriteIsPostedOneCycleAReadTakesTwo)
{
    // 8 WRITEs against 8 READs of the same register: the next access goes out
    // in the cycle a write's answer comes back (docs/device.md "Port sequencer").
    const std::vector<hca_fseq_entry_t> w(8, seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 0x12345001u));
    const std::vector<hca_fseq_entry_t> r(8, seq(MTT_LO, HCA_FSEQ_KIND_READ, 0, 0));
    const uint32_t tw = run_seq(GetParam(), SeqImage(w, 8, 0, {}, true, true, true));
    const uint32_t tr = run_seq(GetParam(), SeqImage(r, 8, 0, {}, true, true, true));
    EXPECT_EQ(tr - 8, tw) << "8 reads took " << tr << " cycles from GO to the IDLE read's answer, 8 writes " << tw;
    // A write a WAIT follows is not posted: the WAIT's one status read finds the NOP done.
    const uint32_t CMD = HCA_FWP_BASE + HCA_FWP_CMD, ST = HCA_FWP_BASE + HCA_FWP_STATUS;
    std::vector<hca_fseq_entry_t> nw;
    for (int i = 0; i < 4; i++) {
        nw.push_back(seq(CMD, HCA_FSEQ_KIND_WRITE, 0, HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_NOP)));
        nw.push_back(seq(ST, HCA_FSEQ_KIND_WAIT, 1u << HCA_FWP_RESULT_OK, 0));
    }
    EXPECT_EQ(tr, run_seq(GetParam(), SeqImage(nw, 8, 0, {}, true, true, true)))
        << "4 x (NOP, WAIT) as long as 8 reads: each WAIT read once, its NOP waited for";
}

TEST_P(Sequencer, ReadEvtReadsAnInvalidationsWordsUpToKeyAndAnyOtherEventWhole)
{
    // The MPT staging (10 words) stands for an event: word 0 its hdr, then
    // READ_EVT of 10 words into data words 0..9, pre-filled with a marker.
    const uint32_t MPT = HCA_FWP_BASE + HCA_FWP_MPT_DATA, MARK = 0x5a5a5a5au;
    const size_t n = 4;
    const std::vector<uint32_t> data(HCA_FWP_MPT_DATA_COUNT, MARK);
    for (unsigned kind : {(unsigned)HCA_EVT_KIND_LOCAL_INV, (unsigned)HCA_EVT_KIND_REMOTE_INV,
                          (unsigned)HCA_EVT_KIND_READ_INV, (unsigned)HCA_EVT_KIND_FAST_REG_MR}) {
        const uint32_t hdr = kind << HCA_FW_EVENT_KIND_LSB | 0x123u << HCA_FW_EVENT_TAG_LSB;
        std::vector<hca_fseq_entry_t> e = {seq(MPT, HCA_FSEQ_KIND_WRITE, 0, hdr),
                                           seq(MPT + 8, HCA_FSEQ_KIND_WRITE, 0, 0xbeef0000u | kind),
                                           seq(MPT + 12, HCA_FSEQ_KIND_WRITE, 0, 0xcafe0000u | kind),
                                           seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_FWP_MPT_DATA_COUNT,
                                               SeqImage::data_addr(n, 0))};
        const bool inv = kind != HCA_EVT_KIND_FAST_REG_MR;
        const auto word = [&](size_t i) { return (int32_t)(8 * n + 4 * i); };
        EXPECT_EQ(fseq_status(0, 0, 4), run_seq(GetParam(), SeqImage(e, 4, -8, data))) << "kind " << kind;
        EXPECT_EQ(hdr, run_seq(GetParam(), SeqImage(e, 4, word(0), data))) << "kind " << kind;
        EXPECT_EQ(0xbeef0000u | kind, run_seq(GetParam(), SeqImage(e, 4, word(2), data))) << "kind " << kind;
        EXPECT_EQ(inv ? MARK : 0xcafe0000u | kind, run_seq(GetParam(), SeqImage(e, 4, word(3), data)))
            << "kind " << kind << (inv ? ": an invalidation's words end with key (EVT_INV_WORDS)" : ": read whole");
        EXPECT_EQ(inv ? MARK : 0u, run_seq(GetParam(), SeqImage(e, 4, word(HCA_FWP_MPT_DATA_COUNT - 1), data)))
            << "kind " << kind;
    }
    static_assert(HCA_EVT_INV_WORDS == 3, "word 3 is the first past an invalidation's");
    // A first word of 0 (an empty queue's DATA) stops the program there, that word written.
    std::vector<hca_fseq_entry_t> z = {seq(MPT, HCA_FSEQ_KIND_WRITE, 0, 0),
                                       seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_FWP_MPT_DATA_COUNT, SeqImage::data_addr(3, 0)),
                                       seq(MPT, HCA_FSEQ_KIND_WRITE, 0, 1)};
    EXPECT_EQ(fseq_status(0, 1, 1), run_seq(GetParam(), SeqImage(z, 3, -8, data))) << "stopped at the READ_EVT";
    EXPECT_EQ(0u, run_seq(GetParam(), SeqImage(z, 3, 8 * 3, data)));
    EXPECT_EQ(MARK, run_seq(GetParam(), SeqImage(z, 3, 8 * 3 + 4, data))) << "nothing read after the first word";
}

// hdr.inv_ok stands for the program's first READ_EVT of its key's index
// only: an earlier event of the batch may change that MR before the
// firmware decides a later one, so the sequencer clears a repeated index's
// bit in the copy it writes (the MPT staging stands for the queue's head).
TEST_P(Sequencer, ReadEvtClearsTheVerdictOfAnIndexTheProgramReadBefore)
{
    const uint32_t MPT = HCA_FWP_BASE + HCA_FWP_MPT_DATA;
    const uint32_t ok = 1u << HCA_FW_EVENT_INV_OK_LSB;
    const uint32_t hdr = HCA_EVT_KIND_LOCAL_INV << HCA_FW_EVENT_KIND_LSB | 0x123u << HCA_FW_EVENT_TAG_LSB | ok;
    const uint32_t PD = 0x777u, MARK = 0x5a5a5a5au;
    const size_t n = 8;
    std::vector<hca_fseq_entry_t> e = {seq(MPT + 4, HCA_FSEQ_KIND_WRITE, 0, PD),
                                       seq(MPT, HCA_FSEQ_KIND_WRITE, 0, hdr),
                                       seq(MPT + 8, HCA_FSEQ_KIND_WRITE, 0, 5u << 8 | 0x44),
                                       seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_EVT_DATA_COUNT, SeqImage::data_addr(n, 0)),
                                       seq(MPT + 8, HCA_FSEQ_KIND_WRITE, 0, 5u << 8 | 0x45),
                                       seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_EVT_DATA_COUNT, SeqImage::data_addr(n, 4)),
                                       seq(MPT + 8, HCA_FSEQ_KIND_WRITE, 0, 6u << 8 | 0x44),
                                       seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_EVT_DATA_COUNT, SeqImage::data_addr(n, 8))};
    const std::vector<uint32_t> data(8 + HCA_EVT_DATA_COUNT, MARK); // each READ_EVT's range is whole in RAM
    const auto word = [&](size_t i) { return (int32_t)(8 * n + 4 * i); };
    EXPECT_EQ(fseq_status(0, 0, 8), run_seq(GetParam(), SeqImage(e, 8, -8, data)));
    EXPECT_EQ(hdr, run_seq(GetParam(), SeqImage(e, 8, word(0), data))) << "the first of index 5: kept";
    EXPECT_EQ(MARK, run_seq(GetParam(), SeqImage(e, 8, word(1), data))) << "kept: its pd is not read";
    EXPECT_EQ(5u << 8 | 0x44, run_seq(GetParam(), SeqImage(e, 8, word(2), data)));
    EXPECT_EQ(hdr & ~ok, run_seq(GetParam(), SeqImage(e, 8, word(4), data))) << "index 5 again (another key byte): cleared";
    EXPECT_EQ(PD, run_seq(GetParam(), SeqImage(e, 8, word(5), data))) << "cleared: its pd read after all";
    EXPECT_EQ(5u << 8 | 0x45, run_seq(GetParam(), SeqImage(e, 8, word(6), data))) << "its key as read";
    EXPECT_EQ(MARK, run_seq(GetParam(), SeqImage(e, 8, word(7), data))) << "nothing past key";
    EXPECT_EQ(hdr, run_seq(GetParam(), SeqImage(e, 8, word(8), data))) << "index 6: kept";
    // A program of its own starts afresh: index 5 read alone keeps it.
    std::vector<hca_fseq_entry_t> f = {e[0], e[1], e[4],
                                       seq(MPT, HCA_FSEQ_KIND_READ_EVT, HCA_EVT_DATA_COUNT, SeqImage::data_addr(4, 0))};
    EXPECT_EQ(hdr, run_seq(GetParam(), SeqImage(f, 4, (int32_t)(8 * 4), data))) << "a new program";
}

TEST_P(Sequencer, GoIsProgAndRunInOneStore)
{
    std::vector<hca_fseq_entry_t> e = {seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 0x12345001u),
                                       seq(MTT_HI, HCA_FSEQ_KIND_WRITE, 0, 0x77u),
                                       seq(MTT_LO, HCA_FSEQ_KIND_READ, 0, 0)};
    EXPECT_EQ(0x12345001u, run_seq(GetParam(), SeqImage(e, 3, 8 * 2 + 4, {}, true)));
    EXPECT_EQ(fseq_status(0, 0, 3), run_seq(GetParam(), SeqImage(e, 3, -8, {}, true))) << "done = every entry";
    EXPECT_EQ(fseq_status(0, 0, 2), run_seq(GetParam(), SeqImage(e, 2, -8, {}, true))) << "GO's count";
    EXPECT_EQ(fseq_status(1, 0, 0), run_seq(GetParam(), SeqImage(e, 0, -8, {}, true))) << "count 0";
    EXPECT_EQ(fseq_status(1, 0, 0), run_seq(GetParam(), SeqImage(e, HCA_FSEQ_MAX_OPS + 1, -8, {}, true)))
        << "count above FSEQ_MAX_OPS";
}

TEST_P(Sequencer, AnIdleReadIsHeldUntilTheProgramEndsAndReadsItsStatus)
{
    // A WAIT on the unit's STATUS after a NOP, and a READ: the read of IDLE
    // that follows GO at once must see them done (no polling in the image).
    const uint32_t CMD = HCA_FWP_BASE + HCA_FWP_CMD, ST = HCA_FWP_BASE + HCA_FWP_STATUS;
    std::vector<hca_fseq_entry_t> e = {seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 0x12345001u),
                                       seq(CMD, HCA_FSEQ_KIND_WRITE, 0, HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_NOP)),
                                       seq(ST, HCA_FSEQ_KIND_WAIT, 1u << HCA_FWP_RESULT_OK, 0),
                                       seq(MTT_LO, HCA_FSEQ_KIND_READ, 0, 0)};
    EXPECT_EQ(fseq_status(0, 0, 4), run_seq(GetParam(), SeqImage(e, 4, -8, {}, true, true)))
        << "IDLE reads STATUS with busy clear, every entry done";
    EXPECT_EQ(0x12345001u, run_seq(GetParam(), SeqImage(e, 4, 8 * 3 + 4, {}, true, true))) << "the READ's value in place";
    EXPECT_EQ(fseq_status(1, 0, 0), run_seq(GetParam(), SeqImage(e, 0, -8, {}, true, true))) << "a refused RUN: idle at once";
}

TEST_P(Sequencer, AWaitGoesOnForAnAcceptedResultAndStopsOtherwise)
{
    const uint32_t CMD = HCA_FWP_BASE + HCA_FWP_CMD, ST = HCA_FWP_BASE + HCA_FWP_STATUS;
    const uint32_t ok = 1u << HCA_FWP_RESULT_OK, bad_index = 1u << HCA_FWP_RESULT_BAD_INDEX;
    const uint32_t beyond = HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_WRITE_MTT) | HCA_FWP_CMD_INDEX_PUT(0xffffffu);
    // NOP answers OK: accepted; a WRITE_MTT beyond the table answers BAD_INDEX.
    std::vector<hca_fseq_entry_t> e = {seq(CMD, HCA_FSEQ_KIND_WRITE, 0, HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_NOP)),
                                       seq(ST, HCA_FSEQ_KIND_WAIT, ok, 0),
                                       seq(CMD, HCA_FSEQ_KIND_WRITE, 0, beyond),
                                       seq(ST, HCA_FSEQ_KIND_WAIT, ok, 0),
                                       seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 1)};
    EXPECT_EQ(fseq_status(0, 1, 3), run_seq(GetParam(), SeqImage(e, 5, -8))) << "stopped at the second WAIT";
    EXPECT_EQ((uint32_t)HCA_FWP_RESULT_BAD_INDEX << HCA_FWP_STATUS_RESULT_LSB,
              run_seq(GetParam(), SeqImage(e, 5, 8 * 3 + 4)))
        << "the WAIT keeps the status it stopped on";
    e[3] = seq(ST, HCA_FSEQ_KIND_WAIT, ok | bad_index, 0);
    EXPECT_EQ(fseq_status(0, 0, 5), run_seq(GetParam(), SeqImage(e, 5, -8))) << "BAD_INDEX accepted: on to the end";
}

TEST_P(Sequencer, ABadProgramEndsWithErrorAtTheEntryItCannotRun)
{
    const hca_fseq_entry_t w = seq(MTT_LO, HCA_FSEQ_KIND_WRITE, 0, 1);
    EXPECT_EQ(fseq_status(1, 0, 0), run_seq(GetParam(), SeqImage({w}, 0, -8))) << "count 0";
    EXPECT_EQ(fseq_status(1, 0, 0), run_seq(GetParam(), SeqImage({w}, HCA_FSEQ_MAX_OPS + 1, -8)))
        << "count above FSEQ_MAX_OPS";
    EXPECT_EQ(fseq_status(1, 0, 1), run_seq(GetParam(), SeqImage({w, seq(MTT_LO, 7, 0, 0)}, 2, -8)))
        << "an unknown kind";
    EXPECT_EQ(fseq_status(1, 0, 1),
              run_seq(GetParam(), SeqImage({w, seq(MTT_LO, HCA_FSEQ_KIND_READ_RAM, 0, HCA_FW_RAM_BASE)}, 2, -8)))
        << "a RAM entry of 0 words";
    EXPECT_EQ(fseq_status(1, 0, 1),
              run_seq(GetParam(), SeqImage({w, seq(MTT_LO, HCA_FSEQ_KIND_WRITE_RAM, 2, 0x1000)}, 2, -8)))
        << "RAM outside firmware RAM";
    EXPECT_EQ(fseq_status(1, 0, 1), run_seq(GetParam(), SeqImage({w, seq(MTT_LO + 2, HCA_FSEQ_KIND_WRITE, 0, 0)}, 2, -8)))
        << "an offset the port does not take (misaligned)";
}

INSTANTIATE_TEST_SUITE_P(Engines, Sequencer, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) { return engine_name(i.param); });

} // namespace
