/* busmap.h — address windows: one bus (bus.h) over several memories.
 *
 * Each window [base, base + size) routes its accesses, with their absolute
 * addresses, to the memory mapped there (a peer device's memory, later a TLM
 * initiator); every address outside all windows goes to the fallback (host
 * memory). An access that straddles a window's edge is a bus error: it moves
 * nothing (-EFAULT), as a transfer split across two targets would be on a
 * real bus.
 */
#ifndef BUSMAP_H
#define BUSMAP_H

#include <stdint.h>

#include "bus.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Windows a map holds at most. */
#define BUSMAP_MAX_WINDOWS 16u

typedef struct busmap busmap_t;

/** 0, -EINVAL (fallback without ops), -ENOMEM. */
int busmap_create(busmap_t **out, bus_t fallback);
void busmap_destroy(busmap_t *m);
/** Route [base, base + size) to target. 0; -EINVAL (size 0, wraps 2^64, no
 *  ops); -EEXIST (overlaps a window); -ENOSPC (BUSMAP_MAX_WINDOWS mapped). */
int busmap_map(busmap_t *m, uint64_t base, uint64_t size, bus_t target);
/** Remove the window starting at base. 0 or -ENOENT. */
int busmap_unmap(busmap_t *m, uint64_t base);
/** The map as a bus. */
bus_t busmap_bus(busmap_t *m);

#ifdef __cplusplus
}
#endif
#endif /* BUSMAP_H */
