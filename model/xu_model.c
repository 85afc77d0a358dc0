/* xu_model.c — the C model of the translation unit (key checker + MPT + MTT).
 *
 * A transaction-level twin of rtl/xlate_unit.sv behind the same pins
 * (sim/xu_engine.h). On a request handshake in cycle c the whole key check
 * (SEMANTICS.md "The key check", rules 1-6, then mode) runs at once against
 * the tables as they are in cycle c, and the first beat is computed; it is
 * presented from cycle c + HCA_XU_LATENCY on. Later beats of a multi-page
 * request follow one per cycle: each is computed (one MTT read) when the
 * previous one is handed over, so a request of any length costs O(1) memory.
 *
 * Timing:
 *  - uncontended: first beat in cycle c + HCA_XU_LATENCY exactly, later beats
 *    one per cycle, one request accepted per cycle (as the RTL);
 *  - buffering is bounded: at most XU_MODEL_DEPTH requests are held (accepted,
 *    last beat not yet handed over). req_ready is low in a cycle that starts
 *    with XU_MODEL_DEPTH requests held, so under response back-pressure or
 *    behind a long request the model stops accepting after XU_MODEL_DEPTH
 *    requests. XU_MODEL_DEPTH = HCA_XU_LATENCY + 1 is the least depth that
 *    sustains one request per cycle. The RTL may accept a request or two more
 *    or fewer under contention; beats and their order never differ.
 *
 * Firmware port (regs fwp): every access is accepted at once (fw_ready = 1)
 * and answered with fw_rvalid in the next cycle. A command written in cycle c
 * changes the tables at the edge ending cycle c: a request accepted in cycle c
 * has already been checked against the old entry (the request handshake is
 * judged before the firmware access in the same cycle). INVALIDATE and FENCE
 * then stay busy until every request accepted up to and including cycle c has
 * handed over its last beat; requests finish in acceptance order, so one
 * counter pair (accepted, finished) is the whole fence.
 *
 * Tables: any power-of-two sizes in [2, 2^24]. Reset clears the MPT allocated
 * bitmap and the MTT present bitmap only; entry storage keeps its data (as the
 * RTL's RAMs), which READ_MPT/READ_MTT may show with alloc/present = 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xu_engine.h"

/** Requests held at once (accepted, last beat not handed over). */
#define XU_MODEL_DEPTH 6u
/** Request ring size: a power of two >= XU_MODEL_DEPTH. */
#define XU_MODEL_RING 8u
_Static_assert(XU_MODEL_RING >= XU_MODEL_DEPTH, "request ring too small");
/* Beat timing (see "Timing" above): the RTL issues beats from its page walker
 * into a read stage and an output FIFO; a beat issued in cycle t is shown from
 * t + XM_ISSUE_TO_SHOW, and the walker issues only while the beats in the read
 * stage and the FIFO number fewer than XM_CREDITS. */
#define XM_ISSUE_TO_SHOW 2u
#define XM_CREDITS 4u
/** Cycles lost after a walk ends on an absent MTT entry with pages still to go:
 *  the walker learns of the absence a cycle after issuing the page and spends
 *  that cycle aborting. */
#define XM_ABORT_BUBBLE 1u
_Static_assert((XU_MODEL_RING & (XU_MODEL_RING - 1)) == 0, "request ring not a power of two");
_Static_assert((XM_CREDITS & (XM_CREDITS - 1)) == 0, "XM_CREDITS not a power of two");

#define XM_PD_MASK ((1u << HCA_PD_BITS) - 1u)
#define XM_REMOTE_ANY (HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)
#define XM_STATE_BIT (1u << HCA_MPT_ENTRY_STATE_LSB)

/** One accepted request: its current beat and what the next beat needs. */
typedef struct xm_req {
    uint64_t ready;     /**< first cycle the current beat may be shown (first beat:
                             until it is the head, accept cycle + HCA_XU_LATENCY) */
    uint64_t pa;        /**< current beat */
    uint32_t len;       /**< current beat */
    uint8_t status;     /**< current beat */
    uint8_t last;       /**< current beat */
    uint8_t tag;        /**< the request's tag */
    uint8_t ps;         /**< page shift of the MR (MTT walk) */
    uint8_t abort;      /**< current beat: ERR_MTT from an absent entry before the last page */
    uint32_t remaining; /**< bytes after the current beat (MTT walk) */
    uint32_t mtt_base;  /**< of the MR, as checked */
    uint32_t mtt_count; /**< of the MR, as checked */
    uint64_t page;      /**< page index of the current beat within the MR */
} xm_req_t;

typedef struct xu_model {
    uint32_t mpt_entries, mtt_entries;
    uint32_t mpt_log2, mtt_log2;
    hca_mpt_entry_t *mpt; /**< entry storage; flags bit alloc is not used: see alloc */
    uint64_t *mtt;        /**< entry storage; bit present is not used: see present */
    uint64_t *alloc;      /**< MPT allocated bitmap (rule 1), cleared by reset */
    uint64_t *present;    /**< MTT present bitmap, cleared by reset */

    xm_req_t ring[XU_MODEL_RING];
    unsigned head, count;
    uint64_t prev_ready;          /**< ready of the last beat handed over */
    uint8_t prev_abort;           /**< that beat ended its walk on an absent entry */
    unsigned hs_i;                /**< oldest of hs[] */
    uint64_t hs[XM_CREDITS];      /**< cycles of the last XM_CREDITS beat handshakes */
    uint64_t accepted, finished; /**< requests since reset */

    /* firmware port */
    uint32_t stage_mpt[HCA_FWP_MPT_DATA_COUNT];
    uint32_t stage_mtt[HCA_FWP_MTT_DATA_COUNT];
    uint32_t cmd;          /**< last CMD written (read back as written) */
    uint8_t busy;          /**< an INVALIDATE or FENCE waits */
    uint8_t result;        /**< STATUS.result of the last completed command */
    uint64_t fence_target; /**< busy until finished >= this */
    uint8_t rvalid;        /**< answer of the access accepted last cycle */
    uint32_t rdata;
} xu_model_t;

static inline int xm_bit(const uint64_t *bm, uint64_t i) { return (int)((bm[i >> 6] >> (i & 63)) & 1u); }

static inline void xm_set_bit(uint64_t *bm, uint64_t i, int v)
{
    uint64_t m = (uint64_t)1 << (i & 63);
    bm[i >> 6] = v ? (bm[i >> 6] | m) : (bm[i >> 6] & ~m);
}

static unsigned xm_log2(uint32_t v) { return (unsigned)__builtin_ctz(v); }

static int xm_size_ok(uint32_t v) { return v >= 2 && v <= (1u << 24) && (v & (v - 1)) == 0; }

/** True when [va, va+len) goes past 2^64 (written so it cannot overflow). */
static inline int xm_wraps(uint64_t va, uint32_t len) { return len != 0 && va + (uint64_t)(len - 1) < va; }

/** Make r's current beat the one at page `page`, offset `off` within it:
 *  an ERR_MTT beat when the page is outside the MR's page list, outside the
 *  MTT or absent, else a segment up to the end of the page or the request. */
static inline void xm_page_beat(const xu_model_t *m, xm_req_t *r, uint64_t page, uint64_t off)
{
    const uint64_t mi = (uint64_t)r->mtt_base + page;
    const uint64_t room = ((uint64_t)1 << r->ps) - off;
    r->page = page;
    if (page >= r->mtt_count || mi >= m->mtt_entries) {
        r->status = HCA_XLATE_STATUS_ERR_MTT;
        r->pa = 0;
        r->len = 0;
        r->last = 1;
        r->remaining = 0;
        return;
    }
    if (!xm_bit(m->present, mi)) {
        /* found only once the entry is read: the RTL has already started the
         * next page, which costs a cycle (see XM_ABORT_BUBBLE) */
        r->abort = r->remaining > room;
        r->status = HCA_XLATE_STATUS_ERR_MTT;
        r->pa = 0;
        r->len = 0;
        r->last = 1;
        r->remaining = 0;
        return;
    }
    uint32_t len = (uint64_t)r->remaining < room ? r->remaining : (uint32_t)room;
    r->status = HCA_XLATE_STATUS_OK;
    r->pa = (m->mtt[mi] & ~(uint64_t)0xfff) + off; /* (pfn << 12) + off */
    r->len = len;
    r->remaining -= len;
    r->last = r->remaining == 0;
}

/** The key check, SEMANTICS.md "The key check" rules 1-6 then mode, and the
 *  first beat of the translation. Fills r's current beat and walk state. */
static void xm_check(const xu_model_t *m, const xu_pins_t *p, xm_req_t *r)
{
    const uint32_t key = p->req_key;
    const uint64_t va = p->req_va;
    const uint32_t len = p->req_len;
    const unsigned rights = p->req_rights & HCA_ACCESS_ALL;
    const unsigned remote = p->req_remote & 1u;

    r->pa = 0;
    r->len = 0;
    r->last = 1;
    r->remaining = 0;
    r->abort = 0;

    if (key == HCA_RESERVED_LKEY) { /* no MPT access, every PD, no translation */
        if (remote)
            r->status = HCA_XLATE_STATUS_ERR_KEY; /* no R_Key */
        else if (rights & ~HCA_ACCESS_LOCAL_WRITE)
            r->status = HCA_XLATE_STATUS_ERR_RIGHTS;
        else if (xm_wraps(va, len))
            r->status = HCA_XLATE_STATUS_ERR_BOUNDS;
        else {
            r->status = HCA_XLATE_STATUS_OK;
            if (len) {
                r->pa = va;
                r->len = len;
            }
        }
        return;
    }

    const uint32_t idx = key >> HCA_KEY_INDEX_SHIFT;
    /* rule 1: the slot is allocated (index 0 never is a valid MR) */
    if (idx == 0 || idx >= m->mpt_entries || !xm_bit(m->alloc, idx)) {
        r->status = HCA_XLATE_STATUS_ERR_SLOT;
        return;
    }
    const hca_mpt_entry_t *e = &m->mpt[idx];
    const unsigned kind = hca_mpt_entry_get_kind(e);
    const unsigned access = hca_mpt_entry_get_access(e);
    /* rule 2: full key; a remote access needs an R_Key (DMA MRs have none) */
    if (e->key != key || (remote && (kind == HCA_MKEY_KIND_DMA || !(access & XM_REMOTE_ANY)))) {
        r->status = HCA_XLATE_STATUS_ERR_KEY;
        return;
    }
    /* rule 3: state */
    if (hca_mpt_entry_get_state(e) != HCA_MKEY_STATE_VALID) {
        r->status = HCA_XLATE_STATUS_ERR_STATE;
        return;
    }
    /* rule 4: PD (only the reserved L_Key is exempt) */
    if ((e->pd ^ p->req_pd) & XM_PD_MASK) {
        r->status = HCA_XLATE_STATUS_ERR_PD;
        return;
    }
    /* rule 5: rights */
    if (rights & ~access) {
        r->status = HCA_XLATE_STATUS_ERR_RIGHTS;
        return;
    }
    /* rule 6: bounds, written so nothing overflows; DMA MRs only must not wrap 2^64 */
    if (kind == HCA_MKEY_KIND_DMA ? xm_wraps(va, len)
                                  : !(va >= e->iova && len <= e->length && va - e->iova <= e->length - len)) {
        r->status = HCA_XLATE_STATUS_ERR_BOUNDS;
        return;
    }
    if (hca_mpt_entry_get_mode(e) == HCA_MKEY_MODE_KLM) {
        r->status = HCA_XLATE_STATUS_ERR_MODE;
        return;
    }
    r->status = HCA_XLATE_STATUS_OK;
    if (len == 0) /* zero length: one OK beat, pa = len = 0 */
        return;
    if (kind == HCA_MKEY_KIND_DMA) { /* bus addresses: one beat, no split */
        r->pa = va;
        r->len = len;
        return;
    }
    const unsigned ps = hca_mpt_entry_get_page_shift(e);
    if (ps < HCA_PAGE_SHIFT_MIN || ps > HCA_PAGE_SHIFT_MAX) {
        r->status = HCA_XLATE_STATUS_ERR_MTT;
        return;
    }
    const uint64_t mask = ((uint64_t)1 << ps) - 1;
    /* rel = fbo + (va - iova) = va - (iova rounded down to its page): va >= iova
     * (rule 6), so it cannot wrap */
    const uint64_t rel = va - (e->iova & ~mask);
    r->ps = (uint8_t)ps;
    r->mtt_base = e->mtt_base;
    r->mtt_count = e->mtt_count;
    r->remaining = len;
    xm_page_beat(m, r, rel >> ps, rel & mask);
}

/** When r's current beat, next in line to be shown, may be shown at the
 *  earliest: not before `first` (its request's accept cycle + latency), one
 *  cycle after the beat before it (two after an aborted walk), and not before
 *  the RTL's walker would have had a credit to issue it. */
static inline void xm_beat_ready(xu_model_t *m, xm_req_t *r, uint64_t first)
{
    uint64_t t = m->prev_ready + 1 + (m->prev_abort ? XM_ABORT_BUBBLE : 0);
    const uint64_t credit = m->hs[m->hs_i] + 1 + XM_ISSUE_TO_SHOW;
    if (t < first)
        t = first;
    if (t < credit)
        t = credit;
    r->ready = t;
}

/* ---------------------------------------------------------------- firmware port */

static void xm_cmd(xu_model_t *m, uint32_t v)
{
    const unsigned op = HCA_FWP_CMD_OP_GET(v);
    const uint32_t idx = HCA_FWP_CMD_INDEX_GET(v);
    uint8_t res = HCA_FWP_RESULT_OK;

    m->cmd = v;
    if (m->busy) { /* dropped; the running command completes as it would */
        m->result = HCA_FWP_RESULT_BUSY;
        return;
    }
    switch (op) {
    case HCA_FWP_OP_NOP:
        break;
    case HCA_FWP_OP_WRITE_MPT:
    case HCA_FWP_OP_READ_MPT:
    case HCA_FWP_OP_INVALIDATE:
        if (idx >= m->mpt_entries) {
            res = HCA_FWP_RESULT_BAD_INDEX;
            break;
        }
        hca_mpt_entry_t *e = &m->mpt[idx];
        if (op == HCA_FWP_OP_WRITE_MPT) {
            const uint32_t *w = m->stage_mpt;
            e->flags = w[0];
            e->key = w[1];
            e->pd = w[2];
            e->mtt_base = w[3];
            e->iova = (uint64_t)w[4] | (uint64_t)w[5] << 32;
            e->length = (uint64_t)w[6] | (uint64_t)w[7] << 32;
            e->mtt_count = w[8];
            e->reserved = w[9];
            xm_set_bit(m->alloc, idx, (int)(w[0] & 1u));
        } else if (op == HCA_FWP_OP_READ_MPT) {
            uint32_t *w = m->stage_mpt;
            w[0] = (e->flags & ~1u) | (uint32_t)xm_bit(m->alloc, idx);
            w[1] = e->key;
            w[2] = e->pd;
            w[3] = e->mtt_base;
            w[4] = (uint32_t)e->iova;
            w[5] = (uint32_t)(e->iova >> 32);
            w[6] = (uint32_t)e->length;
            w[7] = (uint32_t)(e->length >> 32);
            w[8] = e->mtt_count;
            w[9] = e->reserved;
        } else { /* INVALIDATE: state <- FREE, the rest kept; then the fence */
            e->flags &= ~XM_STATE_BIT;
            m->busy = 1;
            m->fence_target = m->accepted;
        }
        break;
    case HCA_FWP_OP_WRITE_MTT:
    case HCA_FWP_OP_READ_MTT:
        if (idx >= m->mtt_entries) {
            res = HCA_FWP_RESULT_BAD_INDEX;
            break;
        }
        if (op == HCA_FWP_OP_WRITE_MTT) {
            m->mtt[idx] = (uint64_t)m->stage_mtt[0] | (uint64_t)m->stage_mtt[1] << 32;
            xm_set_bit(m->present, idx, (int)(m->stage_mtt[0] & 1u));
        } else {
            m->stage_mtt[0] = ((uint32_t)m->mtt[idx] & ~1u) | (uint32_t)xm_bit(m->present, idx);
            m->stage_mtt[1] = (uint32_t)(m->mtt[idx] >> 32);
        }
        break;
    case HCA_FWP_OP_FENCE:
        m->busy = 1;
        m->fence_target = m->accepted;
        break;
    default:
        res = HCA_FWP_RESULT_BAD_OP;
        break;
    }
    if (!m->busy)
        m->result = res;
}

static uint32_t xm_fw_read(const xu_model_t *m, uint16_t a)
{
    if (a < HCA_FWP_MPT_DATA + 4 * HCA_FWP_MPT_DATA_COUNT)
        return m->stage_mpt[(a - HCA_FWP_MPT_DATA) >> 2];
    if (a >= HCA_FWP_MTT_DATA && a < HCA_FWP_MTT_DATA + 4 * HCA_FWP_MTT_DATA_COUNT)
        return m->stage_mtt[(a - HCA_FWP_MTT_DATA) >> 2];
    switch (a) {
    case HCA_FWP_CMD:
        return m->cmd;
    case HCA_FWP_STATUS:
        return HCA_FWP_STATUS_BUSY_PUT(m->busy) | HCA_FWP_STATUS_RESULT_PUT(m->result);
    case HCA_FWP_INFLIGHT:
        return (uint32_t)(m->accepted - m->finished);
    case HCA_FWP_SIZES:
        return HCA_FWP_SIZES_MPT_LOG2_PUT(m->mpt_log2) | HCA_FWP_SIZES_MTT_LOG2_PUT(m->mtt_log2);
    default:
        return 0;
    }
}

static void xm_fw_write(xu_model_t *m, uint16_t a, uint32_t v)
{
    if (a < HCA_FWP_MPT_DATA + 4 * HCA_FWP_MPT_DATA_COUNT)
        m->stage_mpt[(a - HCA_FWP_MPT_DATA) >> 2] = v;
    else if (a >= HCA_FWP_MTT_DATA && a < HCA_FWP_MTT_DATA + 4 * HCA_FWP_MTT_DATA_COUNT)
        m->stage_mtt[(a - HCA_FWP_MTT_DATA) >> 2] = v;
    else if (a == HCA_FWP_CMD)
        xm_cmd(m, v);
    /* read-only and unmapped offsets ignore writes */
}

/* ---------------------------------------------------------------- engine ops */

static void xm_reset(void *eng)
{
    xu_model_t *m = eng;
    memset(m->alloc, 0, ((m->mpt_entries + 63) / 64) * sizeof(uint64_t));
    memset(m->present, 0, ((m->mtt_entries + 63) / 64) * sizeof(uint64_t));
    m->head = m->count = 0;
    m->prev_ready = 0;
    m->prev_abort = 0;
    m->hs_i = 0;
    memset(m->hs, 0, sizeof m->hs);
    m->accepted = m->finished = 0;
    memset(m->stage_mpt, 0, sizeof m->stage_mpt);
    memset(m->stage_mtt, 0, sizeof m->stage_mtt);
    m->cmd = 0;
    m->busy = 0;
    m->result = HCA_FWP_RESULT_OK;
    m->fence_target = 0;
    m->rvalid = 0;
    m->rdata = 0;
}

static void xm_destroy(void *eng)
{
    xu_model_t *m = eng;
    if (!m)
        return;
    free(m->mpt);
    free(m->mtt);
    free(m->alloc);
    free(m->present);
    free(m);
}

static int xm_create(void **eng, const xu_params_t *params)
{
    if (!eng || !params)
        return -EINVAL;
    if (!xm_size_ok(params->mpt_entries) || !xm_size_ok(params->mtt_entries))
        return -EINVAL;
    xu_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->mpt_entries = params->mpt_entries;
    m->mtt_entries = params->mtt_entries;
    m->mpt_log2 = xm_log2(m->mpt_entries);
    m->mtt_log2 = xm_log2(m->mtt_entries);
    m->mpt = calloc(m->mpt_entries, sizeof *m->mpt);
    m->mtt = calloc(m->mtt_entries, sizeof *m->mtt);
    m->alloc = calloc((m->mpt_entries + 63) / 64, sizeof(uint64_t));
    m->present = calloc((m->mtt_entries + 63) / 64, sizeof(uint64_t));
    if (!m->mpt || !m->mtt || !m->alloc || !m->present) {
        xm_destroy(m);
        return -ENOMEM;
    }
    xm_reset(m);
    *eng = m;
    return 0;
}

static void xm_cycle(void *eng, xu_pins_t *p, uint64_t now)
{
    xu_model_t *m = eng;

    /* outputs of this cycle, from the state at its start */
    const int req_ready = m->count < XU_MODEL_DEPTH;
    xm_req_t *h = &m->ring[m->head];
    const int rsp_valid = m->count != 0 && h->ready <= now;
    p->req_ready = (uint8_t)req_ready;
    p->rsp_valid = (uint8_t)rsp_valid;
    if (rsp_valid) {
        p->rsp_tag = h->tag;
        p->rsp_status = h->status;
        p->rsp_last = h->last;
        p->rsp_len = h->len;
        p->rsp_pa = h->pa;
    }
    p->fw_ready = 1;
    p->fw_rvalid = m->rvalid;
    p->fw_rdata = m->rdata;

    /* the edge ending the cycle */
    m->rvalid = 0;
    m->rdata = 0;
    if (rsp_valid && p->rsp_ready) {
        m->prev_ready = h->ready;
        m->prev_abort = h->abort;
        m->hs[m->hs_i] = now;
        m->hs_i = (m->hs_i + 1) & (XM_CREDITS - 1);
        if (h->last) {
            m->head = (m->head + 1) & (XU_MODEL_RING - 1);
            m->count--;
            m->finished++;
            if (m->count) { /* the next request's first beat is next in line */
                xm_req_t *n = &m->ring[m->head];
                xm_beat_ready(m, n, n->ready);
            }
        } else { /* next page of the walk, offset 0 */
            xm_page_beat(m, h, h->page + 1, 0);
            xm_beat_ready(m, h, 0);
        }
    }
    if (req_ready && p->req_valid) {
        xm_req_t *r = &m->ring[(m->head + m->count) & (XU_MODEL_RING - 1)];
        r->tag = p->req_tag;
        xm_check(m, p, r);
        if (m->count)
            r->ready = now + HCA_XU_LATENCY; /* the rest when it is the head */
        else
            xm_beat_ready(m, r, now + HCA_XU_LATENCY);
        m->count++;
        m->accepted++;
    }
    if (p->fw_valid) { /* after the request: a request of this cycle saw the old tables */
        m->rvalid = 1;
        if (p->fw_write)
            xm_fw_write(m, p->fw_addr, p->fw_wdata);
        else
            m->rdata = xm_fw_read(m, p->fw_addr);
    }
    if (m->busy && m->finished >= m->fence_target) {
        m->busy = 0;
        m->result = HCA_FWP_RESULT_OK;
    }
}

static int xm_trace_open(void *eng, const char *path)
{
    (void)eng;
    (void)path;
    return -ENOTSUP; /* the model has no waves */
}

static void xm_trace_close(void *eng) { (void)eng; }

const xu_engine_ops_t xu_model_ops = {
    .name = "model",
    .create = xm_create,
    .destroy = xm_destroy,
    .reset = xm_reset,
    .cycle = xm_cycle,
    .trace_open = xm_trace_open,
    .trace_close = xm_trace_close,
};
