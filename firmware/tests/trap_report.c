/* trap_report.c — an unhandled trap: the hook declines it, so start.S
 * reports it on the console and exits with FW_EXIT_TRAP(2). The program
 * prints the mepc the report must show; it never reaches its end. */
#include "console.h"
#include "start.h"
#include "trap_insns.h"

static int declining_hook(fw_trap_frame_t *f)
{
    con_puts("trap_report: hook declines mcause ");
    con_puthex(f->mcause);
    con_putc('\n');
    return 0;
}

int main(void)
{
    con_puts("trap_report: expect mepc=");
    con_puthex(PC_OF(trap_illegal_zero_pc));
    con_putc('\n');
    fw_trap_hook = declining_hook;
    trap_illegal_zero();
    con_puts("trap_report: still running after an unhandled trap\n");
    return 1;
}
