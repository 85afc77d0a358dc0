/* fuzz_records.c — see fuzz_records.h. */
#include "fuzz_records.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_wire.h"

void fuzz_fail(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz %s: ", who);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

size_t fuzz_record_next(const uint8_t *data, size_t size, size_t *at, uint8_t *m, size_t max, uint8_t *mode)
{
    while (size - *at >= 3) {
        size_t n = (size_t)data[*at + 1] | (size_t)data[*at + 2] << 8;
        *mode = data[*at];
        *at += 3;
        if (n > max)
            n = max;
        if (n > size - *at)
            n = size - *at;
        memcpy(m, data + *at, n);
        *at += n;
        if (!n)
            continue; /* an empty SOCK_SEQPACKET message reads as the end of the connection */
        hca_wire_hdr_t h;
        if ((*mode & 1) && n >= sizeof h) {
            memcpy(&h, m, sizeof h);
            h.len = (uint32_t)n;
            h.version = HCA_WIRE_VERSION;
            memcpy(m, &h, sizeof h);
        }
        return n;
    }
    return 0;
}

size_t fuzz_record_put(uint8_t *out, uint8_t mode, unsigned type, uint32_t seq, const void *p, size_t n)
{
    hca_wire_hdr_t h = {(uint32_t)(sizeof h + n), HCA_WIRE_VERSION, (uint16_t)type, seq, 0};
    const uint16_t len = (uint16_t)(sizeof h + n);
    out[0] = mode;
    memcpy(out + 1, &len, 2);
    memcpy(out + 3, &h, sizeof h);
    if (n)
        memcpy(out + 3 + sizeof h, p, n);
    return 3 + sizeof h + n;
}

void fuzz_write_seed(const char *who, const char *dir, const char *name, const uint8_t *b, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f))
        fuzz_fail(who, "cannot write seed %s", path);
}
