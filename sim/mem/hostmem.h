/* hostmem.h — sparse, bus-addressed host memory (a bus.h memory).
 *
 * Memory is backed in 4 KiB pages only where it was mapped; any access that
 * touches an unbacked byte is a bus error (-EFAULT) and transfers nothing,
 * so the device can report it (SEMANTICS.md: LOC_ACCESS_ERR) instead of
 * crashing. Allocation hands out bus addresses from 4 GiB up, so a driver
 * that truncates an address to 32 bits fails loudly.
 */
#ifndef HOSTMEM_H
#define HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HOSTMEM_PAGE_SHIFT 12u
#define HOSTMEM_PAGE_SIZE (1u << HOSTMEM_PAGE_SHIFT)
/** First bus address hostmem_alloc() hands out. */
#define HOSTMEM_ALLOC_BASE 0x100000000ull

typedef struct hostmem hostmem_t;

/** 0 or -ENOMEM. */
int hostmem_create(hostmem_t **out);
void hostmem_destroy(hostmem_t *m);

/** Back [addr, addr+len) with zeroed memory (whole pages). 0, -EINVAL (wraps 2^64), -ENOMEM. */
int hostmem_map(hostmem_t *m, uint64_t addr, uint64_t len);
/** Drop the pages of [addr, addr+len); later accesses there are bus errors. */
int hostmem_unmap(hostmem_t *m, uint64_t addr, uint64_t len);
/** Map size bytes at a fresh bus address aligned to align (a power of two, >= 1). */
int hostmem_alloc(hostmem_t *m, uint64_t size, uint64_t align, uint64_t *addr);
/** 1 when every byte of [addr, addr+len) is backed. */
int hostmem_backed(const hostmem_t *m, uint64_t addr, uint64_t len);

/** Copy out / in. 0, or -EFAULT when any byte is unbacked (nothing transferred). */
int hostmem_read(const hostmem_t *m, uint64_t addr, void *buf, size_t len);
int hostmem_write(hostmem_t *m, uint64_t addr, const void *buf, size_t len);

/** The memory as a bus (bus.h): reads and writes as hostmem_read/hostmem_write. */
bus_t hostmem_bus(hostmem_t *m);

#ifdef __cplusplus
}
#endif
#endif /* HOSTMEM_H */
