/* traps.c — exceptions caught by a trap hook and resumed, as firmware would:
 * illegal instructions, misaligned loads/stores/jumps, access faults on
 * loads, stores and fetches, ecall (used as a system call whose result comes
 * back in a0), ebreak; every register survives a trap; the machine CSRs read
 * as the core defines them. Expected mcause/mepc/mtval follow the Privileged
 * Architecture 20211203 (3.1.15-3.1.17): mtval = the instruction bits for an
 * illegal instruction, the faulting address for misaligned and access
 * faults, the pc for ebreak, 0 for ecall. */
#include "check.h"
#include "start.h"
#include "trap_insns.h"

#include "hca_abi.h"

static volatile uint32_t seen_count, seen_cause, seen_epc, seen_tval, seen_sp;

static int hook(fw_trap_frame_t *f)
{
    seen_count++;
    seen_cause = f->mcause;
    seen_epc = f->mepc;
    seen_tval = f->mtval;
    seen_sp = f->x[2];
    switch (f->mcause) {
    case 1: /* instruction access fault: the call went nowhere; return to the caller */
        f->mepc = f->x[1];
        return 1;
    case 11: /* ecall: a7 = 1 is "a0 = 2 * a0 + 1", a7 = 0 does nothing */
        if (f->x[17] == 1)
            f->x[10] = 2 * f->x[10] + 1;
        f->mepc += 4;
        return 1;
    default: /* skip the trapping instruction */
        f->mepc += 4;
        return 1;
    }
}

static void expect_trap(const char *what, uint32_t count, uint32_t cause, uint32_t epc, uint32_t tval)
{
    if (seen_count != count || seen_cause != cause || seen_epc != epc || seen_tval != tval) {
        con_puts("traps: ");
        con_puts(what);
        con_puts(": saw #");
        con_putudec(seen_count);
        con_puts(" mcause=");
        con_puthex(seen_cause);
        con_puts(" mepc=");
        con_puthex(seen_epc);
        con_puts(" mtval=");
        con_puthex(seen_tval);
        con_puts("\n");
    }
    CHECK_EQ(seen_count, count);
    CHECK_EQ(seen_cause, cause);
    CHECK_EQ(seen_epc, epc);
    CHECK_EQ(seen_tval, tval);
    check_ok("traps", what);
}

static uint32_t aligned_word[2] __attribute__((aligned(8))) = { 0x11223344u, 0x55667788u };

static uint32_t csr_read_mcycle(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

static uint32_t csr_read_minstret(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}

int main(void)
{
    uint32_t n = 0, v, sp;
    con_puts("traps: start\n");
    fw_trap_hook = hook;

    v = trap_illegal_zero();
    expect_trap("illegal instruction (all zeros)", ++n, 2, PC_OF(trap_illegal_zero_pc), 0);
    CHECK_EQ(v, 0x5a5a); /* nothing executed in its place */

    v = trap_illegal_csr();
    expect_trap("illegal instruction (unimplemented CSR 0x7c0)", ++n, 2, PC_OF(trap_illegal_csr_pc),
                *(const uint32_t *)trap_illegal_csr_pc);
    CHECK_EQ(v, 0x1234); /* rd not written */

    const uintptr_t w = (uintptr_t)aligned_word;
    v = trap_load_misaligned(w);
    expect_trap("misaligned lw", ++n, 4, PC_OF(trap_load_misaligned_pc), w + 1);
    CHECK_EQ(v, w); /* rd not written */

    v = trap_loadh_misaligned(w);
    expect_trap("misaligned lh", ++n, 4, PC_OF(trap_loadh_misaligned_pc), w + 3);

    trap_store_misaligned(w, 0xdeadbeef);
    expect_trap("misaligned sw", ++n, 6, PC_OF(trap_store_misaligned_pc), w + 2);
    CHECK_EQ(aligned_word[0], 0x11223344u); /* memory untouched */
    CHECK_EQ(aligned_word[1], 0x55667788u);

    trap_fetch_misaligned();
    expect_trap("misaligned jump target", ++n, 0, PC_OF(trap_fetch_misaligned_pc),
                PC_OF(trap_fetch_misaligned_target) + 2);

    v = trap_load_fault(0x10);
    expect_trap("load access fault (unmapped low address)", ++n, 5, PC_OF(trap_load_fault_pc), 0x10);
    CHECK_EQ(v, 0x10);

    v = trap_load_fault(HCA_DEVREG_BASE + 0x8000);
    expect_trap("load access fault (unmapped device register)", ++n, 5, PC_OF(trap_load_fault_pc),
                HCA_DEVREG_BASE + 0x8000);

    trap_store_fault(HCA_CONSOLE_BASE - 4);
    expect_trap("store access fault (below the console)", ++n, 7, PC_OF(trap_store_fault_pc),
                HCA_CONSOLE_BASE - 4);

    trap_store_fault(HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE);
    expect_trap("store access fault (just past RAM)", ++n, 7, PC_OF(trap_store_fault_pc),
                HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE);

    void (*volatile nowhere)(void) = (void (*)(void))0x00001000u;
    nowhere();
    expect_trap("instruction access fault (jump outside RAM)", ++n, 1, 0x1000, 0x1000);

    __asm__ volatile("mv %0, sp" : "=r"(sp));
    v = trap_ecall(20, 1);
    expect_trap("ecall", ++n, 11, PC_OF(trap_ecall_pc), 0);
    CHECK_EQ(v, 41); /* the handler's a0 came back */
    CHECK_EQ(seen_sp, sp); /* the frame holds the interrupted sp (trap_ecall is a leaf: no frame) */

    trap_ebreak();
    expect_trap("ebreak", ++n, 3, PC_OF(trap_ebreak_pc), PC_OF(trap_ebreak_pc));

    CHECK_EQ(trap_keeps_registers(), 0);
    expect_trap("every register survives a trap", ++n, 11, PC_OF(trap_keeps_registers_pc), 0);

    /* Machine CSRs after all that. */
    uint32_t misa, mtvec, mstatus, hart;
    __asm__ volatile("csrr %0, misa" : "=r"(misa));
    __asm__ volatile("csrr %0, mtvec" : "=r"(mtvec));
    __asm__ volatile("csrr %0, mstatus" : "=r"(mstatus));
    __asm__ volatile("csrr %0, mhartid" : "=r"(hart));
    extern char _trap_entry[];
    CHECK_EQ(misa, 0x40001100u); /* RV32, I, M */
    CHECK_EQ(mtvec, (uintptr_t)_trap_entry);
    CHECK_EQ(mstatus & 0x8, 0);  /* MIE still off after the mrets */
    CHECK_EQ(hart, 0);
    const uint32_t c0 = csr_read_mcycle(), i0 = csr_read_minstret();
    for (volatile int k = 0; k < 10; k++) {
    }
    const uint32_t c1 = csr_read_mcycle(), i1 = csr_read_minstret();
    CHECK(c1 - c0 >= 10 && c1 - c0 < 10000);
    CHECK(i1 - i0 >= 10 && i1 - i0 <= c1 - c0);
    check_ok("traps", "machine CSRs");

    con_puts("traps: ");
    con_putudec(n);
    con_puts(" traps handled\n");
    con_puts("PASS traps\n");
    return 0;
}
