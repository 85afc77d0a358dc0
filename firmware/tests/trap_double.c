/* trap_double.c — a trap inside the trap hook: start.S reports a DOUBLE TRAP
 * without using the stack and exits with FW_EXIT_DOUBLE_TRAP(11). */
#include "console.h"
#include "start.h"
#include "trap_insns.h"

static int trapping_hook(fw_trap_frame_t *f)
{
    (void)f;
    con_puts("trap_double: in the hook, about to ecall\n");
    trap_ecall(0, 0);
    con_puts("trap_double: the ecall inside the hook returned\n");
    return 1;
}

int main(void)
{
    con_puts("trap_double: expect mepc=");
    con_puthex(PC_OF(trap_ecall_pc));
    con_putc('\n');
    fw_trap_hook = trapping_hook;
    trap_illegal_zero();
    con_puts("trap_double: still running\n");
    return 1;
}
