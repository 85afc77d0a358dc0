/* console.c — debug console output (see console.h). */
#include "console.h"

#include "hca_abi.h"

#define CONSOLE_REG(off) (*(volatile uint32_t *)(uintptr_t)(HCA_CONSOLE_BASE + (off)))

void con_putc(char c)
{
    CONSOLE_REG(HCA_CONSOLE_TX) = (uint8_t)c;
}

void con_puts(const char *s)
{
    while (*s)
        con_putc(*s++);
}

static void put_nibbles(uint32_t v, int digits)
{
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        con_putc("0123456789abcdef"[(v >> shift) & 15]);
}

void con_puthex(uint32_t v)
{
    con_puts("0x");
    put_nibbles(v, 8);
}

void con_puthex64(uint64_t v)
{
    con_puts("0x");
    put_nibbles((uint32_t)(v >> 32), 8);
    put_nibbles((uint32_t)v, 8);
}

void con_putudec(uint32_t v)
{
    char buf[10];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        con_putc(buf[--n]);
}

void con_putdec(int32_t v)
{
    if (v < 0) {
        con_putc('-');
        con_putudec(0u - (uint32_t)v);
    } else {
        con_putudec((uint32_t)v);
    }
}

void con_exit(uint32_t code)
{
    CONSOLE_REG(HCA_CONSOLE_EXIT) = code;
    for (;;)
        __asm__ volatile("wfi");
}
