/* libc.c — the four memory functions GCC may call even in freestanding code
 * (struct copies and initialisers, ISO C 5.1.2.1 / GCC "-ffreestanding"
 * note). Built with -fno-builtin and -fno-tree-loop-distribute-patterns so
 * the loops below are not turned back into calls to themselves. */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if ((((uintptr_t)d | (uintptr_t)s) & 3) == 0) {
        for (; n >= 4; n -= 4, d += 4, s += 4)
            *(uint32_t *)d = *(const uint32_t *)s;
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d == s || n == 0)
        return dst;
    if (d < s) { /* forwards: every byte is read before it can be overwritten */
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    } else { /* backwards, for the same reason */
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    const uint32_t w = 0x01010101u * (unsigned char)c;
    while (n && ((uintptr_t)d & 3)) {
        *d++ = (unsigned char)c;
        n--;
    }
    for (; n >= 4; n -= 4, d += 4)
        *(uint32_t *)d = w;
    while (n--)
        *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}
