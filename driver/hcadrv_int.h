/* hcadrv_int.h — what the driver's files share; not part of the consumer API.
 *
 * The driver, one file a job (docs/architecture.md, "the reference driver"):
 *   hcadrv_cmd.c    the HCR mailbox: posting a command, waiting, its status
 *   hcadrv_dev.c    open, close, QUERY_DEVICE (cached)
 *   hcadrv_mr.c     PDs and memory keys: reg_mr, alloc_mr, dereg_mr, DMA MR
 *   hcadrv_list.c   fast-reg page lists and KLM lists, owned while posted
 *   hcadrv_queue.c  CQ and QP lifecycle (the driver's copy of their indices)
 *   hcadrv_post.c   posting send and receive WRs, ringing doorbells
 *   hcadrv_poll.c   polling CQs, retiring the WQEs their CQEs complete
 *   hcadrv_peer.c   the peer memory broker (hcadrv_peer.h)
 */
#ifndef HCADRV_INT_H
#define HCADRV_INT_H

#include <stddef.h>

#include "hcadrv.h"

/* Device-visible memory is allocated in pages of this size. */
#define DRV_PAGE_SIZE (1u << HCA_PAGE_SHIFT_MIN)
/* Bytes of the page-list buffer: HCA_MAX_REG_PAGES u64 page addresses. */
#define PAGE_LIST_BYTES (HCA_MAX_REG_PAGES * 8u)
/* Bytes of one ring entry. */
#define CQE_BYTES ((uint64_t)sizeof(hca_cqe_t))
#define SQ_WQE_BYTES ((uint64_t)sizeof(hca_sq_wqe_t))
#define RQ_WQE_BYTES ((uint64_t)sizeof(hca_rq_wqe_t))
/* Indices in doorbells and cqe.wqe_counter are 16 bits wide. */
#define INDEX_MASK 0xffffu

typedef struct drv_peer drv_peer_t;

/* A CQ as the driver tracks it (index = CQ number). */
typedef struct drv_cq {
    int used;
    uint64_t base, bytes;
    unsigned log_depth;
    uint32_t ci;
    int overflowed; /* the device reported a dropped CQE: the CQ is broken */
} drv_cq_t;

/* A QP as the driver tracks it (index = QP number). */
typedef struct drv_qp {
    int used, connected;
    uint64_t sq_base, rq_base, sq_bytes, rq_bytes;
    unsigned sq_log, rq_log;
    uint32_t sq_pi, rq_pi, sq_done, rq_done;
    uint32_t send_cqn, recv_cqn;
} drv_qp_t;

/* A registration list as the driver tracks it (index = handle - 1): a
 * fast-reg page list (u64 entries) or a KLM list (hca_sge_t entries). */
typedef struct drv_pl {
    int used;
    uint64_t bus, bytes;
    uint32_t len;
    uint32_t entry;    /* bytes per entry: 8 page list, sizeof(hca_sge_t) KLM list */
    int owned;         /* a posted FAST_REG_MR names it ... */
    uint32_t qpn;      /* ... on this QP's send queue ... */
    uint32_t sq_index; /* ... at this (free-running) SQ index */
} drv_pl_t;

/* One command waiting for its answer (they nest: hcadrv_cmd). */
typedef struct cmd_frame {
    uint64_t t0, cycles;
    unsigned status;
    uint32_t imm;
    int done;
} cmd_frame_t;

struct hcadrv {
    hca_host_t host; /* the only way to the device */
    cmd_frame_t cmd_frames[HCADRV_CMD_NEST_MAX];
    unsigned cmd_depth;
    drv_peer_t *peer; /* peer memory clients and their MRs (hcadrv_peer.c) */
    uint64_t mbox_in, mbox_out; /* one page each */
    uint64_t page_list;         /* PAGE_LIST_BYTES */
    unsigned last_status;
    uint64_t last_cycles;
    drv_cq_t cqs[HCA_MAX_CQ];
    drv_qp_t qps[HCA_MAX_QP];
    drv_pl_t *pls; /* page and KLM lists, grown on demand */
    uint32_t npls;
    hcadrv_device_attr_t attr; /* QUERY_DEVICE, cached on first use */
    int attr_valid;
};

/* ---------------------------------------------------------------- the host boundary */

/* The driver's only ways to the device (hca_host.h). */
static inline int mmio_rd(hcadrv_t *drv, uint32_t off, uint32_t *val) { return drv->host.ops->mmio_read(drv->host.ctx, off, val); }
static inline int mmio_wr(hcadrv_t *drv, uint32_t off, uint32_t val) { return drv->host.ops->mmio_write(drv->host.ctx, off, val); }
static inline int mem_rd(hcadrv_t *drv, uint64_t addr, void *buf, size_t len)
{
    return drv->host.ops->mem_read(drv->host.ctx, addr, buf, len);
}
static inline int mem_wr(hcadrv_t *drv, uint64_t addr, const void *buf, size_t len)
{
    return drv->host.ops->mem_write(drv->host.ctx, addr, buf, len);
}
static inline int mem_alloc(hcadrv_t *drv, uint64_t size, uint64_t align, uint64_t *addr)
{
    return drv->host.ops->mem_alloc(drv->host.ctx, size, align, addr);
}
static inline int mem_free(hcadrv_t *drv, uint64_t addr, uint64_t size) { return drv->host.ops->mem_free(drv->host.ctx, addr, size); }
static inline uint64_t now(hcadrv_t *drv) { return drv->host.ops->now(drv->host.ctx); }

static inline int doorbell(hcadrv_t *drv, uint32_t reg, uint32_t val)
{
    return mmio_wr(drv, HCA_HOST_DB_OFFSET + reg, val);
}

/* ---------------------------------------------------------------- across the files */

/* hcadrv_cmd.c */
/** A command whose input is len bytes at in, through the in mailbox. */
int drv_cmd_in(hcadrv_t *drv, unsigned op, const void *in, size_t len, uint32_t *out_imm);
/** A command (input modifier in_mod) that answers len bytes into out, through
 *  the out mailbox (so never a nested one: hcadrv_cmd). */
int drv_cmd_out(hcadrv_t *drv, unsigned op, uint32_t in_mod, void *out, size_t len);
/** The errno of a destroy / modify of an object the device does not hold:
 *  -EINVAL, not BAD_INDEX's -ENOENT (hcadrv.h). */
int drv_destroy_errno(int rc);

/* hcadrv_dev.c */
/** QUERY_DEVICE, cached. */
int drv_dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a);

/* hcadrv_mr.c */
/** CREATE_MKEY of a regular MR over npages pages of 2^page_shift bytes at the
 *  bus addresses pages[] (written to the driver's page-list buffer). */
int drv_reg_pages(hcadrv_t *drv, uint32_t pd, const uint64_t *pages, uint32_t npages, unsigned page_shift,
                  uint64_t iova, uint64_t length, uint32_t access, hcadrv_mr_t *mr);

/* hcadrv_list.c */
/** The driver's page list behind a consumer's (NULL: not one of this driver's). */
drv_pl_t *drv_pl_of(hcadrv_t *drv, const hcadrv_page_list_t *pl);
/** The driver's KLM list behind a consumer's (NULL: not one of this driver's). */
drv_pl_t *drv_klm_of(hcadrv_t *drv, const hcadrv_indir_reg_list_t *l);
/** Whether a posted, not yet completed WR still owns the list. */
int drv_pl_owned(hcadrv_t *drv, drv_pl_t *p);
/** The QP's WRs are gone: end their hold on lists. */
void drv_release_lists(hcadrv_t *drv, uint32_t qpn);

/* hcadrv_queue.c */
/** The driver's CQ / QP of that number, NULL when it holds none. */
drv_cq_t *drv_cq_of(hcadrv_t *drv, uint32_t cqn);
drv_qp_t *drv_qp_of(hcadrv_t *drv, uint32_t qpn);
/** Refresh a caller's view of a QP from the driver's copy. */
void drv_qp_view(const drv_qp_t *s, hcadrv_qp_t *qp);

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
