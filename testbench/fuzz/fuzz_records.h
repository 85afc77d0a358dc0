/* fuzz_records.h — the input format the socket-protocol harnesses share
 * (fuzz_wire.c, fuzz_client.c): records of mode (1 byte), length (2,
 * little-endian), that many bytes, each one message as sent; mode bit 0
 * frames it (the header's len made the message's size, version 1). */
#ifndef FUZZ_RECORDS_H
#define FUZZ_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/** Print "fuzz WHO: ..." and abort (a finding). */
void fuzz_fail(const char *who, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/** The next non-empty record of data[*at..size) into m (at most max bytes,
 *  framed when its mode says so): its length, 0 at the end; *mode its mode. */
size_t fuzz_record_next(const uint8_t *data, size_t size, size_t *at, uint8_t *m, size_t max, uint8_t *mode);

/** Append a framed record of one message (type, seq, payload p of n bytes) to out: bytes written. */
size_t fuzz_record_put(uint8_t *out, uint8_t mode, unsigned type, uint32_t seq, const void *p, size_t n);

/** Write n bytes to DIR/NAME, or fail. */
void fuzz_write_seed(const char *who, const char *dir, const char *name, const uint8_t *b, size_t n);

#endif /* FUZZ_RECORDS_H */
