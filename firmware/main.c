/* main.c — the firmware image: announce itself, then serve the command
 * mailbox and the engine's memory-management events. The core sleeps in wfi
 * until the HCR go bit or a pending event raises the machine external
 * interrupt; interrupts stay globally masked (mstatus.MIE = 0), so
 * wfi only wakes the core and the work is done here, not in a handler. */
#include <stdint.h>

#include "cmd.h"
#include "console.h"
#include "mm.h"
#include "hca_abi.h"
#include "start.h"

#define MIE_MEIE (1u << 11)

int main(void)
{
    con_puts("hcafw: firmware core up, fw_version ");
    con_putudec(HCA_FW_VERSION >> 16);
    con_putc('.');
    con_putudec(HCA_FW_VERSION & 0xffff);
    con_puts(", RAM ");
    con_puthex(HCA_FW_RAM_BASE);
    con_putc('+');
    con_puthex(HCA_FW_RAM_SIZE);
    con_puts(", image ");
    con_putudec((uint32_t)(__bss_end - __text_start));
    con_puts(" bytes\n");
    cmd_init();
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MEIE));
    con_puts("hcafw: idle\n");
    for (;;) {
        __asm__ volatile("wfi");
        cmd_dispatch();
        mm_service();
    }
}
