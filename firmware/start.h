/* start.h — what the start-up code (start.S) and the linker script (link.ld)
 * give every firmware program: exit codes, the trap frame and the trap hook,
 * and the memory-layout symbols. Usable from C and from assembly.
 *
 * Start-up: sp = __stack_top (top of RAM), gp = __global_pointer$, mtvec =
 * the trap entry (direct mode), mscratch = top of a private trap stack, .bss
 * zeroed, then main(); main's return value is written to the console EXIT
 * register (0 = success). mscratch belongs to the trap entry: programs must
 * not write it.
 *
 * Traps: the entry saves x1..x31 and mepc/mcause/mtval in a fw_trap_frame_t
 * on the trap stack and calls fw_trap_hook when set. A hook returning nonzero
 * has handled the trap: registers are restored from the frame (so the hook
 * may change them) and mret resumes at frame->mepc (the hook advances it past
 * the trapping instruction). Otherwise — no hook, or the hook returns 0 — the
 * trap is reported on the console as
 *     "\n*** TRAP mcause=0x00000002 mepc=0x80000120 mtval=0x00000000\n"
 * and the program exits with FW_EXIT_TRAP(mcause). A trap taken while the
 * entry or the hook is running is reported as "*** DOUBLE TRAP ..." and exits
 * with FW_EXIT_DOUBLE_TRAP(mcause); that path uses no stack.
 */
#ifndef FW_START_H
#define FW_START_H

/* Exit codes of a program stopped by a trap: 0xbad00000 | interrupt << 8 |
 * cause (low 8 bits), and 0xbadd0000 | ... for a trap inside the trap entry. */
#define FW_EXIT_TRAP_BASE 0xbad00000
#define FW_EXIT_DOUBLE_TRAP_BASE 0xbadd0000
#define FW_EXIT_CAUSE_BITS(mcause) ((((mcause) >> 31) << 8) | ((mcause) & 0xff))
#define FW_EXIT_TRAP(mcause) (FW_EXIT_TRAP_BASE | FW_EXIT_CAUSE_BITS(mcause))
#define FW_EXIT_DOUBLE_TRAP(mcause) (FW_EXIT_DOUBLE_TRAP_BASE | FW_EXIT_CAUSE_BITS(mcause))
/* 1 when an exit code is one of the above. */
#define FW_EXIT_IS_TRAP(code) (((code) & 0xfffffe00u) == FW_EXIT_TRAP_BASE)
#define FW_EXIT_IS_DOUBLE_TRAP(code) (((code) & 0xfffffe00u) == FW_EXIT_DOUBLE_TRAP_BASE)

/* Trap frame layout (byte offsets). x[0] is not saved (reads 0). */
#define FW_TF_X(n) (4 * (n))
#define FW_TF_MEPC 128
#define FW_TF_MCAUSE 132
#define FW_TF_MTVAL 136
#define FW_TF_SIZE 144 /* multiple of 16: the stack stays ABI-aligned */

/* Bytes of the private trap stack (start.S, in .bss). */
#define FW_TRAP_STACK_SIZE 1024

#ifndef __ASSEMBLER__
#include <stdint.h>

#ifdef __cplusplus /* host tests include this for the exit codes */
#define FW_STATIC_ASSERT static_assert
extern "C" {
#else
#define FW_STATIC_ASSERT _Static_assert
#endif

/** Registers at the trap, as saved by the trap entry. */
typedef struct fw_trap_frame {
    uint32_t x[32]; /**< x[i] at the trap; x[2] is the interrupted sp */
    uint32_t mepc, mcause, mtval;
    uint32_t pad;
} fw_trap_frame_t;
FW_STATIC_ASSERT(sizeof(fw_trap_frame_t) == FW_TF_SIZE, "trap frame size");
FW_STATIC_ASSERT(__builtin_offsetof(fw_trap_frame_t, mepc) == FW_TF_MEPC, "mepc offset");
FW_STATIC_ASSERT(__builtin_offsetof(fw_trap_frame_t, mcause) == FW_TF_MCAUSE, "mcause offset");
FW_STATIC_ASSERT(__builtin_offsetof(fw_trap_frame_t, mtval) == FW_TF_MTVAL, "mtval offset");

/** Called by the trap entry with the saved frame; nonzero = handled, resume
 *  at f->mepc with the frame's registers. Runs on the trap stack with
 *  interrupts disabled; must not trap. */
typedef int (*fw_trap_hook_t)(fw_trap_frame_t *f);
extern fw_trap_hook_t volatile fw_trap_hook;

/* Linker-script symbols (use their addresses). */
extern char __text_start[], __text_end[], __rodata_start[], __data_start[], __data_end[];
extern char __bss_start[], __bss_end[], __stack_limit[], __stack_top[];

#ifndef __cplusplus
int main(void);
#else
}
#endif
#undef FW_STATIC_ASSERT
#endif /* __ASSEMBLER__ */

#endif /* FW_START_H */
