/* hcadrv_int.h — what the driver's files share (hcadrv.c, hcadrv_peer.c);
 * not part of the consumer API. */
#ifndef HCADRV_INT_H
#define HCADRV_INT_H

#include "hcadrv.h"

typedef struct drv_peer drv_peer_t;

/** The driver's peer state (NULL until a client registers). */
drv_peer_t **drv_peer_state(hcadrv_t *drv);
/** QUERY_DEVICE, cached. */
int drv_dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a);
/** CREATE_MKEY of a regular MR over npages pages of 2^page_shift bytes at the
 *  bus addresses pages[] (written to the driver's page-list buffer). */
int drv_reg_pages(hcadrv_t *drv, uint32_t pd, const uint64_t *pages, uint32_t npages, unsigned page_shift,
                  uint64_t iova, uint64_t length, uint32_t access, hcadrv_mr_t *mr);

/* hcadrv_peer.c */
/** reg_mr over a peer client's memory: -ENOENT when no client acquires the
 *  range (the caller registers host memory), else the registration's result. */
int drv_peer_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova, uint32_t access,
                    hcadrv_mr_t *mr);
/** dereg_mr of an MR with mr->peer set. */
int drv_peer_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr);
/** Free the peer state at close. */
void drv_peer_free(hcadrv_t *drv);

#endif /* HCADRV_INT_H */
