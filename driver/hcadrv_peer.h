/* hcadrv_peer.h — peer memory (Peer-Direct, seed 003): MRs over another
 * device's memory, e.g. a GPU's, brokered by the driver.
 *
 * A peer memory client (the GPU's driver) registers its callbacks, as the
 * seed's struct peer_memory_client: acquire (is this range yours?), get_pages
 * (pin), dma_map (the pages' bus addresses for the HCA, in the client's page
 * size), dma_unmap, put_pages (unpin), get_page_size and release; and says
 * whether it requires invalidation. Registration hands back the invalidate
 * callback. hcadrv_reg_mr() asks the clients whether the range is theirs;
 * the owner's pages are pinned and mapped and the MR's MTT points into the
 * peer's bus window.
 *
 * The invalidate callback (the peer revokes pages at any moment) returns only
 * when the device can no longer touch them: the MR is invalidated and fenced
 * (INVALIDATE_MKEY: MR -> FREE, in-flight DMA drained or failed), then the
 * pages are unmapped and put. Whichever comes first of invalidation and
 * hcadrv_dereg_mr(), the pages are unmapped and put exactly once; the MR can
 * still (must still) be deregistered; a callback arriving while the MR is
 * being deregistered (or a dereg while its invalidation runs — both from
 * inside the driver's wait for the device) waits for the other's command and
 * keeps the guarantee. A client unregisters only when none of its MRs is left
 * (-EBUSY otherwise).
 *
 * Counters per client (the seed's sysfs tree memory_peers/<name>/): pages
 * and bytes in the client's page size.
 */
#ifndef HCADRV_PEER_H
#define HCADRV_PEER_H

#include <stdint.h>

#include "hcadrv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCADRV_PEER_NAME_MAX 64u
#define HCADRV_PEER_VERSION_MAX 16u
/** Clients one driver holds. */
#define HCADRV_PEER_CLIENTS_MAX 16u

typedef struct hcadrv_peer_client_ops {
    /** 1 when [addr, addr+size) is this client's memory (then *client_context
     *  is the registration's context), 0 when not, or a negative errno. */
    int (*acquire)(void *peer, uint64_t addr, uint64_t size, void **client_context);
    /** Pin the pages of the range acquired; core_context is the ticket the
     *  client passes to the invalidate callback for this registration. */
    int (*get_pages)(void *client_context, uint64_t addr, uint64_t size, int write, uint64_t core_context);
    /** The pinned pages' bus addresses as the HCA reaches them, one per page
     *  of get_page_size() from the page holding addr: *npages of at most max. */
    int (*dma_map)(void *client_context, uint64_t *pages, uint32_t max, uint32_t *npages);
    int (*dma_unmap)(void *client_context);
    void (*put_pages)(void *client_context);
    /** A power of two, 4 KiB .. 1 GiB. */
    uint64_t (*get_page_size)(void *client_context);
    void (*release)(void *client_context);
} hcadrv_peer_client_ops_t;

typedef struct hcadrv_peer_client {
    char name[HCADRV_PEER_NAME_MAX];
    char version[HCADRV_PEER_VERSION_MAX];
    const hcadrv_peer_client_ops_t *ops;
    void *peer; /**< the client's own context, given to acquire */
    int requires_invalidation;
} hcadrv_peer_client_t;

/** The invalidate callback a client gets at registration (the seed's
 *  invalidate_peer_memory): reg_handle is the registration's handle,
 *  core_context the ticket get_pages received. 0 once the device can no
 *  longer touch those pages (also when the MR was already gone). */
typedef int (*hcadrv_peer_invalidate_t)(void *reg_handle, uint64_t core_context);

typedef struct hcadrv_peer_stats {
    uint64_t num_alloc_mrs, num_dealloc_mrs;
    uint64_t num_reg_pages, num_dereg_pages;
    uint64_t num_reg_bytes, num_dereg_bytes;
    uint64_t num_free_callbacks;
} hcadrv_peer_stats_t;

/** Register a client (copied; its ops and peer are borrowed). *reg_handle
 *  and *invalidate (may be NULL when the client requires no invalidation)
 *  are what the client keeps. 0, -EINVAL, -ENOSPC (HCADRV_PEER_CLIENTS_MAX),
 *  -EEXIST (the name is taken), -ENOMEM. */
int hcadrv_peer_register(hcadrv_t *drv, const hcadrv_peer_client_t *client, void **reg_handle,
                         hcadrv_peer_invalidate_t *invalidate);
/** 0; -EBUSY while an MR over the client's memory lives (nothing changes);
 *  -EINVAL for an unknown handle. */
int hcadrv_peer_unregister(hcadrv_t *drv, void *reg_handle);
/** The client's counters. 0 or -EINVAL. */
int hcadrv_peer_get_stats(hcadrv_t *drv, const void *reg_handle, hcadrv_peer_stats_t *st);
/** The client's registration record (name, version, requires_invalidation). */
const hcadrv_peer_client_t *hcadrv_peer_client_of(const void *reg_handle);

/* ---------------------------------------------------------------- a client over a window of bus addresses
 *
 * The client the project ships, in two uses: the simulated GPU (the window is
 * the peer device's memory behind its bus window, sim/mem/peermem.h) and the
 * seed's sample over host memory (the window is host memory). It owns every
 * range inside its window; pages are the window's own bus addresses (a GPU's
 * memory is mapped one to one in its BAR). It keeps its registrations, so the
 * memory's owner can revoke a range: every registration touching it is
 * invalidated through the driver's callback.
 */
typedef struct hcadrv_peer_window hcadrv_peer_window_t;

/** A client named name over [base, base+size), pages of page_size, registered
 *  with drv. 0, -EINVAL (page size not a power of two in 4 KiB..1 GiB, base
 *  not aligned to it), hcadrv_peer_register's errors. */
int hcadrv_peer_window_create(hcadrv_peer_window_t **out, hcadrv_t *drv, const char *name, uint64_t base,
                              uint64_t size, uint64_t page_size, int requires_invalidation);
/** Unregister (-EBUSY while an MR over it lives: nothing freed) and free. */
int hcadrv_peer_window_destroy(hcadrv_peer_window_t *w);
/** Free without unregistering: after hcadrv_close() of its driver. */
void hcadrv_peer_window_free(hcadrv_peer_window_t *w);
/** The owner takes [addr, addr+len) back: every registration touching it is
 *  invalidated; returns when every callback has returned (0), or the first
 *  callback's error. *ncallbacks (may be NULL) counts them. -EOPNOTSUPP for
 *  a client that requires no invalidation (it never revokes). */
int hcadrv_peer_window_revoke(hcadrv_peer_window_t *w, uint64_t addr, uint64_t len, unsigned *ncallbacks);
/** Pinned registrations the client holds now. */
unsigned hcadrv_peer_window_pinned(const hcadrv_peer_window_t *w);
void *hcadrv_peer_window_handle(const hcadrv_peer_window_t *w);

#ifdef __cplusplus
}
#endif
#endif /* HCADRV_PEER_H */
