/* main.c — the firmware image's entry after start-up: say hello on the
 * console, then sleep in wfi. The command mailbox and event handling hook in
 * here (cmd.h). */
#include <stdint.h>

#include "console.h"
#include "hca_abi.h"
#include "start.h"

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
    con_puts("hcafw: idle\n");
    for (;;)
        __asm__ volatile("wfi");
}
