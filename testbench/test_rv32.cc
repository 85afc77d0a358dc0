// test_rv32.cc — directed tests of the RV32IM + Zicsr instruction-set simulator (sim/rv32.h).
//
// Programs are assembled with rv32_asm.h into the RAM window at kBase; a
// directed test ends on an ebreak with no trap handler (mtvec = 0), which
// stops rv32_run() with RV32_STOP_TRAP at that ebreak. Trap tests install a
// handler that halts the core through the console EXIT register.
// Spec references: "U" = Unprivileged ISA 20191213, "P" = Privileged 20211203.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "rv32.h"
#include "rv32_asm.h"
#include "rv32_testbus.h"

using namespace rv32test;

namespace {

constexpr uint32_t kData = kBase + 0x4000;    // scratch data in RAM
constexpr uint32_t kHandler = kBase + 0x8000; // trap handler
constexpr uint32_t INT_MIN32 = 0x80000000u;
constexpr uint32_t INT_MAX32 = 0x7fffffffu;
constexpr uint32_t NEG1 = 0xffffffffu;

std::string Hex(uint32_t v)
{
    char b[16];
    snprintf(b, sizeof b, "0x%08" PRIx32, v);
    return b;
}

class Rv32 : public ::testing::Test {
  protected:
    std::vector<uint8_t> ram = std::vector<uint8_t>(kRamSize);
    MockBus bus;
    rv32_bus_t tbl{&bus, MockBus::Load, MockBus::Store};
    rv32_t *cpu = nullptr;
    Program p;

    void SetUp() override { Make(rv32_costs_t{}); }
    void TearDown() override { rv32_destroy(cpu); }

    void Make(const rv32_costs_t &costs)
    {
        rv32_destroy(cpu);
        cpu = nullptr;
        rv32_config_t cfg{};
        cfg.ram = ram.data();
        cfg.ram_base = kBase;
        cfg.ram_size = kRamSize;
        cfg.bus = &tbl;
        cfg.costs = costs;
        ASSERT_EQ(0, rv32_create(&cpu, &cfg));
        bus.cpu = cpu;
    }

    void Load() { std::memcpy(ram.data(), p.words.data(), 4 * p.words.size()); }
    rv32_stop_t Run(uint64_t budget = 1000000)
    {
        Load();
        return rv32_run(cpu, budget);
    }
    // Append an ebreak, run with no handler and expect to stop on an ebreak. -> its address.
    uint32_t RunToBreak()
    {
        p.Emit(rv_ebreak());
        rv32_stop_t s = Run();
        uint32_t cause = 0, epc = 0;
        rv32_last_trap(cpu, &cause, &epc, nullptr);
        EXPECT_EQ(RV32_STOP_TRAP, s) << "stopped on " << rv32_stop_name(s) << " at pc " << Hex(rv32_pc(cpu));
        EXPECT_EQ(RV32_CAUSE_BREAKPOINT, cause) << "trap " << rv32_cause_name(cause) << " at " << Hex(epc);
        return epc;
    }
    // Execute insn (rd = x3, rs1 = x1, rs2 = x2) on a reset core with x1 = a, x2 = b. -> x3.
    uint32_t One(uint32_t insn, uint32_t a, uint32_t b = 0)
    {
        p = Program();
        rv32_reset(cpu, kBase);
        rv32_set_reg(cpu, 1, a);
        rv32_set_reg(cpu, 2, b);
        p.Emit(insn);
        RunToBreak();
        return X(3);
    }
    uint32_t X(unsigned i) const { return rv32_reg(cpu, i); }
    uint32_t Csr(unsigned csr) const
    {
        uint32_t v = 0xdeadbeef;
        EXPECT_EQ(0, rv32_csr_read(cpu, csr, &v)) << "csr " << Hex(csr);
        return v;
    }
    uint32_t Ram32(uint32_t addr) const
    {
        uint32_t v;
        std::memcpy(&v, &ram.at(addr - kBase), 4);
        return v;
    }
    void SetRam32(uint32_t addr, uint32_t v) { std::memcpy(&ram.at(addr - kBase), &v, 4); }
    void Put(uint32_t addr, const std::vector<uint32_t> &words)
    {
        for (size_t i = 0; i < words.size(); i++)
            SetRam32(addr + 4 * static_cast<uint32_t>(i), words[i]);
    }
    // A handler at kHandler that halts at once (exit code 0); mtvec = kHandler; mstatus.MIE = 1.
    void InstallHaltingHandler()
    {
        Put(kHandler, {rv_lui(31, HCA_CONSOLE_BASE >> 12), rv_sw(0, 31, HCA_CONSOLE_EXIT)});
        ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, kHandler));
        ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    }
    // After a trap into the halting handler: the handler ran, and the trap CSRs say (cause, epc, tval).
    void ExpectTrapTaken(rv32_stop_t s, uint32_t cause, uint32_t epc, uint32_t tval)
    {
        EXPECT_EQ(RV32_STOP_HALT, s) << "stopped on " << rv32_stop_name(s) << " at pc " << Hex(rv32_pc(cpu));
        EXPECT_EQ(kHandler + 8, rv32_pc(cpu)) << "the handler at mtvec did not run";
        EXPECT_EQ(cause, Csr(RV32_CSR_MCAUSE)) << "got " << rv32_cause_name(Csr(RV32_CSR_MCAUSE)) << ", expected "
                                               << rv32_cause_name(cause);
        EXPECT_EQ(epc, Csr(RV32_CSR_MEPC)) << "mepc";
        EXPECT_EQ(tval, Csr(RV32_CSR_MTVAL)) << "mtval";
        uint32_t ms = Csr(RV32_CSR_MSTATUS);
        EXPECT_EQ(RV32_MSTATUS_MPIE, ms & RV32_MSTATUS_MPIE) << "MPIE keeps the MIE of before the trap";
        EXPECT_EQ(0u, ms & RV32_MSTATUS_MIE) << "MIE cleared on trap entry";
        EXPECT_EQ(RV32_MSTATUS_MPP, ms & RV32_MSTATUS_MPP) << "MPP = M";
        uint32_t c = 0, e = 0, t = 0;
        EXPECT_EQ(1, rv32_last_trap(cpu, &c, &e, &t));
        EXPECT_EQ(cause, c);
        EXPECT_EQ(epc, e);
        EXPECT_EQ(tval, t);
    }
    // No handler: the trap stops the core with the details, and changes nothing else.
    void ExpectUnhandledTrap(rv32_stop_t s, uint32_t cause, uint32_t epc, uint32_t tval)
    {
        EXPECT_EQ(RV32_STOP_TRAP, s) << "stopped on " << rv32_stop_name(s);
        uint32_t c = 0, e = 0, t = 0;
        EXPECT_EQ(1, rv32_last_trap(cpu, &c, &e, &t));
        EXPECT_EQ(cause, c) << "got " << rv32_cause_name(c) << ", expected " << rv32_cause_name(cause);
        EXPECT_EQ(epc, e) << "epc";
        EXPECT_EQ(tval, t) << "tval";
        EXPECT_EQ(epc, rv32_pc(cpu)) << "pc stays on the trapping instruction";
        EXPECT_EQ(0u, Csr(RV32_CSR_MCAUSE)) << "an unhandled trap leaves mcause";
        EXPECT_EQ(0u, Csr(RV32_CSR_MEPC)) << "an unhandled trap leaves mepc";
    }
};

// ================================================================ creation, basics

TEST(Rv32Create, RejectsBadConfigs)
{
    std::vector<uint8_t> ram(4096);
    rv32_t *cpu = reinterpret_cast<rv32_t *>(1);
    rv32_config_t ok{};
    ok.ram = ram.data();
    ok.ram_base = 0x1000;
    ok.ram_size = 4096;
    auto bad = [&](rv32_config_t c, const char *why) {
        EXPECT_EQ(-EINVAL, rv32_create(&cpu, &c)) << why;
        EXPECT_EQ(nullptr, cpu) << why;
    };
    rv32_config_t c = ok;
    c.ram = nullptr;
    bad(c, "no RAM buffer");
    c = ok;
    c.ram_size = 0;
    bad(c, "empty RAM");
    c = ok;
    c.ram_size = 4094;
    bad(c, "size not a multiple of 4");
    c = ok;
    c.ram_base = 0x1002;
    bad(c, "misaligned base");
    c = ok;
    c.ram_base = 0xfffff800u;
    bad(c, "window past 2^32");
    c = ok;
    c.costs = rv32_default_costs();
    c.costs.div = 0;
    bad(c, "a zero cost");
    EXPECT_EQ(-EINVAL, rv32_create(&cpu, nullptr));
    EXPECT_EQ(-EINVAL, rv32_create(nullptr, &ok));

    c = ok;
    c.ram_base = 0xfffff000u; // window ending exactly at 2^32
    ASSERT_EQ(0, rv32_create(&cpu, &c));
    EXPECT_EQ(0xfffff000u, rv32_pc(cpu)) << "reset pc = ram_base";
    rv32_destroy(cpu);
    rv32_destroy(nullptr);
}

TEST(Rv32Create, ZeroCostsMeanDefaults)
{
    rv32_costs_t d = rv32_default_costs();
    EXPECT_EQ(1u, d.alu);
    EXPECT_EQ(3u, d.mul);
    EXPECT_EQ(34u, d.div);
    EXPECT_EQ(2u, d.load);
    EXPECT_EQ(1u, d.store);
    EXPECT_EQ(3u, d.branch_taken);
    EXPECT_EQ(1u, d.branch_not_taken);
    EXPECT_EQ(2u, d.jump);
    EXPECT_EQ(2u, d.csr);
    EXPECT_EQ(4u, d.mmio_extra);

    std::vector<uint8_t> ram(64);
    uint32_t prog[] = {rv_div(1, 1, 1), rv_ebreak()};
    std::memcpy(ram.data(), prog, sizeof prog);
    rv32_config_t c{};
    c.ram = ram.data();
    c.ram_base = 0;
    c.ram_size = 64;
    rv32_t *cpu = nullptr;
    ASSERT_EQ(0, rv32_create(&cpu, &c));
    EXPECT_EQ(RV32_STOP_TRAP, rv32_run(cpu, 1000));
    EXPECT_EQ(34u, rv32_cycles(cpu)) << "div charged its default cost";
    rv32_destroy(cpu);
}

TEST(Rv32Names, StopAndCauseNames)
{
    EXPECT_STREQ("budget", rv32_stop_name(RV32_STOP_BUDGET));
    EXPECT_STREQ("stall", rv32_stop_name(RV32_STOP_STALL));
    EXPECT_STREQ("wfi", rv32_stop_name(RV32_STOP_WFI));
    EXPECT_STREQ("halt", rv32_stop_name(RV32_STOP_HALT));
    EXPECT_STREQ("trap", rv32_stop_name(RV32_STOP_TRAP));
    EXPECT_STREQ("?", rv32_stop_name(static_cast<rv32_stop_t>(99)));
    EXPECT_STREQ("illegal instruction", rv32_cause_name(RV32_CAUSE_ILLEGAL_INSN));
    EXPECT_STREQ("machine external interrupt", rv32_cause_name(RV32_CAUSE_MEI));
    EXPECT_STREQ("?", rv32_cause_name(9));
}

TEST_F(Rv32, RegistersAndX0)
{
    rv32_set_reg(cpu, 5, 0x1234);
    rv32_set_reg(cpu, 0, 0x5555);
    rv32_set_reg(cpu, 32, 0x5555);
    EXPECT_EQ(0x1234u, X(5));
    EXPECT_EQ(0u, X(0));
    EXPECT_EQ(0u, X(32));
    // writes to x0 by every kind of instruction are ignored
    SetRam32(kData, 0xcafef00d);
    p.Li(1, kData);
    p.Emit(rv_addi(0, 0, 5));
    p.Emit(rv_lui(0, 0x12345));
    p.Emit(rv_auipc(0, 1));
    p.Emit(rv_lw(0, 1, 0));
    p.Emit(rv_add(0, 1, 1));
    p.Emit(rv_mul(0, 1, 1));
    p.Emit(rv_csrrs(0, RV32_CSR_MISA, 0));
    p.Emit(rv_jal(0, 4));
    p.Emit(rv_add(5, 0, 0)); // x5 = x0 + x0
    RunToBreak();
    EXPECT_EQ(0u, X(0));
    EXPECT_EQ(0u, X(5)) << "x0 read back non-zero after writes";
}

TEST_F(Rv32, ResetClearsStateKeepsClock)
{
    p.Emit(rv_addi(5, 0, 9));
    p.Emit(rv_csrw(RV32_CSR_MSCRATCH, 5));
    RunToBreak();
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, kHandler));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    uint64_t cyc = rv32_cycles(cpu), ret = rv32_instret(cpu);
    EXPECT_GT(cyc, 0u);
    rv32_reset(cpu, kBase + 0x100);
    EXPECT_EQ(kBase + 0x100, rv32_pc(cpu));
    EXPECT_EQ(0u, X(5));
    EXPECT_EQ(0u, Csr(RV32_CSR_MSCRATCH));
    EXPECT_EQ(0u, Csr(RV32_CSR_MTVEC));
    EXPECT_EQ(0u, Csr(RV32_CSR_MIE));
    EXPECT_EQ(RV32_MSTATUS_MPP, Csr(RV32_CSR_MSTATUS));
    EXPECT_EQ(0u, Csr(RV32_CSR_MCYCLE)) << "mcycle counts from reset";
    EXPECT_EQ(0u, Csr(RV32_CSR_MINSTRET));
    EXPECT_EQ(cyc, rv32_cycles(cpu)) << "the harness clock is not reset";
    EXPECT_EQ(ret, rv32_instret(cpu));
    EXPECT_EQ(0, rv32_last_trap(cpu, nullptr, nullptr, nullptr));
}

// ================================================================ RV32I: U-type, jumps

TEST_F(Rv32, Lui)
{
    p.Emit(rv_lui(5, 0x12345));
    p.Emit(rv_lui(6, 0xfffff));
    p.Emit(rv_lui(7, 0x80000));
    p.Emit(rv_lui(8, 0));
    rv32_set_reg(cpu, 8, 77);
    RunToBreak();
    EXPECT_EQ(0x12345000u, X(5));
    EXPECT_EQ(0xfffff000u, X(6));
    EXPECT_EQ(0x80000000u, X(7));
    EXPECT_EQ(0u, X(8)) << "lui writes the whole register";
}

TEST_F(Rv32, Auipc)
{
    p.Emit(rv_nop());
    uint32_t a1 = p.Emit(rv_auipc(5, 0));
    uint32_t a2 = p.Emit(rv_auipc(6, 1));
    uint32_t a3 = p.Emit(rv_auipc(7, 0x80000)); // wraps around 2^32
    uint32_t a4 = p.Emit(rv_auipc(8, 0xfffff)); // pc - 4096
    RunToBreak();
    EXPECT_EQ(a1, X(5));
    EXPECT_EQ(a2 + 0x1000u, X(6));
    EXPECT_EQ(a3 + 0x80000000u, X(7));
    EXPECT_EQ(a4 - 0x1000u, X(8));
}

TEST_F(Rv32, Jal)
{
    uint32_t j1 = p.Emit(rv_jal(1, 12)); // forward over two words
    p.Emit(rv_addi(10, 0, 1));          // skipped
    uint32_t back = p.Emit(rv_jal(0, 16)); // lands on tail
    uint32_t t1 = p.Emit(rv_addi(11, 0, 2));
    uint32_t j2 = p.Emit(rv_jal(5, static_cast<int32_t>(back - p.Here()))); // backward
    p.Emit(rv_addi(10, 0, 1));                                                // skipped
    uint32_t tail = p.Here();
    EXPECT_EQ(t1, j1 + 12);
    p.Emit(rv_nop());
    // a jump farther than 12 bits: over 0x900 bytes
    uint32_t far = p.Emit(rv_jal(6, 0x900));
    p.Org(far + 0x900);
    RunToBreak();
    EXPECT_EQ(0u, X(10)) << "jal did not skip";
    EXPECT_EQ(2u, X(11));
    EXPECT_EQ(j1 + 4, X(1)) << "link = pc + 4";
    EXPECT_EQ(j2 + 4, X(5));
    EXPECT_EQ(far + 4, X(6));
    EXPECT_EQ(tail, back + 16);
    EXPECT_EQ(far + 0x900, rv32_pc(cpu)) << "far jump target";
}

TEST_F(Rv32, Jalr)
{
    // jalr rd, off(rs1): target = (rs1 + off) & ~1, rd = pc + 4; rd == rs1 uses the old rs1.
    p.Li(1, kBase + 0x101); // odd: bit 0 is cleared
    uint32_t j1 = p.Emit(rv_jalr(5, 1, -1 + 0x20)); // -> kBase + 0x120
    p.Org(kBase + 0x120);
    p.Li(2, kBase + 0x200);
    uint32_t j2 = p.Emit(rv_jalr(2, 2, -0x10)); // rd == rs1 -> kBase + 0x1f0
    p.Org(kBase + 0x1f0);
    p.Li(3, kBase + 0x301);
    uint32_t j3 = p.Emit(rv_jalr(4, 3, 0)); // (0x301) & ~1 = 0x300
    p.Org(kBase + 0x300);
    RunToBreak();
    EXPECT_EQ(j1 + 4, X(5));
    EXPECT_EQ(j2 + 4, X(2)) << "jalr with rd == rs1";
    EXPECT_EQ(j3 + 4, X(4));
    EXPECT_EQ(kBase + 0x300, rv32_pc(cpu)) << "jalr clears bit 0";
}

// ================================================================ RV32I: branches

class Rv32Branch : public Rv32 {
  protected:
    // Run "br x1, x2, +12" with x1 = a, x2 = b; -> 1 taken, 0 not taken.
    int Taken(uint32_t (*br)(uint32_t, uint32_t, int32_t), uint32_t a, uint32_t b)
    {
        p = Program();
        rv32_reset(cpu, kBase);
        rv32_set_reg(cpu, 1, a);
        rv32_set_reg(cpu, 2, b);
        p.Emit(br(1, 2, 12));
        p.Emit(rv_addi(5, 0, 1));
        uint32_t nt = p.Emit(rv_ebreak());
        p.Emit(rv_addi(5, 0, 2));
        uint32_t epc = RunToBreak();
        int taken = X(5) == 2;
        EXPECT_EQ(taken ? nt + 8 : nt, epc);
        return taken;
    }
};

TEST_F(Rv32Branch, Beq)
{
    EXPECT_EQ(1, Taken(rv_beq, 5, 5));
    EXPECT_EQ(0, Taken(rv_beq, 5, 6));
    EXPECT_EQ(1, Taken(rv_beq, NEG1, NEG1));
    EXPECT_EQ(0, Taken(rv_beq, 0, INT_MIN32));
}

TEST_F(Rv32Branch, Bne)
{
    EXPECT_EQ(0, Taken(rv_bne, 5, 5));
    EXPECT_EQ(1, Taken(rv_bne, 5, 6));
    EXPECT_EQ(1, Taken(rv_bne, 0, INT_MIN32));
}

TEST_F(Rv32Branch, Blt)
{
    EXPECT_EQ(1, Taken(rv_blt, 1, 2));
    EXPECT_EQ(0, Taken(rv_blt, 2, 1));
    EXPECT_EQ(0, Taken(rv_blt, 2, 2)) << "equal is not less";
    EXPECT_EQ(1, Taken(rv_blt, NEG1, 0)) << "signed: -1 < 0";
    EXPECT_EQ(1, Taken(rv_blt, INT_MIN32, INT_MAX32));
    EXPECT_EQ(0, Taken(rv_blt, INT_MAX32, INT_MIN32));
}

TEST_F(Rv32Branch, Bge)
{
    EXPECT_EQ(1, Taken(rv_bge, 2, 1));
    EXPECT_EQ(1, Taken(rv_bge, 2, 2)) << "equal is greater-or-equal";
    EXPECT_EQ(0, Taken(rv_bge, 1, 2));
    EXPECT_EQ(0, Taken(rv_bge, NEG1, 0)) << "signed";
    EXPECT_EQ(1, Taken(rv_bge, INT_MAX32, INT_MIN32));
    EXPECT_EQ(1, Taken(rv_bge, INT_MIN32, INT_MIN32));
}

TEST_F(Rv32Branch, Bltu)
{
    EXPECT_EQ(1, Taken(rv_bltu, 1, 2));
    EXPECT_EQ(0, Taken(rv_bltu, 2, 2));
    EXPECT_EQ(0, Taken(rv_bltu, NEG1, 0)) << "unsigned: 0xffffffff is large";
    EXPECT_EQ(1, Taken(rv_bltu, 0, NEG1));
    EXPECT_EQ(0, Taken(rv_bltu, INT_MIN32, INT_MAX32));
    EXPECT_EQ(1, Taken(rv_bltu, INT_MAX32, INT_MIN32));
}

TEST_F(Rv32Branch, Bgeu)
{
    EXPECT_EQ(1, Taken(rv_bgeu, 2, 2));
    EXPECT_EQ(1, Taken(rv_bgeu, NEG1, 0));
    EXPECT_EQ(0, Taken(rv_bgeu, 0, NEG1));
    EXPECT_EQ(1, Taken(rv_bgeu, INT_MIN32, INT_MAX32));
    EXPECT_EQ(0, Taken(rv_bgeu, INT_MAX32, INT_MIN32));
}

TEST_F(Rv32, BackwardBranchLoop)
{
    // x5 = sum 1..10 by a bne loop
    p.Emit(rv_addi(6, 0, 10));
    uint32_t loop = p.Emit(rv_add(5, 5, 6));
    p.Emit(rv_addi(6, 6, -1));
    p.Emit(rv_bne(6, 0, static_cast<int32_t>(loop - p.Here())));
    RunToBreak();
    EXPECT_EQ(55u, X(5));
    EXPECT_EQ(1u + 3 * 10, rv32_instret(cpu));
}

// ================================================================ RV32I: loads and stores

TEST_F(Rv32, LoadsSignAndZeroExtend)
{
    const uint8_t bytes[8] = {0x80, 0x7f, 0xff, 0x01, 0x34, 0x82, 0x78, 0x56};
    std::memcpy(&ram[kData - kBase], bytes, 8);
    p.Li(1, kData);
    p.Li(2, kData + 8);
    p.Emit(rv_lb(5, 1, 0));    // 0x80 -> sign
    p.Emit(rv_lb(6, 1, 1));    // 0x7f
    p.Emit(rv_lbu(7, 1, 0));   // 0x80 zero
    p.Emit(rv_lbu(8, 1, 2));   // 0xff
    p.Emit(rv_lh(9, 1, 0));    // 0x7f80
    p.Emit(rv_lh(10, 1, 2));   // 0x01ff
    p.Emit(rv_lh(11, 1, 4));   // 0x8234 -> sign
    p.Emit(rv_lhu(12, 1, 4));  // 0x8234
    p.Emit(rv_lw(13, 1, 0));   // 0x01ff7f80
    p.Emit(rv_lw(14, 2, -4));  // negative offset: 0x56788234
    p.Emit(rv_lb(15, 2, -1));  // 0x56
    p.Emit(rv_lhu(16, 2, -2)); // 0x5678
    p.Emit(rv_lw(1, 1, 0));    // rd == rs1
    RunToBreak();
    EXPECT_EQ(0xffffff80u, X(5)) << "lb sign-extends";
    EXPECT_EQ(0x7fu, X(6));
    EXPECT_EQ(0x80u, X(7)) << "lbu zero-extends";
    EXPECT_EQ(0xffu, X(8));
    EXPECT_EQ(0x7f80u, X(9));
    EXPECT_EQ(0x01ffu, X(10));
    EXPECT_EQ(0xffff8234u, X(11)) << "lh sign-extends";
    EXPECT_EQ(0x8234u, X(12)) << "lhu zero-extends";
    EXPECT_EQ(0x01ff7f80u, X(13)) << "lw little-endian";
    EXPECT_EQ(0x56788234u, X(14));
    EXPECT_EQ(0x56u, X(15));
    EXPECT_EQ(0x5678u, X(16));
    EXPECT_EQ(0x01ff7f80u, X(1));
}

TEST_F(Rv32, LoadStoreAtRamEdges)
{
    const uint32_t last = kBase + kRamSize - 4;
    SetRam32(last, 0xa1b2c3d4);
    p.Li(1, last);
    p.Emit(rv_lw(5, 1, 0));
    p.Emit(rv_lbu(6, 1, 3));
    p.Emit(rv_lhu(7, 1, 2));
    p.Li(8, 0x11223344);
    p.Emit(rv_sw(8, 1, 0));
    RunToBreak();
    EXPECT_EQ(0xa1b2c3d4u, X(5));
    EXPECT_EQ(0xa1u, X(6));
    EXPECT_EQ(0xa1b2u, X(7));
    EXPECT_EQ(0x11223344u, Ram32(last));
    EXPECT_TRUE(bus.log.empty()) << "RAM accesses went to the bus";
}

TEST_F(Rv32, Stores)
{
    for (uint32_t i = 0; i < 4; i++)
        SetRam32(kData + 4 * i, 0xeeeeeeee);
    p.Li(1, kData);
    p.Li(2, 0x89abcdef);
    p.Emit(rv_sb(2, 1, 1));  // byte 1 of word 0
    p.Emit(rv_sh(2, 1, 6));  // bytes 2,3 of word 1
    p.Emit(rv_sw(2, 1, 8));  // word 2
    p.Li(3, kData + 16);
    p.Emit(rv_sb(2, 3, -4)); // byte 0 of word 3, negative offset
    RunToBreak();
    EXPECT_EQ(0xeeeeefeeu, Ram32(kData)) << "sb writes one byte";
    EXPECT_EQ(0xcdefeeeeu, Ram32(kData + 4)) << "sh writes two bytes";
    EXPECT_EQ(0x89abcdefu, Ram32(kData + 8));
    EXPECT_EQ(0xeeeeeeefu, Ram32(kData + 12));
}

TEST_F(Rv32, BusLoadsAndStores)
{
    const uint8_t bytes[4] = {0x80, 0x91, 0xa2, 0xb3};
    std::memcpy(bus.dev + 0x10, bytes, 4);
    p.Li(1, kDevBase);
    p.Emit(rv_lb(5, 1, 0x10));
    p.Emit(rv_lbu(6, 1, 0x10));
    p.Emit(rv_lh(7, 1, 0x10));
    p.Emit(rv_lhu(8, 1, 0x12));
    p.Emit(rv_lw(9, 1, 0x10));
    p.Li(2, 0x11223344);
    p.Emit(rv_sb(2, 1, 0x20));
    p.Emit(rv_sh(2, 1, 0x26));
    p.Emit(rv_sw(2, 1, 0x28));
    RunToBreak();
    EXPECT_EQ(0xffffff80u, X(5)) << "bus lb sign-extends and ignores the callback's high bits";
    EXPECT_EQ(0x80u, X(6));
    EXPECT_EQ(0xffff9180u, X(7));
    EXPECT_EQ(0xb3a2u, X(8));
    EXPECT_EQ(0xb3a29180u, X(9));
    ASSERT_EQ(8u, bus.log.size());
    const Access &sb = bus.log[5], &sh = bus.log[6], &sw = bus.log[7];
    EXPECT_TRUE(sb.store);
    EXPECT_EQ(kDevBase + 0x20, sb.addr);
    EXPECT_EQ(1u, sb.size);
    EXPECT_EQ(0x44u, sb.val) << "store value zero-extended from its size";
    EXPECT_EQ(2u, sh.size);
    EXPECT_EQ(0x3344u, sh.val);
    EXPECT_EQ(4u, sw.size);
    EXPECT_EQ(0x11223344u, sw.val);
    EXPECT_EQ(kDevBase + 0x28, sw.addr);
    EXPECT_EQ(2u, bus.log[3].size);
    EXPECT_EQ(kDevBase + 0x12, bus.log[3].addr);
}

TEST_F(Rv32, BusCallbackSeesPcAndCycle)
{
    p.Emit(rv_addi(5, 0, 1));
    p.Li(1, kDevBase);
    uint32_t at = p.Emit(rv_lw(6, 1, 0));
    RunToBreak();
    ASSERT_EQ(1u, bus.log.size());
    EXPECT_EQ(at, bus.log[0].pc) << "rv32_pc() in a callback is the accessing instruction";
    EXPECT_EQ(3u, bus.log[0].cycle) << "rv32_cycles() in a callback = cycles before the instruction";
}

// ================================================================ RV32I: register-immediate

TEST_F(Rv32, Addi)
{
    EXPECT_EQ(8u, One(rv_addi(3, 1, 3), 5));
    EXPECT_EQ(4u, One(rv_addi(3, 1, -1), 5));
    EXPECT_EQ(5u + 2047, One(rv_addi(3, 1, 2047), 5));
    EXPECT_EQ(5u - 2048, One(rv_addi(3, 1, -2048), 5));
    EXPECT_EQ(INT_MIN32, One(rv_addi(3, 1, 1), INT_MAX32)) << "wraps";
    EXPECT_EQ(0u, One(rv_addi(3, 1, 1), NEG1));
}

TEST_F(Rv32, Slti)
{
    EXPECT_EQ(1u, One(rv_slti(3, 1, 0), NEG1)) << "-1 < 0";
    EXPECT_EQ(0u, One(rv_slti(3, 1, -1), 0)) << "0 < -1";
    EXPECT_EQ(0u, One(rv_slti(3, 1, 5), 5));
    EXPECT_EQ(1u, One(rv_slti(3, 1, -2048), INT_MIN32));
    EXPECT_EQ(0u, One(rv_slti(3, 1, 2047), INT_MAX32));
}

TEST_F(Rv32, Sltiu)
{
    EXPECT_EQ(1u, One(rv_sltiu(3, 1, 1), 0)) << "seqz";
    EXPECT_EQ(0u, One(rv_sltiu(3, 1, 1), 7));
    EXPECT_EQ(1u, One(rv_sltiu(3, 1, -1), 0xfffffffe)) << "imm sign-extends to 0xffffffff, then unsigned";
    EXPECT_EQ(0u, One(rv_sltiu(3, 1, -1), NEG1));
    EXPECT_EQ(0u, One(rv_sltiu(3, 1, 5), INT_MIN32));
}

TEST_F(Rv32, Xori)
{
    EXPECT_EQ(0xedcba987u, One(rv_xori(3, 1, -1), 0x12345678)) << "not";
    EXPECT_EQ(0x12345678u ^ 0x7ffu, One(rv_xori(3, 1, 0x7ff), 0x12345678));
    EXPECT_EQ(0x12345678u ^ 0xfffff800u, One(rv_xori(3, 1, -2048), 0x12345678));
}

TEST_F(Rv32, Ori)
{
    EXPECT_EQ(0x123456ffu, One(rv_ori(3, 1, 0xff), 0x12345600));
    EXPECT_EQ(0xfffff800u | 0x12u, One(rv_ori(3, 1, -2048), 0x12));
}

TEST_F(Rv32, Andi)
{
    EXPECT_EQ(0x12345670u, One(rv_andi(3, 1, -16), 0x12345678));
    EXPECT_EQ(0x78u, One(rv_andi(3, 1, 0xff), 0x12345678));
    EXPECT_EQ(0x12345800u, One(rv_andi(3, 1, -2048), 0x12345fff)) << "imm sign-extends to 0xfffff800";
}

TEST_F(Rv32, Slli)
{
    EXPECT_EQ(0x12345678u, One(rv_slli(3, 1, 0), 0x12345678));
    EXPECT_EQ(0x2468acf0u, One(rv_slli(3, 1, 1), 0x12345678));
    EXPECT_EQ(0x80000000u, One(rv_slli(3, 1, 31), 1));
    EXPECT_EQ(0u, One(rv_slli(3, 1, 31), 2));
}

TEST_F(Rv32, Srli)
{
    EXPECT_EQ(1u, One(rv_srli(3, 1, 31), INT_MIN32)) << "logical";
    EXPECT_EQ(0x7fffffffu, One(rv_srli(3, 1, 1), NEG1));
    EXPECT_EQ(0x80000000u, One(rv_srli(3, 1, 0), INT_MIN32));
}

TEST_F(Rv32, Srai)
{
    EXPECT_EQ(NEG1, One(rv_srai(3, 1, 31), INT_MIN32)) << "arithmetic";
    EXPECT_EQ(0xc0000000u, One(rv_srai(3, 1, 1), INT_MIN32));
    EXPECT_EQ(0u, One(rv_srai(3, 1, 31), INT_MAX32));
    EXPECT_EQ(0xfffffff8u, One(rv_srai(3, 1, 0), 0xfffffff8u));
}

// ================================================================ RV32I: register-register

TEST_F(Rv32, Add)
{
    EXPECT_EQ(5u, One(rv_add(3, 1, 2), 2, 3));
    EXPECT_EQ(INT_MIN32, One(rv_add(3, 1, 2), INT_MAX32, 1)) << "signed overflow wraps";
    EXPECT_EQ(0u, One(rv_add(3, 1, 2), NEG1, 1));
    EXPECT_EQ(0u, One(rv_add(3, 1, 2), INT_MIN32, INT_MIN32));
}

TEST_F(Rv32, Sub)
{
    EXPECT_EQ(NEG1, One(rv_sub(3, 1, 2), 2, 3));
    EXPECT_EQ(INT_MAX32, One(rv_sub(3, 1, 2), INT_MIN32, 1)) << "signed overflow wraps";
    EXPECT_EQ(INT_MIN32, One(rv_sub(3, 1, 2), 0, INT_MIN32));
    EXPECT_EQ(0u, One(rv_sub(3, 1, 2), 7, 7));
}

TEST_F(Rv32, Sll)
{
    EXPECT_EQ(0x80000000u, One(rv_sll(3, 1, 2), 1, 31));
    EXPECT_EQ(2u, One(rv_sll(3, 1, 2), 1, 33)) << "only the low 5 bits of rs2";
    EXPECT_EQ(1u, One(rv_sll(3, 1, 2), 1, 0xffffffe0u));
    EXPECT_EQ(0x80000000u, One(rv_sll(3, 1, 2), 1, NEG1));
}

TEST_F(Rv32, Slt)
{
    EXPECT_EQ(1u, One(rv_slt(3, 1, 2), NEG1, 1)) << "signed";
    EXPECT_EQ(0u, One(rv_slt(3, 1, 2), 1, NEG1));
    EXPECT_EQ(1u, One(rv_slt(3, 1, 2), INT_MIN32, INT_MAX32));
    EXPECT_EQ(0u, One(rv_slt(3, 1, 2), 3, 3));
}

TEST_F(Rv32, Sltu)
{
    EXPECT_EQ(0u, One(rv_sltu(3, 1, 2), NEG1, 1)) << "unsigned";
    EXPECT_EQ(1u, One(rv_sltu(3, 1, 2), 1, NEG1));
    EXPECT_EQ(0u, One(rv_sltu(3, 1, 2), INT_MIN32, INT_MAX32));
    EXPECT_EQ(1u, One(rv_sltu(3, 0, 2), 0, 5)) << "snez: sltu rd, x0, rs2";
}

TEST_F(Rv32, Xor)
{
    EXPECT_EQ(0xff00ff00u, One(rv_xor(3, 1, 2), 0xf0f0f0f0, 0x0ff00ff0));
    EXPECT_EQ(0u, One(rv_xor(3, 1, 2), 0x1234, 0x1234));
}

TEST_F(Rv32, Srl)
{
    EXPECT_EQ(1u, One(rv_srl(3, 1, 2), INT_MIN32, 31)) << "logical on a negative value";
    EXPECT_EQ(0x7fffffffu, One(rv_srl(3, 1, 2), NEG1, 1));
    EXPECT_EQ(0x40000000u, One(rv_srl(3, 1, 2), INT_MIN32, 33)) << "shamt masked to 1";
    EXPECT_EQ(INT_MIN32, One(rv_srl(3, 1, 2), INT_MIN32, 32)) << "shamt masked to 0";
}

TEST_F(Rv32, Sra)
{
    EXPECT_EQ(NEG1, One(rv_sra(3, 1, 2), INT_MIN32, 31)) << "arithmetic on a negative value";
    EXPECT_EQ(0xc0000000u, One(rv_sra(3, 1, 2), INT_MIN32, 1));
    EXPECT_EQ(0xc0000000u, One(rv_sra(3, 1, 2), INT_MIN32, 0x41)) << "shamt masked to 1";
    EXPECT_EQ(0x3fffffffu, One(rv_sra(3, 1, 2), INT_MAX32, 1)) << "positive: like srl";
}

TEST_F(Rv32, Or)
{
    EXPECT_EQ(0xfff0fff0u, One(rv_or(3, 1, 2), 0xf0f0f0f0, 0x0ff00ff0));
}

TEST_F(Rv32, And)
{
    EXPECT_EQ(0x00f000f0u, One(rv_and(3, 1, 2), 0xf0f0f0f0, 0x0ff00ff0));
}

TEST_F(Rv32, FenceAndFenceIAreNops)
{
    p.Emit(rv_fence());
    p.Emit(rv_fence_i());
    p.Emit(rv_r(0, 0, 0, 0, 0, RV_OP_MISC_MEM)); // fence with no sets
    uint32_t brk = RunToBreak();
    EXPECT_EQ(kBase + 12, brk);
    EXPECT_EQ(3u, rv32_instret(cpu));
}

// ================================================================ RV32M

TEST_F(Rv32, Mul)
{
    EXPECT_EQ(42u, One(rv_mul(3, 1, 2), 6, 7));
    EXPECT_EQ(static_cast<uint32_t>(-42), One(rv_mul(3, 1, 2), static_cast<uint32_t>(-6), 7));
    EXPECT_EQ(INT_MIN32, One(rv_mul(3, 1, 2), INT_MIN32, NEG1)) << "INT_MIN * -1 wraps";
    EXPECT_EQ(1u, One(rv_mul(3, 1, 2), NEG1, NEG1));
    EXPECT_EQ(0x00000001u, One(rv_mul(3, 1, 2), 0xffffffffu, 0xffffffffu));
    EXPECT_EQ(0x242d2080u, One(rv_mul(3, 1, 2), 0x12345678, 0x9abcdef0)) << "low 32 bits";
}

TEST_F(Rv32, Mulh)
{
    EXPECT_EQ(0x40000000u, One(rv_mulh(3, 1, 2), INT_MIN32, INT_MIN32)) << "(-2^31)^2 = 2^62";
    EXPECT_EQ(0u, One(rv_mulh(3, 1, 2), INT_MIN32, NEG1)) << "-2^31 * -1 = 2^31";
    EXPECT_EQ(0u, One(rv_mulh(3, 1, 2), NEG1, NEG1));
    EXPECT_EQ(NEG1, One(rv_mulh(3, 1, 2), NEG1, 1)) << "-1: high word all ones";
    EXPECT_EQ(0x3fffffffu, One(rv_mulh(3, 1, 2), INT_MAX32, INT_MAX32));
    EXPECT_EQ(0xc0000000u, One(rv_mulh(3, 1, 2), INT_MIN32, INT_MAX32)) << "-2^31 * (2^31-1)";
}

TEST_F(Rv32, Mulhsu)
{
    // rs1 signed, rs2 unsigned
    EXPECT_EQ(NEG1, One(rv_mulhsu(3, 1, 2), NEG1, NEG1)) << "-1 * (2^32-1) = -(2^32-1)";
    EXPECT_EQ(0x80000000u, One(rv_mulhsu(3, 1, 2), INT_MIN32, NEG1)) << "-2^31 * (2^32-1)";
    EXPECT_EQ(NEG1, One(rv_mulhsu(3, 1, 2), NEG1 - 1, INT_MIN32)) << "-2 * 2^31 = -2^32: rs2 is unsigned";
    EXPECT_EQ(0x7ffffffeu, One(rv_mulhsu(3, 1, 2), INT_MAX32, NEG1));
    EXPECT_EQ(0u, One(rv_mulhsu(3, 1, 2), 2, INT_MIN32 - 1));
}

TEST_F(Rv32, Mulhu)
{
    EXPECT_EQ(0xfffffffeu, One(rv_mulhu(3, 1, 2), NEG1, NEG1));
    EXPECT_EQ(0x40000000u, One(rv_mulhu(3, 1, 2), INT_MIN32, INT_MIN32));
    EXPECT_EQ(0x7fffffffu, One(rv_mulhu(3, 1, 2), INT_MIN32, NEG1));
    EXPECT_EQ(0u, One(rv_mulhu(3, 1, 2), 0x10000, 0xffff));
}

TEST_F(Rv32, Div)
{
    EXPECT_EQ(static_cast<uint32_t>(-3), One(rv_div(3, 1, 2), 7, static_cast<uint32_t>(-2))) << "rounds to zero";
    EXPECT_EQ(static_cast<uint32_t>(-3), One(rv_div(3, 1, 2), static_cast<uint32_t>(-7), 2));
    EXPECT_EQ(3u, One(rv_div(3, 1, 2), static_cast<uint32_t>(-7), static_cast<uint32_t>(-2)));
    EXPECT_EQ(NEG1, One(rv_div(3, 1, 2), 7, 0)) << "x / 0 = -1";
    EXPECT_EQ(NEG1, One(rv_div(3, 1, 2), INT_MIN32, 0));
    EXPECT_EQ(INT_MIN32, One(rv_div(3, 1, 2), INT_MIN32, NEG1)) << "INT_MIN / -1 = INT_MIN";
}

TEST_F(Rv32, Divu)
{
    EXPECT_EQ(0x7fffffffu, One(rv_divu(3, 1, 2), NEG1, 2));
    EXPECT_EQ(NEG1, One(rv_divu(3, 1, 2), 7, 0)) << "x / 0 = 2^32-1";
    EXPECT_EQ(0u, One(rv_divu(3, 1, 2), INT_MIN32, NEG1));
    EXPECT_EQ(1u, One(rv_divu(3, 1, 2), NEG1, NEG1));
}

TEST_F(Rv32, Rem)
{
    EXPECT_EQ(1u, One(rv_rem(3, 1, 2), 7, static_cast<uint32_t>(-2))) << "sign of the dividend";
    EXPECT_EQ(NEG1, One(rv_rem(3, 1, 2), static_cast<uint32_t>(-7), 2));
    EXPECT_EQ(7u, One(rv_rem(3, 1, 2), 7, 0)) << "x % 0 = x";
    EXPECT_EQ(INT_MIN32, One(rv_rem(3, 1, 2), INT_MIN32, 0));
    EXPECT_EQ(0u, One(rv_rem(3, 1, 2), INT_MIN32, NEG1)) << "INT_MIN % -1 = 0";
}

TEST_F(Rv32, Remu)
{
    EXPECT_EQ(1u, One(rv_remu(3, 1, 2), NEG1, 2));
    EXPECT_EQ(7u, One(rv_remu(3, 1, 2), 7, 0)) << "x % 0 = x";
    EXPECT_EQ(NEG1, One(rv_remu(3, 1, 2), NEG1, 0));
    EXPECT_EQ(INT_MIN32, One(rv_remu(3, 1, 2), INT_MIN32, NEG1));
}

// Every register-register and register-immediate operation against an
// independent reference, on random operands biased to the edges.
TEST_F(Rv32, AluOpsMatchReferenceOnRandomOperands)
{
    struct Op {
        const char *name;
        std::function<uint32_t(uint32_t, uint32_t)> insn; // (rs2 or imm source) -> word
        std::function<uint32_t(uint32_t, uint32_t)> ref;   // (a, b) -> result
        bool imm;                                          // b is the immediate (12 bits) or shamt
        bool shamt;
    };
    auto s = [](uint32_t v) { return static_cast<int32_t>(v); };
    auto sx12 = [](uint32_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v << 20) >> 20); };
    const std::vector<Op> ops = {
        {"add", [](uint32_t, uint32_t) { return rv_add(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a + b; }, false, false},
        {"sub", [](uint32_t, uint32_t) { return rv_sub(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a - b; }, false, false},
        {"sll", [](uint32_t, uint32_t) { return rv_sll(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a << (b % 32); }, false, false},
        {"slt", [](uint32_t, uint32_t) { return rv_slt(3, 1, 2); }, [&](uint32_t a, uint32_t b) { return uint32_t(s(a) < s(b)); }, false, false},
        {"sltu", [](uint32_t, uint32_t) { return rv_sltu(3, 1, 2); }, [](uint32_t a, uint32_t b) { return uint32_t(a < b); }, false, false},
        {"xor", [](uint32_t, uint32_t) { return rv_xor(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a ^ b; }, false, false},
        {"srl", [](uint32_t, uint32_t) { return rv_srl(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a >> (b % 32); }, false, false},
        {"sra", [](uint32_t, uint32_t) { return rv_sra(3, 1, 2); },
         [](uint32_t a, uint32_t b) {
             uint32_t n = b % 32;
             return n == 0 ? a : (a >> n) | ((a & 0x80000000u) ? ~(0xffffffffu >> n) : 0u);
         }, false, false},
        {"or", [](uint32_t, uint32_t) { return rv_or(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a | b; }, false, false},
        {"and", [](uint32_t, uint32_t) { return rv_and(3, 1, 2); }, [](uint32_t a, uint32_t b) { return a & b; }, false, false},
        {"mul", [](uint32_t, uint32_t) { return rv_mul(3, 1, 2); },
         [](uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }, false, false},
        {"mulh", [](uint32_t, uint32_t) { return rv_mulh(3, 1, 2); },
         [&](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(s(a)) * int64_t(s(b))) >> 32); }, false, false},
        {"mulhsu", [](uint32_t, uint32_t) { return rv_mulhsu(3, 1, 2); },
         [](uint32_t a, uint32_t b) {
             // (a signed) * b = a_unsigned * b - (a < 0 ? b << 32 : 0)
             uint64_t p = uint64_t(a) * b - ((a & 0x80000000u) ? uint64_t(b) << 32 : 0);
             return uint32_t(p >> 32);
         }, false, false},
        {"mulhu", [](uint32_t, uint32_t) { return rv_mulhu(3, 1, 2); },
         [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }, false, false},
        {"div", [](uint32_t, uint32_t) { return rv_div(3, 1, 2); },
         [&](uint32_t a, uint32_t b) {
             if (b == 0) return NEG1;
             return uint32_t(int64_t(s(a)) / int64_t(s(b))); // int64: INT_MIN / -1 = 2^31 -> INT_MIN
         }, false, false},
        {"divu", [](uint32_t, uint32_t) { return rv_divu(3, 1, 2); },
         [](uint32_t a, uint32_t b) { return b == 0 ? NEG1 : a / b; }, false, false},
        {"rem", [](uint32_t, uint32_t) { return rv_rem(3, 1, 2); },
         [&](uint32_t a, uint32_t b) { return b == 0 ? a : uint32_t(int64_t(s(a)) % int64_t(s(b))); }, false, false},
        {"remu", [](uint32_t, uint32_t) { return rv_remu(3, 1, 2); },
         [](uint32_t a, uint32_t b) { return b == 0 ? a : a % b; }, false, false},
        {"addi", [](uint32_t, uint32_t b) { return rv_addi(3, 1, int32_t(b)); }, [&](uint32_t a, uint32_t b) { return a + sx12(b); }, true, false},
        {"slti", [](uint32_t, uint32_t b) { return rv_slti(3, 1, int32_t(b)); },
         [&](uint32_t a, uint32_t b) { return uint32_t(s(a) < s(sx12(b))); }, true, false},
        {"sltiu", [](uint32_t, uint32_t b) { return rv_sltiu(3, 1, int32_t(b)); },
         [&](uint32_t a, uint32_t b) { return uint32_t(a < sx12(b)); }, true, false},
        {"xori", [](uint32_t, uint32_t b) { return rv_xori(3, 1, int32_t(b)); }, [&](uint32_t a, uint32_t b) { return a ^ sx12(b); }, true, false},
        {"ori", [](uint32_t, uint32_t b) { return rv_ori(3, 1, int32_t(b)); }, [&](uint32_t a, uint32_t b) { return a | sx12(b); }, true, false},
        {"andi", [](uint32_t, uint32_t b) { return rv_andi(3, 1, int32_t(b)); }, [&](uint32_t a, uint32_t b) { return a & sx12(b); }, true, false},
        {"slli", [](uint32_t, uint32_t b) { return rv_slli(3, 1, b); }, [](uint32_t a, uint32_t b) { return a << b; }, true, true},
        {"srli", [](uint32_t, uint32_t b) { return rv_srli(3, 1, b); }, [](uint32_t a, uint32_t b) { return a >> b; }, true, true},
        {"srai", [](uint32_t, uint32_t b) { return rv_srai(3, 1, b); },
         [](uint32_t a, uint32_t b) { return b == 0 ? a : (a >> b) | ((a & 0x80000000u) ? ~(0xffffffffu >> b) : 0u); }, true, true},
    };
    std::mt19937 rng(12345);
    const uint32_t edges[] = {0, 1, 2, 31, 32, 33, 0x7ff, 0x800, 0xfff, INT_MAX32, INT_MIN32, NEG1, NEG1 - 1, 0x80000001u};
    auto pick = [&]() {
        uint32_t r = rng();
        return (r & 3) == 0 ? edges[(r >> 2) % (sizeof edges / sizeof edges[0])] : static_cast<uint32_t>(rng());
    };
    for (const Op &op : ops) {
        for (int i = 0; i < 300; i++) {
            uint32_t a = pick(), b = pick();
            if (op.shamt)
                b &= 31;
            else if (op.imm)
                b &= 0xfff;
            uint32_t got = One(op.insn(a, b), a, op.imm ? 0 : b);
            uint32_t want = op.ref(a, b);
            ASSERT_EQ(want, got) << op.name << " a=" << Hex(a) << " b=" << Hex(b);
        }
    }
}

// ================================================================ traps

TEST_F(Rv32, EcallTrapsToMtvec)
{
    InstallHaltingHandler();
    p.Emit(rv_nop());
    uint32_t at = p.Emit(rv_ecall());
    rv32_stop_t s = Run();
    ExpectTrapTaken(s, RV32_CAUSE_ECALL_M, at, 0);
    EXPECT_EQ(1u + 2, rv32_instret(cpu)) << "ecall does not retire";
}

TEST_F(Rv32, EbreakTrapsToMtvec)
{
    InstallHaltingHandler();
    uint32_t at = p.Emit(rv_ebreak());
    ExpectTrapTaken(Run(), RV32_CAUSE_BREAKPOINT, at, at);
}

TEST_F(Rv32, TrapWithoutHandlerStopsWithDetails)
{
    p.Emit(rv_addi(5, 0, 1));
    uint32_t at = p.Emit(rv_ecall());
    rv32_stop_t s = Run();
    ExpectUnhandledTrap(s, RV32_CAUSE_ECALL_M, at, 0);
    EXPECT_EQ(1u, rv32_instret(cpu));
    EXPECT_EQ(1u, X(5));
    // running again re-executes the trapping instruction, and stops again
    EXPECT_EQ(RV32_STOP_TRAP, rv32_run(cpu, 100));
    EXPECT_EQ(at, rv32_pc(cpu));
}

TEST_F(Rv32, MretReturnsAndRestoresMie)
{
    // handler: mepc += 4; x20++; mret
    Put(kHandler, {rv_csrr(21, RV32_CSR_MEPC), rv_addi(21, 21, 4), rv_csrw(RV32_CSR_MEPC, 21),
                   rv_csrr(22, RV32_CSR_MSTATUS), rv_addi(20, 20, 1), rv_mret()});
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, kHandler));
    p.Emit(rv_csrrsi(0, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    p.Emit(rv_ecall());
    p.Emit(rv_addi(6, 0, 7));
    p.Emit(rv_ecall());
    p.Emit(rv_csrr(7, RV32_CSR_MSTATUS));
    p.Halt(0);
    ASSERT_EQ(RV32_STOP_HALT, Run());
    EXPECT_EQ(2u, X(20)) << "the handler ran twice";
    EXPECT_EQ(7u, X(6)) << "execution resumed after the ecall";
    EXPECT_EQ(RV32_MSTATUS_MPIE | RV32_MSTATUS_MPP, X(22)) << "in the handler: MIE 0, MPIE 1";
    EXPECT_EQ(RV32_MSTATUS_MIE | RV32_MSTATUS_MPIE | RV32_MSTATUS_MPP, X(7)) << "after mret: MIE = MPIE, MPIE = 1";
}

TEST_F(Rv32, MretWithMpieClear)
{
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MEPC, kBase + 0x40));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    p.Emit(rv_mret());
    p.Org(kBase + 0x40);
    uint32_t brk = RunToBreak();
    EXPECT_EQ(kBase + 0x40, brk) << "mret jumps to mepc";
    EXPECT_EQ(RV32_MSTATUS_MPIE | RV32_MSTATUS_MPP, Csr(RV32_CSR_MSTATUS)) << "MIE = old MPIE (0), MPIE = 1";
}

struct IllegalCase {
    const char *name;
    uint32_t word;
};

class Rv32Illegal : public Rv32, public ::testing::WithParamInterface<IllegalCase> {};

TEST_P(Rv32Illegal, TrapsWithInstructionBits)
{
    InstallHaltingHandler();
    p.Emit(rv_nop());
    rv32_set_reg(cpu, 1, kData);
    uint32_t at = p.Emit(GetParam().word);
    rv32_stop_t s = Run();
    ExpectTrapTaken(s, RV32_CAUSE_ILLEGAL_INSN, at, GetParam().word);
    EXPECT_EQ(kData, X(1));
    EXPECT_EQ(3u, rv32_instret(cpu)) << "the nop and the handler's two retired, not the illegal word";
}

INSTANTIATE_TEST_SUITE_P(
    Words, Rv32Illegal,
    ::testing::Values(
        IllegalCase{"all_zero", 0x00000000u}, IllegalCase{"all_ones", 0xffffffffu},
        IllegalCase{"compressed_c_nop", 0x00000001u},
        IllegalCase{"op_bad_funct7", rv_r(0x02, 2, 1, 0, 3, RV_OP_OP)},
        IllegalCase{"op_funct7_20_with_xor", rv_r(0x20, 2, 1, 4, 3, RV_OP_OP)},
        IllegalCase{"slli_shamt_bit5", rv_r(0x01, 0, 1, 1, 3, RV_OP_IMM)},
        IllegalCase{"srai_bad_funct7", rv_r(0x21, 0, 1, 5, 3, RV_OP_IMM)},
        IllegalCase{"load_funct3_3", rv_i(0, 1, 3, 3, RV_OP_LOAD)},
        IllegalCase{"load_funct3_6", rv_i(0, 1, 6, 3, RV_OP_LOAD)},
        IllegalCase{"store_funct3_3", rv_s(0, 2, 1, 3, RV_OP_STORE)},
        IllegalCase{"branch_funct3_2", rv_b(8, 2, 1, 2, RV_OP_BRANCH)},
        IllegalCase{"jalr_funct3_1", rv_i(0, 1, 1, 3, RV_OP_JALR)},
        IllegalCase{"misc_mem_funct3_2", rv_i(0, 0, 2, 0, RV_OP_MISC_MEM)},
        IllegalCase{"system_funct3_4", rv_i(0, 0, 4, 0, RV_OP_SYSTEM)},
        IllegalCase{"sret", 0x10200073u}, IllegalCase{"uret", 0x00200073u},
        IllegalCase{"ecall_with_rd", 0x000000f3u},
        IllegalCase{"unknown_csr_7c0", rv_csrr(3, 0x7c0)},
        IllegalCase{"unknown_csr_time", rv_csrr(3, 0xc01)},
        IllegalCase{"unknown_csr_satp", rv_csrr(3, 0x180)},
        IllegalCase{"unknown_csr_hpmcounter3", rv_csrr(3, 0xb03)},
        IllegalCase{"write_mhartid", rv_csrw(RV32_CSR_MHARTID, 1)},
        IllegalCase{"write_cycle", rv_csrrw(3, RV32_CSR_CYCLE, 1)},
        IllegalCase{"set_instret", rv_csrrs(3, RV32_CSR_INSTRET, 1)},
        IllegalCase{"seti_mvendorid", rv_csrrsi(3, RV32_CSR_MVENDORID, 1)},
        IllegalCase{"writei_cycleh_zero", rv_csrrwi(0, RV32_CSR_CYCLEH, 0)},
        IllegalCase{"amo_opcode", 0x0020a1afu}, // amoadd.w: no A extension
        IllegalCase{"float_load", 0x0000a007u}  // flw: no F extension
        ),
    [](const ::testing::TestParamInfo<IllegalCase> &i) { return std::string(i.param.name); });

TEST_F(Rv32, ReadOnlyCsrReadWithoutWriteIsLegal)
{
    // csrrs/csrrc with rs1 = x0 and csrrsi/csrrci with uimm = 0 do not write (U 9.1)
    p.Emit(rv_csrrs(5, RV32_CSR_MHARTID, 0));
    p.Emit(rv_csrrc(6, RV32_CSR_CYCLE, 0));
    p.Emit(rv_csrrsi(7, RV32_CSR_INSTRET, 0));
    p.Emit(rv_csrrci(8, RV32_CSR_MVENDORID, 0));
    RunToBreak();
    EXPECT_EQ(0u, X(5));
    EXPECT_EQ(0u, X(8));
}

TEST_F(Rv32, MisalignedLoadTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kData + 2);
    rv32_set_reg(cpu, 5, 0x5555);
    uint32_t at = p.Emit(rv_lw(5, 1, 0));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_LOAD, at, kData + 2);
    EXPECT_EQ(0x5555u, X(5)) << "rd not written";
}

TEST_F(Rv32, MisalignedHalfLoadTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kData);
    uint32_t at = p.Emit(rv_lhu(5, 1, 3));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_LOAD, at, kData + 3);
}

TEST_F(Rv32, MisalignedBusLoadTrapsWithoutBusAccess)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kDevBase);
    uint32_t at = p.Emit(rv_lh(5, 1, 1));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_LOAD, at, kDevBase + 1);
    EXPECT_EQ(0u, bus.Count(false, RV32_BUS_OK) + bus.Count(false, RV32_BUS_FAULT));
}

TEST_F(Rv32, MisalignedStoreTraps)
{
    InstallHaltingHandler();
    SetRam32(kData, 0x11111111);
    SetRam32(kData + 4, 0x22222222);
    rv32_set_reg(cpu, 1, kData);
    rv32_set_reg(cpu, 2, 0xffffffff);
    uint32_t at = p.Emit(rv_sw(2, 1, 2));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_STORE, at, kData + 2);
    EXPECT_EQ(0x11111111u, Ram32(kData)) << "memory unchanged";
    EXPECT_EQ(0x22222222u, Ram32(kData + 4));
}

TEST_F(Rv32, MisalignedHalfStoreTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kDevBase);
    uint32_t at = p.Emit(rv_sh(2, 1, 5));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_STORE, at, kDevBase + 5);
    ASSERT_EQ(1u, bus.log.size()) << "no bus access but the handler's EXIT store";
    EXPECT_EQ(kConsoleExit, bus.log[0].addr);
}

TEST_F(Rv32, MisalignedJalTargetTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, 0x77);
    uint32_t at = p.Emit(rv_jal(1, 6));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_FETCH, at, at + 6);
    EXPECT_EQ(0x77u, X(1)) << "rd not written";
}

TEST_F(Rv32, MisalignedJalrTargetTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kBase + 0x102); // bit 1 set; bit 0 would be cleared
    uint32_t at = p.Emit(rv_jalr(1, 1, 1));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_FETCH, at, kBase + 0x102);
    EXPECT_EQ(kBase + 0x102, X(1)) << "rd not written";
}

TEST_F(Rv32, MisalignedBranchTargetTrapsOnlyWhenTaken)
{
    InstallHaltingHandler();
    p.Emit(rv_bne(0, 0, 6)); // not taken: no trap
    uint32_t at = p.Emit(rv_beq(0, 0, 6));
    ExpectTrapTaken(Run(), RV32_CAUSE_MISALIGNED_FETCH, at, at + 6);
}

TEST_F(Rv32, MisalignedResetPcTraps)
{
    rv32_reset(cpu, kBase + 2);
    p.Emit(rv_nop());
    ExpectUnhandledTrap(Run(), RV32_CAUSE_MISALIGNED_FETCH, kBase + 2, kBase + 2);
}

TEST_F(Rv32, BusLoadFaultTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kUnmapped);
    rv32_set_reg(cpu, 5, 0x5555);
    uint32_t at = p.Emit(rv_lw(5, 1, 8));
    ExpectTrapTaken(Run(), RV32_CAUSE_LOAD_ACCESS, at, kUnmapped + 8);
    EXPECT_EQ(0x5555u, X(5)) << "rd not written";
    EXPECT_EQ(1u, bus.Count(false, RV32_BUS_FAULT));
}

TEST_F(Rv32, BusStoreFaultTraps)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kUnmapped);
    uint32_t at = p.Emit(rv_sb(5, 1, -1));
    ExpectTrapTaken(Run(), RV32_CAUSE_STORE_ACCESS, at, kUnmapped - 1);
}

TEST_F(Rv32, NoBusMeansAccessFault)
{
    std::vector<uint8_t> r(256);
    uint32_t prog[] = {rv_lui(1, 0x40000), rv_lw(2, 1, 0), rv_ebreak()};
    std::memcpy(r.data(), prog, sizeof prog);
    rv32_config_t c{};
    c.ram = r.data();
    c.ram_base = 0;
    c.ram_size = 256;
    rv32_t *cpu2 = nullptr;
    ASSERT_EQ(0, rv32_create(&cpu2, &c));
    EXPECT_EQ(RV32_STOP_TRAP, rv32_run(cpu2, 100));
    uint32_t cause = 0, epc = 0, tval = 0;
    rv32_last_trap(cpu2, &cause, &epc, &tval);
    EXPECT_EQ(RV32_CAUSE_LOAD_ACCESS, cause);
    EXPECT_EQ(4u, epc);
    EXPECT_EQ(0x40000000u, tval);
    rv32_destroy(cpu2);
}

TEST_F(Rv32, FetchOutsideRamFaults)
{
    InstallHaltingHandler();
    rv32_set_reg(cpu, 1, kDevBase); // device registers: no fetch through the bus
    p.Emit(rv_jalr(5, 1, 0x10));
    ExpectTrapTaken(Run(), RV32_CAUSE_FETCH_ACCESS, kDevBase + 0x10, kDevBase + 0x10);
    EXPECT_TRUE(bus.log.size() == 1 && bus.log[0].store) << "only the handler's EXIT store reached the bus";
}

TEST_F(Rv32, FallingOffTheEndOfRamFaults)
{
    const uint32_t last = kBase + kRamSize - 4;
    rv32_reset(cpu, last);
    SetRam32(last, rv_addi(5, 0, 3));
    ExpectUnhandledTrap(rv32_run(cpu, 100), RV32_CAUSE_FETCH_ACCESS, kBase + kRamSize, kBase + kRamSize);
    EXPECT_EQ(3u, X(5));
}

TEST_F(Rv32, TrapCostsAJump)
{
    rv32_costs_t c = rv32_default_costs();
    c.jump = 10;
    Make(c);
    InstallHaltingHandler();
    p.Emit(rv_ecall());
    ASSERT_EQ(RV32_STOP_HALT, Run());
    // trap entry 10, handler: lui 1 + bus store (1 + 4)
    EXPECT_EQ(10u + 1 + 1 + 4, rv32_cycles(cpu));
}

// ================================================================ vectored mtvec

TEST_F(Rv32, VectoredMtvecRoutesInterruptsNotExceptions)
{
    const uint32_t vbase = kBase + 0x2000;
    // exceptions: vbase; MEI: vbase + 4 * 11
    Put(vbase, {rv_addi(20, 0, 1), rv_lui(31, HCA_CONSOLE_BASE >> 12), rv_sw(0, 31, HCA_CONSOLE_EXIT)});
    Put(vbase + 44, {rv_addi(20, 0, 2), rv_lui(31, HCA_CONSOLE_BASE >> 12), rv_sw(0, 31, HCA_CONSOLE_EXIT)});
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, vbase | 1));
    EXPECT_EQ(vbase | 1, Csr(RV32_CSR_MTVEC));
    p.Emit(rv_ecall());
    ASSERT_EQ(RV32_STOP_HALT, Run());
    EXPECT_EQ(1u, X(20)) << "exception went to the base";

    rv32_reset(cpu, kBase);
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, vbase | 1));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    rv32_set_irq(cpu, 1);
    ASSERT_EQ(RV32_STOP_HALT, rv32_run(cpu, 1000));
    EXPECT_EQ(2u, X(20)) << "interrupt went to base + 4 * 11";
    EXPECT_EQ(RV32_CAUSE_MEI, Csr(RV32_CSR_MCAUSE));
}

// ================================================================ interrupts

TEST_F(Rv32, ExternalInterruptTakenBetweenInstructions)
{
    InstallHaltingHandler();
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    p.Emit(rv_addi(5, 0, 1));
    p.Li(1, kIrqReg);
    p.Emit(rv_addi(2, 0, 1));
    uint32_t raise = p.Emit(rv_sw(2, 1, 0)); // the device raises its line during this store
    p.Emit(rv_addi(6, 0, 1));
    rv32_stop_t s = Run();
    ExpectTrapTaken(s, RV32_CAUSE_MEI, raise + 4, 0);
    EXPECT_EQ(0u, X(6)) << "the instruction after the store did not execute";
    EXPECT_EQ(RV32_MIX_MEI, Csr(RV32_CSR_MIP));
}

TEST_F(Rv32, ExternalInterruptPendingAtStart)
{
    InstallHaltingHandler();
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    rv32_set_irq(cpu, 1);
    p.Emit(rv_addi(6, 0, 1));
    ExpectTrapTaken(Run(), RV32_CAUSE_MEI, kBase, 0);
    EXPECT_EQ(0u, X(6));
}

TEST_F(Rv32, ExternalInterruptMasked)
{
    // MEIP set but masked by mstatus.MIE = 0, then by mie.MEIE = 0
    p.Emit(rv_addi(6, 0, 1));
    p.Emit(rv_csrr(7, RV32_CSR_MIP));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    rv32_set_irq(cpu, 1);
    RunToBreak(); // mtvec = 0: a taken interrupt would stop with cause MEI instead
    EXPECT_EQ(1u, X(6));
    EXPECT_EQ(RV32_MIX_MEI, X(7)) << "mip.MEIP shows the line";

    p = Program();
    rv32_reset(cpu, kBase);
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    p.Emit(rv_addi(6, 0, 2));
    RunToBreak(); // mtvec = 0 again after reset: an interrupt would stop with cause MEI
    EXPECT_EQ(2u, X(6)) << "mie.MEIE = 0 masks";
}

TEST_F(Rv32, ExternalInterruptWithoutHandlerStops)
{
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    p.Emit(rv_addi(6, 0, 1));
    p.Emit(rv_addi(6, 0, 2));
    Load();
    ASSERT_EQ(RV32_STOP_BUDGET, rv32_run(cpu, 1));
    rv32_set_irq(cpu, 1);
    ExpectUnhandledTrap(rv32_run(cpu, 100), RV32_CAUSE_MEI, kBase + 4, 0);
    EXPECT_EQ(1u, X(6));
    EXPECT_EQ(RV32_MSTATUS_MIE, Csr(RV32_CSR_MSTATUS) & RV32_MSTATUS_MIE) << "not taken: MIE unchanged";
}

TEST_F(Rv32, InterruptHandlerClearsSourceAndReturns)
{
    // handler: x20++; clear the line; mret
    Put(kHandler, {rv_addi(20, 20, 1), rv_lui(21, kIrqReg >> 12), rv_sw(0, 21, static_cast<int32_t>(kIrqReg & 0xfff)),
                   rv_mret()});
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MTVEC, kHandler));
    p.Emit(rv_csrrsi(0, RV32_CSR_MIE, 0)); // nothing
    p.Li(5, RV32_MIX_MEI);
    p.Emit(rv_csrrs(0, RV32_CSR_MIE, 5));
    p.Emit(rv_csrrsi(0, RV32_CSR_MSTATUS, RV32_MSTATUS_MIE));
    p.Li(1, kIrqReg);
    p.Emit(rv_addi(2, 0, 1));
    p.Emit(rv_sw(2, 1, 0));
    p.Emit(rv_addi(6, 6, 1));
    p.Emit(rv_sw(2, 1, 0));
    p.Emit(rv_addi(6, 6, 1));
    p.Emit(rv_csrr(7, RV32_CSR_MSTATUS));
    p.Halt(0);
    ASSERT_EQ(RV32_STOP_HALT, Run());
    EXPECT_EQ(2u, X(20)) << "two interrupts, one each";
    EXPECT_EQ(2u, X(6)) << "the interrupted program ran to the end";
    EXPECT_EQ(RV32_MSTATUS_MIE, X(7) & RV32_MSTATUS_MIE) << "mret re-enabled interrupts";
}

// ================================================================ WFI

TEST_F(Rv32, WfiSleepsIdlesAndWakesIntoInterrupt)
{
    InstallHaltingHandler();
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    uint32_t at = p.Emit(rv_wfi());
    p.Emit(rv_addi(6, 0, 1));
    ASSERT_EQ(RV32_STOP_WFI, Run());
    EXPECT_EQ(at + 4, rv32_pc(cpu)) << "wfi retired";
    EXPECT_EQ(1u, rv32_instret(cpu));
    uint64_t c0 = rv32_cycles(cpu);
    EXPECT_EQ(1u, c0) << "wfi costs alu, nothing more";
    // asleep: a run consumes its budget as idle cycles
    EXPECT_EQ(RV32_STOP_WFI, rv32_run(cpu, 100));
    EXPECT_EQ(c0 + 100, rv32_cycles(cpu));
    EXPECT_EQ(RV32_STOP_WFI, rv32_run(cpu, 0)) << "still asleep";
    EXPECT_EQ(c0 + 100, rv32_cycles(cpu));
    EXPECT_EQ(1u, rv32_instret(cpu));
    rv32_add_cycles(cpu, 50);
    EXPECT_EQ(c0 + 150, rv32_cycles(cpu));
    EXPECT_EQ(c0 + 150, Csr(RV32_CSR_MCYCLE)) << "mcycle counts idle cycles";
    // wake
    rv32_set_irq(cpu, 1);
    ExpectTrapTaken(rv32_run(cpu, 100), RV32_CAUSE_MEI, at + 4, 0);
    EXPECT_EQ(0u, X(6));
}

TEST_F(Rv32, WfiWakesWithoutTrapWhenMieClear)
{
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI)); // mstatus.MIE = 0
    p.Emit(rv_wfi());
    p.Emit(rv_addi(6, 0, 1));
    p.Emit(rv_ebreak());
    ASSERT_EQ(RV32_STOP_WFI, Run());
    rv32_set_irq(cpu, 0);
    EXPECT_EQ(RV32_STOP_WFI, rv32_run(cpu, 10));
    rv32_set_irq(cpu, 1);
    EXPECT_EQ(RV32_STOP_TRAP, rv32_run(cpu, 10)) << "woke and ran on to the ebreak";
    EXPECT_EQ(1u, X(6));
    uint32_t cause = 0;
    rv32_last_trap(cpu, &cause, nullptr, nullptr);
    EXPECT_EQ(RV32_CAUSE_BREAKPOINT, cause);
}

TEST_F(Rv32, WfiWithPendingInterruptDoesNotSleep)
{
    ASSERT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIE, RV32_MIX_MEI));
    rv32_set_irq(cpu, 1);
    p.Emit(rv_wfi());
    p.Emit(rv_addi(6, 0, 1));
    RunToBreak();
    EXPECT_EQ(1u, X(6));
}

TEST_F(Rv32, WfiIgnoresInterruptNotEnabledInMie)
{
    rv32_set_irq(cpu, 1); // mie.MEIE = 0
    p.Emit(rv_wfi());
    ASSERT_EQ(RV32_STOP_WFI, Run());
    EXPECT_EQ(RV32_STOP_WFI, rv32_run(cpu, 10));
}

// ================================================================ bus stall

TEST_F(Rv32, StalledStoreRetriesAndExecutesOnce)
{
    p.Li(10, kDevBase);
    p.Emit(rv_addi(6, 6, 1));
    p.Emit(rv_addi(5, 0, 0x5a));
    uint32_t at = p.Emit(rv_sw(5, 10, 0x40));
    p.Emit(rv_addi(7, 7, 1));
    bus.stalls = 3;
    Load();
    uint64_t ret0 = 0, cyc0 = 0;
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ(RV32_STOP_STALL, rv32_run(cpu, 1000)) << "attempt " << i;
        EXPECT_EQ(at, rv32_pc(cpu)) << "pc stays on the stalled store";
        if (i == 0) {
            ret0 = rv32_instret(cpu);
            cyc0 = rv32_cycles(cpu);
        }
        EXPECT_EQ(ret0, rv32_instret(cpu)) << "the stalled store did not retire";
        EXPECT_EQ(cyc0, rv32_cycles(cpu)) << "a stall consumes no cycles by itself";
    }
    EXPECT_EQ(4u, ret0);
    RunToBreak();
    EXPECT_EQ(1u, X(6)) << "instructions before the stall ran once";
    EXPECT_EQ(1u, X(7));
    EXPECT_EQ(3u, bus.Count(true, RV32_BUS_STALL));
    EXPECT_EQ(1u, bus.Count(true, RV32_BUS_OK)) << "the store reached the device exactly once";
    EXPECT_EQ(0x5au, bus.dev[0x40]);
}

TEST_F(Rv32, StalledLoadWithRdEqualRs1Retries)
{
    uint32_t v = 0x12345678;
    std::memcpy(bus.dev + 0x80, &v, 4);
    p.Li(10, kDevBase + 0x80);
    p.Emit(rv_lw(10, 10, 0));
    bus.stalls = 2;
    Load();
    EXPECT_EQ(RV32_STOP_STALL, rv32_run(cpu, 1000));
    EXPECT_EQ(RV32_STOP_STALL, rv32_run(cpu, 1000));
    RunToBreak();
    EXPECT_EQ(0x12345678u, X(10));
    EXPECT_EQ(1u, bus.Count(false, RV32_BUS_OK));
    EXPECT_EQ(2u, bus.Count(false, RV32_BUS_STALL));
}

// ================================================================ halt, console

TEST_F(Rv32, ConsoleAndExitHalt)
{
    p.Emit(rv_lui(31, HCA_CONSOLE_BASE >> 12));
    for (char ch : std::string("hi\n")) {
        p.Emit(rv_addi(5, 0, ch));
        p.Emit(rv_sb(5, 31, HCA_CONSOLE_TX));
    }
    p.Emit(rv_addi(5, 0, 42));
    uint32_t at = p.Emit(rv_sw(5, 31, HCA_CONSOLE_EXIT));
    p.Emit(rv_addi(6, 0, 1));
    EXPECT_EQ(0u, rv32_exit_code(cpu));
    EXPECT_EQ(RV32_STOP_HALT, Run());
    EXPECT_EQ("hi\n", bus.console);
    EXPECT_EQ(1, rv32_halted(cpu));
    EXPECT_EQ(42u, rv32_exit_code(cpu));
    EXPECT_EQ(at + 4, rv32_pc(cpu)) << "the EXIT store completed";
    EXPECT_EQ(0u, X(6)) << "nothing ran after the halt";
    uint64_t ret = rv32_instret(cpu);
    EXPECT_EQ(RV32_STOP_HALT, rv32_run(cpu, 1000)) << "stays halted";
    EXPECT_EQ(ret, rv32_instret(cpu));
    rv32_reset(cpu, kBase);
    EXPECT_EQ(0, rv32_halted(cpu));
    EXPECT_EQ(0u, rv32_exit_code(cpu));
}

TEST_F(Rv32, HaltFromOutsideRun)
{
    p.Emit(rv_nop());
    Load();
    rv32_halt(cpu, 7);
    EXPECT_EQ(RV32_STOP_HALT, rv32_run(cpu, 100));
    EXPECT_EQ(0u, rv32_instret(cpu));
    EXPECT_EQ(7u, rv32_exit_code(cpu));
}

// An image with a stack: recursive fib(10) through jal/jalr and sp, exit(a0).
TEST_F(Rv32, ImageWithStackRunsToExit)
{
    p.Emit(rv_addi(10, 0, 10));
    uint32_t call = p.Emit(0);
    p.Emit(rv_lui(31, HCA_CONSOLE_BASE >> 12));
    p.Emit(rv_sw(10, 31, HCA_CONSOLE_EXIT));
    uint32_t fib = p.Emit(rv_addi(5, 0, 2));
    uint32_t blt = p.Emit(0);
    p.Emit(rv_addi(2, 2, -12));
    p.Emit(rv_sw(1, 2, 8));
    p.Emit(rv_sw(10, 2, 4));
    p.Emit(rv_addi(10, 10, -1));
    uint32_t c1 = p.Emit(0);
    p.Emit(rv_sw(10, 2, 0));
    p.Emit(rv_lw(10, 2, 4));
    p.Emit(rv_addi(10, 10, -2));
    uint32_t c2 = p.Emit(0);
    p.Emit(rv_lw(6, 2, 0));
    p.Emit(rv_add(10, 10, 6));
    p.Emit(rv_lw(1, 2, 8));
    p.Emit(rv_addi(2, 2, 12));
    uint32_t ret = p.Emit(rv_jalr(0, 1, 0));
    p.Patch(call, rv_jal(1, static_cast<int32_t>(fib - call)));
    p.Patch(blt, rv_blt(10, 5, static_cast<int32_t>(ret - blt)));
    p.Patch(c1, rv_jal(1, static_cast<int32_t>(fib - c1)));
    p.Patch(c2, rv_jal(1, static_cast<int32_t>(fib - c2)));
    Load();
    rv32_reset(cpu, kBase);
    const uint32_t sp = kBase + kRamSize;
    rv32_set_reg(cpu, 2, sp);
    rv32_stop_t s;
    int quanta = 0;
    while ((s = rv32_run(cpu, 64)) == RV32_STOP_BUDGET)
        quanta++;
    ASSERT_EQ(RV32_STOP_HALT, s) << "pc " << Hex(rv32_pc(cpu));
    EXPECT_EQ(55u, rv32_exit_code(cpu));
    EXPECT_EQ(sp, X(2)) << "stack balanced";
    EXPECT_GT(quanta, 10) << "ran in many small quanta";
}

// ================================================================ CSRs

TEST_F(Rv32, CsrrwSwapsAndImmediateForms)
{
    p.Li(1, 0x12345678);
    p.Emit(rv_csrrw(5, RV32_CSR_MSCRATCH, 1));   // old 0
    p.Li(2, 0x0000ff00);
    p.Emit(rv_csrrs(6, RV32_CSR_MSCRATCH, 2));   // old 0x12345678, set
    p.Li(3, 0x00000678);
    p.Emit(rv_csrrc(7, RV32_CSR_MSCRATCH, 3));   // old 0x1234ff78, clear 0x678
    p.Emit(rv_csrrwi(8, RV32_CSR_MSCRATCH, 31)); // old 0x1234f900, = 31
    p.Emit(rv_csrrsi(9, RV32_CSR_MSCRATCH, 0x10 | 0x40 >> 2)); // old 31
    p.Emit(rv_csrrci(10, RV32_CSR_MSCRATCH, 3));
    p.Emit(rv_csrr(11, RV32_CSR_MSCRATCH));
    p.Emit(rv_csrrw(0, RV32_CSR_MSCRATCH, 1)); // csrw: rd = x0
    p.Emit(rv_csrr(12, RV32_CSR_MSCRATCH));
    p.Emit(rv_csrrw(13, RV32_CSR_MSCRATCH, 13)); // rd == rs1: old value out, x13 in
    p.Emit(rv_csrr(14, RV32_CSR_MSCRATCH));
    rv32_set_reg(cpu, 13, 0xabcd);
    RunToBreak();
    EXPECT_EQ(0u, X(5));
    EXPECT_EQ(0x12345678u, X(6));
    EXPECT_EQ(0x1234ff78u, X(7));
    EXPECT_EQ(0x1234f900u, X(8));
    EXPECT_EQ(31u, X(9));
    EXPECT_EQ(31u, X(10));
    EXPECT_EQ(28u, X(11)) << "31 & ~3";
    EXPECT_EQ(0x12345678u, X(12));
    EXPECT_EQ(0x12345678u, X(13));
    EXPECT_EQ(0xabcdu, X(14));
}

TEST_F(Rv32, CsrWarlFields)
{
    p.Li(1, 0xffffffff);
    p.Emit(rv_csrw(RV32_CSR_MSTATUS, 1));
    p.Emit(rv_csrr(5, RV32_CSR_MSTATUS));
    p.Emit(rv_csrw(RV32_CSR_MSTATUS, 0));
    p.Emit(rv_csrr(6, RV32_CSR_MSTATUS));
    p.Emit(rv_csrw(RV32_CSR_MISA, 0)); // WARL: ignored, not illegal
    p.Emit(rv_csrr(7, RV32_CSR_MISA));
    p.Emit(rv_csrw(RV32_CSR_MIE, 1));
    p.Emit(rv_csrr(8, RV32_CSR_MIE));
    p.Emit(rv_csrw(RV32_CSR_MIP, 1)); // MEIP is the line: not writable
    p.Emit(rv_csrr(9, RV32_CSR_MIP));
    p.Emit(rv_csrw(RV32_CSR_MEPC, 1));
    p.Emit(rv_csrr(10, RV32_CSR_MEPC));
    p.Emit(rv_csrw(RV32_CSR_MTVEC, 1));
    p.Emit(rv_csrr(11, RV32_CSR_MTVEC));
    p.Li(2, 0x80001002); // reserved mode 2
    p.Emit(rv_csrw(RV32_CSR_MTVEC, 2));
    p.Emit(rv_csrr(12, RV32_CSR_MTVEC));
    p.Emit(rv_csrw(RV32_CSR_MTVEC, 0)); // back to no handler for the final ebreak
    p.Emit(rv_csrw(RV32_CSR_MCAUSE, 1));
    p.Emit(rv_csrr(13, RV32_CSR_MCAUSE));
    p.Emit(rv_csrw(RV32_CSR_MTVAL, 1));
    p.Emit(rv_csrr(14, RV32_CSR_MTVAL));
    p.Emit(rv_csrw(RV32_CSR_MSTATUSH, 1));
    p.Emit(rv_csrr(15, RV32_CSR_MSTATUSH));
    RunToBreak();
    EXPECT_EQ(RV32_MSTATUS_MIE | RV32_MSTATUS_MPIE | RV32_MSTATUS_MPP, X(5)) << "mstatus keeps MIE, MPIE; MPP = M";
    EXPECT_EQ(RV32_MSTATUS_MPP, X(6)) << "MPP cannot be cleared";
    EXPECT_EQ(RV32_MISA_VALUE, X(7)) << "misa: RV32IM";
    EXPECT_EQ(RV32_MIX_MEI, X(8)) << "mie: only MEIE";
    EXPECT_EQ(0u, X(9)) << "mip: MEIP follows the line only";
    EXPECT_EQ(0xfffffffcu, X(10)) << "mepc[1:0] = 0";
    EXPECT_EQ(0xfffffffdu, X(11)) << "mtvec vectored";
    EXPECT_EQ(0x80001000u, X(12)) << "reserved mtvec mode 2 reads as direct";
    EXPECT_EQ(0xffffffffu, X(13));
    EXPECT_EQ(0xffffffffu, X(14));
    EXPECT_EQ(0u, X(15)) << "mstatush: little-endian, read 0";
}

TEST_F(Rv32, MachineInformationCsrs)
{
    p.Emit(rv_csrr(5, RV32_CSR_MHARTID));
    p.Emit(rv_csrr(6, RV32_CSR_MVENDORID));
    p.Emit(rv_csrr(7, RV32_CSR_MARCHID));
    p.Emit(rv_csrr(8, RV32_CSR_MIMPID));
    p.Emit(rv_csrr(9, RV32_CSR_MISA));
    for (unsigned r = 5; r <= 8; r++)
        rv32_set_reg(cpu, r, 0x99);
    RunToBreak();
    EXPECT_EQ(0u, X(5)) << "mhartid = 0";
    EXPECT_EQ(0u, X(6));
    EXPECT_EQ(0u, X(7));
    EXPECT_EQ(0u, X(8));
    EXPECT_EQ(0x40001100u, X(9));
}

TEST_F(Rv32, McycleAndMinstretCount)
{
    // default costs: csr 2, alu 1
    p.Emit(rv_csrr(5, RV32_CSR_MCYCLE));    // 0 before it
    p.Emit(rv_addi(20, 0, 1));
    p.Emit(rv_addi(20, 0, 1));
    p.Emit(rv_csrr(6, RV32_CSR_MCYCLE));    // 2 + 1 + 1
    p.Emit(rv_csrr(7, RV32_CSR_MINSTRET));  // 4 retired before it
    p.Emit(rv_csrr(8, RV32_CSR_CYCLE));     // 4 + 2 + 2
    p.Emit(rv_csrr(9, RV32_CSR_INSTRET));   // 6
    p.Emit(rv_csrr(10, RV32_CSR_MCYCLEH));
    p.Emit(rv_csrr(11, RV32_CSR_CYCLEH));
    p.Emit(rv_csrr(12, RV32_CSR_MINSTRETH));
    p.Emit(rv_csrr(13, RV32_CSR_INSTRETH));
    RunToBreak();
    EXPECT_EQ(0u, X(5));
    EXPECT_EQ(4u, X(6));
    EXPECT_EQ(4u, X(7));
    EXPECT_EQ(8u, X(8));
    EXPECT_EQ(6u, X(9));
    EXPECT_EQ(0u, X(10) | X(11) | X(12) | X(13));
    EXPECT_EQ(rv32_cycles(cpu), Csr(RV32_CSR_MCYCLE)) << "mcycle = consumed cycles";
    EXPECT_EQ(rv32_instret(cpu), Csr(RV32_CSR_MINSTRET));
    EXPECT_EQ(Csr(RV32_CSR_MCYCLE), Csr(RV32_CSR_CYCLE));
    EXPECT_EQ(Csr(RV32_CSR_MINSTRET), Csr(RV32_CSR_INSTRET));
}

TEST_F(Rv32, CountersAreWritable)
{
    p.Li(1, 1000);
    p.Emit(rv_csrw(RV32_CSR_MCYCLE, 1));
    p.Emit(rv_csrr(5, RV32_CSR_MCYCLE)); // the write holds once the writing insn completed
    p.Emit(rv_addi(20, 0, 1));
    p.Emit(rv_csrr(6, RV32_CSR_MCYCLE)); // + csrr 2 + addi 1
    // carry from mcycle into mcycleh
    p.Li(2, 0xfffffffe);
    p.Emit(rv_csrw(RV32_CSR_MCYCLEH, 0));
    p.Emit(rv_csrw(RV32_CSR_MCYCLE, 2));
    p.Emit(rv_addi(20, 0, 1));
    p.Emit(rv_addi(20, 0, 1));
    p.Emit(rv_csrr(7, RV32_CSR_MCYCLEH));
    p.Emit(rv_csrr(8, RV32_CSR_MCYCLE));
    // minstret, minstreth
    p.Emit(rv_addi(3, 0, 100));
    p.Emit(rv_csrw(RV32_CSR_MINSTRET, 3));
    p.Emit(rv_csrr(9, RV32_CSR_MINSTRET));
    p.Emit(rv_csrr(10, RV32_CSR_MINSTRET));
    p.Emit(rv_addi(4, 0, 7));
    p.Emit(rv_csrw(RV32_CSR_MINSTRETH, 4));
    p.Emit(rv_csrr(11, RV32_CSR_MINSTRETH));
    p.Emit(rv_csrr(12, RV32_CSR_INSTRETH));
    RunToBreak();
    EXPECT_EQ(1000u, X(5));
    EXPECT_EQ(1003u, X(6));
    EXPECT_EQ(1u, X(7)) << "mcycle carried into mcycleh";
    EXPECT_EQ(2u, X(8));
    EXPECT_EQ(100u, X(9));
    EXPECT_EQ(101u, X(10));
    EXPECT_EQ(7u, X(11));
    EXPECT_EQ(7u, X(12)) << "instreth aliases minstreth";
    EXPECT_LT(rv32_cycles(cpu), 100u) << "the harness clock ignores mcycle writes";
    EXPECT_EQ(p.words.size() - 1, rv32_instret(cpu)) << "rv32_instret ignores minstret writes";
}

TEST_F(Rv32, DebugCsrAccess)
{
    uint32_t v = 0;
    EXPECT_EQ(-ENOENT, rv32_csr_read(cpu, 0x7c0, &v));
    EXPECT_EQ(-ENOENT, rv32_csr_write(cpu, 0x7c0, 1));
    EXPECT_EQ(-EPERM, rv32_csr_write(cpu, RV32_CSR_MHARTID, 1));
    EXPECT_EQ(-EPERM, rv32_csr_write(cpu, RV32_CSR_CYCLE, 1));
    EXPECT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MIP, RV32_MIX_MEI));
    EXPECT_EQ(0u, Csr(RV32_CSR_MIP)) << "the debugger cannot raise MEIP either";
    rv32_set_irq(cpu, 1);
    EXPECT_EQ(RV32_MIX_MEI, Csr(RV32_CSR_MIP));
    rv32_set_irq(cpu, 0);
    EXPECT_EQ(0u, Csr(RV32_CSR_MIP));
    EXPECT_EQ(0, rv32_csr_write(cpu, RV32_CSR_MCYCLE, 77));
    EXPECT_EQ(77u, Csr(RV32_CSR_MCYCLE));
    EXPECT_EQ(0, rv32_csr_read(cpu, RV32_CSR_MISA, nullptr));
}

// ================================================================ cycle accounting

TEST_F(Rv32, KnownMixConsumesExactCycles)
{
    rv32_costs_t c{};
    c.alu = 1;
    c.mul = 5;
    c.div = 7;
    c.load = 11;
    c.store = 13;
    c.branch_taken = 17;
    c.branch_not_taken = 19;
    c.jump = 23;
    c.csr = 29;
    c.mmio_extra = 31;
    Make(c);
    p.Emit(rv_addi(1, 0, 5));              // alu
    p.Emit(rv_mul(2, 1, 1));               // mul
    p.Emit(rv_div(3, 2, 1));               // div
    p.Emit(rv_lui(4, kData >> 12));        // alu
    p.Emit(rv_sw(1, 4, 0));                // store
    p.Emit(rv_lw(5, 4, 0));                // load
    p.Emit(rv_beq(0, 1, 8));               // not taken
    p.Emit(rv_beq(0, 0, 8));               // taken
    p.Emit(rv_nop());                      // skipped
    p.Emit(rv_jal(6, 4));                  // jump
    p.Emit(rv_csrr(7, RV32_CSR_MCYCLE));   // csr
    p.Emit(rv_lui(8, kDevBase >> 12));     // alu
    p.Emit(rv_lw(9, 8, 0));                // load + mmio
    p.Emit(rv_sw(9, 8, 4));                // store + mmio
    p.Emit(rv_fence());                    // alu
    p.Emit(rv_rem(11, 2, 1));              // div
    p.Emit(rv_mulhu(12, 2, 1));            // mul
    p.Li(13, kBase + 4 * 20);              // alu, alu
    p.Emit(rv_jalr(0, 13, 0));             // jump to the next word
    p.Emit(rv_bltu(1, 0, 8));              // not taken
    RunToBreak();
    const uint64_t before_csr = 1 + 5 + 7 + 1 + 13 + 11 + 19 + 17 + 23;
    EXPECT_EQ(before_csr, X(7)) << "mcycle read by the csrr = cycles before it";
    const uint64_t total = before_csr + 29 + 1 + (11 + 31) + (13 + 31) + 1 + 7 + 5 + 1 + 1 + 23 + 19;
    EXPECT_EQ(total, rv32_cycles(cpu));
    EXPECT_EQ(total, Csr(RV32_CSR_MCYCLE));
    EXPECT_EQ(20u, rv32_instret(cpu)) << "the skipped nop and the final ebreak do not retire";
}

TEST_F(Rv32, BudgetIsInCyclesAndStopsBetweenInstructions)
{
    for (int i = 0; i < 10; i++)
        p.Emit(rv_addi(5, 5, 1));
    p.Emit(rv_div(6, 5, 5));
    p.Emit(rv_addi(7, 0, 1));
    Load();
    EXPECT_EQ(RV32_STOP_BUDGET, rv32_run(cpu, 0));
    EXPECT_EQ(0u, rv32_instret(cpu)) << "a zero budget runs nothing";
    EXPECT_EQ(RV32_STOP_BUDGET, rv32_run(cpu, 3));
    EXPECT_EQ(3u, rv32_instret(cpu));
    EXPECT_EQ(3u, rv32_cycles(cpu));
    EXPECT_EQ(kBase + 12, rv32_pc(cpu));
    EXPECT_EQ(RV32_STOP_BUDGET, rv32_run(cpu, 8)); // 7 addis + the div (34): overshoots
    EXPECT_EQ(11u, rv32_instret(cpu));
    EXPECT_EQ(10u + 34, rv32_cycles(cpu)) << "the last instruction completes past the budget";
    EXPECT_EQ(1u, X(6));
    EXPECT_EQ(RV32_STOP_BUDGET, rv32_run(cpu, 1));
    EXPECT_EQ(1u, X(7));
}

TEST_F(Rv32, LockstepLoopKeepsCoreWithinOneInstructionOfDevice)
{
    // The loop of rv32.h: the device ticks one cycle at a time; the core catches up.
    p.Emit(rv_addi(6, 0, 200));
    uint32_t loop = p.Emit(rv_addi(6, 6, -1));
    p.Emit(rv_divu(7, 6, 6));
    p.Emit(rv_bne(6, 0, static_cast<int32_t>(loop - p.Here())));
    p.Halt(0);
    Load();
    uint64_t device = 0;
    rv32_stop_t s = RV32_STOP_BUDGET;
    for (; device < 100000 && s != RV32_STOP_HALT; device++) {
        if (rv32_cycles(cpu) < device)
            s = rv32_run(cpu, device - rv32_cycles(cpu));
        ASSERT_LT(rv32_cycles(cpu), device + 34) << "core ran ahead of the device by more than one div";
    }
    ASSERT_EQ(RV32_STOP_HALT, s);
    EXPECT_EQ(0u, X(6));
}

} // namespace
