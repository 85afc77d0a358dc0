/* memory.c — what the loader and start-up promise about memory, and the
 * load/store paths firmware uses: initialised .data/.sdata/.rodata, zeroed
 * .bss/.sbss, byte/halfword/word accesses with sign and zero extension,
 * copy loops at every alignment, overlapping moves, the compiler's implicit
 * memcpy/memset (struct copies), and a CRC-32 over a buffer. */
#include <stddef.h>

#include "check.h"
#include "start.h"

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* Initialised data: big (.data), small (.sdata, gp-relative), constant (.rodata). */
static uint32_t table[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };
static int32_t small_signed = -5;
static uint16_t small_half = 0xbeef;
static char greeting[] = "hello, firmware";
static const uint32_t squares[6] = { 0, 1, 4, 9, 16, 25 };
/* Zero-initialised: big (.bss) and small (.sbss). */
static uint32_t big_bss[2048];
static uint8_t small_bss;
static uint32_t small_bss_word;

static void check_initialised(void)
{
    static const uint32_t fib[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };
    for (unsigned i = 0; i < 8; i++)
        CHECK_EQ(table[i], fib[i]);
    CHECK_EQ((uint32_t)small_signed, 0xfffffffbu);
    CHECK_EQ(small_half, 0xbeef);
    CHECK(memcmp(greeting, "hello, firmware", sizeof(greeting)) == 0);
    for (unsigned i = 0; i < 6; i++)
        CHECK_EQ(squares[OPAQUE(i)], i * i);
    /* Writable, and the write sticks. */
    table[3] = OPAQUE(33u);
    CHECK_EQ(table[3], 33);
    check_ok("memory", ".data/.sdata/.rodata initialised");
}

static void check_zeroed(void)
{
    for (unsigned i = 0; i < 2048; i++)
        CHECK_EQ(big_bss[i], 0);
    CHECK_EQ(small_bss, 0);
    CHECK_EQ(small_bss_word, 0);
    CHECK((uintptr_t)__bss_start <= (uintptr_t)big_bss && (uintptr_t)(big_bss + 2048) <= (uintptr_t)__bss_end);
    CHECK((uintptr_t)__bss_end <= (uintptr_t)__stack_limit);
    big_bss[2047] = 0xdeadbeef;
    small_bss = 7;
    CHECK_EQ(big_bss[2047], 0xdeadbeef);
    CHECK_EQ(small_bss, 7);
    check_ok("memory", ".bss/.sbss zeroed");
}

static void check_access_sizes(void)
{
    static uint32_t word = 0;
    volatile uint32_t *w = &word;
    volatile uint16_t *h = (volatile uint16_t *)&word;
    volatile uint8_t *b = (volatile uint8_t *)&word;
    volatile int16_t *sh = (volatile int16_t *)&word;
    volatile int8_t *sb = (volatile int8_t *)&word;
    *w = 0x80ff7f01u;
    CHECK_EQ(b[0], 0x01); /* little-endian */
    CHECK_EQ(b[3], 0x80);
    CHECK_EQ((uint32_t)(int32_t)sb[3], 0xffffff80u); /* lb sign-extends */
    CHECK_EQ((uint32_t)(int32_t)sb[2], 0xffffffffu);
    CHECK_EQ((uint32_t)b[2], 0xffu);                 /* lbu zero-extends */
    CHECK_EQ((uint32_t)(int32_t)sh[1], 0xffff80ffu); /* lh */
    CHECK_EQ((uint32_t)h[1], 0x80ffu);               /* lhu */
    CHECK_EQ((uint32_t)(int32_t)sh[0], 0x7f01u);
    b[1] = 0x12;
    CHECK_EQ(*w, 0x80ff1201u); /* sb touches one byte */
    h[1] = 0x3456;
    CHECK_EQ(*w, 0x34561201u); /* sh touches two */
    check_ok("memory", "byte/halfword/word loads and stores");
}

static uint8_t src_buf[1024], dst_buf[1040];

static void fill_pattern(uint8_t *p, unsigned n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (unsigned i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static void check_copies(void)
{
    fill_pattern(src_buf, sizeof(src_buf), 1);
    /* Word, halfword and byte copy loops, like a driver's descriptor copies. */
    const uint32_t *ws = (const uint32_t *)src_buf;
    uint32_t *wd = (uint32_t *)dst_buf;
    for (unsigned i = 0; i < 256; i++)
        wd[i] = ws[i];
    CHECK(memcmp(dst_buf, src_buf, 1024) == 0);
    memset(dst_buf, 0, sizeof(dst_buf));
    const uint16_t *hs = (const uint16_t *)src_buf;
    uint16_t *hd = (uint16_t *)dst_buf;
    for (unsigned i = 0; i < 512; i++)
        hd[i] = hs[i];
    CHECK(memcmp(dst_buf, src_buf, 1024) == 0);
    /* Every source/destination misalignment through memcpy. */
    for (unsigned so = 0; so < 4; so++)
        for (unsigned d = 0; d < 4; d++) {
            memset(dst_buf, 0xee, sizeof(dst_buf));
            memcpy(dst_buf + d, src_buf + so, 1001);
            CHECK(memcmp(dst_buf + d, src_buf + so, 1001) == 0);
            CHECK_EQ(dst_buf[d + 1001], 0xee); /* nothing past the end */
            if (d)
                CHECK_EQ(dst_buf[d - 1], 0xee); /* nor before the start */
        }
    /* memset at odd offsets and lengths. */
    memset(dst_buf + 3, 0x5a, 13);
    for (unsigned i = 3; i < 16; i++)
        CHECK_EQ(dst_buf[i], 0x5a);
    CHECK(dst_buf[16] != 0x5a || src_buf[13] == 0x5a);
    check_ok("memory", "copy loops at every alignment");

    /* Overlapping moves both ways. */
    for (unsigned i = 0; i < 64; i++)
        dst_buf[i] = (uint8_t)i;
    memmove(dst_buf + 5, dst_buf, 40); /* up */
    for (unsigned i = 0; i < 40; i++)
        CHECK_EQ(dst_buf[5 + i], i);
    for (unsigned i = 0; i < 64; i++)
        dst_buf[i] = (uint8_t)i;
    memmove(dst_buf, dst_buf + 7, 40); /* down */
    for (unsigned i = 0; i < 40; i++)
        CHECK_EQ(dst_buf[i], i + 7);
    check_ok("memory", "overlapping moves");
}

struct big {
    uint32_t w[40];
    uint8_t tail[3];
};

static struct big make_big(uint32_t seed)
{
    struct big b = { { 0 }, { 0 } }; /* the compiler may call memset here */
    for (unsigned i = 0; i < 40; i++)
        b.w[i] = seed + i;
    b.tail[2] = (uint8_t)seed;
    return b;
}

static void check_struct_copy(void)
{
    struct big a = make_big(OPAQUE(100u));
    struct big c = a; /* and memcpy here */
    CHECK_EQ(c.w[0], 100);
    CHECK_EQ(c.w[39], 139);
    CHECK_EQ(c.tail[2], 100);
    CHECK(memcmp(&a, &c, sizeof(a)) == 0);
    check_ok("memory", "struct copies");
}

static uint32_t crc32(const uint8_t *p, unsigned n)
{
    uint32_t crc = 0xffffffffu;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static void check_crc(void)
{
    CHECK_EQ(crc32((const uint8_t *)"123456789", 9), 0xcbf43926u); /* the CRC-32 check value */
    check_ok("memory", "crc32");
}

int main(void)
{
    con_puts("memory: start\n");
    check_initialised();
    check_zeroed();
    check_access_sizes();
    check_copies();
    check_struct_copy();
    check_crc();
    con_puts("PASS memory\n");
    return 0;
}
