/* stack.c — calls and the stack: deep and mutual recursion, large frames,
 * ABI stack alignment, indirect calls, variadic functions, a recursive
 * quicksort checked against a checksum. */
#include <stdarg.h>

#include "check.h"
#include "start.h"

static uint32_t fib(uint32_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static uint32_t ackermann(uint32_t m, uint32_t n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_odd(unsigned n);
static int is_even(unsigned n)
{
    return n == 0 ? 1 : is_odd(n - 1);
}
static int is_odd(unsigned n)
{
    return n == 0 ? 0 : is_even(n - 1);
}

static uintptr_t lowest_sp = ~(uintptr_t)0;

/* Each level keeps a 64-byte array alive across the recursive call. */
__attribute__((noinline)) static uint32_t deep(unsigned depth)
{
    volatile uint8_t frame[64];
    uintptr_t sp;
    __asm__ volatile("mv %0, sp" : "=r"(sp));
    if (sp < lowest_sp)
        lowest_sp = sp;
    CHECK_EQ(sp & 15, 0); /* psABI: sp 16-byte aligned at every call */
    for (unsigned i = 0; i < sizeof(frame); i++)
        frame[i] = (uint8_t)(depth + i);
    uint32_t below = depth ? deep(depth - 1) : 0;
    uint32_t sum = below;
    for (unsigned i = 0; i < sizeof(frame); i++) {
        CHECK_EQ(frame[i], (uint8_t)(depth + i)); /* not clobbered by deeper calls */
        sum += frame[i];
    }
    return sum;
}

static uint32_t sum_varargs(unsigned n, ...)
{
    va_list ap;
    va_start(ap, n);
    uint32_t s = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i & 1)
            s += (uint32_t)va_arg(ap, uint64_t);
        else
            s += va_arg(ap, uint32_t);
    }
    va_end(ap);
    return s;
}

static uint32_t twice(uint32_t x) { return 2 * x; }
static uint32_t square(uint32_t x) { return x * x; }

static void quicksort(uint32_t *a, int lo, int hi)
{
    if (lo >= hi)
        return;
    uint32_t pivot = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot)
            i++;
        while (a[j] > pivot)
            j--;
        if (i <= j) {
            uint32_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

int main(void)
{
    con_puts("stack: start\n");
    CHECK_EQ(fib(OPAQUE(20u)), 6765);
    CHECK_EQ(ackermann(OPAQUE(2u), OPAQUE(3u)), 9);
    CHECK_EQ(ackermann(OPAQUE(3u), OPAQUE(3u)), 61);
    CHECK(is_even(OPAQUE(1000u)));
    CHECK(is_odd(OPAQUE(777u)));
    check_ok("stack", "recursion");

    const unsigned depth = 400;
    uint32_t want = 0;
    for (unsigned d = 0; d <= depth; d++)
        for (unsigned i = 0; i < 64; i++)
            want += (uint8_t)(d + i);
    CHECK_EQ(deep(OPAQUE(depth)), want);
    CHECK(lowest_sp > (uintptr_t)__bss_end);
    con_puts("stack: deepest sp ");
    con_puthex(lowest_sp);
    con_puts(", ");
    con_putudec((uint32_t)((uintptr_t)__stack_top - lowest_sp));
    con_puts(" bytes used\n");
    check_ok("stack", "deep recursion with large frames");

    uint32_t (*volatile fn)(uint32_t) = twice;
    CHECK_EQ(fn(21), 42);
    fn = square;
    CHECK_EQ(fn(12), 144);
    CHECK_EQ(sum_varargs(5, 1u, (uint64_t)2, 3u, (uint64_t)4, 5u), 15);
    check_ok("stack", "indirect and variadic calls");

    static uint32_t a[300];
    uint32_t x = 12345, sum = 0;
    for (unsigned i = 0; i < 300; i++) {
        x = x * 1103515245u + 12345u;
        a[i] = x >> 8;
        sum += a[i];
    }
    quicksort(a, 0, 299);
    uint32_t sum2 = 0;
    for (unsigned i = 0; i < 300; i++) {
        if (i)
            CHECK(a[i - 1] <= a[i]);
        sum2 += a[i];
    }
    CHECK_EQ(sum2, sum);
    check_ok("stack", "recursive quicksort");
    con_puts("PASS stack\n");
    return 0;
}
