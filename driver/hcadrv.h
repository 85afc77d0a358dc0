/* hcadrv.h — the host reference driver: the consumer API of the device.
 *
 * It reaches the device only through its host boundary (hca_host.h): BAR0
 * registers, device-visible memory and waiting, as a kernel driver would:
 * commands go through the HCR mailbox with their arguments in host-memory
 * mailboxes. Calls that wait (for the mailbox) let device time pass through
 * the host's wait; they never wait forever.
 *
 * Every function returns 0 or a negative errno: -EINVAL for a bad argument
 * caught before the device is asked, the device's answer mapped otherwise
 * (BAD_PARAM -EINVAL, NO_RESOURCES -ENOMEM, BUSY -EBUSY, BAD_INDEX -ENOENT,
 * DMA_ERR -EFAULT, BAD_OP -EOPNOTSUPP, INTERNAL -EIO), -ETIMEDOUT when the
 * firmware did not answer — except that destroying or modifying an object the
 * device does not hold (dealloc_pd, destroy_cq, destroy_qp, modify_qp: gone
 * already, or never created) is -EINVAL (SEMANTICS.md), not -ENOENT.
 * hcadrv_last_status() has the raw cmd_status.
 */
#ifndef HCADRV_H
#define HCADRV_H

#include <stdint.h>

#include "hca_abi.h"
#include "hca_host.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hcadrv hcadrv_t;

/** Device attributes (QUERY_DEVICE). */
typedef struct hcadrv_device_attr {
    uint32_t fw_version;
    uint32_t caps; /**< HCA_DEV_CAP_* */
    int mem_mgt_extensions, reserved_lkey_valid, read_with_inv, indir_reg, peer_memory;
    uint32_t reserved_lkey;
    uint32_t max_fast_reg_page_list_len;
    uint32_t max_indir_reg_list_len;
    uint32_t max_indirection;
    uint32_t page_shifts; /**< bit s: pages of 2^s bytes supported */
    uint32_t max_mr, max_mtt, max_pd, max_reg_pages;
    /** Queues (0 without a WQE engine): QP and CQ numbers 1..max_qp / 1..max_cq,
     *  queue depths up to max_qp_wr / max_cqe, SGEs per WR. */
    uint32_t max_qp, max_cq, max_qp_wr, max_cqe, max_send_sge, max_recv_sge;
} hcadrv_device_attr_t;

/** Cycles a mailbox command may take before -ETIMEDOUT. */
#define HCADRV_CMD_TIMEOUT_CYCLES 5000000ull

/** Open the device behind host (copied; its context is borrowed). 0,
 *  -EINVAL, -ENOMEM (device-visible memory for the mailboxes). */
int hcadrv_open(hcadrv_t **out, const hca_host_t *host);
void hcadrv_close(hcadrv_t *drv);
/** Let every command waiting for its answer finish (their callers find
 *  their answers kept). 0 or -ETIMEDOUT. */
int hcadrv_cmd_settle(hcadrv_t *drv);
/** cmd_status of the last mailbox command. */
unsigned hcadrv_last_status(const hcadrv_t *drv);
/** Device cycles the last mailbox command took, post to answer. */
uint64_t hcadrv_last_cmd_cycles(const hcadrv_t *drv);

/** Commands waiting for their answers at once: one, and one nested in its
 *  wait (hcadrv_cmd). */
#define HCADRV_CMD_NEST_MAX 2u

/** One raw mailbox command (for tests and tools). A command issued while
 *  another waits for its answer (from inside the host's wait: a peer's
 *  invalidate callback) lets that one finish first and keeps its answer;
 *  -EBUSY beyond HCADRV_CMD_NEST_MAX. */
int hcadrv_cmd(hcadrv_t *drv, unsigned op, uint64_t in_param, uint64_t out_param, uint32_t in_mod,
               uint32_t *out_imm);

int hcadrv_query_device(hcadrv_t *drv, hcadrv_device_attr_t *attr);
int hcadrv_alloc_pd(hcadrv_t *drv, uint32_t *pd);
/** -EBUSY while an MR or a QP uses it; -EINVAL when not allocated (twice). */
int hcadrv_dealloc_pd(hcadrv_t *drv, uint32_t pd);

/** A memory region as the driver holds it. */
typedef struct hcadrv_mr {
    uint32_t lkey, rkey; /**< rkey = lkey when a remote right is granted, else 0 */
    uint32_t pd;
    unsigned kind; /**< enum hca_mkey_kind */
    uint32_t access;
    uint64_t iova, length;
    uint32_t max_list_len; /**< fast_reg / indirect */
    uint32_t peer;         /**< nonzero: over a peer client's memory (the driver's registration, hcadrv_peer.h) */
} hcadrv_mr_t;

/** Register length bytes of host memory at bus address addr, as iova, with
 *  pages of 2^page_shift bytes (the page list is built here and handed to the
 *  firmware by DMA). When a registered peer client acquires [addr,
 *  addr+length) the MR is over that peer's memory instead (hcadrv_peer.h):
 *  pinned and mapped by the client in its page size (page_shift is then the
 *  client's), -EOPNOTSUPP when the client requires invalidation and the
 *  device has none (no PEER_MEMORY capability). */
int hcadrv_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova,
                  uint32_t access, unsigned page_shift, hcadrv_mr_t *mr);
/** Allocate a fast-reg (kind FAST_REG) or indirect MR: FREE until registered by a work request. */
int hcadrv_alloc_mr(hcadrv_t *drv, uint32_t pd, unsigned kind, uint32_t max_list_len, hcadrv_mr_t *mr);
/** Invalidate-and-fence, then free the MR's slot. A DMA MR that is the
 *  device's reserved L_Key (from hcadrv_get_dma_mr) has no slot: its dereg is
 *  a no-op that returns 0 without a mailbox command. */
int hcadrv_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr);

/** An MR whose L_Key works with bus addresses directly (no translation, no
 *  range check), local read and write, no R_Key (rkey 0), kind DMA
 *  (SEMANTICS.md "Reserved L_Key and DMA MRs"). When the device reports a
 *  reserved L_Key (QUERY_DEVICE, cached on first use) it is that key, valid in
 *  every PD, and no mailbox command is issued (pd is recorded in mr->pd, not
 *  checked); otherwise a CREATE_MKEY of kind DMA in pd, errors as the
 *  command's (-ENOENT unknown pd, -ENOMEM no slot). -EINVAL for NULL
 *  arguments; QUERY_DEVICE's error when the attributes cannot be read. Release
 *  it with hcadrv_dereg_mr. */
int hcadrv_get_dma_mr(hcadrv_t *drv, uint32_t pd, hcadrv_mr_t *mr);

/** Change the key byte (the low 8 bits) of the driver's copy of a fast-reg
 *  MR's L_Key and R_Key to newkey; the 24-bit index is kept. Only the copy
 *  changes: the device's MR keeps its key until a FAST_REG_MR work request
 *  carrying the new key (fr_key = mr->lkey) succeeds. As the seed's
 *  ib_update_fast_reg_key: both keys, unconditionally, no device access, no
 *  error. */
static inline void hcadrv_update_fast_reg_key(hcadrv_mr_t *mr, uint8_t newkey)
{
    mr->lkey = (mr->lkey & 0xffffff00u) | newkey;
    mr->rkey = (mr->rkey & 0xffffff00u) | newkey;
}

/** A fast-registration page list: an array of u64 page bus addresses in
 *  device-readable host memory. The driver view is hcadrv_page_list_set
 *  (there is no CPU pointer into simulated host memory: entries are written
 *  through to the array, which the device reads by DMA). Owned by the driver
 *  from the post of a FAST_REG_MR work request naming it (wr.page_list) until
 *  that WR completes, i.e. until the QP's sq_done passes its SQ index (a CQE
 *  of it or of a later WR on that send queue was polled), or its QP is
 *  destroyed; while owned it cannot be changed, posted again or freed
 *  (-EBUSY). The struct is a handle: it may be copied, the driver holds the
 *  state. */
typedef struct hcadrv_page_list {
    hcadrv_t *drv;
    uint64_t bus_addr;          /**< bus address of entry 0 (what the WQE's fr_list carries), page aligned */
    uint32_t max_page_list_len; /**< entries the array holds (>= the len asked for) */
    uint32_t handle;            /**< the driver's, nonzero while allocated */
} hcadrv_page_list_t;

/** Allocate a page list of at least len entries, len 1..max_fast_reg_page_list_len
 *  of QUERY_DEVICE (cached on first use). The array is zeroed; its actual
 *  length, len rounded up to a multiple of 8 (one 64-byte line) and at most
 *  the device's maximum, is returned in pl->max_page_list_len. 0; -EINVAL
 *  (NULL argument, len 0 or above the device maximum); -ENOMEM (host
 *  memory); QUERY_DEVICE's error when the attributes cannot be read. */
int hcadrv_alloc_fast_reg_page_list(hcadrv_t *drv, uint32_t len, hcadrv_page_list_t *pl);
/** Free a page list's memory and handle. -EBUSY while a posted FAST_REG_MR
 *  WR that names it is outstanding (nothing freed); -EINVAL for an unknown or
 *  already freed handle. On success pl->handle becomes 0. */
int hcadrv_free_fast_reg_page_list(hcadrv_t *drv, hcadrv_page_list_t *pl);
/** Set entry i (0..max_page_list_len-1) to the bus address addr of a page.
 *  Written to host memory at once (no device time passes). -EINVAL (unknown
 *  handle, i out of range), -EBUSY (owned by an outstanding FAST_REG_MR WR),
 *  -EFAULT (host memory refused the write). */
int hcadrv_page_list_set(hcadrv_page_list_t *pl, uint32_t i, uint64_t addr);
/** An indirect-registration (KLM) list: an array of hca_sge_t {addr, length,
 *  lkey} entries, byte-aligned, in device-readable host memory (the seed's
 *  ib_indir_reg_list). Entries are written through with
 *  hcadrv_indir_reg_list_set. Owned by the driver from the post of a
 *  REG_INDIR_MR work request naming it (wr.indir_list) until that WR
 *  completes, as a page list is. A handle, copyable. */
typedef struct hcadrv_indir_reg_list {
    hcadrv_t *drv;
    uint64_t bus_addr;           /**< bus address of entry 0 (what the WQE's fr_list carries) */
    uint32_t max_indir_list_len; /**< entries the array holds (= the len asked for) */
    uint32_t handle;             /**< the driver's, nonzero while allocated */
} hcadrv_indir_reg_list_t;

/** Allocate a KLM list of len entries, len 1..max_indir_reg_list_len of
 *  QUERY_DEVICE (cached on first use), zeroed. 0; -EINVAL (NULL argument, len
 *  0 or above the device maximum); -ENOMEM; QUERY_DEVICE's error. */
int hcadrv_alloc_indir_reg_list(hcadrv_t *drv, uint32_t len, hcadrv_indir_reg_list_t *l);
/** Free it. -EBUSY while a posted REG_INDIR_MR WR naming it is outstanding;
 *  -EINVAL for an unknown or freed handle. On success l->handle becomes 0. */
int hcadrv_free_indir_reg_list(hcadrv_t *drv, hcadrv_indir_reg_list_t *l);
/** Set entry i (0..max_indir_list_len-1). Written to host memory at once.
 *  -EINVAL (unknown handle, i out of range, e NULL), -EBUSY (owned by an
 *  outstanding WR), -EFAULT (host memory refused the write). */
int hcadrv_indir_reg_list_set(hcadrv_indir_reg_list_t *l, uint32_t i, const hca_sge_t *e);

/** Debug read of the device's MPT entry for an index. */
int hcadrv_query_mkey(hcadrv_t *drv, uint32_t index, hca_mpt_entry_t *entry);

/* ---------------------------------------------------------------- queues and work requests
 * (docs/engine.md). The rings live in host memory the driver allocates; the
 * device reads WQEs and writes CQEs there by DMA. */

/** A completion queue as the driver holds it. */
typedef struct hcadrv_cq {
    uint32_t cqn;
    uint64_t base;      /**< bus address of the CQE ring */
    unsigned log_depth; /**< 2^log_depth CQEs */
    uint32_t ci;        /**< consumer index (free-running) */
} hcadrv_cq_t;

/** Create a CQ of at least depth entries (rounded up to a power of two, at most 2^QUEUE_LOG_MAX). */
int hcadrv_create_cq(hcadrv_t *drv, uint32_t depth, hcadrv_cq_t *cq);
/** -EBUSY while a QP uses it (nothing changed); -EINVAL when not a CQ (twice). */
int hcadrv_destroy_cq(hcadrv_t *drv, hcadrv_cq_t *cq);

typedef struct hcadrv_qp_attr {
    uint32_t pd;
    hcadrv_cq_t *send_cq, *recv_cq;
    uint32_t sq_depth, rq_depth; /**< rounded up to powers of two */
    unsigned rnr_retry;          /**< 0..7, 7 = forever */
    uint32_t rnr_timer;          /**< cycles between RNR retries */
    uint32_t mtu;                /**< 256..4096, a power of two; 0: MTU_DEFAULT */
} hcadrv_qp_attr_t;

/** A QP as the driver holds it. The driver keeps the authoritative indices
 *  itself (by QP number), so this struct may be copied or moved; its indices
 *  and `connected` are refreshed by every call that takes it. */
typedef struct hcadrv_qp {
    uint32_t qpn;
    uint32_t pd;
    uint64_t sq_base, rq_base;
    unsigned sq_log, rq_log;
    uint32_t sq_pi, rq_pi;     /**< producer indices (free-running) */
    uint32_t sq_done, rq_done; /**< indices up to which the device has completed WQEs */
    int connected;
    uint32_t send_cqn, recv_cqn;
} hcadrv_qp_t;

/** Create a QP (state RESET). -ENOMEM when the device holds max_qp already. */
int hcadrv_create_qp(hcadrv_t *drv, const hcadrv_qp_attr_t *attr, hcadrv_qp_t *qp);
/** Connect a and b over the device's loopback link: both go to RTS, each the
 *  other's peer, with fresh indices (a may be b). Only QPs in RESET connect
 *  (fresh from create_qp, or hcadrv_modify_qp RESET; -EINVAL otherwise).
 *  Receives can be posted only after. */
int hcadrv_connect(hcadrv_t *drv, hcadrv_qp_t *a, hcadrv_qp_t *b);
/** Destroy a QP: returns only when no DMA of it can still reach memory; its
 *  outstanding WRs are never completed; the number may be reused by a later
 *  create_qp. -EINVAL for a QP the driver does not hold (destroyed twice). */
int hcadrv_destroy_qp(hcadrv_t *drv, hcadrv_qp_t *qp);
/** Move a QP to HCA_QP_STATE_RESET (queues emptied without completions,
 *  fenced as destroy is; the driver's indices restart at 0 and posts are
 *  refused, -ENOTCONN, until hcadrv_connect) or HCA_QP_STATE_ERROR (every
 *  outstanding and later WR completes WR_FLUSH_ERR). -EINVAL for another
 *  state or an unknown QP. */
int hcadrv_modify_qp(hcadrv_t *drv, hcadrv_qp_t *qp, unsigned state);
/** The QP's state as the device holds it (enum hca_qp_state). */
int hcadrv_query_qp(hcadrv_t *drv, const hcadrv_qp_t *qp, unsigned *state);

/** A send work request. Fields beyond the opcode's are ignored. */
typedef struct hcadrv_send_wr {
    uint64_t wr_id;
    unsigned opcode; /**< enum hca_wr_opcode */
    unsigned flags;  /**< HCA_SEND_FLAGS_* */
    unsigned num_sge;
    hca_sge_t sge[HCA_MAX_SEND_SGE];
    uint64_t remote_addr; /**< RDMA READ/WRITE */
    uint32_t rkey;
    uint32_t inv_key;     /**< SEND_WITH_INV, RDMA_READ_WITH_INV, LOCAL_INV */
    /* FAST_REG_MR / REG_INDIR_MR */
    uint64_t fr_iova, fr_length;
    uint64_t fr_list; /**< raw bus address of the list; ignored when page_list is set */
    uint32_t fr_key; /**< the key the registration carries: the MR's key once it succeeds */
    /** The MR the WR registers, written to the WQE's rkey as its key (mr->lkey)
     *  as the consumer holds it: the device refuses (MW_BIND_ERR) an fr_key
     *  whose index is not this MR's. NULL: the MR fr_key's index names (the
     *  seed's API names the MR only through the key), i.e. rkey = fr_key.
     *  Once posted, the driver's copy takes the registration (as ib_map_mr_sg
     *  does): a FAST_REG_MR on a fast-reg MR or a REG_INDIR_MR on an indirect
     *  one sets *mr's iova, length and access, and its lkey and rkey to fr_key
     *  when fr_key is on the MR's index (a key on another index, which the
     *  device refuses, leaves the keys alone). Another opcode or kind leaves
     *  *mr as it was. */
    hcadrv_mr_t *mr;
    unsigned fr_page_shift, fr_access;
    unsigned fr_list_len; /**< entries; FAST_REG_MR with page_list: 0..page_list->max_page_list_len */
    /** FAST_REG_MR: the page list (fr_list becomes its bus address, and the
     *  driver owns it until the WR completes); NULL: fr_list is used raw. */
    const hcadrv_page_list_t *page_list;
    /** REG_INDIR_MR: the KLM list, likewise (fr_list_len: 0..its max_indir_list_len). */
    const hcadrv_indir_reg_list_t *indir_list;
} hcadrv_send_wr_t;

/** Write the WQE into the SQ and ring the doorbell. -EINVAL (num_sge above
 *  MAX_SEND_SGE, unknown opcode, reserved flag bits, unknown QP; page_list on
 *  an opcode other than FAST_REG_MR, indir_list on one other than
 *  REG_INDIR_MR, an unknown list handle or fr_list_len above the list's
 *  length), -EBUSY (the list still owned by an earlier outstanding WR: one
 *  outstanding WR per list), -ENOMEM (SQ
 *  full: sq_pi - sq_done = depth; only CQEs retire WQEs, so signal at least
 *  one WR per depth), -ENOTCONN (QP not connected). The driver does not refuse
 *  the memory-management opcodes (FAST_REG_MR, REG_INDIR_MR, LOCAL_INV,
 *  SEND_WITH_INV, RDMA_READ_WITH_INV) when QUERY_DEVICE does not claim them:
 *  the device answers them in their CQE. Other fields are the device's to
 *  check (fr_list_len 0, page_shift, access, key: MW_BIND_ERR). */
int hcadrv_post_send(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_send_wr_t *wr);
/** Write len (1..128) raw bytes, zero-padded to 128, as the next SQ WQE and
 *  ring the doorbell (malformed-WQE tests). Errors as post_send. */
int hcadrv_post_send_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len);
/** The same for the RQ: len (1..64) raw bytes, zero-padded to 64, as the next
 *  RQ WQE (malformed receive WQE tests). Errors as post_recv. */
int hcadrv_post_recv_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len);

typedef struct hcadrv_recv_wr {
    uint64_t wr_id;
    unsigned num_sge;
    hca_sge_t sge[HCA_MAX_RECV_SGE];
} hcadrv_recv_wr_t;

/** -EINVAL (num_sge above MAX_RECV_SGE, unknown QP), -ENOMEM (RQ full),
 *  -ENOTCONN (QP not connected: connecting resets the RQ's indices). */
int hcadrv_post_recv(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_recv_wr_t *wr);

/** One completion. */
typedef struct hcadrv_wc {
    uint64_t wr_id;
    unsigned status;   /**< enum hca_wc_status */
    unsigned opcode;   /**< enum hca_wc_opcode */
    unsigned wc_flags; /**< HCA_WC_FLAGS_* */
    uint32_t byte_len, qpn, invalidate_rkey;
    uint32_t wqe_counter;
} hcadrv_wc_t;

/** Take up to max new CQEs from the ring (no device time passes): returns how
 *  many. Gives the space back with the CQ doorbell and advances the QPs'
 *  sq_done/rq_done (the driver's copy; a caller's hcadrv_qp_t shows them at
 *  its next post or query). Returns -EIO when the device dropped a CQE
 *  because the ring was full (checked with QUERY_CQ whenever poll_cq finds the
 *  ring full, the only time a CQE can have been dropped); an overrun CQ stays
 *  broken (IBA: CQ error) and answers -EIO from then on. Size CQs for every WR
 *  that can complete on them: errors and flushes complete unsignaled WRs too. */
int hcadrv_poll_cq(hcadrv_t *drv, hcadrv_cq_t *cq, hcadrv_wc_t *wc, int max);

#ifdef __cplusplus
}
#endif
#endif /* HCADRV_H */
