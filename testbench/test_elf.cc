// test_elf.cc — the firmware ELF loader: a good image loads exactly; every
// refusal names the file, the segment or header field, and the reason, and
// leaves RAM untouched; truncated and randomly corrupted images never crash.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "elf_build.h"
#include "elf_load.h"
#include "hca_abi.h"

namespace {

constexpr uint32_t kBase = HCA_FW_RAM_BASE;
constexpr uint32_t kSize = HCA_FW_RAM_SIZE;
constexpr uint8_t kFill = 0xa5; // RAM before a load: anything not written keeps it

// The firmware core's map, as fwcore gives it: one RAM, register windows
// from the most specific to the catch-all.
struct Map {
    std::vector<uint8_t> ram = std::vector<uint8_t>(kSize, kFill);
    elf_ram_t region{ kBase, kSize, nullptr, "firmware RAM" };
    std::vector<elf_window_t> win{
        { HCA_FWP_BASE, 0x40, "fwp" },
        { HCA_CONSOLE_BASE, 8, "console" },
        { HCA_DEVREG_BASE, HCA_DEVREG_SIZE, "device registers" },
    };
    elf_memmap_t map{};
    Map()
    {
        region.host = ram.data();
        map = { &region, 1, win.data(), win.size(), ELF_LOAD_RV32IM_REJECT_EFLAGS };
    }
    bool untouched() const
    {
        for (uint8_t b : ram)
            if (b != kFill)
                return false;
        return true;
    }
};

struct Result {
    int rc;
    std::string err;
    elf_load_info_t info;
};

Result load(Map &m, const std::vector<uint8_t> &bytes, const char *name = "img.elf")
{
    Result r{};
    char err[512] = "";
    r.rc = elf_load_mem(bytes.data(), bytes.size(), name, &m.map, &r.info, err, sizeof(err));
    r.err = err;
    return r;
}

TEST(ElfLoad, GoodImageLoadsBytesAndZeroesBss)
{
    Map m;
    const elfb::Image im = elfb::reference(kBase);
    Result r = load(m, im.bytes());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.info.entry, kBase + 4);
    EXPECT_EQ(r.info.nload, 2u);
    EXPECT_EQ(r.info.copied, elfb::kTextSize + elfb::kDataFile);
    EXPECT_EQ(r.info.zeroed, elfb::kDataMem - elfb::kDataFile);
    EXPECT_EQ(r.info.lo, kBase);
    EXPECT_EQ(r.info.hi, uint64_t(kBase) + elfb::kDataDelta + elfb::kDataMem);
    for (uint32_t i = 0; i < elfb::kTextSize; i++)
        ASSERT_EQ(m.ram[i], 0x10 + i) << "text byte " << i;
    for (uint32_t i = 0; i < elfb::kDataFile; i++)
        ASSERT_EQ(m.ram[elfb::kDataDelta + i], 0x20 + i) << "data byte " << i;
    for (uint32_t i = elfb::kDataFile; i < elfb::kDataMem; i++)
        ASSERT_EQ(m.ram[elfb::kDataDelta + i], 0) << "bss byte " << i << " not zeroed";
    // Nothing outside the two segments was written.
    for (uint32_t i = elfb::kTextSize; i < elfb::kDataDelta; i++)
        ASSERT_EQ(m.ram[i], kFill) << "gap byte " << i;
    for (uint32_t i = elfb::kDataDelta + elfb::kDataMem; i < kSize; i++)
        ASSERT_EQ(m.ram[i], kFill) << "byte " << i << " past the image";
}

TEST(ElfLoad, ImageAtTheVeryTopOfRamLoads)
{
    Map m;
    elfb::Image im = elfb::reference(kBase);
    im.ph[2].p_vaddr = im.ph[2].p_paddr = kBase + kSize - elfb::kDataMem; // ends exactly at RAM end
    im.ph[2].p_offset = elfb::kDataOff; // still congruent modulo 4
    Result r = load(m, im.bytes());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.info.hi, uint64_t(kBase) + kSize);
    EXPECT_EQ(m.ram[kSize - elfb::kDataMem], 0x20);
    EXPECT_EQ(m.ram[kSize - 1], 0);
}

TEST(ElfLoad, RegionEndingAtTwoToThe32IsUsable)
{
    std::vector<uint8_t> ram(0x2000, kFill);
    elf_ram_t region{ 0xffffe000u, 0x2000, ram.data(), "top" };
    elf_memmap_t map{ &region, 1, nullptr, 0, 0 };
    elfb::Image im = elfb::reference(0xffffe000u);
    im.ph[2].p_vaddr = im.ph[2].p_paddr = 0xffffff00u;
    std::vector<uint8_t> b = im.bytes();
    char err[256] = "";
    elf_load_info_t info{};
    ASSERT_EQ(elf_load_mem(b.data(), b.size(), "top.elf", &map, &info, err, sizeof(err)), 0) << err;
    EXPECT_EQ(info.hi, uint64_t(1) << 32);
    EXPECT_EQ(ram[0x1f00], 0x20);
    EXPECT_EQ(ram[0x1fff], 0);
}

TEST(ElfLoad, SegmentsGoToTheirOwnRamRegion)
{
    std::vector<uint8_t> a(0x1000, kFill), b(0x1000, kFill);
    elf_ram_t regions[2] = { { 0x1000, 0x1000, a.data(), "A" }, { 0x8000, 0x1000, b.data(), "B" } };
    elf_memmap_t map{ regions, 2, nullptr, 0, 0 };
    elfb::Image im = elfb::reference(0x1000);
    im.ph[2].p_vaddr = im.ph[2].p_paddr = 0x8000;
    std::vector<uint8_t> bytes = im.bytes();
    char err[256] = "";
    ASSERT_EQ(elf_load_mem(bytes.data(), bytes.size(), "two.elf", &map, nullptr, err, sizeof(err)), 0) << err;
    EXPECT_EQ(a[0], 0x10);
    EXPECT_EQ(b[0], 0x20);
    EXPECT_EQ(b[0xff], 0);
    // A segment straddling the two regions (even if they were adjacent) is refused.
    regions[1].base = 0x2000;
    im.ph[2].p_vaddr = im.ph[2].p_paddr = 0x1f80;
    bytes = im.bytes();
    EXPECT_EQ(elf_load_mem(bytes.data(), bytes.size(), "two.elf", &map, nullptr, err, sizeof(err)), -ENOEXEC);
    EXPECT_NE(std::string(err).find("two.elf: segment 2: [0x00001f80, 0x00002080) is not inside any RAM region"),
              std::string::npos)
        << err;
}

TEST(ElfLoad, LoadsFromAFileAndNamesAMissingOne)
{
    Map m;
    char path[] = "/tmp/test_elf_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    std::vector<uint8_t> bytes = elfb::reference(kBase).bytes();
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
    close(fd);
    char err[512] = "";
    elf_load_info_t info{};
    EXPECT_EQ(elf_load_file(path, &m.map, &info, err, sizeof(err)), 0) << err;
    EXPECT_EQ(info.entry, kBase + 4);
    EXPECT_EQ(m.ram[0], 0x10);

    // A truncated file on disk: refused, naming the file.
    ASSERT_EQ(truncate(path, elfb::kDataOff + 4), 0);
    Map m2;
    EXPECT_EQ(elf_load_file(path, &m2.map, &info, err, sizeof(err)), -ENOEXEC);
    EXPECT_EQ(std::string(err).rfind(std::string(path) + ": segment 2: truncated", 0), 0u) << err;
    EXPECT_TRUE(m2.untouched());
    unlink(path);

    EXPECT_EQ(elf_load_file(path, &m2.map, &info, err, sizeof(err)), -ENOENT);
    EXPECT_NE(std::string(err).find(path), std::string::npos) << err;
    EXPECT_EQ(elf_load_file("/tmp", &m2.map, &info, err, sizeof(err)), -ENOEXEC);
    EXPECT_NE(std::string(err).find("not a regular file"), std::string::npos) << err;
}

TEST(ElfLoad, CallerBufferIsNotModifiedAndSmallErrorBufferIsSafe)
{
    Map m;
    elfb::Image im = elfb::reference(kBase);
    im.eh.e_machine = EM_X86_64;
    const std::vector<uint8_t> bytes = im.bytes(), before = bytes;
    char err[12];
    std::memset(err, 'x', sizeof(err));
    EXPECT_EQ(elf_load_mem(bytes.data(), bytes.size(), "img.elf", &m.map, nullptr, err, 8), -ENOEXEC);
    EXPECT_EQ(std::string(err), "img.elf");
    EXPECT_EQ(err[8], 'x'); // never past errlen
    EXPECT_EQ(bytes, before);
    EXPECT_EQ(elf_load_mem(bytes.data(), bytes.size(), "img.elf", &m.map, nullptr, nullptr, 0), -ENOEXEC);
    EXPECT_EQ(elf_load_mem(bytes.data(), bytes.size(), "img.elf", nullptr, nullptr, err, 8), -EINVAL);
}

// ---------------------------------------------------------------- refusals

struct Refusal {
    const char *name;
    std::function<void(elfb::Image &)> corrupt;
    const char *expect; // fragment of the message after "img.elf: "
};

std::ostream &operator<<(std::ostream &os, const Refusal &r) { return os << r.name; }

using elfb::Image;
const uint32_t kData = kBase + elfb::kDataDelta;

const Refusal kRefusals[] = {
    { "Class64", [](Image &im) { im.eh.e_ident[EI_CLASS] = ELFCLASS64; },
      "ELF header e_ident[EI_CLASS]: class is 2 (ELFCLASS64), expected ELFCLASS32" },
    { "ClassNone", [](Image &im) { im.eh.e_ident[EI_CLASS] = ELFCLASSNONE; },
      "ELF header e_ident[EI_CLASS]: class is 0 (ELFCLASSNONE), expected ELFCLASS32" },
    { "BigEndian", [](Image &im) { im.eh.e_ident[EI_DATA] = ELFDATA2MSB; },
      "ELF header e_ident[EI_DATA]: data encoding is 2 (ELFDATA2MSB), expected ELFDATA2LSB" },
    { "IdentVersion", [](Image &im) { im.eh.e_ident[EI_VERSION] = 2; },
      "ELF header e_ident[EI_VERSION]: version is 2, expected EV_CURRENT (1)" },
    { "Version", [](Image &im) { im.eh.e_version = 0; },
      "ELF header e_version: version is 0, expected EV_CURRENT (1)" },
    { "MachineX86", [](Image &im) { im.eh.e_machine = EM_X86_64; },
      "ELF header e_machine: machine is 62, expected EM_RISCV (243)" },
    { "TypeRel", [](Image &im) { im.eh.e_type = ET_REL; },
      "ELF header e_type: type is 1 (ET_REL (an object file, not linked)), expected ET_EXEC" },
    { "TypeDyn", [](Image &im) { im.eh.e_type = ET_DYN; },
      "ELF header e_type: type is 3 (ET_DYN (position-independent)), expected ET_EXEC" },
    { "FlagRvc", [](Image &im) { im.eh.e_flags = EF_RISCV_RVC; },
      "ELF header e_flags: flags 0x1 include EF_RISCV_RVC (compressed instructions), which this core does not implement" },
    { "FlagHardFloat", [](Image &im) { im.eh.e_flags = EF_RISCV_FLOAT_ABI_DOUBLE; },
      "ELF header e_flags: flags 0x4 include EF_RISCV_FLOAT_ABI_DOUBLE bit (hardware float ABI)" },
    { "FlagRve", [](Image &im) { im.eh.e_flags = EF_RISCV_RVE; },
      "ELF header e_flags: flags 0x8 include EF_RISCV_RVE" },
    { "Phentsize", [](Image &im) { im.eh.e_phentsize = 40; },
      "ELF header e_phentsize: program header size is 40, expected 32" },
    { "PhnumZero", [](Image &im) { im.eh.e_phnum = 0; },
      "ELF header e_phnum: no program headers (e_phnum is 0): nothing to load" },
    { "PhnumXnum", [](Image &im) { im.eh.e_phnum = PN_XNUM; },
      "ELF header e_phnum: e_phnum is PN_XNUM (extended numbering), not supported" },
    { "PhoffZero", [](Image &im) { im.eh.e_phoff = 0; }, "ELF header e_phoff: e_phoff is 0 but e_phnum is 3" },
    { "PhoffMisaligned", [](Image &im) { im.eh.e_phoff = 0x36; },
      "ELF header e_phoff: bad alignment: program header table at 0x36 is not 4-byte aligned" },
    { "PhTablePastEof", [](Image &im) { im.eh.e_phnum = 200; },
      "ELF header e_phoff: truncated: program header table [0x34, 0x1934) (200 entries) runs past end of file" },
    { "PhoffHuge", [](Image &im) { im.eh.e_phoff = 0xfffffff0u; },
      "ELF header e_phoff: truncated: program header table [0xfffffff0, 0x100000050) (3 entries) runs past end of file" },
    { "NoPtLoad", [](Image &im) { im.ph[0].p_type = PT_NOTE; im.ph[2].p_type = PT_NULL; },
      "ELF header: no PT_LOAD segment with p_memsz > 0: nothing to load" },
    { "OnlyEmptyLoads", [](Image &im) { for (auto &p : im.ph) if (p.p_type == PT_LOAD) p.p_filesz = p.p_memsz = 0; },
      "ELF header: no PT_LOAD segment with p_memsz > 0: nothing to load" },
    { "SegDataPastEof", [](Image &im) { im.ph[2].p_filesz = im.ph[2].p_memsz = 0x10000; },
      "segment 2: truncated: segment data [0x180, 0x10180) runs past end of file" },
    { "SegOffsetHuge", [](Image &im) { im.ph[0].p_offset = 0xfffffff8u; },
      "segment 0: truncated: segment data [0xfffffff8, 0x100000008) runs past end of file" },
    { "FileszGtMemsz", [](Image &im) { im.ph[2].p_memsz = 4; },
      "segment 2: p_filesz 0x8 > p_memsz 0x4" },
    { "FileszGtZeroMemsz", [](Image &im) { im.ph[0].p_memsz = 0; },
      "segment 0: p_filesz 0x10 > p_memsz 0x0" },
    { "AlignNotPow2", [](Image &im) { im.ph[2].p_align = 12; },
      "segment 2: bad alignment: p_align 0xc is not a power of two" },
    { "AlignMismatch", [](Image &im) { im.ph[2].p_offset -= 2; },
      "segment 2: bad alignment: p_vaddr 0x80001000 and p_offset 0x17e differ modulo p_align 0x4" },
    { "VaddrNePaddr", [](Image &im) { im.ph[2].p_vaddr += 0x100; },
      "segment 2: p_vaddr 0x80001100 != p_paddr 0x80001000: the core has no MMU" },
    { "ExecMisaligned", [](Image &im) { im.ph[0].p_vaddr = im.ph[0].p_paddr = kBase + 2; im.ph[0].p_align = 1; },
      "segment 0: bad alignment: executable segment at 0x80000002 is not 4-byte aligned" },
    { "WrapAround", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = 0xffffff80u; },
      "segment 2: [0xffffff80, +0x100) wraps around the 32-bit address space" },
    { "WrapAroundHugeMemsz", [](Image &im) { im.ph[2].p_memsz = 0x7fffffffu; im.ph[2].p_filesz = 8; },
      "segment 2: [0x80001000, +0x7fffffff) wraps around the 32-bit address space" },
    { "ConsoleWindow", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = HCA_CONSOLE_BASE - 0x80; },
      "segment 2: [0x4000ef80, 0x4000f080) overlaps device-register window 'console' [0x4000f000, 0x4000f008)" },
    { "FwpWindow", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = HCA_FWP_BASE; },
      "segment 2: [0x40000000, 0x40000100) overlaps device-register window 'fwp' [0x40000000, 0x40000040)" },
    { "DevregWindow", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = HCA_DEVREG_BASE + 0x8000; },
      "segment 2: [0x40008000, 0x40008100) overlaps device-register window 'device registers' [0x40000000, 0x40010000)" },
    { "BelowRam", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = kBase - 0x1000; },
      "segment 2: [0x7ffff000, 0x7ffff100) is outside firmware RAM [0x80000000, 0x80040000)" },
    { "StraddlesRamStart", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = kBase - 0x80; },
      "segment 2: [0x7fffff80, 0x80000080) is outside firmware RAM" },
    { "StraddlesRamEnd", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = kBase + kSize - 0x80; },
      "segment 2: [0x8003ff80, 0x80040080) is outside firmware RAM" },
    { "BssPastRamEnd", [](Image &im) { im.ph[2].p_memsz = kSize; },
      "segment 2: [0x80001000, 0x80041000) is outside firmware RAM" },
    { "AtZero", [](Image &im) { im.ph[0].p_vaddr = im.ph[0].p_paddr = 0; },
      "segment 0: [0x00000000, 0x00000010) is outside firmware RAM" },
    { "Overlap", [](Image &im) { im.ph[2].p_vaddr = im.ph[2].p_paddr = kBase + 8; },
      "segment 2: [0x80000008, 0x80000108) overlaps segment 0 [0x80000000, 0x80000010)" },
    { "OverlapLaterBelow", [](Image &im) { im.ph[0].p_vaddr = im.ph[0].p_paddr = kData + 0xf8; im.eh.e_entry = kData + 0xf8; },
      "segment 2: [0x80001000, 0x80001100) overlaps segment 0 [0x800010f8, 0x80001108)" },
    { "Identical", [](Image &im) { im.ph[1] = im.ph[0]; },
      "segment 1: [0x80000000, 0x80000010) overlaps segment 0 [0x80000000, 0x80000010)" },
    { "EntryMisaligned", [](Image &im) { im.eh.e_entry = kBase + 6; },
      "ELF header e_entry: entry point 0x80000006 is not 4-byte aligned" },
    { "EntryInData", [](Image &im) { im.eh.e_entry = kData; },
      "ELF header e_entry: entry point 0x80001000 is not inside the file-backed part of a loaded executable (PF_X) segment" },
    { "EntryInBssOfExec", [](Image &im) { im.ph[0].p_memsz = 0x20; im.eh.e_entry = kBase + 0x10; },
      "ELF header e_entry: entry point 0x80000010 is not inside" },
    { "EntryPastText", [](Image &im) { im.eh.e_entry = kBase + 0x800; },
      "ELF header e_entry: entry point 0x80000800 is not inside" },
    { "EntryZero", [](Image &im) { im.eh.e_entry = 0; },
      "ELF header e_entry: entry point 0x00000000 is not inside" },
    { "TextNotExecutable", [](Image &im) { im.ph[0].p_flags = PF_R; },
      "ELF header e_entry: entry point 0x80000004 is not inside" },
};

class Refuses : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refuses, WithNamedReasonAndRamUntouched)
{
    const Refusal &c = GetParam();
    elfb::Image im = elfb::reference(kBase);
    Result good = load(*std::make_unique<Map>(), im.bytes());
    ASSERT_EQ(good.rc, 0) << good.err;
    c.corrupt(im);
    Map m;
    Result r = load(m, im.bytes());
    EXPECT_EQ(r.rc, -ENOEXEC) << "accepted; expected: " << c.expect;
    const std::string want = std::string("img.elf: ") + c.expect;
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << "expected a message starting with\n  " << want << "\ngot\n  " << r.err;
    EXPECT_TRUE(m.untouched()) << "RAM written by a refused image";
}

INSTANTIATE_TEST_SUITE_P(ElfLoad, Refuses, ::testing::ValuesIn(kRefusals),
                         [](const ::testing::TestParamInfo<Refusal> &i) { return std::string(i.param.name); });

TEST(ElfLoad, RefusesNonElfAndShortFiles)
{
    struct {
        std::vector<uint8_t> bytes;
        const char *expect;
    } cases[] = {
        { {}, "img.elf: ELF header: not an ELF file: only 0 byte(s), truncated before the ELF magic" },
        { { 0x7f, 'E', 'L' }, "img.elf: ELF header: not an ELF file: only 3 byte(s)" },
        { { '#', '!', '/', 'b', 'i', 'n' }, "img.elf: ELF header: not an ELF file: magic is 23 21 2f 62, expected 7f 45 4c 46" },
        { { 0x7f, 'E', 'L', 'F', 1, 1, 1 }, "img.elf: ELF header: truncated: file is 7 bytes, e_ident needs 16" },
    };
    for (auto &c : cases) {
        Map m;
        Result r = load(m, c.bytes);
        EXPECT_EQ(r.rc, -ENOEXEC);
        EXPECT_EQ(r.err.rfind(c.expect, 0), 0u) << "expected " << c.expect << "\ngot " << r.err;
        EXPECT_TRUE(m.untouched());
    }
    std::vector<uint8_t> b = elfb::reference(kBase).bytes();
    b.resize(40);
    Map m;
    Result r = load(m, b);
    EXPECT_EQ(r.err, "img.elf: ELF header: truncated: file is 40 bytes, the ELF32 header needs 52");
}

// Every prefix of a good image is refused (the last segment's data ends the
// file), without a crash and without a byte of RAM written.
TEST(ElfLoad, EveryTruncationRefused)
{
    const std::vector<uint8_t> full = elfb::reference(kBase).bytes();
    ASSERT_EQ(full.size(), size_t(elfb::kDataOff + elfb::kDataFile));
    Map m;
    for (size_t n = 0; n < full.size(); n++) {
        std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
        Result r = load(m, cut);
        ASSERT_EQ(r.rc, -ENOEXEC) << "prefix of " << n << " bytes accepted";
        ASSERT_FALSE(r.err.empty()) << "prefix of " << n << " bytes: no message";
        ASSERT_TRUE(m.untouched()) << "prefix of " << n << " bytes wrote RAM";
        const char *kind = n < sizeof(Elf32_Ehdr) ? "ELF header" : n < 52 + 3 * 32 ? "truncated" : "segment ";
        ASSERT_NE(r.err.find(kind), std::string::npos) << n << " bytes: " << r.err;
    }
}

// Random corruptions, fixed seed: bytes of the header and program headers,
// whole 32-bit fields with interesting values, and bytes anywhere. The loader
// must answer 0 or -ENOEXEC with a message, and an accepted image must have
// written only inside RAM (checked by the sanitizer build) and a sane entry.
TEST(ElfLoad, RandomCorruptionsNeverCrash)
{
    const std::vector<uint8_t> good = elfb::reference(kBase).bytes();
    std::mt19937 rng(0x4843u); // fixed seed: "HC"
    const uint32_t interesting[] = { 0,           1,           2,          3,          4,
                                     0x7f,        0x80,        0xff,       0x1000,     0x7fffffff,
                                     0x80000000u, 0xffffffffu, 0xfffffffcu, kBase,     kBase + kSize - 4,
                                     kBase + kSize, HCA_CONSOLE_BASE, HCA_DEVREG_BASE, 0x34, 0x180 };
    Map m;
    int accepted = 0, refused = 0;
    const int kRounds = 6000;
    for (int round = 0; round < kRounds; round++) {
        std::vector<uint8_t> b = good;
        const int mode = round % 3, edits = 1 + int(rng() % 6);
        for (int e = 0; e < edits; e++) {
            if (mode == 0) { // a byte in the headers
                b[rng() % (52 + 3 * 32)] = uint8_t(rng());
            } else if (mode == 1) { // a 32-bit header field set to an interesting value
                const size_t off = (rng() % ((52 + 3 * 32) / 4)) * 4;
                const uint32_t v = interesting[rng() % (sizeof(interesting) / sizeof(interesting[0]))];
                std::memcpy(&b[off], &v, 4);
            } else if (!b.empty()) { // anywhere, sometimes also cutting the file
                b[rng() % b.size()] = uint8_t(rng());
                if (rng() % 8 == 0)
                    b.resize(rng() % b.size());
            }
        }
        std::fill(m.ram.begin(), m.ram.end(), kFill);
        Result r = load(m, b);
        ASSERT_TRUE(r.rc == 0 || r.rc == -ENOEXEC) << "round " << round << ": rc " << r.rc << " " << r.err;
        if (r.rc == 0) {
            accepted++;
            ASSERT_GE(r.info.entry, kBase) << "round " << round;
            ASSERT_LT(r.info.entry, kBase + kSize) << "round " << round;
            ASSERT_GE(r.info.lo, kBase);
            ASSERT_LE(r.info.hi, uint64_t(kBase) + kSize);
        } else {
            refused++;
            ASSERT_EQ(r.err.rfind("img.elf: ", 0), 0u) << "round " << round << ": " << r.err;
            ASSERT_TRUE(m.untouched()) << "round " << round << ": refused but RAM written: " << r.err;
        }
    }
    // Both outcomes must have been exercised, or the corruptions are too tame/too wild.
    EXPECT_GT(accepted, 50);
    EXPECT_GT(refused, kRounds / 2);
    std::printf("random corruptions: %d accepted, %d refused\n", accepted, refused);
}

} // namespace
