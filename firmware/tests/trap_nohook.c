/* trap_nohook.c — an ebreak with no trap hook installed: reported by
 * start.S, exit code FW_EXIT_TRAP(3). */
#include "console.h"
#include "start.h"
#include "trap_insns.h"

int main(void)
{
    con_puts("trap_nohook: expect mepc=");
    con_puthex(PC_OF(trap_ebreak_pc));
    con_putc('\n');
    trap_ebreak();
    con_puts("trap_nohook: still running after an unhandled trap\n");
    return 1;
}
