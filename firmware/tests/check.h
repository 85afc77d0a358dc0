/* check.h — checks for the self-checking firmware programs. A failing check
 * prints "FAIL file:line: expression" (with the values for CHECK_EQ) and
 * exits with the line number, so both the console and the exit code name it.
 * A program prints "PASS <name>" and returns 0 when every check held. */
#ifndef FW_TEST_CHECK_H
#define FW_TEST_CHECK_H

#include <stdint.h>

#include "console.h"

/* A value the compiler cannot see through: the operation is done at run time. */
#define OPAQUE(v)                                                                                  \
    ({                                                                                             \
        __auto_type opaque_v_ = (v);                                                                       \
        __asm__ volatile("" : "+r"(opaque_v_));                                                    \
        opaque_v_;                                                                                 \
    })

__attribute__((noreturn, noinline)) static void check_fail(const char *file, int line, const char *expr,
                                                           int has_values, uint64_t got, uint64_t want)
{
    con_puts("\nFAIL ");
    con_puts(file);
    con_putc(':');
    con_putdec(line);
    con_puts(": ");
    con_puts(expr);
    if (has_values) {
        con_puts(": got ");
        con_puthex64(got);
        con_puts(", expected ");
        con_puthex64(want);
    }
    con_putc('\n');
    con_exit((uint32_t)line);
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_fail(__FILE__, __LINE__, #cond, 0, 0, 0);                                        \
    } while (0)

#define CHECK_EQ(got, want)                                                                        \
    do {                                                                                           \
        const uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);                           \
        if (got_ != want_)                                                                         \
            check_fail(__FILE__, __LINE__, #got " == " #want, 1, got_, want_);                     \
    } while (0)

/* Progress: "name: what ok". */
static inline void check_ok(const char *prog, const char *what)
{
    con_puts(prog);
    con_puts(": ");
    con_puts(what);
    con_puts(" ok\n");
}

#endif /* FW_TEST_CHECK_H */
