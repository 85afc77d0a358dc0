// Host memory model: backing, bus errors, allocation, timing.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "busmap.h"
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

TEST(BusTiming, TransferCyclesAreLatencyPlusBytesOverBandwidth)
{
    bus_timing_t t = {100, 10, 16};
    EXPECT_EQ(100u + 1, bus_transfer_cycles(&t, 0, 1));
    EXPECT_EQ(100u + 256, bus_transfer_cycles(&t, 0, 4096));
    EXPECT_EQ(10u + 257, bus_transfer_cycles(&t, 1, 4097));
}

// ---------------------------------------------------------------- the bus map (busmap.h)

// Host memory behind everything, a peer memory behind one window: each access
// goes to the memory whose window holds it, one that straddles a window's
// edge moves nothing.
TEST(BusMap, RoutesEachAccessToTheMemoryOfItsWindow)
{
    hostmem_t *host = nullptr, *peer = nullptr;
    ASSERT_EQ(0, hostmem_create(&host));
    ASSERT_EQ(0, hostmem_create(&peer));
    const uint64_t base = 0x200000000ull, size = 2 * HOSTMEM_PAGE_SIZE;
    ASSERT_EQ(0, hostmem_map(host, base - HOSTMEM_PAGE_SIZE, 4 * HOSTMEM_PAGE_SIZE)); // around the window too
    ASSERT_EQ(0, hostmem_map(peer, base, size));
    busmap_t *m = nullptr;
    ASSERT_EQ(0, busmap_create(&m, hostmem_bus(host)));
    ASSERT_EQ(0, busmap_map(m, base, size, hostmem_bus(peer)));
    const bus_t bus = busmap_bus(m);

    const uint32_t in = 0xfeedf00d, before = 0x11111111;
    uint32_t out = 0;
    ASSERT_EQ(0, bus_write(&bus, base + 8, &in, 4));
    ASSERT_EQ(0, hostmem_read(peer, base + 8, &out, 4));
    EXPECT_EQ(in, out) << "inside the window: the peer memory";
    ASSERT_EQ(0, hostmem_read(host, base + 8, &out, 4));
    EXPECT_EQ(0u, out) << "host memory under the window is untouched";
    ASSERT_EQ(0, bus_write(&bus, base - 4, &before, 4));
    ASSERT_EQ(0, hostmem_read(host, base - 4, &out, 4));
    EXPECT_EQ(before, out) << "outside every window: host memory";
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(-EFAULT, bus_write(&bus, base - 4, b, 8)) << "straddles the window's start";
    EXPECT_EQ(-EFAULT, bus_read(&bus, base + size - 4, b, 8)) << "straddles the window's end";
    ASSERT_EQ(0, bus_read(&bus, base + size - 4, b, 4)) << "the window's last bytes";
    ASSERT_EQ(0, hostmem_read(host, base - 4, &out, 4));
    EXPECT_EQ(before, out) << "a refused access moves nothing";

    ASSERT_EQ(0, busmap_unmap(m, base));
    ASSERT_EQ(0, bus_read(&bus, base + 8, &out, 4));
    EXPECT_EQ(0u, out) << "unmapped: host memory again";
    busmap_destroy(m);
    hostmem_destroy(peer);
    hostmem_destroy(host);
}

TEST(BusMap, OverlapsWrapsAndTooManyWindowsAreRefused)
{
    hostmem_t *host = nullptr;
    ASSERT_EQ(0, hostmem_create(&host));
    busmap_t *m = nullptr;
    EXPECT_EQ(-EINVAL, busmap_create(&m, bus_t{nullptr, nullptr}));
    ASSERT_EQ(0, busmap_create(&m, hostmem_bus(host)));
    const bus_t t = hostmem_bus(host);
    EXPECT_EQ(-EINVAL, busmap_map(m, 0x1000, 0, t));
    EXPECT_EQ(-EINVAL, busmap_map(m, ~0ull - 10, 100, t)) << "wraps 2^64";
    ASSERT_EQ(0, busmap_map(m, 0x10000, 0x1000, t));
    EXPECT_EQ(-EEXIST, busmap_map(m, 0xf000, 0x1001, t)) << "overlaps the first byte";
    EXPECT_EQ(-EEXIST, busmap_map(m, 0x10fff, 0x10, t)) << "overlaps the last byte";
    ASSERT_EQ(0, busmap_map(m, 0x11000, 0x1000, t)) << "adjacent is fine";
    for (unsigned i = 2; i < BUSMAP_MAX_WINDOWS; i++)
        ASSERT_EQ(0, busmap_map(m, 0x100000ull * (i + 1), 0x1000, t));
    EXPECT_EQ(-ENOSPC, busmap_map(m, 0x7000000000ull, 0x1000, t));
    EXPECT_EQ(-ENOENT, busmap_unmap(m, 0x10800)) << "a window is named by its base";
    busmap_destroy(m);
    hostmem_destroy(host);
}

} // namespace
