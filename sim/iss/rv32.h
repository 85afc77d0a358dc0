/* rv32.h — instruction-set simulator of the HCA's firmware core (RV32IM + Zicsr).
 *
 * A single-hart, machine-mode-only RV32IM core (RISC-V Unprivileged ISA
 * 20191213; Privileged Architecture 20211203, machine level) behind an opaque
 * handle. The harness owns the memory system:
 *
 *  - one RAM window [ram_base, ram_base + ram_size), a host buffer the core
 *    reads and writes directly (little-endian): code, data and stack live here
 *    and instructions are fetched only from here;
 *  - every other address goes through the bus callback table (rv32_bus_t),
 *    which may answer OK, FAULT (an access-fault trap) or STALL (the
 *    instruction does not execute; rv32_run() returns RV32_STOP_STALL and the
 *    same instruction retries the access on the next rv32_run()), so MMIO can
 *    be exact with respect to device time.
 *
 * The core is stepped in quanta of cycles between device cycles: rv32_run()
 * executes whole instructions until it has consumed a cycle budget or stops
 * for a reason (stall, wfi, halt, unhandled trap). Each instruction is
 * charged a configurable cost in core cycles (rv32_costs_t); the core clock
 * is the device clock, so one core cycle is one device cycle.
 *
 * Units: "cycles" are core (= device) clock cycles; "instructions" are
 * retired instructions. No function allocates after rv32_create().
 *
 * Typical harness loop, keeping the core within one instruction of the device:
 *
 *     for (;;) {
 *         uint64_t now = device_cycle();
 *         if (rv32_cycles(cpu) < now) {
 *             rv32_stop_t s = rv32_run(cpu, now - rv32_cycles(cpu));
 *             if (s == RV32_STOP_HALT || s == RV32_STOP_TRAP) break;
 *             if (s == RV32_STOP_STALL) {          // MMIO not ready yet
 *                 device_step(1);
 *                 rv32_add_cycles(cpu, 1);         // the core waited a cycle
 *                 continue;
 *             }
 *         }
 *         device_step(1);
 *     }
 *
 * When rv32_run() returns RV32_STOP_WFI the core sleeps until an enabled
 * interrupt is pending; the harness may skip the device ahead to its next
 * event. While asleep, rv32_run() consumes its whole budget as idle cycles.
 *
 * Traps (machine mode only, P 3.1.15-3.1.17): mepc = the trapping
 * instruction (for an interrupt, the next one to execute); mtval = the
 * instruction bits for an illegal instruction, the address for misaligned
 * and access-fault loads/stores, the target for a misaligned jump/branch
 * (reported on the jump), the fetch address for a fetch fault, the ebreak's
 * own address for a breakpoint (as Spike), 0 for ecall and interrupts. No
 * misaligned access is emulated. A trapping instruction does not retire and
 * is charged only the trap entry (costs.jump). With mtvec's base 0 no trap is
 * taken: rv32_run() returns RV32_STOP_TRAP with pc, registers and CSRs as
 * before the trapping instruction, and rv32_last_trap() tells why.
 */
#ifndef RV32_H
#define RV32_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rv32 rv32_t;

/** What a bus callback answers. */
typedef enum rv32_bus_result {
    RV32_BUS_OK = 0,    /**< access done (*val filled for a load) */
    RV32_BUS_FAULT = 1, /**< no such address / refused: load (5) or store (7) access-fault trap */
    RV32_BUS_STALL = 2, /**< not ready: the instruction does not execute; rv32_run() returns
                             RV32_STOP_STALL and retries the same access on the next call.
                             A stalled access must have no side effect. */
} rv32_bus_result_t;

/** Memory and MMIO outside the RAM window. Either callback may be NULL (every
 *  access of that direction faults). Accesses are naturally aligned, size is
 *  1, 2 or 4 bytes. A load returns its value in the low size*8 bits of *val
 *  (higher bits are ignored; the core sign- or zero-extends); a store passes
 *  the value zero-extended from size*8 bits. Callbacks may call rv32_halt(),
 *  rv32_set_irq() and the read-only accessors; the core's pc and cycle count
 *  are up to date during a callback (rv32_pc() is the accessing instruction,
 *  rv32_cycles() the cycles consumed before it). */
typedef struct rv32_bus {
    void *ctx; /**< passed to the callbacks */
    int (*load)(void *ctx, uint32_t addr, unsigned size, uint32_t *val);
    int (*store)(void *ctx, uint32_t addr, unsigned size, uint32_t val);
} rv32_bus_t;

/** Cycles charged per retired instruction, by class. All in core cycles. */
typedef struct rv32_costs {
    uint32_t alu;              /**< OP, OP-IMM, LUI, AUIPC, FENCE, WFI */
    uint32_t mul;              /**< MUL, MULH, MULHSU, MULHU */
    uint32_t div;              /**< DIV, DIVU, REM, REMU */
    uint32_t load;             /**< LB, LH, LW, LBU, LHU */
    uint32_t store;            /**< SB, SH, SW */
    uint32_t branch_taken;     /**< conditional branch, taken */
    uint32_t branch_not_taken; /**< conditional branch, not taken */
    uint32_t jump;             /**< JAL, JALR, MRET; also a trap or interrupt entry */
    uint32_t csr;              /**< CSRRW/S/C and their immediate forms */
    uint32_t mmio_extra;       /**< added to a load/store served by the bus instead of RAM */
} rv32_costs_t;

/** Creation parameters. */
typedef struct rv32_config {
    uint8_t *ram;          /**< RAM window contents, owned by the caller, ram_size bytes */
    uint32_t ram_base;     /**< first address; multiple of 4 */
    uint32_t ram_size;     /**< bytes; multiple of 4, >= 4, base + size <= 2^32 */
    const rv32_bus_t *bus; /**< may be NULL: every non-RAM access faults. Copied at creation. */
    rv32_costs_t costs;    /**< all fields 0: rv32_default_costs(); else alu..csr must be >= 1 */
} rv32_config_t;

/** Why rv32_run() returned. */
typedef enum rv32_stop {
    RV32_STOP_BUDGET = 0, /**< the cycle budget is consumed */
    RV32_STOP_STALL = 1,  /**< a bus access answered STALL; pc is the stalled instruction */
    RV32_STOP_WFI = 2,    /**< sleeping in WFI until an enabled interrupt is pending */
    RV32_STOP_HALT = 3,   /**< rv32_halt() was called; see rv32_exit_code() */
    RV32_STOP_TRAP = 4,   /**< a trap with no handler (mtvec base 0); see rv32_last_trap() */
} rv32_stop_t;

/* mcause values (Privileged spec, Table 3.6). */
#define RV32_CAUSE_MISALIGNED_FETCH 0u
#define RV32_CAUSE_FETCH_ACCESS 1u
#define RV32_CAUSE_ILLEGAL_INSN 2u
#define RV32_CAUSE_BREAKPOINT 3u
#define RV32_CAUSE_MISALIGNED_LOAD 4u
#define RV32_CAUSE_LOAD_ACCESS 5u
#define RV32_CAUSE_MISALIGNED_STORE 6u
#define RV32_CAUSE_STORE_ACCESS 7u
#define RV32_CAUSE_ECALL_M 11u
#define RV32_CAUSE_INTERRUPT 0x80000000u
#define RV32_CAUSE_MEI (RV32_CAUSE_INTERRUPT | 11u) /**< machine external interrupt */

/* Implemented CSRs. Any other number is an illegal instruction. */
#define RV32_CSR_MSTATUS 0x300u
#define RV32_CSR_MISA 0x301u
#define RV32_CSR_MIE 0x304u
#define RV32_CSR_MTVEC 0x305u
#define RV32_CSR_MSTATUSH 0x310u
#define RV32_CSR_MSCRATCH 0x340u
#define RV32_CSR_MEPC 0x341u
#define RV32_CSR_MCAUSE 0x342u
#define RV32_CSR_MTVAL 0x343u
#define RV32_CSR_MIP 0x344u
#define RV32_CSR_MCYCLE 0xb00u
#define RV32_CSR_MINSTRET 0xb02u
#define RV32_CSR_MCYCLEH 0xb80u
#define RV32_CSR_MINSTRETH 0xb82u
#define RV32_CSR_CYCLE 0xc00u
#define RV32_CSR_INSTRET 0xc02u
#define RV32_CSR_CYCLEH 0xc80u
#define RV32_CSR_INSTRETH 0xc82u
#define RV32_CSR_MVENDORID 0xf11u
#define RV32_CSR_MARCHID 0xf12u
#define RV32_CSR_MIMPID 0xf13u
#define RV32_CSR_MHARTID 0xf14u

/* CSR bits. */
#define RV32_MSTATUS_MIE (1u << 3)
#define RV32_MSTATUS_MPIE (1u << 7)
#define RV32_MSTATUS_MPP (3u << 11) /**< always 3 (M): the only privilege mode */
#define RV32_MIX_MEI (1u << 11)     /**< MEIE in mie, MEIP in mip */
#define RV32_MISA_VALUE 0x40001100u /**< MXL=1 (32-bit), I, M */

/** Default costs, a simple in-order 5-stage core (fetch, decode, execute,
 *  memory, write-back) with no branch predictor and no caches on its RAM:
 *  alu 1; mul 3 (multi-cycle multiplier); div 34 (radix-2: 32 iterations +
 *  2); load 2 (one load-use bubble on average); store 1; branch taken 3
 *  (resolved in execute: two fetched instructions flushed); branch not taken
 *  1 (predict not taken); jump 2 (target known in decode; also trap entry and
 *  mret); csr 2 (serialising); mmio_extra 4 (crossing into the device
 *  register block). */
rv32_costs_t rv32_default_costs(void);

/** Make a core from cfg (copied; the RAM buffer and the bus context are
 *  borrowed and must outlive the core). The core is reset with pc = ram_base.
 *  0, -EINVAL on a bad config (see rv32_config_t), -ENOMEM. */
int rv32_create(rv32_t **out, const rv32_config_t *cfg);
/** Free a core (NULL is fine). */
void rv32_destroy(rv32_t *cpu);

/** Reset the hart: pc = pc, x1..x31 = 0, mstatus = MPP(M) with MIE/MPIE 0,
 *  mie = mtvec = mepc = mcause = mtval = mscratch = 0, mcycle and minstret
 *  read 0, not halted, not sleeping, no last trap. The external interrupt
 *  level (a wire, rv32_set_irq()) and rv32_cycles()/rv32_instret() (the
 *  harness's clock) are kept. RAM is not touched. */
void rv32_reset(rv32_t *cpu, uint32_t pc);

/** Run whole instructions until the cycles consumed by this call reach
 *  cycle_budget (core cycles), or a stop. The last instruction may overshoot
 *  the budget by less than its own cost; rv32_cycles() is exact. A budget of
 *  0 executes nothing. While halted, returns RV32_STOP_HALT at once; while
 *  asleep in WFI with no enabled interrupt pending, consumes the whole budget
 *  as idle cycles and returns RV32_STOP_WFI. Pending enabled interrupts are
 *  taken between instructions. Every cost is >= 1 cycle, so a budget of 1
 *  executes exactly one instruction (or one trap entry): a single step. */
rv32_stop_t rv32_run(rv32_t *cpu, uint64_t cycle_budget);

/** Charge n idle cycles (core cycles) in which the core did not execute, e.g.
 *  while a bus access stalled or while the harness skipped ahead in WFI.
 *  mcycle counts them. Not from a bus callback (rv32_run() owns the count then). */
void rv32_add_cycles(rv32_t *cpu, uint64_t n);

/** Stop the core: the current instruction completes, then rv32_run() returns
 *  RV32_STOP_HALT, now and on every later call until rv32_reset(). Meant for
 *  a bus callback (e.g. the console EXIT register). */
void rv32_halt(rv32_t *cpu, uint32_t exit_code);
/** 1 when halted (rv32_halt() since the last reset), else 0. */
int rv32_halted(const rv32_t *cpu);
/** The code given to rv32_halt(), 0 when not halted. */
uint32_t rv32_exit_code(const rv32_t *cpu);

/** Drive the machine external interrupt line (level-sensitive): mip.MEIP =
 *  level != 0. Taken before the next instruction when mstatus.MIE and
 *  mie.MEIE are set; wakes a WFI when mie.MEIE is set. */
void rv32_set_irq(rv32_t *cpu, int level);

/** Address of the next instruction to execute (the stalled one after a stall,
 *  the trapping one after RV32_STOP_TRAP). */
uint32_t rv32_pc(const rv32_t *cpu);
/** Set the next pc without resetting (e.g. an ELF entry point). */
void rv32_set_pc(rv32_t *cpu, uint32_t pc);
/** Register x[i], i in 0..31 (x0 reads 0; other i read 0). */
uint32_t rv32_reg(const rv32_t *cpu, unsigned i);
/** Set x[i], i in 1..31 (x0 and other i are ignored), e.g. sp = x2, a0 = x10. */
void rv32_set_reg(rv32_t *cpu, unsigned i, uint32_t val);

/** Core cycles consumed since rv32_create(): instruction costs plus idle
 *  cycles (WFI, rv32_add_cycles()). Never reset; not changed by writes to
 *  mcycle. */
uint64_t rv32_cycles(const rv32_t *cpu);
/** Instructions retired since rv32_create() (trapping instructions do not
 *  retire). Never reset; not changed by writes to minstret. */
uint64_t rv32_instret(const rv32_t *cpu);

/** The most recent trap (exception or interrupt), taken or not (an
 *  RV32_STOP_TRAP leaves mepc/mcause/mtval untouched but is recorded here).
 *  Any pointer may be NULL. 1 when a trap happened since the last reset,
 *  else 0 (and the outputs are 0). */
int rv32_last_trap(const rv32_t *cpu, uint32_t *cause, uint32_t *epc, uint32_t *tval);

/** Read a CSR as a csrr instruction would at this point (mcycle/minstret
 *  include everything consumed so far), without side effects.
 *  0, or -ENOENT for an unimplemented CSR. */
int rv32_csr_read(const rv32_t *cpu, unsigned csr, uint32_t *val);
/** Write a CSR as the debugger would (WARL rules apply, mip.MEIP is the
 *  interrupt line and is not written). 0, -ENOENT for an unimplemented CSR,
 *  -EPERM for a read-only one. */
int rv32_csr_write(rv32_t *cpu, unsigned csr, uint32_t val);

/** Name of a stop reason ("budget", "stall", "wfi", "halt", "trap"), "?" otherwise. */
const char *rv32_stop_name(rv32_stop_t stop);
/** Name of an mcause value ("illegal instruction", "machine external interrupt", ...), "?" otherwise. */
const char *rv32_cause_name(uint32_t cause);

#ifdef __cplusplus
}
#endif
#endif /* RV32_H */
