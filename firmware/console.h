/* console.h — the firmware core's debug console (ABI regs console): bytes
 * written to TX appear in the host's console buffer; a word written to EXIT
 * stops the core with that exit code (0 = success). */
#ifndef FW_CONSOLE_H
#define FW_CONSOLE_H

#include <stdint.h>

/** One byte to the console. */
void con_putc(char c);
/** A NUL-terminated string. */
void con_puts(const char *s);
/** v as 0x%08x. */
void con_puthex(uint32_t v);
/** v as 0x%016llx. */
void con_puthex64(uint64_t v);
/** v in decimal, with a '-' when negative. */
void con_putdec(int32_t v);
/** v in decimal. */
void con_putudec(uint32_t v);
/** Stop the core with code; never returns (sleeps if the console ignores it). */
__attribute__((noreturn)) void con_exit(uint32_t code);

#endif /* FW_CONSOLE_H */
