/* hcadrv.c — host reference driver: mailbox commands, memory registration,
 * and the queue verbs (docs/engine.md).
 *
 * Queue state: the driver holds the authoritative copy of every CQ's and
 * QP's indices in its own tables, indexed by CQ/QP number, so a caller may
 * copy or move its hcadrv_cq_t / hcadrv_qp_t freely. The caller's structs are
 * views: every call that takes one refreshes its indices (post_*, connect,
 * query_qp, poll_cq for the CQ). poll_cq advances the driver's sq_done /
 * rq_done of the QPs its CQEs name; a caller's hcadrv_qp_t shows them at its
 * next call with that QP.
 */
#include "hcadrv.h"
#include "hcadrv_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Cycles between two polls of HCR.CTRL.go: a driver spinning on MMIO reads. */
#define CMD_POLL_CYCLES 16u
/* Device-visible memory is allocated in pages of this size. */
#define DRV_PAGE_SIZE (1u << HCA_PAGE_SHIFT_MIN)
/* Bus addresses of u64 page addresses the page-list buffer holds. */
#define PAGE_LIST_BYTES (HCA_MAX_REG_PAGES * 8u)

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

static int dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a);

static uint32_t hcr(uint32_t reg)
{
    return HCA_HOST_HCR_OFFSET + reg;
}

/* ---------------------------------------------------------------- the host boundary */

static int mmio_rd(hcadrv_t *drv, uint32_t off, uint32_t *val) { return drv->host.ops->mmio_read(drv->host.ctx, off, val); }
static int mmio_wr(hcadrv_t *drv, uint32_t off, uint32_t val) { return drv->host.ops->mmio_write(drv->host.ctx, off, val); }
static int mem_rd(hcadrv_t *drv, uint64_t addr, void *buf, size_t len)
{
    return drv->host.ops->mem_read(drv->host.ctx, addr, buf, len);
}
static int mem_wr(hcadrv_t *drv, uint64_t addr, const void *buf, size_t len)
{
    return drv->host.ops->mem_write(drv->host.ctx, addr, buf, len);
}
static int mem_alloc(hcadrv_t *drv, uint64_t size, uint64_t align, uint64_t *addr)
{
    return drv->host.ops->mem_alloc(drv->host.ctx, size, align, addr);
}
static int mem_free(hcadrv_t *drv, uint64_t addr, uint64_t size) { return drv->host.ops->mem_free(drv->host.ctx, addr, size); }
static uint64_t now(hcadrv_t *drv) { return drv->host.ops->now(drv->host.ctx); }

/* The firmware core stopped (CAUSE.FATAL): no command will be answered. */
static int device_dead(hcadrv_t *drv)
{
    uint32_t cause = 0;
    mmio_rd(drv, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, &cause);
    return HCA_HOST_IRQ_CAUSE_FATAL_GET(cause);
}

int hcadrv_open(hcadrv_t **out, const hca_host_t *host)
{
    if (!out || !host || !host->ops)
        return -EINVAL;
    hcadrv_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->host = *host;
    int rc = mem_alloc(d, DRV_PAGE_SIZE, DRV_PAGE_SIZE, &d->mbox_in);
    if (!rc)
        rc = mem_alloc(d, DRV_PAGE_SIZE, DRV_PAGE_SIZE, &d->mbox_out);
    if (!rc)
        rc = mem_alloc(d, PAGE_LIST_BYTES, DRV_PAGE_SIZE, &d->page_list);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void hcadrv_close(hcadrv_t *drv)
{
    if (drv) {
        drv_peer_free(drv);
        free(drv->pls);
    }
    free(drv);
}

unsigned hcadrv_last_status(const hcadrv_t *drv)
{
    return drv ? drv->last_status : HCA_CMD_STATUS_OK;
}

uint64_t hcadrv_last_cmd_cycles(const hcadrv_t *drv)
{
    return drv ? drv->last_cycles : 0;
}

static int status_errno(unsigned st)
{
    switch (st) {
    case HCA_CMD_STATUS_OK: return 0;
    case HCA_CMD_STATUS_BAD_PARAM: return -EINVAL;
    case HCA_CMD_STATUS_NO_RESOURCES: return -ENOMEM;
    case HCA_CMD_STATUS_BUSY: return -EBUSY;
    case HCA_CMD_STATUS_BAD_INDEX: return -ENOENT;
    case HCA_CMD_STATUS_DMA_ERR: return -EFAULT;
    case HCA_CMD_STATUS_BAD_OP: return -EOPNOTSUPP;
    default: return -EIO;
    }
}

/* The answer of the command in the mailbox now, read into f. */
static void cmd_harvest(hcadrv_t *drv, cmd_frame_t *f)
{
    uint32_t st = 0, imm = 0;
    mmio_rd(drv, hcr(HCA_HCR_STATUS), &st);
    mmio_rd(drv, hcr(HCA_HCR_OUT_IMM), &imm);
    f->status = HCA_HCR_STATUS_STATUS_GET(st);
    f->imm = imm;
    f->cycles = now(drv) - f->t0;
    f->done = 1;
}

/* Wait for the go bit to fall; 0 or -ETIMEDOUT (t0: the command's post). */
static int cmd_wait_idle(hcadrv_t *drv, uint64_t t0)
{
    uint32_t ctrl = 0;
    for (;;) {
        mmio_rd(drv, hcr(HCA_HCR_CTRL), &ctrl);
        if (!HCA_HCR_CTRL_GO_GET(ctrl))
            return 0;
        if (now(drv) - t0 > HCADRV_CMD_TIMEOUT_CYCLES || device_dead(drv))
            return -ETIMEDOUT;
        drv->host.ops->wait(drv->host.ctx, CMD_POLL_CYCLES, 0);
    }
}

int hcadrv_cmd_settle(hcadrv_t *drv)
{
    if (!drv)
        return -EINVAL;
    for (unsigned i = drv->cmd_depth; i-- > 0;) {
        cmd_frame_t *f = &drv->cmd_frames[i];
        if (f->done)
            continue;
        int rc = cmd_wait_idle(drv, f->t0);
        if (rc)
            return rc;
        cmd_harvest(drv, f);
    }
    return 0;
}

/* Commands may nest: a call made while the driver waits for an answer (a
 * peer's invalidate callback run from inside the host's wait, as an
 * interrupt handler or another thread would) first lets the pending command
 * finish and keeps its answer for its caller, then posts its own. Nested
 * commands must not use the out mailbox (the outer caller reads it after). */
int hcadrv_cmd(hcadrv_t *drv, unsigned op, uint64_t in_param, uint64_t out_param, uint32_t in_mod,
               uint32_t *out_imm)
{
    if (!drv || op > 0xff)
        return -EINVAL;
    if (drv->cmd_depth == HCADRV_CMD_NEST_MAX)
        return -EBUSY;
    int rc = hcadrv_cmd_settle(drv);
    if (rc)
        return rc;
    uint32_t ctrl = 0;
    mmio_rd(drv, hcr(HCA_HCR_CTRL), &ctrl);
    if (HCA_HCR_CTRL_GO_GET(ctrl))
        return -EBUSY; /* the previous command never finished */
    mmio_wr(drv, hcr(HCA_HCR_IN_PARAM_LO), (uint32_t)in_param);
    mmio_wr(drv, hcr(HCA_HCR_IN_PARAM_HI), (uint32_t)(in_param >> 32));
    mmio_wr(drv, hcr(HCA_HCR_OUT_PARAM_LO), (uint32_t)out_param);
    mmio_wr(drv, hcr(HCA_HCR_OUT_PARAM_HI), (uint32_t)(out_param >> 32));
    mmio_wr(drv, hcr(HCA_HCR_IN_MOD), in_mod);
    const unsigned depth = drv->cmd_depth++;
    cmd_frame_t *f = &drv->cmd_frames[depth];
    *f = (cmd_frame_t){.t0 = now(drv)};
    mmio_wr(drv, hcr(HCA_HCR_CTRL), HCA_HCR_CTRL_OP_PUT(op) | HCA_HCR_CTRL_GO_PUT(1));
    /* A command nested in this wait finds our answer first and keeps it (f->done). */
    rc = cmd_wait_idle(drv, f->t0);
    if (!rc && !f->done)
        cmd_harvest(drv, f);
    drv->cmd_depth = depth;
    if (rc)
        return rc;
    drv->last_cycles = f->cycles;
    drv->last_status = f->status;
    if (out_imm)
        *out_imm = f->imm;
    return status_errno(f->status);
}

int hcadrv_query_device(hcadrv_t *drv, hcadrv_device_attr_t *attr)
{
    if (!drv || !attr)
        return -EINVAL;
    hca_query_device_out_t q;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_DEVICE, 0, drv->mbox_out, 0, NULL);
    if (!rc)
        rc = mem_rd(drv, drv->mbox_out, &q, sizeof q);
    if (rc)
        return rc;
    memset(attr, 0, sizeof *attr);
    attr->fw_version = q.fw_version;
    attr->caps = q.caps;
    attr->mem_mgt_extensions = !!(q.caps & HCA_DEV_CAP_MEM_MGT_EXTENSIONS);
    attr->reserved_lkey_valid = !!(q.caps & HCA_DEV_CAP_RESERVED_LKEY);
    attr->read_with_inv = !!(q.caps & HCA_DEV_CAP_READ_WITH_INV);
    attr->indir_reg = !!(q.caps & HCA_DEV_CAP_INDIR_REG);
    attr->peer_memory = !!(q.caps & HCA_DEV_CAP_PEER_MEMORY);
    attr->reserved_lkey = q.reserved_lkey;
    attr->max_fast_reg_page_list_len = q.max_fast_reg_page_list_len;
    attr->max_indir_reg_list_len = q.max_indir_reg_list_len;
    attr->max_indirection = q.max_indirection;
    attr->page_shifts = q.page_shifts;
    attr->max_mr = q.max_mr;
    attr->max_mtt = q.max_mtt;
    attr->max_pd = q.max_pd;
    attr->max_reg_pages = q.max_reg_pages;
    attr->max_qp = q.max_qp;
    attr->max_cq = q.max_cq;
    attr->max_qp_wr = q.max_qp_wr;
    attr->max_cqe = q.max_cqe;
    attr->max_send_sge = q.max_send_sge;
    attr->max_recv_sge = q.max_recv_sge;
    drv->attr = *attr;
    drv->attr_valid = 1;
    return 0;
}

/* The device's attributes, queried once. */
drv_peer_t **drv_peer_state(hcadrv_t *drv)
{
    return &drv->peer;
}

int drv_dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a)
{
    return dev_attr(drv, a);
}

static int dev_attr(hcadrv_t *drv, const hcadrv_device_attr_t **a)
{
    if (!drv->attr_valid) {
        hcadrv_device_attr_t tmp;
        int rc = hcadrv_query_device(drv, &tmp);
        if (rc)
            return rc;
    }
    *a = &drv->attr;
    return 0;
}

int hcadrv_alloc_pd(hcadrv_t *drv, uint32_t *pd)
{
    if (!drv || !pd)
        return -EINVAL;
    return hcadrv_cmd(drv, HCA_CMD_OP_ALLOC_PD, 0, 0, 0, pd);
}

/* Destroying an object the device does not hold (never created, or
 * destroyed already) is a bad argument: -EINVAL (SEMANTICS.md), not the
 * generic BAD_INDEX -ENOENT. */
static int destroy_errno(int rc)
{
    return rc == -ENOENT ? -EINVAL : rc;
}

int hcadrv_dealloc_pd(hcadrv_t *drv, uint32_t pd)
{
    if (!drv)
        return -EINVAL;
    return destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DEALLOC_PD, 0, 0, pd, NULL));
}

static int access_valid(uint32_t access)
{
    if (access & ~HCA_ACCESS_ALL)
        return 0;
    return !((access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) && !(access & HCA_ACCESS_LOCAL_WRITE));
}

static int create_mkey(hcadrv_t *drv, const hca_create_mkey_in_t *in, uint32_t *key)
{
    int rc = mem_wr(drv, drv->mbox_in, in, sizeof *in);
    return rc ? rc : hcadrv_cmd(drv, HCA_CMD_OP_CREATE_MKEY, drv->mbox_in, 0, 0, key);
}

int drv_reg_pages(hcadrv_t *drv, uint32_t pd, const uint64_t *pages, uint32_t npages, unsigned page_shift,
                  uint64_t iova, uint64_t length, uint32_t access, hcadrv_mr_t *mr)
{
    if (npages > HCA_MAX_REG_PAGES)
        return -EINVAL;
    int rc = mem_wr(drv, drv->page_list, pages, 8ull * npages);
    if (rc)
        return rc;
    hca_create_mkey_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = pd;
    hca_create_mkey_in_set_kind(&in, HCA_MKEY_KIND_REGULAR);
    hca_create_mkey_in_set_access(&in, access);
    hca_create_mkey_in_set_page_shift(&in, page_shift);
    in.iova = iova;
    in.length = length;
    in.page_list = drv->page_list;
    in.npages = npages;
    uint32_t key = 0;
    if ((rc = create_mkey(drv, &in, &key)))
        return rc;
    *mr = (hcadrv_mr_t){.lkey = key,
                        .rkey = (access & ~HCA_ACCESS_LOCAL_WRITE) ? key : 0,
                        .pd = pd,
                        .kind = HCA_MKEY_KIND_REGULAR,
                        .access = access,
                        .iova = iova,
                        .length = length};
    return 0;
}

int hcadrv_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova,
                  uint32_t access, unsigned page_shift, hcadrv_mr_t *mr)
{
    if (!drv || !mr || !length || !access_valid(access) || page_shift < HCA_PAGE_SHIFT_MIN ||
        page_shift > HCA_PAGE_SHIFT_MAX || addr + length < addr || iova + length < iova)
        return -EINVAL;
    /* Memory a peer client owns is pinned and mapped by that client, in its
     * page size (hcadrv_peer.c); anything else is host memory. */
    int rc = drv_peer_reg_mr(drv, pd, addr, length, iova, access, mr);
    if (rc != -ENOENT)
        return rc;
    uint64_t mask = (1ull << page_shift) - 1;
    if ((addr & mask) != (iova & mask))
        return -EINVAL; /* the first-byte offset inside a page must survive translation */
    uint64_t first = addr & ~mask;
    uint64_t npages = ((addr & mask) + length + mask) >> page_shift;
    if (npages > HCA_MAX_REG_PAGES)
        return -EINVAL;
    uint64_t *pages = malloc(8 * npages);
    if (!pages)
        return -ENOMEM;
    for (uint64_t i = 0; i < npages; i++)
        pages[i] = first + (i << page_shift);
    rc = drv_reg_pages(drv, pd, pages, (uint32_t)npages, page_shift, iova, length, access, mr);
    free(pages);
    return rc;
}

int hcadrv_alloc_mr(hcadrv_t *drv, uint32_t pd, unsigned kind, uint32_t max_list_len, hcadrv_mr_t *mr)
{
    if (!drv || !mr || (kind != HCA_MKEY_KIND_FAST_REG && kind != HCA_MKEY_KIND_INDIRECT) || !max_list_len)
        return -EINVAL;
    hca_create_mkey_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = pd;
    hca_create_mkey_in_set_kind(&in, kind);
    in.npages = max_list_len;
    uint32_t key = 0;
    int rc = create_mkey(drv, &in, &key);
    if (rc)
        return rc;
    *mr = (hcadrv_mr_t){.lkey = key, .rkey = key, .pd = pd, .kind = kind, .max_list_len = max_list_len};
    return 0;
}

/* The MR is the device's reserved L_Key (no slot of its own). */
static int is_reserved_lkey(hcadrv_t *drv, const hcadrv_mr_t *mr)
{
    const hcadrv_device_attr_t *a;
    if (mr->kind != HCA_MKEY_KIND_DMA || dev_attr(drv, &a))
        return 0;
    return a->reserved_lkey_valid && mr->lkey == a->reserved_lkey;
}

int hcadrv_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr)
{
    if (!drv || !mr)
        return -EINVAL;
    if (is_reserved_lkey(drv, mr))
        return 0;
    if (mr->peer)
        return drv_peer_dereg_mr(drv, mr);
    return hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_MKEY, 0, 0, mr->lkey, NULL);
}

int hcadrv_get_dma_mr(hcadrv_t *drv, uint32_t pd, hcadrv_mr_t *mr)
{
    if (!drv || !mr)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = dev_attr(drv, &a);
    if (rc)
        return rc;
    uint32_t key = a->reserved_lkey;
    if (!a->reserved_lkey_valid) {
        hca_create_mkey_in_t in;
        memset(&in, 0, sizeof in);
        in.pd = pd;
        hca_create_mkey_in_set_kind(&in, HCA_MKEY_KIND_DMA);
        hca_create_mkey_in_set_access(&in, HCA_ACCESS_LOCAL_WRITE);
        if ((rc = create_mkey(drv, &in, &key)))
            return rc;
    }
    *mr = (hcadrv_mr_t){.lkey = key, .rkey = 0, .pd = pd, .kind = HCA_MKEY_KIND_DMA, .access = HCA_ACCESS_LOCAL_WRITE};
    return 0;
}

/* ---------------------------------------------------------------- registration lists (page, KLM) */

/* The list behind a handle (handle, bus address and entry size must match). */
static drv_pl_t *list_of(hcadrv_t *drv, uint32_t handle, uint64_t bus, uint32_t entry)
{
    if (!drv || handle == 0 || handle > drv->npls)
        return NULL;
    drv_pl_t *p = &drv->pls[handle - 1];
    return p->used && p->bus == bus && p->entry == entry ? p : NULL;
}

static drv_pl_t *pl_of(hcadrv_t *drv, const hcadrv_page_list_t *pl)
{
    return pl && pl->drv == drv ? list_of(drv, pl->handle, pl->bus_addr, 8) : NULL;
}

static drv_pl_t *klm_of(hcadrv_t *drv, const hcadrv_indir_reg_list_t *l)
{
    return l && l->drv == drv ? list_of(drv, l->handle, l->bus_addr, sizeof(hca_sge_t)) : NULL;
}

static drv_qp_t *qp_of(hcadrv_t *drv, uint32_t qpn);

/* Whether an outstanding WR still owns the list: its QP exists and the
 * driver's sq_done has not passed its index (a polled CQE of it, or of a later
 * WR of that send queue, retires it). Ownership, once ended, stays ended. */
static int pl_owned(hcadrv_t *drv, drv_pl_t *p)
{
    if (!p->owned)
        return 0;
    drv_qp_t *q = qp_of(drv, p->qpn);
    if (!q || (int32_t)(q->sq_done - p->sq_index) > 0)
        p->owned = 0;
    return p->owned;
}

/* A new list of len entries of entry bytes (device memory zeroed): its handle. */
static int list_alloc(hcadrv_t *drv, uint32_t len, uint32_t entry, uint32_t *handle, uint64_t *bus)
{
    uint32_t slot = 0;
    while (slot < drv->npls && drv->pls[slot].used)
        slot++;
    if (slot == drv->npls) {
        uint32_t n = drv->npls ? 2 * drv->npls : 16;
        drv_pl_t *grown = realloc(drv->pls, n * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        memset(grown + drv->npls, 0, (n - drv->npls) * sizeof *grown);
        drv->pls = grown;
        drv->npls = n;
    }
    const uint64_t bytes = (uint64_t)len * entry;
    int rc = mem_alloc(drv, bytes, entry == 8 ? DRV_PAGE_SIZE : 64, bus);
    if (rc)
        return rc;
    drv->pls[slot] = (drv_pl_t){.used = 1, .bus = *bus, .bytes = bytes, .len = len, .entry = entry};
    *handle = slot + 1;
    return 0;
}

static int list_free(hcadrv_t *drv, drv_pl_t *p, uint32_t *handle)
{
    if (!p)
        return -EINVAL;
    if (pl_owned(drv, p))
        return -EBUSY;
    mem_free(drv, p->bus, p->bytes);
    memset(p, 0, sizeof *p);
    *handle = 0;
    return 0;
}

static int list_set(hcadrv_t *drv, drv_pl_t *p, uint32_t i, const void *e)
{
    if (!p || i >= p->len)
        return -EINVAL;
    if (pl_owned(drv, p))
        return -EBUSY;
    return mem_wr(drv, p->bus + (uint64_t)p->entry * i, e, p->entry);
}

int hcadrv_alloc_fast_reg_page_list(hcadrv_t *drv, uint32_t len, hcadrv_page_list_t *pl)
{
    if (!drv || !pl)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = dev_attr(drv, &a);
    if (rc)
        return rc;
    if (len == 0 || len > a->max_fast_reg_page_list_len)
        return -EINVAL;
    uint32_t actual = (len + 7u) & ~7u; /* one 64-byte line */
    if (actual > a->max_fast_reg_page_list_len)
        actual = a->max_fast_reg_page_list_len;
    uint32_t handle = 0;
    uint64_t bus = 0;
    if ((rc = list_alloc(drv, actual, 8, &handle, &bus)))
        return rc;
    *pl = (hcadrv_page_list_t){.drv = drv, .bus_addr = bus, .max_page_list_len = actual, .handle = handle};
    return 0;
}

int hcadrv_free_fast_reg_page_list(hcadrv_t *drv, hcadrv_page_list_t *pl)
{
    return pl ? list_free(drv, pl_of(drv, pl), &pl->handle) : -EINVAL;
}

int hcadrv_page_list_set(hcadrv_page_list_t *pl, uint32_t i, uint64_t addr)
{
    return pl ? list_set(pl->drv, pl_of(pl->drv, pl), i, &addr) : -EINVAL;
}

int hcadrv_alloc_indir_reg_list(hcadrv_t *drv, uint32_t len, hcadrv_indir_reg_list_t *l)
{
    if (!drv || !l)
        return -EINVAL;
    const hcadrv_device_attr_t *a;
    int rc = dev_attr(drv, &a);
    if (rc)
        return rc;
    if (len == 0 || len > a->max_indir_reg_list_len)
        return -EINVAL;
    uint32_t handle = 0;
    uint64_t bus = 0;
    if ((rc = list_alloc(drv, len, sizeof(hca_sge_t), &handle, &bus)))
        return rc;
    *l = (hcadrv_indir_reg_list_t){.drv = drv, .bus_addr = bus, .max_indir_list_len = len, .handle = handle};
    return 0;
}

int hcadrv_free_indir_reg_list(hcadrv_t *drv, hcadrv_indir_reg_list_t *l)
{
    return l ? list_free(drv, klm_of(drv, l), &l->handle) : -EINVAL;
}

int hcadrv_indir_reg_list_set(hcadrv_indir_reg_list_t *l, uint32_t i, const hca_sge_t *e)
{
    return l && e ? list_set(l->drv, klm_of(l->drv, l), i, e) : -EINVAL;
}

int hcadrv_query_mkey(hcadrv_t *drv, uint32_t index, hca_mpt_entry_t *entry)
{
    if (!drv || !entry)
        return -EINVAL;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_MKEY, 0, drv->mbox_out, index, NULL);
    return rc ? rc : mem_rd(drv, drv->mbox_out, entry, sizeof *entry);
}

/* ---------------------------------------------------------------- queues */

#define CQE_BYTES ((uint64_t)sizeof(hca_cqe_t))
#define SQ_WQE_BYTES ((uint64_t)sizeof(hca_sq_wqe_t))
#define RQ_WQE_BYTES ((uint64_t)sizeof(hca_rq_wqe_t))
/* Indices in doorbells and cqe.wqe_counter are 16 bits wide. */
#define INDEX_MASK 0xffffu

/* log2 of the smallest power of two >= n (n <= 1: 0). */
static unsigned log2_ceil(uint32_t n)
{
    unsigned l = 0;
    while (l < 32 && (1ull << l) < n)
        l++;
    return l;
}

/* A ring of bytes (rounded up to whole pages), zeroed. */
static int ring_alloc(hcadrv_t *drv, uint64_t bytes, uint64_t *addr, uint64_t *mapped)
{
    *mapped = (bytes + DRV_PAGE_SIZE - 1) & ~(uint64_t)(DRV_PAGE_SIZE - 1);
    return mem_alloc(drv, *mapped, DRV_PAGE_SIZE, addr);
}

static int doorbell(hcadrv_t *drv, uint32_t reg, uint32_t val)
{
    return mmio_wr(drv, HCA_HOST_DB_OFFSET + reg, val);
}

static drv_cq_t *cq_of(hcadrv_t *drv, uint32_t cqn)
{
    return cqn > 0 && cqn < HCA_MAX_CQ && drv->cqs[cqn].used ? &drv->cqs[cqn] : NULL;
}

static drv_qp_t *qp_of(hcadrv_t *drv, uint32_t qpn)
{
    return qpn > 0 && qpn < HCA_MAX_QP && drv->qps[qpn].used ? &drv->qps[qpn] : NULL;
}

/* Refresh a caller's view of a QP from the driver's copy. */
static void qp_view(const drv_qp_t *s, hcadrv_qp_t *qp)
{
    qp->sq_pi = s->sq_pi;
    qp->rq_pi = s->rq_pi;
    qp->sq_done = s->sq_done;
    qp->rq_done = s->rq_done;
    qp->connected = s->connected;
}

int hcadrv_create_cq(hcadrv_t *drv, uint32_t depth, hcadrv_cq_t *cq)
{
    if (!drv || !cq)
        return -EINVAL;
    unsigned log = log2_ceil(depth);
    if (log > HCA_QUEUE_LOG_MAX)
        return -EINVAL;
    uint64_t base = 0, mapped = 0;
    int rc = ring_alloc(drv, CQE_BYTES << log, &base, &mapped);
    if (rc)
        return rc;
    hca_create_cq_in_t in;
    memset(&in, 0, sizeof in);
    in.base = base;
    in.log_depth = log;
    uint32_t cqn = 0;
    rc = mem_wr(drv, drv->mbox_in, &in, sizeof in);
    if (!rc)
        rc = hcadrv_cmd(drv, HCA_CMD_OP_CREATE_CQ, drv->mbox_in, 0, 0, &cqn);
    if (!rc && (cqn == 0 || cqn >= HCA_MAX_CQ || drv->cqs[cqn].used))
        rc = -EIO; /* the firmware handed out a number it should not have */
    if (rc) {
        mem_free(drv, base, mapped);
        return rc;
    }
    drv->cqs[cqn] = (drv_cq_t){.used = 1, .base = base, .bytes = mapped, .log_depth = log, .ci = 0};
    *cq = (hcadrv_cq_t){.cqn = cqn, .base = base, .log_depth = log, .ci = 0};
    return 0;
}

int hcadrv_destroy_cq(hcadrv_t *drv, hcadrv_cq_t *cq)
{
    if (!drv || !cq)
        return -EINVAL;
    drv_cq_t *c = cq_of(drv, cq->cqn);
    if (!c)
        return -EINVAL;
    int rc = destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_CQ, 0, 0, cq->cqn, NULL));
    if (rc)
        return rc;
    mem_free(drv, c->base, c->bytes);
    memset(c, 0, sizeof *c);
    return 0;
}

int hcadrv_create_qp(hcadrv_t *drv, const hcadrv_qp_attr_t *attr, hcadrv_qp_t *qp)
{
    if (!drv || !attr || !qp || !attr->send_cq || !attr->recv_cq || attr->rnr_retry > 7)
        return -EINVAL;
    unsigned sq_log = log2_ceil(attr->sq_depth), rq_log = log2_ceil(attr->rq_depth);
    if (sq_log > HCA_QUEUE_LOG_MAX || rq_log > HCA_QUEUE_LOG_MAX)
        return -EINVAL;
    unsigned mtu_log2 = 0; /* the device's MTU_DEFAULT */
    if (attr->mtu) {
        mtu_log2 = log2_ceil(attr->mtu);
        if ((1u << mtu_log2) != attr->mtu || attr->mtu < 256 || attr->mtu > 4096)
            return -EINVAL;
    }
    uint64_t sq = 0, rq = 0, sq_bytes = 0, rq_bytes = 0;
    int rc = ring_alloc(drv, SQ_WQE_BYTES << sq_log, &sq, &sq_bytes);
    if (rc)
        return rc;
    rc = ring_alloc(drv, RQ_WQE_BYTES << rq_log, &rq, &rq_bytes);
    if (rc) {
        mem_free(drv, sq, sq_bytes);
        return rc;
    }
    hca_create_qp_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = attr->pd;
    hca_create_qp_in_set_send_cqn(&in, attr->send_cq->cqn);
    hca_create_qp_in_set_recv_cqn(&in, attr->recv_cq->cqn);
    in.sq_base = sq;
    in.rq_base = rq;
    hca_create_qp_in_set_sq_log(&in, sq_log);
    hca_create_qp_in_set_rq_log(&in, rq_log);
    hca_create_qp_in_set_mtu_log2(&in, mtu_log2);
    hca_create_qp_in_set_rnr_retry(&in, attr->rnr_retry);
    in.rnr_timer = attr->rnr_timer;
    uint32_t qpn = 0;
    rc = mem_wr(drv, drv->mbox_in, &in, sizeof in);
    if (!rc)
        rc = hcadrv_cmd(drv, HCA_CMD_OP_CREATE_QP, drv->mbox_in, 0, 0, &qpn);
    if (!rc && (qpn == 0 || qpn >= HCA_MAX_QP || drv->qps[qpn].used))
        rc = -EIO;
    if (rc) {
        mem_free(drv, sq, sq_bytes);
        mem_free(drv, rq, rq_bytes);
        return rc;
    }
    drv_qp_t *s = &drv->qps[qpn];
    *s = (drv_qp_t){.used = 1, .sq_base = sq, .rq_base = rq, .sq_bytes = sq_bytes, .rq_bytes = rq_bytes,
                    .sq_log = sq_log, .rq_log = rq_log, .send_cqn = attr->send_cq->cqn,
                    .recv_cqn = attr->recv_cq->cqn};
    *qp = (hcadrv_qp_t){.qpn = qpn, .pd = attr->pd, .sq_base = sq, .rq_base = rq, .sq_log = sq_log,
                        .rq_log = rq_log, .send_cqn = s->send_cqn, .recv_cqn = s->recv_cqn};
    return 0;
}

int hcadrv_connect(hcadrv_t *drv, hcadrv_qp_t *a, hcadrv_qp_t *b)
{
    if (!drv || !a || !b)
        return -EINVAL;
    drv_qp_t *sa = qp_of(drv, a->qpn), *sb = qp_of(drv, b->qpn);
    if (!sa || !sb)
        return -EINVAL;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_CONNECT_QP, 0, 0, a->qpn | b->qpn << 16, NULL);
    if (rc)
        return rc;
    /* RTS gives both fresh indices on the device: so here. */
    drv_qp_t *both[2] = {sa, sb};
    for (int i = 0; i < 2; i++) {
        both[i]->sq_pi = both[i]->rq_pi = both[i]->sq_done = both[i]->rq_done = 0;
        both[i]->connected = 1;
    }
    qp_view(sa, a);
    qp_view(sb, b);
    return 0;
}

/* The QP's WRs are gone (destroyed, or reset): so is their hold on page
 * and KLM lists. */
static void release_lists(hcadrv_t *drv, uint32_t qpn)
{
    for (uint32_t i = 0; i < drv->npls; i++)
        if (drv->pls[i].owned && drv->pls[i].qpn == qpn)
            drv->pls[i].owned = 0;
}

int hcadrv_destroy_qp(hcadrv_t *drv, hcadrv_qp_t *qp)
{
    if (!drv || !qp)
        return -EINVAL;
    drv_qp_t *s = qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    int rc = destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_QP, 0, 0, qp->qpn, NULL));
    if (rc)
        return rc;
    mem_free(drv, s->sq_base, s->sq_bytes);
    mem_free(drv, s->rq_base, s->rq_bytes);
    memset(s, 0, sizeof *s);
    release_lists(drv, qp->qpn);
    qp->connected = 0;
    return 0;
}

int hcadrv_modify_qp(hcadrv_t *drv, hcadrv_qp_t *qp, unsigned state)
{
    if (!drv || !qp || (state != HCA_QP_STATE_RESET && state != HCA_QP_STATE_ERROR))
        return -EINVAL;
    drv_qp_t *s = qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    int rc = destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_MODIFY_QP, 0, 0, qp->qpn | state << 16, NULL));
    if (rc)
        return rc;
    if (state == HCA_QP_STATE_RESET) {
        /* The device emptied the queues and forgot the indices: so here.
         * The rings stay (the QP keeps them for its next connection). */
        s->sq_pi = s->rq_pi = s->sq_done = s->rq_done = 0;
        s->connected = 0;
        release_lists(drv, qp->qpn);
    }
    qp_view(s, qp);
    return 0;
}

int hcadrv_query_qp(hcadrv_t *drv, const hcadrv_qp_t *qp, unsigned *state)
{
    if (!drv || !qp || !state)
        return -EINVAL;
    if (!qp_of(drv, qp->qpn))
        return -EINVAL;
    hca_qp_ctx_t c;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_QP, 0, drv->mbox_out, qp->qpn, NULL);
    if (!rc)
        rc = mem_rd(drv, drv->mbox_out, &c, sizeof c);
    if (rc)
        return rc;
    *state = hca_qp_ctx_get_state(&c);
    return 0;
}

/* The checks every post makes: a known, connected QP with room. */
static int post_check(hcadrv_t *drv, hcadrv_qp_t *qp, int recv, drv_qp_t **out)
{
    drv_qp_t *s = qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    qp_view(s, qp);
    if (!s->connected)
        return -ENOTCONN;
    uint32_t used = recv ? s->rq_pi - s->rq_done : s->sq_pi - s->sq_done;
    if (used >= (1u << (recv ? s->rq_log : s->sq_log)))
        return -ENOMEM;
    *out = s;
    return 0;
}

/* Write one SQ WQE at sq_pi, advance sq_pi and ring the SQ doorbell. */
static int sq_push(hcadrv_t *drv, drv_qp_t *s, hcadrv_qp_t *qp, const void *wqe)
{
    uint64_t at = s->sq_base + (uint64_t)(s->sq_pi & ((1u << s->sq_log) - 1)) * SQ_WQE_BYTES;
    int rc = mem_wr(drv, at, wqe, SQ_WQE_BYTES);
    if (rc)
        return rc;
    uint32_t pi = s->sq_pi + 1;
    rc = doorbell(drv, HCA_DB_SQ, HCA_DB_SQ_QPN_PUT(qp->qpn) | HCA_DB_SQ_PI_PUT(pi & INDEX_MASK));
    if (rc)
        return rc; /* a device without doorbells: nothing was posted */
    s->sq_pi = pi;
    qp_view(s, qp);
    return 0;
}

/* A posted registration WR: the consumer's copy of its MR takes it (hcadrv.h, hcadrv_send_wr_t.mr). */
static void take_registration(const hcadrv_send_wr_t *wr)
{
    hcadrv_mr_t *m = wr->mr;
    if (!m || !((wr->opcode == HCA_WR_OPCODE_FAST_REG_MR && m->kind == HCA_MKEY_KIND_FAST_REG) ||
                (wr->opcode == HCA_WR_OPCODE_REG_INDIR_MR && m->kind == HCA_MKEY_KIND_INDIRECT)))
        return;
    if ((wr->fr_key >> HCA_KEY_INDEX_SHIFT) == (m->lkey >> HCA_KEY_INDEX_SHIFT))
        m->lkey = m->rkey = wr->fr_key;
    m->iova = wr->fr_iova;
    m->length = wr->fr_length;
    m->access = wr->fr_access;
}

int hcadrv_post_send(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_send_wr_t *wr)
{
    if (!drv || !qp || !wr || wr->opcode > HCA_WR_OPCODE_MAX || wr->num_sge > HCA_MAX_SEND_SGE ||
        (wr->flags & ~(unsigned)(HCA_SEND_FLAGS_SIGNALED | HCA_SEND_FLAGS_FENCE)))
        return -EINVAL;
    drv_pl_t *pl = NULL; /* the page or KLM list the WR names */
    if (wr->page_list && wr->indir_list)
        return -EINVAL;
    if (wr->page_list && (wr->opcode != HCA_WR_OPCODE_FAST_REG_MR || !(pl = pl_of(drv, wr->page_list))))
        return -EINVAL;
    if (wr->indir_list && (wr->opcode != HCA_WR_OPCODE_REG_INDIR_MR || !(pl = klm_of(drv, wr->indir_list))))
        return -EINVAL;
    if (pl && wr->fr_list_len > pl->len)
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 0, &s);
    if (rc)
        return rc;
    if (pl && pl_owned(drv, pl))
        return -EBUSY;
    hca_sq_wqe_t w;
    memset(&w, 0, sizeof w);
    hca_sq_wqe_set_opcode(&w, wr->opcode);
    hca_sq_wqe_set_flags(&w, wr->flags);
    hca_sq_wqe_set_num_sge(&w, wr->num_sge);
    w.wr_id = wr->wr_id;
    switch (wr->opcode) {
    case HCA_WR_OPCODE_RDMA_WRITE:
    case HCA_WR_OPCODE_RDMA_READ:
        w.remote_addr = wr->remote_addr;
        w.rkey = wr->rkey;
        break;
    case HCA_WR_OPCODE_RDMA_READ_WITH_INV:
        w.remote_addr = wr->remote_addr;
        w.rkey = wr->rkey;
        w.inv_key = wr->inv_key;
        break;
    case HCA_WR_OPCODE_SEND_WITH_INV:
    case HCA_WR_OPCODE_LOCAL_INV:
        w.inv_key = wr->inv_key;
        break;
    case HCA_WR_OPCODE_FAST_REG_MR:
    case HCA_WR_OPCODE_REG_INDIR_MR:
        w.fr_iova = wr->fr_iova;
        w.fr_length = wr->fr_length;
        w.fr_list = pl ? pl->bus : wr->fr_list;
        if (pl && wr->opcode == HCA_WR_OPCODE_FAST_REG_MR && wr->fr_list_len == 1 &&
            (drv->attr.caps & HCA_DEV_CAP_FR_INLINE_PAGE)) {
            /* the page in the WQE: the device reads no list */
            if ((rc = mem_rd(drv, pl->bus, &w.fr_list, sizeof w.fr_list)))
                return rc;
            hca_sq_wqe_set_fr_inline(&w, 1);
        }
        w.fr_key = wr->fr_key;
        w.rkey = wr->mr ? wr->mr->lkey : wr->fr_key; /* the MR: the device compares the indices */
        hca_sq_wqe_set_fr_page_shift(&w, wr->fr_page_shift);
        hca_sq_wqe_set_fr_access(&w, wr->fr_access);
        hca_sq_wqe_set_fr_list_len(&w, wr->fr_list_len);
        break;
    default: /* SEND */
        break;
    }
    for (unsigned i = 0; i < wr->num_sge; i++)
        w.sge[i] = wr->sge[i];
    if ((rc = sq_push(drv, s, qp, &w)))
        return rc;
    if (pl) { /* the driver owns the list until this WR completes */
        pl->owned = 1;
        pl->qpn = qp->qpn;
        pl->sq_index = s->sq_pi - 1;
    }
    take_registration(wr);
    return 0;
}

int hcadrv_post_send_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len)
{
    if (!drv || !qp || !wqe || len == 0 || len > SQ_WQE_BYTES)
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 0, &s);
    if (rc)
        return rc;
    uint8_t w[sizeof(hca_sq_wqe_t)];
    memset(w, 0, sizeof w);
    memcpy(w, wqe, len);
    return sq_push(drv, s, qp, w);
}

int hcadrv_post_recv(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_recv_wr_t *wr)
{
    if (!drv || !qp || !wr || wr->num_sge > HCA_MAX_RECV_SGE)
        return -EINVAL;
    hca_rq_wqe_t w;
    memset(&w, 0, sizeof w);
    w.wr_id = wr->wr_id;
    hca_rq_wqe_set_num_sge(&w, wr->num_sge);
    for (unsigned i = 0; i < wr->num_sge; i++)
        w.sge[i] = wr->sge[i];
    return hcadrv_post_recv_raw(drv, qp, &w, sizeof w);
}

int hcadrv_post_recv_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len)
{
    if (!drv || !qp || !wqe || len == 0 || len > sizeof(hca_rq_wqe_t))
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 1, &s);
    if (rc)
        return rc;
    hca_rq_wqe_t w;
    memset(&w, 0, sizeof w);
    memcpy(&w, wqe, len);
    uint64_t at = s->rq_base + (uint64_t)(s->rq_pi & ((1u << s->rq_log) - 1)) * RQ_WQE_BYTES;
    if ((rc = mem_wr(drv, at, &w, sizeof w)))
        return rc;
    uint32_t pi = s->rq_pi + 1;
    if ((rc = doorbell(drv, HCA_DB_RQ, HCA_DB_RQ_QPN_PUT(qp->qpn) | HCA_DB_RQ_PI_PUT(pi & INDEX_MASK))))
        return rc;
    s->rq_pi = pi;
    qp_view(s, qp);
    return 0;
}

/* A CQE for WQE index counter (16 bits) completes every WQE up to it: the
 * queue's done index moves to counter + 1 (never past what was posted). */
static void advance_done(uint32_t *done, uint32_t pi, uint32_t counter)
{
    uint32_t step = (counter + 1 - *done) & INDEX_MASK;
    if (step <= pi - *done)
        *done += step;
}

/* 1 when the CQE at free-running index i is new (docs/engine.md, CQ writer:
 * owner == ((i >> log_depth) & 1) ^ 1), 0 when not, or a negative errno. */
static int cqe_at(hcadrv_t *drv, const drv_cq_t *c, uint32_t i, hca_cqe_t *e)
{
    int rc = mem_rd(drv, c->base + (uint64_t)(i & ((1u << c->log_depth) - 1)) * CQE_BYTES, e, sizeof *e);
    if (rc)
        return rc;
    return hca_cqe_get_owner(e) == (((i >> c->log_depth) & 1u) ^ 1u);
}

/* A CQE can only have been dropped while the ring was full, so the device is
 * asked (QUERY_CQ) only then: the last slot before ci holds a new CQE. An
 * overrun CQ is broken for good (IBA: CQ error), so this stays -EIO. */
static int cq_check_overflow(hcadrv_t *drv, drv_cq_t *c, uint32_t cqn)
{
    if (c->overflowed)
        return -EIO;
    hca_cqe_t e;
    int full = cqe_at(drv, c, c->ci + (1u << c->log_depth) - 1, &e);
    if (full <= 0)
        return full;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_QUERY_CQ, 0, drv->mbox_out, cqn, NULL);
    hca_cq_ctx_t ctx;
    if (!rc)
        rc = mem_rd(drv, drv->mbox_out, &ctx, sizeof ctx);
    if (rc)
        return rc;
    c->overflowed = hca_cq_ctx_get_overflow(&ctx) != 0;
    return c->overflowed ? -EIO : 0;
}

int hcadrv_poll_cq(hcadrv_t *drv, hcadrv_cq_t *cq, hcadrv_wc_t *wc, int max)
{
    if (!drv || !cq || (!wc && max > 0) || max < 0)
        return -EINVAL;
    drv_cq_t *c = cq_of(drv, cq->cqn);
    if (!c)
        return -EINVAL;
    int rc = cq_check_overflow(drv, c, cq->cqn);
    if (rc)
        return rc;
    int n = 0;
    while (n < max) {
        hca_cqe_t e;
        rc = cqe_at(drv, c, c->ci, &e);
        if (rc < 0)
            return rc;
        if (!rc)
            break;
        hcadrv_wc_t *w = &wc[n++];
        w->wr_id = e.wr_id;
        w->status = hca_cqe_get_status(&e);
        w->opcode = hca_cqe_get_opcode(&e);
        w->wc_flags = hca_cqe_get_wc_flags(&e);
        w->byte_len = e.byte_len;
        w->qpn = e.qpn;
        w->invalidate_rkey = e.invalidate_rkey;
        w->wqe_counter = e.wqe_counter;
        c->ci++;
        drv_qp_t *q = qp_of(drv, e.qpn);
        if (q) {
            /* Which queue: the CQ decides when the QP's two CQs differ, the opcode when they are one. */
            int recv = q->send_cqn != q->recv_cqn ? cq->cqn == q->recv_cqn
                                                  : (w->opcode & HCA_WC_OPCODE_RECV) != 0;
            if (recv)
                advance_done(&q->rq_done, q->rq_pi, e.wqe_counter);
            else
                advance_done(&q->sq_done, q->sq_pi, e.wqe_counter);
        }
    }
    cq->ci = c->ci;
    if (n) {
        int rc = doorbell(drv, HCA_DB_CQ, HCA_DB_CQ_CQN_PUT(cq->cqn) | HCA_DB_CQ_CI_PUT(c->ci & INDEX_MASK));
        if (rc)
            return rc;
    }
    return n;
}
