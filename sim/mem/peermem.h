/* peermem.h — another device's memory (think GPU) behind its own bus window.
 *
 * A window [base, base + size) of bus addresses, distinct from host memory,
 * backed sparsely (hostmem.h) where buffers were allocated, with its own DMA
 * timing (bus_ops_t.timing): the device's DMA reaches it through the bus map
 * (hca_dev_map_window) like host memory, at the peer's latency and bandwidth.
 * Its owner (the peer's driver, sim/peer/) allocates buffers in it and reads
 * and writes them directly, as a GPU driver copies to its own memory.
 */
#ifndef PEERMEM_H
#define PEERMEM_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Peer read latency when none is configured: a read crosses to another
 *  device and back (a PCIe peer-to-peer round trip, slower than host memory's
 *  bus_default_timing()). */
#define PEERMEM_DEFAULT_READ_LATENCY 400u

typedef struct peermem peermem_t;

/** A window of size bytes at base (both multiples of 4 KiB, no wrap) with
 *  timing t (bytes_per_cycle >= 1). 0, -EINVAL, -ENOMEM. */
int peermem_create(peermem_t **out, uint64_t base, uint64_t size, const bus_timing_t *t);
void peermem_destroy(peermem_t *p);
uint64_t peermem_base(const peermem_t *p);
uint64_t peermem_size(const peermem_t *p);
/** Back size bytes at a fresh address of the window aligned to align (a
 *  power of two >= 4096): zeroed. 0, -EINVAL, -ENOMEM (the window is full). */
int peermem_alloc(peermem_t *p, uint64_t size, uint64_t align, uint64_t *addr);
/** The owner's own access (not DMA: no device time). 0 or -EFAULT. */
int peermem_read(const peermem_t *p, uint64_t addr, void *buf, size_t len);
int peermem_write(peermem_t *p, uint64_t addr, const void *buf, size_t len);
/** 1 when [addr, addr + len) lies in the window. */
int peermem_holds(const peermem_t *p, uint64_t addr, uint64_t len);
/** The memory as a bus (its timing included). */
bus_t peermem_bus(peermem_t *p);

#ifdef __cplusplus
}
#endif
#endif /* PEERMEM_H */
