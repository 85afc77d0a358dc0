// test_fwprog.cc — cross-compiled firmware on the ISS, through fwcore:
// every self-checking program in build/firmware/tests/ exits with its
// expected code and prints its expected console text; the default image
// hcafw.elf is laid out as link.ld promises (booting it is test_dev's); and
// fwcore itself (loader refusals, MMIO hooks, stalls,
// console) behaves as fwcore.h says.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "../firmware/start.h" // FW_EXIT_TRAP & co. (plain macros here)
#include "elf_build.h"
#include "elf_load.h"
#include "fwcore.h"
#include "hca_abi.h"

#ifndef FW_BUILD_DIR
#define FW_BUILD_DIR "build/firmware"
#endif

namespace {

constexpr uint64_t kMaxCycles = 200u * 1000 * 1000; // far more than any program needs

// Where the firmware build put its ELFs: $HCASIM_FIRMWARE_DIR, else
// FW_BUILD_DIR relative to the working directory (make runs from the repo
// root), else ../firmware next to this binary (build/bin/..).
std::string fw_dir()
{
    if (const char *env = std::getenv("HCASIM_FIRMWARE_DIR"))
        return env;
    if (access(FW_BUILD_DIR "/hcafw.elf", R_OK) == 0)
        return FW_BUILD_DIR;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        std::string d(exe);
        d = d.substr(0, d.rfind('/'));
        return d + "/../firmware";
    }
    return FW_BUILD_DIR;
}

std::string hex(uint32_t v)
{
    char b[16];
    std::snprintf(b, sizeof(b), "0x%08x", v);
    return b;
}

struct Core {
    fwcore_t *fc = nullptr;
    explicit Core(const fwcore_config_t *cfg = nullptr) { EXPECT_EQ(fwcore_create(&fc, cfg), 0); }
    ~Core() { fwcore_destroy(fc); }
    std::string console() const { return fwcore_console(fc); }
    std::string describe(rv32_stop_t s) const
    {
        char b[512];
        fwcore_describe(fc, s, b, sizeof(b));
        return b;
    }
};

// ---------------------------------------------------------------- the programs

struct Expect {
    uint32_t exit_code;
    std::vector<std::string> lines; // must appear in the console, in this order
};

// Programs with something else to say than "exit 0 and print PASS <name>".
// "@MEPC@" stands for the address the program announces as "expect mepc=...".
const std::map<std::string, Expect> kSpecial = {
    { "arith", { 0, { "arith: RV32M edge cases ok", "arith: 0x123456789abcdef0 / 0x12345 = 0x0000100005b00205",
                      "arith: 64-bit division ok", "arith: bit helpers ok", "PASS arith" } } },
    { "memory", { 0, { ".bss/.sbss zeroed ok", "copy loops at every alignment ok", "crc32 ok", "PASS memory" } } },
    { "stack", { 0, { "stack: recursion ok", "deep recursion with large frames ok", "recursive quicksort ok",
                      "PASS stack" } } },
    { "traps", { 0, { "illegal instruction (all zeros) ok", "misaligned sw ok", "misaligned jump target ok",
                      "instruction access fault (jump outside RAM) ok", "ecall ok", "ebreak ok",
                      "every register survives a trap ok", "machine CSRs ok", "traps: 14 traps handled",
                      "PASS traps" } } },
    { "exit_code", { 42, { "exit_code: returning 42" } } },
    { "trap_report", { FW_EXIT_TRAP(2u), { "trap_report: hook declines mcause 0x00000002",
                                           "*** TRAP mcause=0x00000002 mepc=@MEPC@ mtval=0x00000000\n" } } },
    { "trap_nohook", { FW_EXIT_TRAP(3u), { "*** TRAP mcause=0x00000003 mepc=@MEPC@ mtval=@MEPC@\n" } } },
    { "trap_double", { FW_EXIT_DOUBLE_TRAP(11u), { "trap_double: in the hook, about to ecall",
                                                   "*** DOUBLE TRAP mcause=0x0000000b mepc=@MEPC@ mtval=0x00000000\n" } } },
};

std::vector<std::string> list_programs()
{
    std::vector<std::string> names;
    const std::string dir = fw_dir() + "/tests";
    if (DIR *d = opendir(dir.c_str())) {
        while (const dirent *e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 4 && n.compare(n.size() - 4, 4, ".elf") == 0)
                names.push_back(n.substr(0, n.size() - 4));
        }
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    if (names.empty())
        names.push_back("(none found in " + dir + ")");
    return names;
}

class Program : public ::testing::TestWithParam<std::string> {};

TEST_P(Program, ExitsWithItsCodeAndPrintsItsText)
{
    const std::string name = GetParam();
    ASSERT_EQ(name.find("(none"), std::string::npos) << "no firmware test programs: build them with make firmware-tests";
    auto it = kSpecial.find(name);
    const Expect want = it != kSpecial.end() ? it->second : Expect{ 0, { "PASS " + name + "\n" } };

    Core core;
    const std::string path = fw_dir() + "/tests/" + name + ".elf";
    char err[512] = "";
    ASSERT_EQ(fwcore_load(core.fc, path.c_str(), err, sizeof(err)), 0) << err;
    const rv32_stop_t stop = fwcore_run_until_halt(core.fc, kMaxCycles);
    const std::string con = core.console();
    SCOPED_TRACE("program " + name + ": " + core.describe(stop) + "\n--- console ---\n" + con + "--- end ---");

    ASSERT_EQ(stop, RV32_STOP_HALT) << "expected the program to exit through the console";
    EXPECT_EQ(fwcore_exit_code(core.fc), want.exit_code)
        << "exit code " << hex(fwcore_exit_code(core.fc)) << ", expected " << hex(want.exit_code);

    std::string mepc;
    const size_t at = con.find("expect mepc=");
    if (at != std::string::npos)
        mepc = con.substr(at + 12, 10);
    size_t from = 0;
    for (std::string line : want.lines) {
        for (size_t p; (p = line.find("@MEPC@")) != std::string::npos;) {
            ASSERT_FALSE(mepc.empty()) << "the program did not announce its mepc";
            line.replace(p, 6, mepc);
        }
        const size_t p = con.find(line, from);
        ASSERT_NE(p, std::string::npos) << "console lacks (after offset " << from << "): " << line;
        from = p + line.size();
    }
    EXPECT_EQ(con.find("FAIL"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Fw, Program, ::testing::ValuesIn(list_programs()),
                         [](const ::testing::TestParamInfo<std::string> &i) {
                             std::string n = i.param;
                             for (char &c : n)
                                 if (!isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return n;
                         });

TEST(FwProgram, EveryRegisteredSpecialProgramWasBuilt)
{
    const std::vector<std::string> built = list_programs();
    for (const auto &kv : kSpecial)
        EXPECT_NE(std::find(built.begin(), built.end(), kv.first), built.end())
            << kv.first << ".elf is expected in " << fw_dir() << "/tests";
}

// ---------------------------------------------------------------- the default image

// Booting the default image needs the device around it (its firmware port,
// mailbox and DMA): that test is Device.BootsPrintsItsBannerAndIdlesWithoutTrapping
// in test_dev.cc.

TEST(FwImage, LayoutMatchesTheLinkerScript)
{
    for (const std::string &path : { fw_dir() + "/hcafw.elf", fw_dir() + "/tests/traps.elf" }) {
        SCOPED_TRACE(path);
        int fd = open(path.c_str(), O_RDONLY);
        ASSERT_GE(fd, 0);
        elf_version(EV_CURRENT);
        Elf *e = elf_begin(fd, ELF_C_READ, nullptr);
        ASSERT_NE(e, nullptr);
        GElf_Ehdr eh;
        ASSERT_NE(gelf_getehdr(e, &eh), nullptr);
        EXPECT_EQ(eh.e_ident[EI_CLASS], ELFCLASS32);
        EXPECT_EQ(eh.e_machine, EM_RISCV);
        EXPECT_EQ(eh.e_type, ET_EXEC);
        EXPECT_EQ(eh.e_flags, 0u) << "soft-float ABI, no RVC";
        EXPECT_EQ(eh.e_entry, HCA_FW_RAM_BASE);
        size_t n = 0;
        ASSERT_EQ(elf_getphdrnum(e, &n), 0);
        int loads = 0, exec = 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr p;
            ASSERT_NE(gelf_getphdr(e, int(i), &p), nullptr);
            if (p.p_type != PT_LOAD)
                continue;
            loads++;
            EXPECT_EQ(p.p_vaddr, p.p_paddr) << "segment " << i;
            EXPECT_GE(p.p_paddr, HCA_FW_RAM_BASE) << "segment " << i;
            EXPECT_LE(p.p_paddr + p.p_memsz, uint64_t(HCA_FW_RAM_BASE) + HCA_FW_RAM_SIZE) << "segment " << i;
            EXPECT_FALSE((p.p_flags & PF_W) && (p.p_flags & PF_X)) << "segment " << i << " is W+X";
            if (p.p_flags & PF_X) {
                exec++;
                EXPECT_EQ(p.p_paddr, HCA_FW_RAM_BASE) << "text first";
            }
        }
        EXPECT_EQ(exec, 1) << "exactly one executable segment";
        EXPECT_GE(loads, 2);
        elf_end(e);
        close(fd);
    }
}

// The real image cut at every length: refused (with RAM untouched) exactly
// while some PT_LOAD's file bytes are missing; accepted once they are all
// there (the section headers and debug info at the end are not needed).
TEST(FwImage, EveryTruncationOfTheRealImageRefusedUntilItsSegmentsAreWhole)
{
    const std::string path = fw_dir() + "/hcafw.elf";
    std::ifstream f(path, std::ios::binary);
    ASSERT_TRUE(f) << path;
    const std::vector<uint8_t> full((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_GE(full.size(), sizeof(Elf32_Ehdr));
    Elf32_Ehdr eh;
    std::memcpy(&eh, full.data(), sizeof(eh));
    size_t needed = size_t(eh.e_phoff) + size_t(eh.e_phnum) * sizeof(Elf32_Phdr);
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf32_Phdr p;
        std::memcpy(&p, full.data() + eh.e_phoff + i * sizeof(p), sizeof(p));
        if (p.p_type == PT_LOAD && p.p_filesz)
            needed = std::max(needed, size_t(p.p_offset) + p.p_filesz);
    }
    ASSERT_LE(needed, full.size());
    std::vector<uint8_t> ram(HCA_FW_RAM_SIZE, 0xa5);
    const elf_ram_t region{ HCA_FW_RAM_BASE, HCA_FW_RAM_SIZE, ram.data(), "firmware RAM" };
    const elf_window_t win{ HCA_DEVREG_BASE, HCA_DEVREG_SIZE, "device registers" };
    const elf_memmap_t map{ &region, 1, &win, 1, ELF_LOAD_RV32IM_REJECT_EFLAGS };
    char err[512];
    for (size_t n = 0; n < needed; n++) {
        ASSERT_EQ(elf_load_mem(full.data(), n, "hcafw.elf", &map, nullptr, err, sizeof(err)), -ENOEXEC)
            << "accepted when cut to " << n << " of " << full.size() << " bytes";
        ASSERT_TRUE(std::all_of(ram.begin(), ram.end(), [](uint8_t b) { return b == 0xa5; }))
            << "cut to " << n << " bytes: refused but RAM written";
    }
    for (size_t n : { needed, (needed + full.size()) / 2, full.size() })
        EXPECT_EQ(elf_load_mem(full.data(), n, "hcafw.elf", &map, nullptr, err, sizeof(err)), 0)
            << n << " bytes: " << err;
}

// ---------------------------------------------------------------- fwcore itself

// Hand-assembled RV32I, for programs that must touch exactly one register.
uint32_t lui(unsigned rd, uint32_t addr) { return (addr & 0xfffff000u) | rd << 7 | 0x37; }
uint32_t addi(unsigned rd, unsigned rs1, int32_t imm) { return uint32_t(imm & 0xfff) << 20 | rs1 << 15 | rd << 7 | 0x13; }
uint32_t lw(unsigned rd, unsigned rs1, int32_t imm) { return uint32_t(imm & 0xfff) << 20 | rs1 << 15 | 2u << 12 | rd << 7 | 0x03; }
uint32_t store(unsigned f3, unsigned rs2, unsigned rs1, int32_t imm)
{
    return uint32_t(imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | uint32_t(imm & 31) << 7 | 0x23;
}
uint32_t sw(unsigned rs2, unsigned rs1, int32_t imm) { return store(2, rs2, rs1, imm); }
uint32_t sb(unsigned rs2, unsigned rs1, int32_t imm) { return store(0, rs2, rs1, imm); }
constexpr uint32_t kLoopForever = 0x0000006f; // jal x0, 0

// The console's EXIT from a register: lui x28, console; sw rs, EXIT(x28).
std::vector<uint32_t> exit_with(unsigned rs)
{
    return { lui(28, HCA_CONSOLE_BASE), sw(rs, 28, (HCA_CONSOLE_BASE & 0xfff) | HCA_CONSOLE_EXIT), kLoopForever };
}

std::vector<uint32_t> concat(std::vector<uint32_t> a, const std::vector<uint32_t> &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

struct FakeRegs {
    std::vector<std::pair<uint32_t, uint32_t>> stores; // (offset, value)
    std::vector<uint32_t> loads;                        // offsets
    uint32_t status = 0xabc;
    int stall_loads = 0; // answer STALL this many times first
    static int load(void *ctx, uint32_t off, unsigned size, uint32_t *val)
    {
        auto *r = static_cast<FakeRegs *>(ctx);
        if (size != 4)
            return RV32_BUS_FAULT;
        if (r->stall_loads > 0) {
            r->stall_loads--;
            return RV32_BUS_STALL;
        }
        r->loads.push_back(off);
        *val = off == HCA_FWP_STATUS ? r->status : 0;
        return RV32_BUS_OK;
    }
    static int store(void *ctx, uint32_t off, unsigned size, uint32_t val)
    {
        auto *r = static_cast<FakeRegs *>(ctx);
        if (size != 4)
            return RV32_BUS_FAULT;
        r->stores.push_back({ off, val });
        return RV32_BUS_OK;
    }
};

fwcore_mmio_t fwp_block(FakeRegs *r)
{
    return fwcore_mmio_t{ "fwp", HCA_FWP_BASE, 0x40, r, FakeRegs::load, FakeRegs::store };
}

// Write CMD = 0x123, read STATUS, exit with what was read.
std::vector<uint32_t> fwp_program()
{
    return concat({ lui(5, HCA_FWP_BASE), addi(6, 0, 0x123), sw(6, 5, HCA_FWP_CMD), lw(7, 5, HCA_FWP_STATUS) },
                  exit_with(7));
}

TEST(FwCore, MmioHookSeesOffsetsAndAnswersLoads)
{
    Core core;
    FakeRegs regs;
    const fwcore_mmio_t m = fwp_block(&regs);
    ASSERT_EQ(fwcore_map_mmio(core.fc, &m), 0);
    const std::vector<uint8_t> img = elfb::program(HCA_FW_RAM_BASE, fwp_program()).bytes();
    char err[256] = "";
    ASSERT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "fwp.elf", err, sizeof(err)), 0) << err;
    rv32_stop_t s = fwcore_run_until_halt(core.fc, 10000);
    ASSERT_EQ(s, RV32_STOP_HALT) << core.describe(s);
    EXPECT_EQ(fwcore_exit_code(core.fc), 0xabcu);
    ASSERT_EQ(regs.stores.size(), 1u);
    EXPECT_EQ(regs.stores[0].first, HCA_FWP_CMD);
    EXPECT_EQ(regs.stores[0].second, 0x123u);
    ASSERT_EQ(regs.loads.size(), 1u);
    EXPECT_EQ(regs.loads[0], HCA_FWP_STATUS);
}

TEST(FwCore, StallingHookStopsTheRunAndTheAccessIsRetried)
{
    Core core;
    FakeRegs regs;
    regs.stall_loads = 3;
    const fwcore_mmio_t m = fwp_block(&regs);
    ASSERT_EQ(fwcore_map_mmio(core.fc, &m), 0);
    const std::vector<uint8_t> img = elfb::program(HCA_FW_RAM_BASE, fwp_program()).bytes();
    ASSERT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "fwp.elf", nullptr, 0), 0);
    int stalls = 0;
    rv32_stop_t s;
    while ((s = fwcore_run(core.fc, 1000)) == RV32_STOP_STALL) {
        EXPECT_EQ(rv32_pc(fwcore_cpu(core.fc)), HCA_FW_RAM_BASE + 12) << "stalled on the lw";
        stalls++;
        ASSERT_LT(stalls, 10);
    }
    EXPECT_EQ(stalls, 3);
    ASSERT_EQ(s, RV32_STOP_HALT) << core.describe(s);
    EXPECT_EQ(fwcore_exit_code(core.fc), 0xabcu);
    EXPECT_EQ(regs.stores.size(), 1u) << "the store before the stalled load ran once";
    EXPECT_EQ(regs.loads.size(), 1u) << "a stalled access has no side effect";
}

TEST(FwCore, MapMmioRefusesOverlapsAndTooMany)
{
    Core core;
    FakeRegs regs;
    fwcore_mmio_t m = fwp_block(&regs);
    ASSERT_EQ(fwcore_map_mmio(core.fc, &m), 0);
    EXPECT_EQ(fwcore_map_mmio(core.fc, &m), -EINVAL) << "same block twice";
    fwcore_mmio_t bad = m;
    bad.base = HCA_FWP_BASE + 0x3c;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &bad), -EINVAL) << "overlaps fwp";
    bad.base = HCA_CONSOLE_BASE;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &bad), -EINVAL) << "over the console";
    bad.base = HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE - 4;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &bad), -EINVAL) << "over RAM";
    bad.base = 0xfffffff0u;
    bad.size = 0x20;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &bad), -EINVAL) << "wraps";
    bad.size = 0;
    bad.base = 0x1000;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &bad), -EINVAL) << "empty";
    for (unsigned i = 1; i < FWCORE_MAX_MMIO; i++) {
        fwcore_mmio_t k = m;
        k.base = HCA_DEVREG_BASE + 0x1000 * i;
        EXPECT_EQ(fwcore_map_mmio(core.fc, &k), 0) << i;
    }
    fwcore_mmio_t k = m;
    k.base = 0x1000;
    EXPECT_EQ(fwcore_map_mmio(core.fc, &k), -ENOSPC);
}

TEST(FwCore, LoadRefusalsCarryTheLoaderMessageAndChangeNothing)
{
    Core core;
    FakeRegs regs;
    const fwcore_mmio_t m = fwp_block(&regs);
    ASSERT_EQ(fwcore_map_mmio(core.fc, &m), 0);
    char err[512] = "";
    // Nothing loaded yet: running is refused.
    EXPECT_EQ(fwcore_run(core.fc, 100), RV32_STOP_TRAP);
    EXPECT_EQ(fwcore_reset(core.fc), -ENOENT);

    const std::string good = fw_dir() + "/tests/exit_code.elf";
    ASSERT_EQ(fwcore_load(core.fc, good.c_str(), err, sizeof(err)), 0) << err;
    std::vector<uint8_t> before(fwcore_ram(core.fc), fwcore_ram(core.fc) + HCA_FW_RAM_SIZE);

    EXPECT_EQ(fwcore_load(core.fc, "/nonexistent/hcafw.elf", err, sizeof(err)), -ENOENT);
    EXPECT_NE(std::string(err).find("/nonexistent/hcafw.elf: cannot open"), std::string::npos) << err;

    // A segment over a mapped block is refused with the block's name.
    elfb::Image im = elfb::reference(HCA_FW_RAM_BASE);
    im.ph[2].p_vaddr = im.ph[2].p_paddr = HCA_FWP_BASE;
    std::vector<uint8_t> img = im.bytes();
    EXPECT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "over-fwp.elf", err, sizeof(err)), -ENOEXEC);
    EXPECT_EQ(std::string(err).rfind("over-fwp.elf: segment 2: [0x40000000, 0x40000100) overlaps device-register "
                                     "window 'fwp'",
                                     0),
              0u)
        << err;
    // ... over an unmapped part of the register window, with the window's name.
    im.ph[2].p_vaddr = im.ph[2].p_paddr = HCA_DEVREG_BASE + 0x8000;
    img = im.bytes();
    EXPECT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "devreg.elf", err, sizeof(err)), -ENOEXEC);
    EXPECT_NE(std::string(err).find("overlaps device-register window 'device registers'"), std::string::npos)
        << err;
    // An RVC image.
    im = elfb::reference(HCA_FW_RAM_BASE);
    im.eh.e_flags = EF_RISCV_RVC;
    img = im.bytes();
    EXPECT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "rvc.elf", err, sizeof(err)), -ENOEXEC);
    EXPECT_NE(std::string(err).find("rvc.elf: ELF header e_flags"), std::string::npos) << err;

    // The good image is still there and still runs.
    EXPECT_TRUE(std::equal(before.begin(), before.end(), fwcore_ram(core.fc)));
    rv32_stop_t s = fwcore_run_until_halt(core.fc, 100000);
    EXPECT_EQ(s, RV32_STOP_HALT) << core.describe(s);
    EXPECT_EQ(fwcore_exit_code(core.fc), 42u);

    // Reset: run it again from the entry point, console cleared.
    ASSERT_EQ(fwcore_reset(core.fc), 0);
    EXPECT_EQ(core.console(), "");
    EXPECT_FALSE(fwcore_halted(core.fc));
    s = fwcore_run_until_halt(core.fc, 100000);
    EXPECT_EQ(s, RV32_STOP_HALT) << core.describe(s);
    EXPECT_EQ(core.console(), "exit_code: returning 42\n");
}

TEST(FwCore, LoadingZeroesRamLeftByThePreviousImage)
{
    Core core;
    std::fill(fwcore_ram(core.fc), fwcore_ram(core.fc) + HCA_FW_RAM_SIZE, 0x5a);
    const std::vector<uint8_t> img = elfb::reference(HCA_FW_RAM_BASE).bytes();
    ASSERT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "ref.elf", nullptr, 0), 0);
    const uint8_t *ram = fwcore_ram(core.fc);
    EXPECT_EQ(ram[0], 0x10);
    EXPECT_EQ(ram[elfb::kTextSize], 0) << "gap after text";
    EXPECT_EQ(ram[HCA_FW_RAM_SIZE - 1], 0) << "top of RAM";
}

TEST(FwCore, ConsoleBytesDropsAndRegisterRules)
{
    fwcore_config_t cfg{};
    cfg.console_max = 4;
    Core core(&cfg);
    // Six sb to TX ('a'..'f'), then a byte store to EXIT, which must fault.
    std::vector<uint32_t> prog = { lui(28, HCA_CONSOLE_BASE) };
    for (int c = 'a'; c <= 'f'; c++) {
        prog.push_back(addi(6, 0, c));
        prog.push_back(sb(6, 28, (HCA_CONSOLE_BASE & 0xfff) | HCA_CONSOLE_TX));
    }
    prog.push_back(lw(7, 28, (HCA_CONSOLE_BASE & 0xfff) | HCA_CONSOLE_EXIT)); // reads 0
    prog.push_back(sb(6, 28, (HCA_CONSOLE_BASE & 0xfff) | HCA_CONSOLE_EXIT));  // faults: no handler
    prog.push_back(kLoopForever);
    const std::vector<uint8_t> img = elfb::program(HCA_FW_RAM_BASE, prog).bytes();
    ASSERT_EQ(fwcore_load_mem(core.fc, img.data(), img.size(), "con.elf", nullptr, 0), 0);
    rv32_stop_t s = fwcore_run_until_halt(core.fc, 10000);
    ASSERT_EQ(s, RV32_STOP_TRAP) << core.describe(s);
    EXPECT_EQ(core.console(), "abcd");
    EXPECT_EQ(fwcore_console_len(core.fc), 4u);
    EXPECT_EQ(fwcore_console_dropped(core.fc), 2u);
    EXPECT_EQ(rv32_reg(fwcore_cpu(core.fc), 7), 0u) << "console registers read 0";
    uint32_t cause = 0, epc = 0, tval = 0;
    ASSERT_EQ(rv32_last_trap(fwcore_cpu(core.fc), &cause, &epc, &tval), 1);
    EXPECT_EQ(cause, uint32_t(RV32_CAUSE_STORE_ACCESS));
    EXPECT_EQ(tval, HCA_CONSOLE_BASE + HCA_CONSOLE_EXIT);
    const std::string d = core.describe(s);
    EXPECT_NE(d.find("trap at pc"), std::string::npos) << d;
    EXPECT_NE(d.find("no trap handler"), std::string::npos) << d;
}

TEST(FwCore, NullArgumentsAreRefused)
{
    EXPECT_EQ(fwcore_create(nullptr, nullptr), -EINVAL);
    EXPECT_EQ(fwcore_map_mmio(nullptr, nullptr), -EINVAL);
    EXPECT_EQ(fwcore_load(nullptr, "x", nullptr, 0), -EINVAL);
    EXPECT_EQ(fwcore_run(nullptr, 10), RV32_STOP_TRAP);
    EXPECT_STREQ(fwcore_console(nullptr), "");
    fwcore_destroy(nullptr);
}

} // namespace
