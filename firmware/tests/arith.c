/* arith.c — RV32M instructions on their edge cases (inline assembly, so
 * division by zero and overflow are the ISA's, not C's undefined behaviour),
 * 64-bit arithmetic through libgcc (division, modulo, multiplication, shifts
 * by run-time amounts), bit-counting helpers. Operands pass through OPAQUE()
 * so every result is computed on the core and compared with constants
 * computed offline. */
#include "check.h"

enum { OP_MUL, OP_MULH, OP_MULHSU, OP_MULHU, OP_DIV, OP_DIVU, OP_REM, OP_REMU };
static const char *const op_name[] = { "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu" };

static uint32_t run_op(unsigned op, uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    switch (op) {
    case OP_MUL: __asm__ volatile("mul %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_MULH: __asm__ volatile("mulh %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_MULHSU: __asm__ volatile("mulhsu %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_MULHU: __asm__ volatile("mulhu %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_DIV: __asm__ volatile("div %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_DIVU: __asm__ volatile("divu %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_REM: __asm__ volatile("rem %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    case OP_REMU: __asm__ volatile("remu %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); break;
    }
    return r;
}

/* Expected values: RISC-V Unprivileged ISA 20191213, chapter 7 (division by
 * zero gives all ones / the dividend; INT_MIN / -1 gives INT_MIN, rem 0). */
static const struct m_case {
    unsigned op;
    uint32_t a, b, want;
} m_cases[] = {
    { OP_MUL, 0x12345678u, 0x9abcdef0u, 0x242d2080u },
    { OP_MUL, 0xffffffffu, 0xffffffffu, 0x00000001u },
    { OP_MUL, 0x80000000u, 0x00000002u, 0x00000000u },
    { OP_MUL, 0x00000007u, 0xfffffffdu, 0xffffffebu },
    { OP_MULH, 0x80000000u, 0x80000000u, 0x40000000u },
    { OP_MULH, 0xffffffffu, 0xffffffffu, 0x00000000u },
    { OP_MULH, 0x7fffffffu, 0x7fffffffu, 0x3fffffffu },
    { OP_MULH, 0x80000000u, 0x7fffffffu, 0xc0000000u },
    { OP_MULH, 0x12345678u, 0x9abcdef0u, 0xf8cc93d6u },
    { OP_MULHSU, 0xffffffffu, 0xffffffffu, 0xffffffffu },
    { OP_MULHSU, 0x80000000u, 0xffffffffu, 0x80000000u },
    { OP_MULHSU, 0x7fffffffu, 0xffffffffu, 0x7ffffffeu },
    { OP_MULHSU, 0x12345678u, 0x9abcdef0u, 0x0b00ea4eu },
    { OP_MULHSU, 0x9abcdef0u, 0x12345678u, 0xf8cc93d6u },
    { OP_MULHU, 0xffffffffu, 0xffffffffu, 0xfffffffeu },
    { OP_MULHU, 0x80000000u, 0x80000000u, 0x40000000u },
    { OP_MULHU, 0x12345678u, 0x9abcdef0u, 0x0b00ea4eu },
    { OP_DIV, 0x00000007u, 0x00000002u, 0x00000003u },
    { OP_DIV, 0xfffffff9u, 0x00000002u, 0xfffffffdu },
    { OP_DIV, 0x00000007u, 0xfffffffeu, 0xfffffffdu },
    { OP_DIV, 0xfffffff9u, 0xfffffffeu, 0x00000003u },
    { OP_DIV, 0x80000000u, 0xffffffffu, 0x80000000u }, /* overflow */
    { OP_DIV, 0x000004d2u, 0x00000000u, 0xffffffffu }, /* by zero */
    { OP_DIV, 0x00000000u, 0x00000000u, 0xffffffffu },
    { OP_DIV, 0x80000000u, 0x00000001u, 0x80000000u },
    { OP_DIVU, 0x00000007u, 0x00000002u, 0x00000003u },
    { OP_DIVU, 0x80000000u, 0x00000003u, 0x2aaaaaaau },
    { OP_DIVU, 0xffffffffu, 0x00000001u, 0xffffffffu },
    { OP_DIVU, 0x000004d2u, 0x00000000u, 0xffffffffu }, /* by zero */
    { OP_DIVU, 0xffffffffu, 0xffffffffu, 0x00000001u },
    { OP_REM, 0x00000007u, 0x00000002u, 0x00000001u },
    { OP_REM, 0xfffffff9u, 0x00000002u, 0xffffffffu },
    { OP_REM, 0x00000007u, 0xfffffffeu, 0x00000001u },
    { OP_REM, 0xfffffff9u, 0xfffffffeu, 0xffffffffu },
    { OP_REM, 0x80000000u, 0xffffffffu, 0x00000000u }, /* overflow */
    { OP_REM, 0x000004d2u, 0x00000000u, 0x000004d2u }, /* by zero */
    { OP_REM, 0xfffffb2eu, 0x00000000u, 0xfffffb2eu },
    { OP_REMU, 0x00000007u, 0x00000002u, 0x00000001u },
    { OP_REMU, 0x80000000u, 0x00000003u, 0x00000002u },
    { OP_REMU, 0x000004d2u, 0x00000000u, 0x000004d2u }, /* by zero */
    { OP_REMU, 0xffffffffu, 0x00010000u, 0x0000ffffu },
};

static void check_m_extension(void)
{
    for (unsigned i = 0; i < sizeof(m_cases) / sizeof(m_cases[0]); i++) {
        const struct m_case *c = &m_cases[i];
        const uint32_t got = run_op(c->op, OPAQUE(c->a), OPAQUE(c->b));
        if (got != c->want) {
            con_puts("arith: ");
            con_puts(op_name[c->op]);
            con_putc(' ');
            con_puthex(c->a);
            con_putc(' ');
            con_puthex(c->b);
            con_puts(" = ");
            con_puthex(got);
            con_puts(", expected ");
            con_puthex(c->want);
            con_putc('\n');
        }
        CHECK_EQ(got, c->want);
    }
    check_ok("arith", "RV32M edge cases");
}

static void check_64bit_division(void)
{
    /* unsigned: __udivdi3 / __umoddi3 */
    static const struct { uint64_t a, b, q, r; } u[] = {
        { 0x123456789abcdef0ull, 0x12345ull, 0x100005b00205ull, 0xa497ull },
        { 0xffffffffffffffffull, 3, 0x5555555555555555ull, 0 },
        { 0x8000000000000000ull, 0xffffffffull, 0x80000000ull, 0x80000000ull },
        { 0xfedcba9876543210ull, 0x100000001ull, 0xfedcba97ull, 0x77777779ull },
        { 1000000000000ull, 7, 0x2142f30249ull, 1 },
        { 0xffffffffffffffffull, 0xffffffffffffffffull, 1, 0 },
        { 5, 0x100000000ull, 0, 5 },
    };
    for (unsigned i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
        CHECK_EQ(OPAQUE(u[i].a) / OPAQUE(u[i].b), u[i].q);
        CHECK_EQ(OPAQUE(u[i].a) % OPAQUE(u[i].b), u[i].r);
    }
    /* signed: __divdi3 / __moddi3, truncating towards zero */
    static const struct { int64_t a, b, q, r; } s[] = {
        { -0x123456789abcdef0ll, 0x12345, -17592281465349ll, -42135 },
        { 0x123456789abcdef0ll, -0x12345, -17592281465349ll, 42135 },
        { INT64_MIN, -3, 3074457345618258602ll, -2 },
        { -1000000000007ll, -7, 142857142858ll, -1 },
        { INT64_MIN, 0x100000000ll, -2147483648ll, 0 },
    };
    for (unsigned i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        CHECK_EQ(OPAQUE(s[i].a) / OPAQUE(s[i].b), s[i].q);
        CHECK_EQ(OPAQUE(s[i].a) % OPAQUE(s[i].b), s[i].r);
    }
    con_puts("arith: 0x123456789abcdef0 / 0x12345 = ");
    con_puthex64(OPAQUE(0x123456789abcdef0ull) / OPAQUE(0x12345ull));
    con_putc('\n');
    check_ok("arith", "64-bit division");
}

static void check_64bit_mul_shift(void)
{
    CHECK_EQ(OPAQUE(0x123456789abcdef0ull) * OPAQUE(0x0fedcba987654321ull), 0x2236d88fe5618cf0ull);
    CHECK_EQ((uint64_t)(OPAQUE(-0x123456789ll) * OPAQUE(0x987654321ll)), 0x28828bd331e7cc57ull);
    CHECK_EQ((uint64_t)OPAQUE(0xffffffffu) * OPAQUE(0xffffffffu), 0xfffffffe00000001ull);
    static const struct { unsigned n; uint64_t shl, lshr, ashr; } sh[] = {
        { 0, 0x0123456789abcdefull, 0x0123456789abcdefull, 0xfedcba9876543210ull },
        { 1, 0x02468acf13579bdeull, 0x0091a2b3c4d5e6f7ull, 0xff6e5d4c3b2a1908ull },
        { 4, 0x123456789abcdef0ull, 0x00123456789abcdeull, 0xffedcba987654321ull },
        { 31, 0xc4d5e6f780000000ull, 0x0000000002468acfull, 0xfffffffffdb97530ull },
        { 32, 0x89abcdef00000000ull, 0x0000000001234567ull, 0xfffffffffedcba98ull },
        { 33, 0x13579bde00000000ull, 0x000000000091a2b3ull, 0xffffffffff6e5d4cull },
        { 63, 0x8000000000000000ull, 0, 0xffffffffffffffffull },
    };
    for (unsigned i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
        const unsigned n = OPAQUE(sh[i].n);
        CHECK_EQ(OPAQUE(0x0123456789abcdefull) << n, sh[i].shl);
        CHECK_EQ(OPAQUE(0x0123456789abcdefull) >> n, sh[i].lshr);
        CHECK_EQ((uint64_t)(OPAQUE((int64_t)0xfedcba9876543210ull) >> n), sh[i].ashr);
    }
    check_ok("arith", "64-bit multiply and shifts");
}

static void check_bit_helpers(void)
{
    /* No Zbb: these are libgcc's __clzsi2, __ctzsi2, __popcountsi2 and friends. */
    CHECK_EQ(__builtin_clz(OPAQUE(1u)), 31);
    CHECK_EQ(__builtin_clz(OPAQUE(0x00800000u)), 8);
    CHECK_EQ(__builtin_ctz(OPAQUE(0x00800000u)), 23);
    CHECK_EQ(__builtin_popcount(OPAQUE(0xf0f0f0f1u)), 17);
    CHECK_EQ(__builtin_clzll(OPAQUE(0x0000000100000000ull)), 31);
    CHECK_EQ(__builtin_ctzll(OPAQUE(0x0000000100000000ull)), 32);
    CHECK_EQ(__builtin_popcountll(OPAQUE(0xffffffffffffffffull)), 64);
    CHECK_EQ(__builtin_bswap32(OPAQUE(0x12345678u)), 0x78563412u);
    check_ok("arith", "bit helpers");
}

static void check_32bit_c(void)
{
    /* What C code relies on: arithmetic shift of negatives, wrap-around, comparisons. */
    CHECK_EQ((uint32_t)(OPAQUE(-256) >> 4), 0xfffffff0u);
    CHECK_EQ(OPAQUE(0x80000000u) >> 31, 1);
    CHECK_EQ(OPAQUE(0xffffffffu) + 2u, 1);
    CHECK(OPAQUE(-1) < OPAQUE(1));
    CHECK(OPAQUE(0xffffffffu) > OPAQUE(1u));
    CHECK_EQ((uint32_t)(OPAQUE(-7) / OPAQUE(2)), 0xfffffffdu);
    CHECK_EQ((uint32_t)(OPAQUE(-7) % OPAQUE(2)), 0xffffffffu);
    CHECK_EQ((uint32_t)(int8_t)OPAQUE(0x80u), 0xffffff80u);
    CHECK_EQ((uint32_t)(int16_t)OPAQUE(0x8000u), 0xffff8000u);
    check_ok("arith", "32-bit C semantics");
}

int main(void)
{
    con_puts("arith: start\n");
    check_m_extension();
    check_32bit_c();
    check_64bit_division();
    check_64bit_mul_shift();
    check_bit_helpers();
    con_puts("PASS arith\n");
    return 0;
}
