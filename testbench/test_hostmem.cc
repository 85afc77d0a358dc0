// Host memory model: backing, bus errors, allocation, timing.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "hostmem.h"

namespace {

struct HostMem : ::testing::Test {
    hostmem_t *m = nullptr;
    void SetUp() override { ASSERT_EQ(0, hostmem_create(&m)); }
    void TearDown() override { hostmem_destroy(m); }
};

TEST_F(HostMem, UnbackedAccessIsABusErrorAndTransfersNothing)
{
    uint8_t buf[16];
    memset(buf, 0xee, sizeof buf);
    EXPECT_EQ(-EFAULT, hostmem_read(m, 0x5000, buf, sizeof buf));
    EXPECT_EQ(0xee, buf[0]) << "a failed read must not touch the buffer";
    EXPECT_EQ(-EFAULT, hostmem_write(m, 0x5000, buf, sizeof buf));
}

TEST_F(HostMem, MappedMemoryStartsZeroedAndKeepsWhatIsWritten)
{
    ASSERT_EQ(0, hostmem_map(m, 0x10000, 3 * HOSTMEM_PAGE_SIZE));
    std::vector<uint8_t> in(3 * HOSTMEM_PAGE_SIZE - 100), out(in.size());
    for (size_t i = 0; i < in.size(); i++)
        in[i] = (uint8_t)(i * 7 + 1);
    uint8_t z[8];
    ASSERT_EQ(0, hostmem_read(m, 0x10000, z, sizeof z));
    for (uint8_t b : z)
        EXPECT_EQ(0, b);
    ASSERT_EQ(0, hostmem_write(m, 0x10000 + 50, in.data(), in.size())); // crosses two page seams
    ASSERT_EQ(0, hostmem_read(m, 0x10000 + 50, out.data(), out.size()));
    EXPECT_EQ(in, out);
}

TEST_F(HostMem, AccessStraddlingTheEndOfAMappingFailsWhole)
{
    ASSERT_EQ(0, hostmem_map(m, 0x20000, HOSTMEM_PAGE_SIZE));
    uint8_t buf[32] = {1};
    EXPECT_EQ(-EFAULT, hostmem_write(m, 0x20000 + HOSTMEM_PAGE_SIZE - 16, buf, sizeof buf));
    uint8_t chk[16];
    ASSERT_EQ(0, hostmem_read(m, 0x20000 + HOSTMEM_PAGE_SIZE - 16, chk, sizeof chk));
    EXPECT_EQ(0, chk[0]) << "the backed half must not have been written";
}

TEST_F(HostMem, UnmapMakesPagesBusErrorsAndRemapZeroesThem)
{
    ASSERT_EQ(0, hostmem_map(m, 0x30000, 2 * HOSTMEM_PAGE_SIZE));
    uint32_t v = 0xdeadbeef, r = 0;
    ASSERT_EQ(0, hostmem_write(m, 0x30000 + HOSTMEM_PAGE_SIZE, &v, 4));
    ASSERT_EQ(0, hostmem_unmap(m, 0x30000 + HOSTMEM_PAGE_SIZE, 1));
    EXPECT_EQ(-EFAULT, hostmem_read(m, 0x30000 + HOSTMEM_PAGE_SIZE, &r, 4));
    EXPECT_EQ(1, hostmem_backed(m, 0x30000, HOSTMEM_PAGE_SIZE));
    ASSERT_EQ(0, hostmem_map(m, 0x30000 + HOSTMEM_PAGE_SIZE, 4));
    ASSERT_EQ(0, hostmem_read(m, 0x30000 + HOSTMEM_PAGE_SIZE, &r, 4));
    EXPECT_EQ(0u, r);
}

TEST_F(HostMem, AllocAlignsAboveFourGigAndGuardsEveryBuffer)
{
    uint64_t a = 0, b = 0;
    ASSERT_EQ(0, hostmem_alloc(m, 100, 64, &a));
    ASSERT_EQ(0, hostmem_alloc(m, 8192, 1u << 21, &b));
    EXPECT_GE(a, HOSTMEM_ALLOC_BASE);
    EXPECT_EQ(0u, a % 64);
    EXPECT_EQ(0u, b % (1u << 21));
    EXPECT_EQ(1, hostmem_backed(m, b, 8192));
    EXPECT_EQ(0, hostmem_backed(m, b + 8192, 1)) << "guard page after the buffer";
    EXPECT_EQ(-EINVAL, hostmem_alloc(m, 10, 3, &a)) << "alignment must be a power of two";
    EXPECT_EQ(-EINVAL, hostmem_alloc(m, 0, 8, &a));
}

TEST_F(HostMem, ManyPagesSurviveTableGrowthAndTombstones)
{
    for (uint64_t p = 0; p < 5000; p++)
        ASSERT_EQ(0, hostmem_map(m, p * 2 * HOSTMEM_PAGE_SIZE, 8));
    for (uint64_t p = 0; p < 5000; p += 3)
        ASSERT_EQ(0, hostmem_unmap(m, p * 2 * HOSTMEM_PAGE_SIZE, 8));
    for (uint64_t p = 0; p < 5000; p++) {
        uint64_t v = p;
        int want = (p % 3) ? 0 : -EFAULT;
        ASSERT_EQ(want, hostmem_write(m, p * 2 * HOSTMEM_PAGE_SIZE, &v, 8)) << "page " << p;
    }
    for (uint64_t p = 1; p < 5000; p += 3) {
        uint64_t v = 0;
        ASSERT_EQ(0, hostmem_read(m, p * 2 * HOSTMEM_PAGE_SIZE, &v, 8));
        EXPECT_EQ(p, v);
    }
}

TEST_F(HostMem, RangeWrappingTwoToTheSixtyFourIsRefused)
{
    EXPECT_EQ(-EINVAL, hostmem_map(m, ~0ull - 10, 100));
    uint8_t b[4];
    EXPECT_EQ(-EFAULT, hostmem_read(m, ~0ull - 1, b, 4));
}

TEST(HostMemTiming, TransferCyclesAreLatencyPlusBytesOverBandwidth)
{
    bus_timing_t t = {100, 10, 16};
    EXPECT_EQ(100u + 1, bus_transfer_cycles(&t, 0, 1));
    EXPECT_EQ(100u + 256, bus_transfer_cycles(&t, 0, 4096));
    EXPECT_EQ(10u + 257, bus_transfer_cycles(&t, 1, 4097));
}

} // namespace
