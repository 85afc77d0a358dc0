/* rv32_testbus.h — a mock device bus and a program builder for rv32 tests.
 *
 * MockBus serves, on the core's bus callbacks:
 *   kDevBase..+kDevSize  plain little-endian memory (a stand-in for MMIO);
 *                        loads of 1/2 bytes return garbage in the high bits,
 *                        which the core must ignore;
 *   kIrqReg              write: drive the external interrupt line (value != 0);
 *   the console (abi)    TX appends a byte, EXIT halts the core with the value;
 *   anything else        RV32_BUS_FAULT.
 * `stalls` makes the next accesses answer RV32_BUS_STALL that many times.
 * Every callback is logged with the core's pc and cycle count at that time.
 */
#ifndef RV32_TESTBUS_H
#define RV32_TESTBUS_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hca_abi.h"
#include "rv32.h"
#include "rv32_asm.h"

namespace rv32test {

constexpr uint32_t kBase = HCA_FW_RAM_BASE;
constexpr uint32_t kRamSize = 64 * 1024;
constexpr uint32_t kDevBase = HCA_DEVREG_BASE;
constexpr uint32_t kDevSize = 0x1000;
constexpr uint32_t kIrqReg = HCA_DEVREG_BASE + 0x2000;
constexpr uint32_t kConsoleTx = HCA_CONSOLE_BASE + HCA_CONSOLE_TX;
constexpr uint32_t kConsoleExit = HCA_CONSOLE_BASE + HCA_CONSOLE_EXIT;
constexpr uint32_t kUnmapped = 0x50000000u;

struct Access {
    bool store;
    uint32_t addr;
    unsigned size;
    uint32_t val;
    int result;
    uint32_t pc;
    uint64_t cycle;
};

struct MockBus {
    rv32_t *cpu = nullptr;
    uint8_t dev[kDevSize] = {};
    unsigned stalls = 0;
    std::vector<Access> log;
    std::string console;

    size_t Count(bool store, int result) const
    {
        size_t n = 0;
        for (const Access &a : log)
            n += a.store == store && a.result == result;
        return n;
    }

    static int Load(void *ctx, uint32_t addr, unsigned size, uint32_t *val)
    {
        MockBus *b = static_cast<MockBus *>(ctx);
        int r = RV32_BUS_FAULT;
        uint32_t v = 0;
        if (b->stalls) {
            b->stalls--;
            r = RV32_BUS_STALL;
        } else if (addr - kDevBase < kDevSize) {
            std::memcpy(&v, b->dev + (addr - kDevBase), size);
            if (size < 4)
                v |= 0xa5a5a5a5u << (8 * size); /* the core must ignore these bits */
            *val = v;
            r = RV32_BUS_OK;
        } else if (addr == kConsoleTx || addr == kConsoleExit || addr == kIrqReg) {
            *val = 0;
            r = RV32_BUS_OK;
        }
        b->log.push_back({false, addr, size, v, r, rv32_pc(b->cpu), rv32_cycles(b->cpu)});
        return r;
    }

    static int Store(void *ctx, uint32_t addr, unsigned size, uint32_t val)
    {
        MockBus *b = static_cast<MockBus *>(ctx);
        int r = RV32_BUS_FAULT;
        if (b->stalls) {
            b->stalls--;
            r = RV32_BUS_STALL;
        } else if (addr - kDevBase < kDevSize) {
            std::memcpy(b->dev + (addr - kDevBase), &val, size);
            r = RV32_BUS_OK;
        } else if (addr == kConsoleTx) {
            b->console += static_cast<char>(val);
            r = RV32_BUS_OK;
        } else if (addr == kConsoleExit) {
            rv32_halt(b->cpu, val);
            r = RV32_BUS_OK;
        } else if (addr == kIrqReg) {
            rv32_set_irq(b->cpu, val != 0);
            r = RV32_BUS_OK;
        }
        b->log.push_back({true, addr, size, val, r, rv32_pc(b->cpu), rv32_cycles(b->cpu)});
        return r;
    }
};

/* A program under construction at kBase + 4 * index. */
struct Program {
    std::vector<uint32_t> words;

    uint32_t Here() const { return kBase + 4u * static_cast<uint32_t>(words.size()); }
    uint32_t Emit(uint32_t insn)
    {
        uint32_t a = Here();
        words.push_back(insn);
        return a;
    }
    /* li rd, val (two words) */
    uint32_t Li(uint32_t rd, uint32_t val)
    {
        uint32_t w[2];
        rv_li(w, rd, val);
        uint32_t a = Emit(w[0]);
        Emit(w[1]);
        return a;
    }
    /* Write code to the console EXIT register (clobbers x30, x31). */
    uint32_t Halt(uint32_t code)
    {
        uint32_t a = Emit(rv_lui(31, HCA_CONSOLE_BASE >> 12));
        Li(30, code);
        Emit(rv_sw(30, 31, HCA_CONSOLE_EXIT));
        return a;
    }
    /* Pad with nops up to address addr. */
    void Org(uint32_t addr)
    {
        while (Here() < addr)
            Emit(rv_nop());
    }
    /* Patch the word at addr. */
    void Patch(uint32_t addr, uint32_t insn) { words.at((addr - kBase) / 4) = insn; }
};

} // namespace rv32test

#endif /* RV32_TESTBUS_H */
