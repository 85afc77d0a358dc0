// dev_fixture.h — one whole device (host memory, device, driver) for a test,
// shared by the device-level suites. Every device must end its test with no
// protection-checker breach and its firmware still running.
#ifndef DEV_FIXTURE_H
#define DEV_FIXTURE_H

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hcadrv.h"

struct DevFixture {
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    hcadrv_t *drv = nullptr;
    char err[512] = "";

    explicit DevFixture(xu_engine_kind_t engine, uint32_t mpt_entries = 0, const char *firmware = nullptr)
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
        hcadrv_open(&drv, dev, mem);
    }
    ~DevFixture()
    {
        if (dev) {
            char v[2048] = "";
            EXPECT_EQ(0u, hca_dev_violations(dev, v, sizeof v)) << v;
            char why[256] = "";
            EXPECT_EQ(0, hca_dev_fw_health(dev, why, sizeof why)) << why;
        }
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

#endif // DEV_FIXTURE_H
