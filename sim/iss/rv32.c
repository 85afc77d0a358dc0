/* rv32.c — RV32IM + Zicsr machine-mode instruction-set simulator (see rv32.h).
 *
 * One switch on the major opcode per instruction, a direct little-endian RAM
 * path, and the bus only for addresses outside RAM. pc, the cycle and
 * instruction counters live in locals inside rv32_run() and are written back
 * before anything outside the loop can look at them (bus callbacks, CSR
 * accesses, trap entry, return).
 *
 * Spec references: "U" = RISC-V Unprivileged ISA 20191213, "P" = RISC-V
 * Privileged Architecture 20211203.
 */
#include "rv32.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rv32.c serves RAM with host loads and stores: it needs a little-endian host"
#endif

#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

struct rv32 {
    uint32_t x[32]; /* x[0] is forced to 0 before each instruction */
    uint32_t pc;
    uint64_t cycles;  /* consumed since creation (rv32_cycles) */
    uint64_t instret; /* retired since creation (rv32_instret) */

    /* Machine-mode CSRs (P 3.1). */
    uint32_t mstatus; /* MIE, MPIE only; MPP reads 3 */
    uint32_t mie;     /* MEIE only */
    uint32_t mtvec;
    uint32_t mscratch, mepc, mcause, mtval;
    uint64_t mcycle_off;   /* mcycle = cycles + mcycle_off (mod 2^64) */
    uint64_t minstret_off; /* minstret = instret + minstret_off */

    int irq_level;    /* mip.MEIP, the external interrupt wire */
    int irq_armed;    /* irq_level && mie.MEIE && mstatus.MIE: take it before the next insn */
    int sleeping;     /* in WFI */
    int halted;
    uint32_t exit_code;

    int trap_valid;
    uint32_t trap_cause, trap_epc, trap_tval;

    uint8_t *ram;
    uint32_t ram_base, ram_size;
    rv32_bus_t bus;
    rv32_costs_t costs;
};

rv32_costs_t rv32_default_costs(void)
{
    rv32_costs_t c = {
        .alu = 1,
        .mul = 3,
        .div = 34,
        .load = 2,
        .store = 1,
        .branch_taken = 3,
        .branch_not_taken = 1,
        .jump = 2,
        .csr = 2,
        .mmio_extra = 4,
    };
    return c;
}

static int costs_all_zero(const rv32_costs_t *c)
{
    return !(c->alu | c->mul | c->div | c->load | c->store | c->branch_taken |
             c->branch_not_taken | c->jump | c->csr | c->mmio_extra);
}

static int costs_valid(const rv32_costs_t *c)
{
    /* Every instruction must cost at least one cycle, or a budget would never run out. */
    return c->alu && c->mul && c->div && c->load && c->store && c->branch_taken &&
           c->branch_not_taken && c->jump && c->csr;
}

int rv32_create(rv32_t **out, const rv32_config_t *cfg)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!cfg || !cfg->ram || cfg->ram_size < 4 || (cfg->ram_size & 3) || (cfg->ram_base & 3))
        return -EINVAL;
    /* base + size <= 2^32, written so it cannot overflow */
    if (cfg->ram_size - 1u > UINT32_MAX - cfg->ram_base)
        return -EINVAL;
    rv32_costs_t costs = costs_all_zero(&cfg->costs) ? rv32_default_costs() : cfg->costs;
    if (!costs_valid(&costs))
        return -EINVAL;
    rv32_t *cpu = calloc(1, sizeof(*cpu));
    if (!cpu)
        return -ENOMEM;
    cpu->ram = cfg->ram;
    cpu->ram_base = cfg->ram_base;
    cpu->ram_size = cfg->ram_size;
    if (cfg->bus)
        cpu->bus = *cfg->bus;
    cpu->costs = costs;
    rv32_reset(cpu, cfg->ram_base);
    *out = cpu;
    return 0;
}

void rv32_destroy(rv32_t *cpu)
{
    free(cpu);
}

static void update_irq(rv32_t *cpu)
{
    cpu->irq_armed = cpu->irq_level && (cpu->mie & RV32_MIX_MEI) && (cpu->mstatus & RV32_MSTATUS_MIE);
}

/* P 3.3.3: WFI resumes when an interrupt is pending and enabled in mie, whatever mstatus.MIE. */
static int wake_pending(const rv32_t *cpu)
{
    return cpu->irq_level && (cpu->mie & RV32_MIX_MEI);
}

void rv32_reset(rv32_t *cpu, uint32_t pc)
{
    memset(cpu->x, 0, sizeof(cpu->x));
    cpu->pc = pc;
    cpu->mstatus = 0;
    cpu->mie = 0;
    cpu->mtvec = 0;
    cpu->mscratch = cpu->mepc = cpu->mcause = cpu->mtval = 0;
    cpu->mcycle_off = 0 - cpu->cycles;
    cpu->minstret_off = 0 - cpu->instret;
    cpu->sleeping = 0;
    cpu->halted = 0;
    cpu->exit_code = 0;
    cpu->trap_valid = 0;
    cpu->trap_cause = cpu->trap_epc = cpu->trap_tval = 0;
    update_irq(cpu);
}

void rv32_add_cycles(rv32_t *cpu, uint64_t n)
{
    cpu->cycles += n;
}

void rv32_halt(rv32_t *cpu, uint32_t exit_code)
{
    cpu->halted = 1;
    cpu->exit_code = exit_code;
}

int rv32_halted(const rv32_t *cpu)
{
    return cpu->halted;
}

uint32_t rv32_exit_code(const rv32_t *cpu)
{
    return cpu->halted ? cpu->exit_code : 0;
}

void rv32_set_irq(rv32_t *cpu, int level)
{
    cpu->irq_level = level != 0;
    update_irq(cpu);
}

uint32_t rv32_pc(const rv32_t *cpu)
{
    return cpu->pc;
}

void rv32_set_pc(rv32_t *cpu, uint32_t pc)
{
    cpu->pc = pc;
}

uint32_t rv32_reg(const rv32_t *cpu, unsigned i)
{
    return (i >= 1 && i < 32) ? cpu->x[i] : 0;
}

void rv32_set_reg(rv32_t *cpu, unsigned i, uint32_t val)
{
    if (i >= 1 && i < 32)
        cpu->x[i] = val;
}

uint64_t rv32_cycles(const rv32_t *cpu)
{
    return cpu->cycles;
}

uint64_t rv32_instret(const rv32_t *cpu)
{
    return cpu->instret;
}

int rv32_last_trap(const rv32_t *cpu, uint32_t *cause, uint32_t *epc, uint32_t *tval)
{
    if (cause)
        *cause = cpu->trap_cause;
    if (epc)
        *epc = cpu->trap_epc;
    if (tval)
        *tval = cpu->trap_tval;
    return cpu->trap_valid;
}

/* ------------------------------------------------------------------ CSRs */

/* Read CSR csr with the counters at (cyc, ret). 0, or -1 when unimplemented. */
static int csr_get(const rv32_t *cpu, unsigned csr, uint64_t cyc, uint64_t ret, uint32_t *val)
{
    uint64_t mcycle = cyc + cpu->mcycle_off;
    uint64_t minstret = ret + cpu->minstret_off;
    switch (csr) {
    case RV32_CSR_MSTATUS:
        *val = (cpu->mstatus & (RV32_MSTATUS_MIE | RV32_MSTATUS_MPIE)) | RV32_MSTATUS_MPP;
        return 0;
    case RV32_CSR_MSTATUSH: /* MBE = SBE = 0: little-endian */
    case RV32_CSR_MVENDORID:
    case RV32_CSR_MARCHID:
    case RV32_CSR_MIMPID:
    case RV32_CSR_MHARTID:
        *val = 0;
        return 0;
    case RV32_CSR_MISA:
        *val = RV32_MISA_VALUE;
        return 0;
    case RV32_CSR_MIE:
        *val = cpu->mie;
        return 0;
    case RV32_CSR_MIP:
        *val = cpu->irq_level ? RV32_MIX_MEI : 0;
        return 0;
    case RV32_CSR_MTVEC:
        *val = cpu->mtvec;
        return 0;
    case RV32_CSR_MSCRATCH:
        *val = cpu->mscratch;
        return 0;
    case RV32_CSR_MEPC:
        *val = cpu->mepc;
        return 0;
    case RV32_CSR_MCAUSE:
        *val = cpu->mcause;
        return 0;
    case RV32_CSR_MTVAL:
        *val = cpu->mtval;
        return 0;
    case RV32_CSR_MCYCLE:
    case RV32_CSR_CYCLE:
        *val = (uint32_t)mcycle;
        return 0;
    case RV32_CSR_MCYCLEH:
    case RV32_CSR_CYCLEH:
        *val = (uint32_t)(mcycle >> 32);
        return 0;
    case RV32_CSR_MINSTRET:
    case RV32_CSR_INSTRET:
        *val = (uint32_t)minstret;
        return 0;
    case RV32_CSR_MINSTRETH:
    case RV32_CSR_INSTRETH:
        *val = (uint32_t)(minstret >> 32);
        return 0;
    default:
        return -1;
    }
}

/* Write an implemented, writable CSR. (cyc, ret) are the counters once the
 * writing instruction has completed: P 3.3.1 "any CSR write takes effect
 * after the writing instruction has otherwise completed", so the next
 * instruction reads the value written. */
static void csr_set(rv32_t *cpu, unsigned csr, uint32_t val, uint64_t cyc, uint64_t ret)
{
    uint64_t cur;
    switch (csr) {
    case RV32_CSR_MSTATUS:
        cpu->mstatus = val & (RV32_MSTATUS_MIE | RV32_MSTATUS_MPIE);
        update_irq(cpu);
        break;
    case RV32_CSR_MIE:
        cpu->mie = val & RV32_MIX_MEI; /* no software/timer interrupt: MSIE, MTIE read 0 */
        update_irq(cpu);
        break;
    case RV32_CSR_MTVEC:
        /* WARL: MODE 0 direct, 1 vectored; reserved modes 2, 3 become 0, 1. */
        cpu->mtvec = (val & ~3u) | (val & 1u);
        break;
    case RV32_CSR_MSCRATCH:
        cpu->mscratch = val;
        break;
    case RV32_CSR_MEPC:
        cpu->mepc = val & ~3u; /* IALIGN = 32 */
        break;
    case RV32_CSR_MCAUSE:
        cpu->mcause = val;
        break;
    case RV32_CSR_MTVAL:
        cpu->mtval = val;
        break;
    case RV32_CSR_MCYCLE:
        cur = cyc + cpu->mcycle_off;
        cpu->mcycle_off = ((cur & 0xffffffff00000000ull) | val) - cyc;
        break;
    case RV32_CSR_MCYCLEH:
        cur = cyc + cpu->mcycle_off;
        cpu->mcycle_off = ((cur & 0xffffffffull) | ((uint64_t)val << 32)) - cyc;
        break;
    case RV32_CSR_MINSTRET:
        cur = ret + cpu->minstret_off;
        cpu->minstret_off = ((cur & 0xffffffff00000000ull) | val) - ret;
        break;
    case RV32_CSR_MINSTRETH:
        cur = ret + cpu->minstret_off;
        cpu->minstret_off = ((cur & 0xffffffffull) | ((uint64_t)val << 32)) - ret;
        break;
    default: /* misa, mip, mstatush: WARL, writes ignored */
        break;
    }
}

/* CSR number space (P 2.1): csr[11:10] == 3 is read-only. */
static int csr_read_only(unsigned csr)
{
    return (csr >> 10) == 3;
}

int rv32_csr_read(const rv32_t *cpu, unsigned csr, uint32_t *val)
{
    uint32_t v;
    if (csr_get(cpu, csr, cpu->cycles, cpu->instret, &v))
        return -ENOENT;
    if (val)
        *val = v;
    return 0;
}

int rv32_csr_write(rv32_t *cpu, unsigned csr, uint32_t val)
{
    uint32_t v;
    if (csr_get(cpu, csr, cpu->cycles, cpu->instret, &v))
        return -ENOENT;
    if (csr_read_only(csr))
        return -EPERM;
    csr_set(cpu, csr, val, cpu->cycles, cpu->instret);
    return 0;
}

/* Execute one Zicsr instruction (U 9.1) with the counters synced in cpu.
 * 0, or -1 for an illegal instruction (unimplemented CSR, write to a
 * read-only CSR). Does not touch pc or the cycle count. */
static int exec_csr(rv32_t *cpu, uint32_t insn)
{
    unsigned csr = insn >> 20;
    unsigned rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31, f3 = (insn >> 12) & 7;
    uint32_t src = (f3 & 4) ? rs1 : cpu->x[rs1]; /* immediate forms: zero-extended uimm */
    uint32_t old;
    /* CSRRW(I) always writes; CSRRS/C(I) write only when rs1/uimm is not x0/0. */
    int write = (f3 & 3) == 1 || rs1 != 0;
    if (csr_get(cpu, csr, cpu->cycles, cpu->instret, &old))
        return -1;
    if (write && csr_read_only(csr))
        return -1;
    if (write) {
        uint32_t nv;
        switch (f3 & 3) {
        case 1: nv = src; break;         /* csrrw */
        case 2: nv = old | src; break;   /* csrrs */
        default: nv = old & ~src; break; /* csrrc */
        }
        csr_set(cpu, csr, nv, cpu->cycles + cpu->costs.csr, cpu->instret + 1);
    }
    if (rd)
        cpu->x[rd] = old;
    return 0;
}

/* ------------------------------------------------------------------ traps */

/* Enter a trap (P 3.1.6.1, 3.1.7, 3.3.1) with the core state synced in cpu.
 * 0 when taken (pc = handler), 1 when there is no handler (mtvec base 0):
 * nothing changes but the record. */
static int enter_trap(rv32_t *cpu, uint32_t cause, uint32_t epc, uint32_t tval)
{
    cpu->trap_valid = 1;
    cpu->trap_cause = cause;
    cpu->trap_epc = epc;
    cpu->trap_tval = tval;
    uint32_t base = cpu->mtvec & ~3u;
    if (base == 0)
        return 1;
    cpu->mepc = epc;
    cpu->mcause = cause;
    cpu->mtval = tval;
    uint32_t mie = cpu->mstatus & RV32_MSTATUS_MIE;
    cpu->mstatus = mie ? RV32_MSTATUS_MPIE : 0; /* MPIE = MIE, MIE = 0, MPP = M */
    cpu->pc = base;
    if ((cpu->mtvec & 1u) && (cause & RV32_CAUSE_INTERRUPT))
        cpu->pc = base + 4u * (cause & 0x7fffffffu);
    cpu->cycles += cpu->costs.jump;
    cpu->sleeping = 0;
    update_irq(cpu);
    return 0;
}

/* ------------------------------------------------------------------ bus */

static int bus_load(rv32_t *cpu, uint32_t addr, unsigned size, uint32_t *val)
{
    if (!cpu->bus.load)
        return RV32_BUS_FAULT;
    uint32_t v = 0;
    int r = cpu->bus.load(cpu->bus.ctx, addr, size, &v);
    if (r == RV32_BUS_OK)
        *val = size == 4 ? v : v & ((1u << (8 * size)) - 1u);
    else if (r != RV32_BUS_STALL)
        r = RV32_BUS_FAULT;
    return r;
}

static int bus_store(rv32_t *cpu, uint32_t addr, unsigned size, uint32_t val)
{
    if (!cpu->bus.store)
        return RV32_BUS_FAULT;
    int r = cpu->bus.store(cpu->bus.ctx, addr, size, val);
    if (r != RV32_BUS_OK && r != RV32_BUS_STALL)
        r = RV32_BUS_FAULT;
    return r;
}

/* ------------------------------------------------------------------ run */

static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Immediates (U 2.3, Figure 2.4). */
static inline uint32_t imm_i(uint32_t insn)
{
    return (uint32_t)((int32_t)insn >> 20);
}

static inline uint32_t imm_s(uint32_t insn)
{
    return (uint32_t)(((int32_t)insn >> 20) & ~31) | ((insn >> 7) & 31);
}

static inline uint32_t imm_b(uint32_t insn)
{
    return (uint32_t)(((int32_t)insn >> 19) & ~0xfff) /* imm[31:12] = insn[31] */
           | ((insn << 4) & 0x800)                    /* imm[11] = insn[7] */
           | ((insn >> 20) & 0x7e0)                   /* imm[10:5] = insn[30:25] */
           | ((insn >> 7) & 0x1e);                    /* imm[4:1] = insn[11:8] */
}

static inline uint32_t imm_j(uint32_t insn)
{
    return (uint32_t)(((int32_t)insn >> 11) & ~0xfffff) /* imm[31:20] = insn[31] */
           | (insn & 0xff000)                           /* imm[19:12] */
           | ((insn >> 9) & 0x800)                      /* imm[11] = insn[20] */
           | ((insn >> 20) & 0x7fe);                    /* imm[10:1] = insn[30:21] */
}

rv32_stop_t rv32_run(rv32_t *cpu, uint64_t cycle_budget)
{
    if (cpu->halted)
        return RV32_STOP_HALT;
    uint64_t cyc = cpu->cycles;
    const uint64_t end = cycle_budget > UINT64_MAX - cyc ? UINT64_MAX : cyc + cycle_budget;
    if (cpu->sleeping) {
        if (!wake_pending(cpu)) {
            cpu->cycles = end;
            return RV32_STOP_WFI;
        }
        cpu->sleeping = 0;
    }
    if (cycle_budget == 0)
        return RV32_STOP_BUDGET;

    uint32_t pc = cpu->pc;
    uint64_t ret = cpu->instret;
    uint32_t *const x = cpu->x;
    uint8_t *const ram = cpu->ram;
    const uint32_t base = cpu->ram_base;
    /* an aligned access of n bytes at offset off lies in RAM iff off <= ram_size - n */
    const uint32_t lim1 = cpu->ram_size - 1, lim2 = cpu->ram_size - 2, lim4 = cpu->ram_size - 4;
    const uint32_t c_alu = cpu->costs.alu, c_mul = cpu->costs.mul, c_div = cpu->costs.div;
    const uint32_t c_load = cpu->costs.load, c_store = cpu->costs.store;
    const uint32_t c_bt = cpu->costs.branch_taken, c_bnt = cpu->costs.branch_not_taken;
    const uint32_t c_jump = cpu->costs.jump, c_csr = cpu->costs.csr;
    const uint32_t c_mmio = cpu->costs.mmio_extra;
    rv32_stop_t stop = RV32_STOP_BUDGET;
    uint32_t exc_cause = 0, exc_tval = 0;

#define SYNC()                \
    do {                      \
        cpu->pc = pc;         \
        cpu->cycles = cyc;    \
        cpu->instret = ret;   \
    } while (0)
#define EXC(cause, tval)        \
    do {                        \
        exc_cause = (cause);    \
        exc_tval = (tval);      \
        goto exception;         \
    } while (0)
    /* Serve a load of n bytes at addr outside RAM into v; stall or fault leave the insn. */
#define BUS_LOAD(n)                                                   \
    do {                                                              \
        SYNC();                                                       \
        int r_ = bus_load(cpu, addr, (n), &v);                        \
        if (UNLIKELY(r_ != RV32_BUS_OK)) {                            \
            if (r_ == RV32_BUS_STALL) {                               \
                stop = RV32_STOP_STALL;                               \
                goto out;                                             \
            }                                                         \
            EXC(RV32_CAUSE_LOAD_ACCESS, addr);                        \
        }                                                             \
        bus = 1;                                                      \
        cyc += c_mmio;                                                \
    } while (0)
#define BUS_STORE(n)                                                  \
    do {                                                              \
        SYNC();                                                       \
        int r_ = bus_store(cpu, addr, (n), v);                        \
        if (UNLIKELY(r_ != RV32_BUS_OK)) {                            \
            if (r_ == RV32_BUS_STALL) {                               \
                stop = RV32_STOP_STALL;                               \
                goto out;                                             \
            }                                                         \
            EXC(RV32_CAUSE_STORE_ACCESS, addr);                       \
        }                                                             \
        bus = 1;                                                      \
        cyc += c_mmio;                                                \
    } while (0)

    while (cyc < end) {
        if (UNLIKELY(cpu->irq_armed)) {
            /* P 3.1.9: taken between instructions; mepc = the next instruction. */
            exc_cause = RV32_CAUSE_MEI;
            exc_tval = 0;
            goto exception;
        }
        uint32_t off = pc - base;
        if (UNLIKELY(off > lim4 || (off & 3))) {
            if (pc & 3)
                EXC(RV32_CAUSE_MISALIGNED_FETCH, pc);
            EXC(RV32_CAUSE_FETCH_ACCESS, pc);
        }
        const uint32_t insn = ld32(ram + off);
        const uint32_t rd = (insn >> 7) & 31, rs1 = (insn >> 15) & 31, rs2 = (insn >> 20) & 31;
        const uint32_t f3 = (insn >> 12) & 7;
        int bus = 0;
        x[0] = 0;
        if (UNLIKELY((insn & 3) != 3)) /* a 16-bit (C) encoding: no C extension */
            goto illegal;

        /* switch on opcode[6:2]: a dense 32-entry table */
        switch ((insn >> 2) & 31) {
        case 0x0d: /* LUI 0x37 */
            x[rd] = insn & 0xfffff000u;
            pc += 4;
            cyc += c_alu;
            break;

        case 0x05: /* AUIPC 0x17 */
            x[rd] = pc + (insn & 0xfffff000u);
            pc += 4;
            cyc += c_alu;
            break;

        case 0x1b: { /* JAL 0x6f */
            uint32_t t = pc + imm_j(insn);
            if (UNLIKELY(t & 3))
                EXC(RV32_CAUSE_MISALIGNED_FETCH, t);
            x[rd] = pc + 4;
            pc = t;
            cyc += c_jump;
            break;
        }

        case 0x19: { /* JALR 0x67 */
            if (UNLIKELY(f3 != 0))
                goto illegal;
            uint32_t t = (x[rs1] + imm_i(insn)) & ~1u; /* before writing rd: rd may be rs1 */
            if (UNLIKELY(t & 3))
                EXC(RV32_CAUSE_MISALIGNED_FETCH, t);
            x[rd] = pc + 4;
            pc = t;
            cyc += c_jump;
            break;
        }

        case 0x18: { /* BRANCH 0x63 */
            uint32_t a = x[rs1], b = x[rs2];
            int taken;
            switch (f3) {
            case 0: taken = a == b; break;                   /* beq */
            case 1: taken = a != b; break;                   /* bne */
            case 4: taken = (int32_t)a < (int32_t)b; break;  /* blt */
            case 5: taken = (int32_t)a >= (int32_t)b; break; /* bge */
            case 6: taken = a < b; break;                    /* bltu */
            case 7: taken = a >= b; break;                   /* bgeu */
            default: goto illegal;
            }
            if (taken) {
                uint32_t t = pc + imm_b(insn);
                if (UNLIKELY(t & 3))
                    EXC(RV32_CAUSE_MISALIGNED_FETCH, t); /* U 2.5: only when taken */
                pc = t;
                cyc += c_bt;
            } else {
                pc += 4;
                cyc += c_bnt;
            }
            break;
        }

        case 0x00: { /* LOAD 0x03 */
            uint32_t addr = x[rs1] + imm_i(insn);
            uint32_t moff = addr - base;
            uint32_t v;
            switch (f3) {
            case 0: /* lb */
            case 4: /* lbu */
                if (LIKELY(moff <= lim1))
                    v = ram[moff];
                else
                    BUS_LOAD(1);
                x[rd] = f3 == 0 ? (uint32_t)(int32_t)(int8_t)v : v;
                break;
            case 1: /* lh */
            case 5: /* lhu */
                if (UNLIKELY(addr & 1))
                    EXC(RV32_CAUSE_MISALIGNED_LOAD, addr);
                if (LIKELY(moff <= lim2))
                    v = ld16(ram + moff);
                else
                    BUS_LOAD(2);
                x[rd] = f3 == 1 ? (uint32_t)(int32_t)(int16_t)v : v;
                break;
            case 2: /* lw */
                if (UNLIKELY(addr & 3))
                    EXC(RV32_CAUSE_MISALIGNED_LOAD, addr);
                if (LIKELY(moff <= lim4))
                    v = ld32(ram + moff);
                else
                    BUS_LOAD(4);
                x[rd] = v;
                break;
            default:
                goto illegal;
            }
            pc += 4;
            cyc += c_load;
            break;
        }

        case 0x08: { /* STORE 0x23 */
            uint32_t addr = x[rs1] + imm_s(insn);
            uint32_t moff = addr - base;
            uint32_t v = x[rs2];
            switch (f3) {
            case 0: /* sb */
                v &= 0xff;
                if (LIKELY(moff <= lim1))
                    ram[moff] = (uint8_t)v;
                else
                    BUS_STORE(1);
                break;
            case 1: /* sh */
                if (UNLIKELY(addr & 1))
                    EXC(RV32_CAUSE_MISALIGNED_STORE, addr);
                v &= 0xffff;
                if (LIKELY(moff <= lim2)) {
                    uint16_t h = (uint16_t)v;
                    memcpy(ram + moff, &h, 2);
                } else {
                    BUS_STORE(2);
                }
                break;
            case 2: /* sw */
                if (UNLIKELY(addr & 3))
                    EXC(RV32_CAUSE_MISALIGNED_STORE, addr);
                if (LIKELY(moff <= lim4))
                    memcpy(ram + moff, &v, 4);
                else
                    BUS_STORE(4);
                break;
            default:
                goto illegal;
            }
            pc += 4;
            cyc += c_store;
            break;
        }

        case 0x04: { /* OP-IMM 0x13 */
            uint32_t a = x[rs1], imm = imm_i(insn);
            switch (f3) {
            case 0: x[rd] = a + imm; break;                           /* addi */
            case 2: x[rd] = (int32_t)a < (int32_t)imm; break;         /* slti */
            case 3: x[rd] = a < imm; break;                           /* sltiu */
            case 4: x[rd] = a ^ imm; break;                           /* xori */
            case 6: x[rd] = a | imm; break;                           /* ori */
            case 7: x[rd] = a & imm; break;                           /* andi */
            case 1:                                                   /* slli */
                if (UNLIKELY(insn >> 25))
                    goto illegal;
                x[rd] = a << rs2;
                break;
            default: /* 5 */
                if ((insn >> 25) == 0)
                    x[rd] = a >> rs2; /* srli */
                else if ((insn >> 25) == 0x20)
                    x[rd] = (uint32_t)((int32_t)a >> rs2); /* srai */
                else
                    goto illegal;
                break;
            }
            pc += 4;
            cyc += c_alu;
            break;
        }

        case 0x0c: { /* OP 0x33 */
            uint32_t a = x[rs1], b = x[rs2];
            uint32_t f7 = insn >> 25;
            if (LIKELY(f7 == 0)) {
                switch (f3) {
                case 0: x[rd] = a + b; break;                                    /* add */
                case 1: x[rd] = a << (b & 31); break;                            /* sll */
                case 2: x[rd] = (int32_t)a < (int32_t)b; break;                  /* slt */
                case 3: x[rd] = a < b; break;                                    /* sltu */
                case 4: x[rd] = a ^ b; break;                                    /* xor */
                case 5: x[rd] = a >> (b & 31); break;                            /* srl */
                case 6: x[rd] = a | b; break;                                    /* or */
                default: x[rd] = a & b; break;                                   /* and */
                }
                cyc += c_alu;
            } else if (f7 == 0x20 && f3 == 0) { /* sub */
                x[rd] = a - b;
                cyc += c_alu;
            } else if (f7 == 0x20 && f3 == 5) { /* sra */
                x[rd] = (uint32_t)((int32_t)a >> (b & 31));
                cyc += c_alu;
            } else if (f7 == 1) { /* M extension, U 7 */
                int32_t sa = (int32_t)a, sb = (int32_t)b;
                switch (f3) {
                case 0: x[rd] = a * b; break;                                             /* mul */
                case 1: x[rd] = (uint32_t)(((int64_t)sa * (int64_t)sb) >> 32); break;     /* mulh */
                case 2: x[rd] = (uint32_t)(((int64_t)sa * (int64_t)(uint64_t)b) >> 32); break; /* mulhsu */
                case 3: x[rd] = (uint32_t)(((uint64_t)a * (uint64_t)b) >> 32); break;     /* mulhu */
                case 4: /* div: U 7.2 Table 7.1 */
                    if (b == 0)
                        x[rd] = UINT32_MAX;
                    else if (a == 0x80000000u && b == UINT32_MAX)
                        x[rd] = a;
                    else
                        x[rd] = (uint32_t)(sa / sb);
                    break;
                case 5: /* divu */
                    x[rd] = b == 0 ? UINT32_MAX : a / b;
                    break;
                case 6: /* rem */
                    if (b == 0)
                        x[rd] = a;
                    else if (a == 0x80000000u && b == UINT32_MAX)
                        x[rd] = 0;
                    else
                        x[rd] = (uint32_t)(sa % sb);
                    break;
                default: /* remu */
                    x[rd] = b == 0 ? a : a % b;
                    break;
                }
                cyc += f3 < 4 ? c_mul : c_div;
            } else {
                goto illegal;
            }
            pc += 4;
            break;
        }

        case 0x03: /* MISC-MEM 0x0f: fence, fence.i (no caches, one hart: nothing to order) */
            if (UNLIKELY(f3 > 1))
                goto illegal;
            pc += 4;
            cyc += c_alu;
            break;

        case 0x1c: /* SYSTEM 0x73 */
            if (f3 == 0) {
                switch (insn) {
                case 0x00000073: /* ecall */
                    EXC(RV32_CAUSE_ECALL_M, 0);
                case 0x00100073: /* ebreak: mtval = its address, as Spike */
                    EXC(RV32_CAUSE_BREAKPOINT, pc);
                case 0x30200073: /* mret, P 3.3.2 */
                    pc = cpu->mepc;
                    cpu->mstatus = RV32_MSTATUS_MPIE | ((cpu->mstatus & RV32_MSTATUS_MPIE) ? RV32_MSTATUS_MIE : 0);
                    update_irq(cpu);
                    cyc += c_jump;
                    break;
                case 0x10500073: /* wfi, P 3.3.3 */
                    pc += 4;
                    cyc += c_alu;
                    ret++;
                    if (wake_pending(cpu))
                        continue;
                    cpu->sleeping = 1;
                    stop = RV32_STOP_WFI;
                    goto out;
                default:
                    goto illegal;
                }
            } else if (f3 == 4) {
                goto illegal;
            } else {
                SYNC();
                if (UNLIKELY(exec_csr(cpu, insn)))
                    goto illegal;
                pc += 4;
                cyc += c_csr;
            }
            break;

        default:
            goto illegal;
        }
        ret++;
        if (UNLIKELY(bus) && cpu->halted) {
            stop = RV32_STOP_HALT;
            goto out;
        }
        continue;

    illegal:
        exc_cause = RV32_CAUSE_ILLEGAL_INSN;
        exc_tval = insn;
    exception:
        SYNC();
        if (enter_trap(cpu, exc_cause, pc, exc_tval)) {
            stop = RV32_STOP_TRAP;
            goto out;
        }
        pc = cpu->pc;
        cyc = cpu->cycles;
        if (cpu->halted) {
            stop = RV32_STOP_HALT;
            goto out;
        }
    }
#undef SYNC
#undef EXC
#undef BUS_LOAD
#undef BUS_STORE

out:
    cpu->pc = pc;
    cpu->cycles = cyc;
    cpu->instret = ret;
    return stop;
}

/* ------------------------------------------------------------------ names */

const char *rv32_stop_name(rv32_stop_t stop)
{
    static const char *const names[] = {
        [RV32_STOP_BUDGET] = "budget", [RV32_STOP_STALL] = "stall", [RV32_STOP_WFI] = "wfi",
        [RV32_STOP_HALT] = "halt",     [RV32_STOP_TRAP] = "trap",
    };
    return (unsigned)stop < sizeof(names) / sizeof(names[0]) ? names[stop] : "?";
}

const char *rv32_cause_name(uint32_t cause)
{
    switch (cause) {
    case RV32_CAUSE_MISALIGNED_FETCH: return "instruction address misaligned";
    case RV32_CAUSE_FETCH_ACCESS: return "instruction access fault";
    case RV32_CAUSE_ILLEGAL_INSN: return "illegal instruction";
    case RV32_CAUSE_BREAKPOINT: return "breakpoint";
    case RV32_CAUSE_MISALIGNED_LOAD: return "load address misaligned";
    case RV32_CAUSE_LOAD_ACCESS: return "load access fault";
    case RV32_CAUSE_MISALIGNED_STORE: return "store/AMO address misaligned";
    case RV32_CAUSE_STORE_ACCESS: return "store/AMO access fault";
    case RV32_CAUSE_ECALL_M: return "environment call from M-mode";
    case RV32_CAUSE_MEI: return "machine external interrupt";
    default: return "?";
    }
}
