/* xu_model.c — the C model of the translation unit (key checker + MPT + MTT).
 *
 * The twin of rtl/xlate_unit.sv behind the same pins (sim/iface/xu_engine.h), at
 * the level of requests and beats rather than signals: the key check is one
 * function run on the request handshake, beats are values, the tables are
 * arrays. Plain C11, a few branches per cycle.
 *
 * Function. On the request handshake in cycle c the key check (SEMANTICS.md
 * "The key check", rules 1-6, then the mode) runs against the MPT as it is in
 * cycle c and decides the request: one beat (a failed check, zero length, the
 * reserved L_Key, a DMA MR) or a page walk. A walk produces one beat per page
 * touched, each from one MTT read when the beat is issued, so a request of any
 * length costs O(1) memory.
 *
 * Timing: the beats move through the same four places as in the RTL, with
 * the same rules, so the model gives every beat and every acceptance in the
 * cycle the RTL does (test_xu's XuDiff.TimingRtlVsModel checks this with and
 * without back-pressure):
 *   S1      the request accepted in cycle c waits here from c+1 until the
 *           walker takes it; req_ready is low while S1 is full and the walker
 *           cannot take it this cycle;
 *   walker  holds one request and issues its beats, one per cycle, while the
 *           beats issued and not handed over number fewer than XM_CREDITS
 *           (the RTL's read stage + 4-deep output FIFO); it takes the next
 *           request in the cycle it issues the last beat. A walk that meets an
 *           absent MTT entry before its last page learns it a cycle later in
 *           the RTL (the entry is read in the next stage) and spends that
 *           cycle aborting: no beat, next request a cycle later;
 *   queue   beats issued and not handed over, at most XM_CREDITS; a beat
 *           issued in cycle t is shown from t + XM_ISSUE_TO_SHOW (read stage,
 *           then FIFO) and held until rsp_ready.
 * Uncontended: handshake in c, first beat in c + 4 = HCA_XU_LATENCY, then one
 * per cycle; single-beat requests at one per cycle. Buffering is bounded: one
 * request in S1, one in the walker, XM_CREDITS beats.
 *
 * KLM (indirect) MRs, SEMANTICS.md rule 7: rtl/xu_klm.sv register for
 * register (xk_step, state XK_*, per-level context k_ctx), because its pieces
 * re-enter S1 through the MPT read port in the cycle the RTL sends them and
 * read the MPT and MTT as they are in that cycle. A check that passes on a
 * KLM-mode MR marks the request push; S1 hands it to the KLM walker (or, one
 * level beyond CONFIG.max_indirection, makes it an ERR_DEPTH beat); the
 * walker's beats carry final/klm so that last is set only on the walk's end,
 * and s3_ev is what the RTL's S3 tells xu_klm a cycle after each issue (the
 * walk's last beat: pieces sent behind it, in S1 or in the walker, are
 * dropped in that cycle). The KLM walker reads MTT words in the cycles the
 * walker does not read a page (xm_walk_t.mtt) and sends the next entry's
 * piece into S1 when S1 is empty or its piece goes to the walker that cycle.
 * req_ready is low while a walk runs or S1 holds an access that starts one.
 *
 * Firmware port (regs fwp): every access is accepted at once (fw_ready = 1)
 * and answered with fw_rvalid in the next cycle. A command written in cycle c
 * changes the tables at the edge ending cycle c: a request accepted in cycle c
 * has already been checked against the old entry (the request handshake is
 * judged before the firmware access in the same cycle), except INVALIDATE,
 * whose entry goes FREE at the edge ending c + 1 (the RTL's ST_INV_WB writes
 * it back: a request accepted in c + 1 still reads the old entry). FENCE
 * then stays busy until every request accepted up to and including cycle c
 * has handed over its last beat, INVALIDATE until every one accepted up to
 * c + 1 (xu_fw_port inflight_d counts ST_INV_WB's accepts); requests finish in acceptance order, so one
 * counter pair (accepted, finished) is the whole fence. An MTT entry rewritten
 * while a walk that uses it is under way is read as it is when its beat is
 * issued (as in the RTL); firmware fences before it rewrites a page list.
 *
 * Tables: any power-of-two sizes in [2, 2^24]. Reset clears the MPT allocated
 * bitmap and the MTT present bitmap only; entry storage keeps its data (as the
 * RTL's RAMs), which READ_MPT/READ_MTT may show with alloc/present = 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xlate_unit.h"

/** Beats issued and not yet handed over, at most (the RTL's read stage + output FIFO). */
#define XM_CREDITS 4u
/** Cycles from a beat's issue to the first cycle it is shown. */
#define XM_ISSUE_TO_SHOW 2u
_Static_assert(HCA_XU_LATENCY == 2 + XM_ISSUE_TO_SHOW, "handshake -> S1 -> walker -> shown");
_Static_assert((XM_CREDITS & (XM_CREDITS - 1)) == 0, "XM_CREDITS not a power of two");

#define XM_PD_MASK ((1u << HCA_PD_BITS) - 1u)
#define XM_REMOTE_ANY (HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)
#define XM_STATE_BIT (1u << HCA_MPT_ENTRY_STATE_LSB)
/* Which keys the mutant HCA_MUTANT_RESP/REQ_NO_RECHECK trusts (see xm_check). */
#if defined(HCA_MUTANT_RESP_NO_RECHECK)
#define XM_MUTANT_TRUST_REMOTE 1u
#elif defined(HCA_MUTANT_REQ_NO_RECHECK)
#define XM_MUTANT_TRUST_REMOTE 0u
#endif

/** A checked request: in S1 or in the walker. */
typedef struct xm_req {
    uint8_t tag;
    uint8_t status;     /**< of the check; OK for a walk */
    uint8_t walk;       /**< 1: an MTT walk; 0: the single beat {status, pa, len} */
    uint8_t ps;         /**< walk: page shift */
    uint32_t len;       /**< single beat: its length; walk: bytes not yet issued */
    uint64_t pa;        /**< single beat: its address */
    uint64_t page;      /**< walk: page of the MR of the next beat */
    uint64_t off;       /**< walk: offset of the next beat in its page */
    uint32_t mtt_base;  /**< walk, push: of the MR, as checked */
    uint32_t mtt_count; /**< walk, push: of the MR, as checked */
    uint8_t final;      /**< its last beat ends the outer request (1 unless a non-final KLM piece) */
    uint8_t klm;        /**< a piece of a KLM walk (RTL s1_sub_q) */
    uint8_t push;       /**< passed rules 1-6 on a KLM-mode MR: starts a KLM level (or ERR_DEPTH) */
    uint8_t lvl;        /**< level of the MR a piece came from; 0 for an external request */
    uint8_t erights;    /**< push: the rights every entry check needs (rule 7) */
    uint32_t pd;        /**< push: the request's PD */
    uint64_t koff;      /**< push: va - iova */
} xm_req_t;

/** A request as presented to the key check (external pins or a KLM piece). */
typedef struct xm_in {
    uint32_t key, pd, len;
    uint64_t va;
    uint8_t tag, rights, remote;
} xm_in_t;

/** KLM walker states (rtl/xu_klm.sv state_e). */
enum { XK_IDLE, XK_ENT, XK_WAIT, XK_NEXT, XK_ERR };
/** Per-level contexts (rtl/xu_klm.sv CTX_N: a power of two, indexed modulo it). */
#define XK_CTX_N (HCA_MAX_INDIRECTION <= 1 ? 1u : HCA_MAX_INDIRECTION <= 2 ? 2u : HCA_MAX_INDIRECTION <= 4 ? 4u : 8u)
_Static_assert(HCA_MAX_INDIRECTION <= 8, "XK_CTX_N");
/** What S3 tells the KLM walker about the beat issued last cycle. */
enum { XK_EV_NONE, XK_EV_WALK_END };

/** One level of a KLM walk (rtl/xu_klm.sv per-level context). */
typedef struct xm_klm_ctx {
    uint32_t base, cnt, idx, rem;
    uint8_t tail;
} xm_klm_ctx_t;

/** A beat issued by the walker and not yet handed over. */
typedef struct xm_beat {
    uint64_t pa;
    uint64_t show; /**< first cycle it may be shown */
    uint32_t len;
    uint8_t tag, status, last;
} xm_beat_t;

struct xu_model {
    uint32_t mpt_entries, mtt_entries;
    uint32_t mpt_log2, mtt_log2;
    hca_mpt_entry_t *mpt; /**< entry storage; flags bit alloc is not used: see alloc */
    uint64_t *mtt;        /**< entry storage; bit present is not used: see present */
    uint64_t *alloc;      /**< MPT allocated bitmap (rule 1), cleared by reset */
    uint64_t *present;    /**< MTT present bitmap, cleared by reset */

    xm_req_t s1;       /**< accepted, waiting for the walker */
    xm_req_t wk;       /**< in the walker */
    uint8_t s1_valid;  /**< s1 holds a request */
    uint8_t wk_busy;   /**< wk holds a request with beats to issue */
    uint8_t wk_abort;  /**< this cycle the walker aborts (absent entry issued last cycle) */
    unsigned q_head, q_count;
    xm_beat_t q[XM_CREDITS]; /**< issued, not handed over; oldest at q_head */
    uint64_t accepted, finished; /**< requests since reset */

    /* KLM walker (rtl/xu_klm.sv), register for register */
    uint8_t k_state, k_lvl;
    uint8_t k_tag, k_rights;
    uint32_t k_pd;
    uint64_t k_off;
    uint64_t k_lst[2]; /**< the entry read last on the list port: {addr, length | lkey << 32} */
    xm_klm_ctx_t k_ctx[XK_CTX_N];
    uint8_t s3_ev;     /**< XK_EV_*: S3's news for the KLM walker this cycle */
    uint8_t max_ind;   /**< fwp CONFIG.max_indirection */

    /* firmware port */
    uint32_t stage_mpt[HCA_FWP_MPT_DATA_COUNT];
    uint32_t stage_mtt[HCA_FWP_MTT_DATA_COUNT];
    uint32_t cmd;          /**< last CMD written (read back as written) */
    uint8_t busy;          /**< an INVALIDATE or FENCE waits */
    uint8_t inv_wb;        /**< an INVALIDATE was written at the last edge: the RTL's ST_INV_WB, not yet its fence */
    uint32_t inv_idx;      /**< its entry, written back FREE at the next edge (a request accepted then saw it VALID) */
    uint8_t result;        /**< STATUS.result of the last completed command */
    uint64_t fence_target; /**< busy until finished >= this */
    uint8_t fr_wb;         /**< a FAST_REG was written at the last edge: the RTL's ST_FR_WB, its writes at the next */
    uint32_t fr_slot;      /**< its registration bank slot */
    /* the registration bank (xu_fw_port bank_q, bank_ok_q): what each slot's popped event registers */
    struct {
        uint32_t flags, key;
        uint64_t iova, length, page;
    } bank[HCA_EVT_QUEUE_DEPTH];
    uint8_t bank_ok[HCA_EVT_QUEUE_DEPTH]; /**< the slot's event is a FAST_REG_MR with wqe_ok (reset) */
#ifdef XM_MUTANT_TRUST_REMOTE
    uint8_t mut_trust;     /**< mutant: mut_key passed once, trusted after */
    uint32_t mut_key;
#endif
    uint8_t rvalid;        /**< answer of the access accepted last cycle */
    uint32_t rdata;
};

static inline int xm_bit(const uint64_t *bm, uint64_t i) { return (int)((bm[i >> 6] >> (i & 63)) & 1u); }

static inline void xm_set_bit(uint64_t *bm, uint64_t i, int v)
{
    uint64_t m = (uint64_t)1 << (i & 63);
    bm[i >> 6] = v ? (bm[i >> 6] | m) : (bm[i >> 6] & ~m);
}

static unsigned xm_log2(uint32_t v) { return (unsigned)__builtin_ctz(v); }


/** True when [va, va+len) goes past 2^64 (written so it cannot overflow). */
static inline int xm_wraps(uint64_t va, uint32_t len) { return len != 0 && va + (uint64_t)(len - 1) < va; }

/** The beat the walker issues for r this cycle (one MTT read for a walk).
 *  *done: the walker is done with r after it; *abort: r's walk met an absent
 *  entry before its last page, which the walker acts on next cycle; *end: the
 *  RTL's iss_end (r's own last beat, absent or not). b->last is the outer
 *  request's last beat: r's end when r is final, or any error beat. */
static inline void xm_issue(const xu_model_t *m, const xm_req_t *r, xm_beat_t *b, int *done, int *abort, int *end)
{
    b->tag = r->tag;
    *abort = 0;
    *end = 1;
    if (!r->walk) {
        b->status = r->status;
        b->pa = r->pa;
        b->len = r->len;
        b->last = (uint8_t)(r->final || r->status != HCA_XLATE_STATUS_OK);
        *done = 1;
        return;
    }
    const uint64_t mi = (uint64_t)r->mtt_base + r->page;
    const uint64_t room = ((uint64_t)1 << r->ps) - r->off;
    const int seg_last = r->len <= room;
    *done = 1;
    b->status = HCA_XLATE_STATUS_ERR_MTT; /* ends the request: pa = len = 0 */
    b->pa = 0;
    b->len = 0;
    b->last = 1;
    if (r->page >= r->mtt_count || mi >= m->mtt_entries) /* beyond the page list or the MTT */
        return;
    *end = seg_last;
    if (!xm_bit(m->present, mi)) { /* absent: seen a cycle later */
        *done = seg_last;
        *abort = !seg_last;
        return;
    }
    b->status = HCA_XLATE_STATUS_OK;
    b->pa = (m->mtt[mi] & ~(uint64_t)0xfff) + r->off; /* (pfn << 12) + off */
    b->len = seg_last ? r->len : (uint32_t)room;
    b->last = (uint8_t)(seg_last && r->final);
    *done = seg_last;
}

#ifdef HCA_MUTANT_KLM_NO_ENTRY_CHECK
/* The mutant the KLM tests must catch (testbench/test_klm_mutant.cc): the
 * walker skips rules 2-5 (key, state, PD, rights) on its entries. */
static int xm_mutant_piece;
#define XM_ENTRY_RULES (!xm_mutant_piece)
#else
#define XM_ENTRY_RULES 1
#endif

/* The mutants of xlate_unit.sv (build/mutants/ only, docs/mutation.md).
 * HCA_MUTANT_RESP_NO_RECHECK / HCA_MUTANT_REQ_NO_RECHECK: the last external
 * remote / local key that passed the check passes rule 3 ever after (a client
 * that checked a key on its first packet or chunk and not again);
 * XM_MUTANT_TRUST_REMOTE, defined at the top, says which. */
#ifdef XM_MUTANT_TRUST_REMOTE
static int xm_mutant_trusted;
#define XM_STATE_RULE (!xm_mutant_trusted)
#else
#define XM_STATE_RULE 1
#endif

/** The key check, SEMANTICS.md "The key check" rules 1-6 then mode: decides
 *  r as one beat {status, pa, len}, a walk from its first page, or a KLM
 *  level to start (push). Marks r as an external request (final, level 0). */
static void xm_check(const xu_model_t *m, const xm_in_t *p, xm_req_t *r)
{
    const uint32_t key = p->key;
    const uint64_t va = p->va;
    const uint32_t len = p->len;
    const unsigned rights = p->rights & HCA_ACCESS_ALL;
    const unsigned remote = p->remote & 1u;

    r->tag = p->tag;
    r->walk = 0;
    r->pa = 0;
    r->len = 0;
    r->final = 1;
    r->klm = 0;
    r->push = 0;
    r->lvl = 0;

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
    if (XM_ENTRY_RULES && (e->key != key || (remote && (kind == HCA_MKEY_KIND_DMA || !(access & XM_REMOTE_ANY))))) {
        r->status = HCA_XLATE_STATUS_ERR_KEY;
        return;
    }
    /* rule 3: state */
    if (XM_ENTRY_RULES && XM_STATE_RULE && hca_mpt_entry_get_state(e) != HCA_MKEY_STATE_VALID) {
        r->status = HCA_XLATE_STATUS_ERR_STATE;
        return;
    }
    /* rule 4: PD (only the reserved L_Key is exempt) */
    if (XM_ENTRY_RULES && (e->pd ^ p->pd) & XM_PD_MASK) {
        r->status = HCA_XLATE_STATUS_ERR_PD;
        return;
    }
    /* rule 5: rights */
    if (XM_ENTRY_RULES && (rights & ~access)) {
        r->status = HCA_XLATE_STATUS_ERR_RIGHTS;
        return;
    }
    /* rule 6: bounds, written so nothing overflows; DMA MRs only must not wrap 2^64 */
    if (kind == HCA_MKEY_KIND_DMA ? xm_wraps(va, len)
                                  : !(va >= e->iova && len <= e->length && va - e->iova <= e->length - len)) {
        r->status = HCA_XLATE_STATUS_ERR_BOUNDS;
        return;
    }
    const int klm = hca_mpt_entry_get_mode(e) == HCA_MKEY_MODE_KLM;
    if (klm && kind == HCA_MKEY_KIND_DMA) { /* no range to map onto a KLM list */
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
    if (klm) { /* rule 7: the entries, by the KLM walker */
        r->push = 1;
        r->len = len;
        r->koff = va - e->iova;
        r->mtt_base = e->mtt_base;
        r->mtt_count = e->mtt_count;
        r->pd = p->pd & XM_PD_MASK;
        r->erights = (uint8_t)((rights & (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC))
                                   ? HCA_ACCESS_LOCAL_WRITE
                                   : 0);
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
    r->walk = 1;
    r->ps = (uint8_t)ps;
    r->len = len;
    r->page = rel >> ps;
    r->off = rel & mask;
    r->mtt_base = e->mtt_base;
    r->mtt_count = e->mtt_count;
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
            /* The staging words are the entry's bytes (little-endian ABI layout). */
            memcpy(e, m->stage_mpt, sizeof *e);
            xm_set_bit(m->alloc, idx, (int)(m->stage_mpt[0] & 1u));
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
        } else { /* INVALIDATE: state <- FREE at the next edge (xlate_unit_step), the rest kept; then the fence */
            m->busy = 1;
            m->inv_wb = 1;
            m->inv_idx = idx;
            m->fence_target = UINT64_MAX; /* set with the write-back */
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
    case HCA_FWP_OP_FAST_REG: /* the MPT entry read now, both tables written at the next edge (xm_fr_wb) */
        if (idx >= HCA_EVT_QUEUE_DEPTH)
            res = HCA_FWP_RESULT_BAD_INDEX;
        else if (!m->bank_ok[idx])
            res = HCA_FWP_RESULT_BAD_OP;
        else if (m->bank[idx].key >> HCA_KEY_INDEX_SHIFT >= m->mpt_entries)
            res = HCA_FWP_RESULT_BAD_INDEX;
        else {
            m->busy = 1;
            m->fr_wb = 1;
            m->fr_slot = idx;
        }
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
    case HCA_FWP_CONFIG:
        return HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(m->max_ind);
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
    else if (a == HCA_FWP_CONFIG) { /* a value outside 1..MAX_INDIRECTION is refused whole */
        const unsigned mi = HCA_FWP_CONFIG_MAX_INDIRECTION_GET(v);
        if (mi >= 1 && mi <= HCA_MAX_INDIRECTION)
            m->max_ind = (uint8_t)mi;
    }
    /* read-only and unmapped offsets ignore writes */
}

/* FAST_REG's second cycle (the RTL's ST_FR_WB): the registration over the
 * MR's own pd and mtt_base (no port-A write happens between the two: the
 * entry is as the command read it), MPT and MTT at one edge. */
static void xm_fr_wb(xu_model_t *m, int dropped)
{
    const uint32_t idx = m->bank[m->fr_slot].key >> HCA_KEY_INDEX_SHIFT;
    hca_mpt_entry_t *e = &m->mpt[idx];
    m->busy = 0;
    m->fr_wb = 0;
    if (e->mtt_base >= m->mtt_entries) {
        if (!dropped)
            m->result = HCA_FWP_RESULT_BAD_INDEX;
        return;
    }
    const uint32_t base = e->mtt_base;
    *e = (hca_mpt_entry_t){.flags = m->bank[m->fr_slot].flags, .key = m->bank[m->fr_slot].key, .pd = e->pd,
                           .mtt_base = base, .iova = m->bank[m->fr_slot].iova,
                           .length = m->bank[m->fr_slot].length, .mtt_count = 1, .reserved = 0};
    xm_set_bit(m->alloc, idx, (int)(e->flags & 1u));
    m->mtt[base] = m->bank[m->fr_slot].page | 1u;
    xm_set_bit(m->present, base, 1);
    if (!dropped) /* a CMD dropped in this cycle: BUSY is the later event (the RTL's order) */
        m->result = HCA_FWP_RESULT_OK;
}

void xlate_unit_evt_pop(xu_model_t *m, uint32_t slot, const hca_fw_event_t *ev)
{
#ifdef HCA_MUTANT_FR_BANK_SLOT /* mutant (vectors/mutation.mk): kept one slot on */
    slot++;
#endif
    slot &= HCA_EVT_QUEUE_DEPTH - 1;
    m->bank[slot].flags = ev->mpt_flags;
    m->bank[slot].key = ev->key;
    m->bank[slot].iova = ev->iova;
    m->bank[slot].length = ev->length;
    m->bank[slot].page = ev->list;
    m->bank_ok[slot] = (uint8_t)(hca_fw_event_get_kind(ev) == HCA_EVT_KIND_FAST_REG_MR &&
                                 (ev->hdr >> HCA_FW_EVENT_WQE_OK_LSB & 1u));
}

int xlate_unit_inv_ok(const xu_model_t *m, const hca_fw_event_t *ev)
{
    const uint32_t idx = ev->key >> HCA_KEY_INDEX_SHIFT;
    if (idx == 0 || idx >= m->mpt_entries || !xm_bit(m->alloc, idx))
        return 0;
    const hca_mpt_entry_t *e = &m->mpt[idx];
    const unsigned kind = hca_mpt_entry_get_kind(e);
    return (kind == HCA_MKEY_KIND_FAST_REG || kind == HCA_MKEY_KIND_INDIRECT) && e->key == ev->key && e->pd == ev->pd;
}

/* ---------------------------------------------------------------- engine ops */

static void xm_reset(void *eng)
{
    xu_model_t *m = eng;
    memset(m->alloc, 0, ((m->mpt_entries + 63) / 64) * sizeof(uint64_t));
    memset(m->present, 0, ((m->mtt_entries + 63) / 64) * sizeof(uint64_t));
    m->s1_valid = 0;
    m->wk_busy = 0;
    m->wk_abort = 0;
    m->q_head = m->q_count = 0;
    m->accepted = m->finished = 0;
    m->k_state = XK_IDLE;
    m->k_lvl = 0;
    m->s3_ev = XK_EV_NONE;
    m->max_ind = HCA_MAX_INDIRECTION;
    memset(m->stage_mpt, 0, sizeof m->stage_mpt);
    memset(m->stage_mtt, 0, sizeof m->stage_mtt);
    m->cmd = 0;
    m->busy = 0;
    m->inv_wb = 0;
    m->fr_wb = 0;
    memset(m->bank_ok, 0, sizeof m->bank_ok);
    m->result = HCA_FWP_RESULT_OK;
    m->fence_target = 0;
#ifdef XM_MUTANT_TRUST_REMOTE
    m->mut_trust = 0;
    m->mut_key = 0;
#endif
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
    if (!xu_params_ok(params))
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

/* The walker this cycle, from the state at its start (comb and edge both
 * need it; it reads state only). */
typedef struct xm_walk {
    xm_beat_t b;
    int issue, done, abort, end;
} xm_walk_t;

static inline void xm_walk(const xu_model_t *m, xm_walk_t *w)
{
    w->issue = w->done = w->abort = w->end = 0;
    if (m->wk_busy) {
        if (m->wk_abort || m->s3_ev == XK_EV_WALK_END) {
            w->done = 1; /* the aborting cycle, or a piece behind a KLM walk's last beat: no beat */
        } else if (m->q_count < XM_CREDITS) {
            const xm_req_t *r = &m->wk;
            w->issue = 1;
            xm_issue(m, r, &w->b, &w->done, &w->abort, &w->end);
        }
    }
}

/** RTL s1_klm: S1 holds an access that starts a KLM level (or is too deep for one). */
static inline int xm_s1_klm(const xu_model_t *m) { return m->s1_valid && m->s1.push; }

/** RTL req_ready_o. */
static inline int xm_req_ready(const xu_model_t *m, const xm_walk_t *w)
{
    const int ld_ready = !m->wk_busy || w->done;
    return m->k_state == XK_IDLE && !xm_s1_klm(m) && (!m->s1_valid || ld_ready);
}

/* ---------------------------------------------------------------- KLM walker */

/** RTL rd_ok and the list port's read (xu_table port C): entry i of a list
 *  at base of cnt words, if it lies in the list and the MTT; 0 if not. */
static int xk_read(xu_model_t *m, const xm_klm_ctx_t *c, uint32_t i)
{
    const uint64_t w1 = 2 * (uint64_t)i + 1, mi = (uint64_t)c->base + w1;
    if (!(w1 < c->cnt && mi < m->mtt_entries))
        return 0;
    m->k_lst[0] = m->mtt[mi - 1];
    m->k_lst[1] = m->mtt[mi];
    return 1;
}

/** One cycle of rtl/xu_klm.sv from the state at the cycle's start. push: S1's
 *  access to a KLM-mode MR, or NULL; s1_free: S1 takes a piece this cycle;
 *  walk_end: S3 holds the walk's last beat. A piece sent into S1 is written
 *  to *sub (1 returned). */
static int xk_step(xu_model_t *m, const xm_req_t *push, int s1_free, int walk_end, xm_req_t *sub)
{
    const unsigned cur = (m->k_lvl - 1u) & (XK_CTX_N - 1u), par = (cur - 1u) & (XK_CTX_N - 1u);
    xm_klm_ctx_t *c = &m->k_ctx[cur];
    if (walk_end) {
        m->k_state = XK_IDLE;
        return 0;
    }
    if (push) { /* a level: the first, or the child of the piece's own level */
        xm_klm_ctx_t *n = &m->k_ctx[push->lvl & (XK_CTX_N - 1u)];
        *n = (xm_klm_ctx_t){push->mtt_base, push->mtt_count, 0, push->len, push->final};
        m->k_lvl = (uint8_t)(push->lvl + 1);
        m->k_off = push->koff;
        m->k_tag = push->tag;
        m->k_rights = push->erights;
        m->k_pd = push->pd;
        m->k_state = xk_read(m, n, 0) ? XK_ENT : XK_ERR;
        return 0;
    }
    switch (m->k_state) {
    case XK_ENT: {
        const uint32_t elen = (uint32_t)m->k_lst[1], ekey = (uint32_t)(m->k_lst[1] >> 32);
        if (m->k_off >= elen) { /* byte off lies past this entry: the next one */
            m->k_off -= elen;
            c->idx++;
            m->k_state = xk_read(m, c, c->idx) ? XK_ENT : XK_ERR;
            return 0;
        }
        if (!s1_free)
            return 0;
        const uint32_t in_entry = elen - (uint32_t)m->k_off;
        const uint32_t slen = in_entry < c->rem ? in_entry : c->rem;
        const xm_in_t in = {ekey, m->k_pd, slen, m->k_lst[0] + m->k_off, m->k_tag, m->k_rights, 0};
#ifdef HCA_MUTANT_KLM_NO_ENTRY_CHECK
        xm_mutant_piece = 1;
#endif
        xm_check(m, &in, sub);
#ifdef HCA_MUTANT_KLM_NO_ENTRY_CHECK
        xm_mutant_piece = 0;
#endif
        const int last = c->rem == slen;
        sub->final = (uint8_t)(c->tail && last);
        sub->klm = 1;
        sub->lvl = m->k_lvl;
        c->rem -= slen;
        c->idx++;
        m->k_off = 0;
        if (!last) { /* this level's next entry, while this piece goes on */
            m->k_state = xk_read(m, c, c->idx) ? XK_ENT : XK_ERR;
        } else if (c->tail) {
            m->k_state = XK_WAIT;
        } else { /* the level is left as its last piece is sent: the parent's next entry */
            const xm_klm_ctx_t *p = &m->k_ctx[par];
            m->k_lvl--;
            m->k_state = p->rem == 0 ? XK_NEXT : xk_read(m, p, p->idx) ? XK_ENT : XK_ERR;
        }
        return 1;
    }
    case XK_NEXT:
        if (c->rem == 0)
            m->k_lvl--;
        else
            m->k_state = xk_read(m, c, c->idx) ? XK_ENT : XK_ERR;
        return 0;
    case XK_ERR:
        if (!s1_free)
            return 0;
        memset(sub, 0, sizeof *sub);
        sub->tag = m->k_tag;
        sub->status = HCA_XLATE_STATUS_ERR_MTT;
        sub->final = 1;
        sub->klm = 1;
        sub->lvl = m->k_lvl;
        m->k_state = XK_WAIT;
        return 1;
    default: /* IDLE, WAIT: a push or the walk's end */
        return 0;
    }
}

/* Every output is a function of the state (and the clock, for a beat's
 * show cycle): no input reaches an output in the same cycle. */
void xlate_unit_comb(const xu_model_t *m, xu_pins_t *p, uint64_t now)
{
    xm_walk_t w;
    xm_walk(m, &w);
    const xm_beat_t *h = &m->q[m->q_head];
    const int rsp_valid = m->q_count != 0 && h->show <= now;
    p->req_ready = (uint8_t)xm_req_ready(m, &w);
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
}

/* The edge ending the cycle, with the cycle's settled pins. Every decision
 * reads the state at the cycle's start, as the RTL's always_ff blocks do. */
void xlate_unit_edge(xu_model_t *m, const xu_pins_t *p, uint64_t now)
{
    /* Quiet (xlate_unit_quiet_until), no invalidation to write back, no
     * request and no firmware access: the walker, S1 and the KLM walker are
     * idle and stay so; of the edge below only wk_abort's clear remains. */
    if (!m->s1_valid && !m->wk_busy && !m->q_count && !m->rvalid && !m->busy && m->k_state == XK_IDLE &&
        m->s3_ev == XK_EV_NONE && !m->inv_wb && !m->fr_wb && !p->req_valid && !p->fw_valid) {
        m->wk_abort = 0;
        return;
    }
    xm_walk_t w;
    xm_walk(m, &w);
    const int ld_ready = !m->wk_busy || w.done;
    const int req_ready = xm_req_ready(m, &w);
    const int rsp_valid = m->q_count != 0 && m->q[m->q_head].show <= now;
    const int s1_valid0 = m->s1_valid;
    /* S3 holds a KLM walk's last beat: what is behind it (S1, the walker) is dropped */
    const int walk_end = m->s3_ev == XK_EV_WALK_END;
    /* S1's outcome: a KLM level (push), or the walker, ERR_DEPTH when too deep */
    const int s1_push = xm_s1_klm(m) && m->s1.lvl < m->max_ind && !walk_end;
    /* S1 takes a piece of the KLM walk: empty, or its piece leaves for the walker */
    const int s1_free = (!s1_valid0 || (ld_ready && !s1_push)) && !walk_end;
    xm_req_t push = {0};
    if (s1_push)
        push = m->s1;

    if (rsp_valid && p->rsp_ready) {
        m->finished += m->q[m->q_head].last;
        m->q_head = (m->q_head + 1) & (XM_CREDITS - 1);
        m->q_count--;
    }
    m->s3_ev = XK_EV_NONE;
    if (w.issue) {
        w.b.show = now + XM_ISSUE_TO_SHOW;
        m->q[(m->q_head + m->q_count) & (XM_CREDITS - 1)] = w.b;
        m->q_count++;
        if (m->wk.klm)
            m->s3_ev = w.b.last ? XK_EV_WALK_END : XK_EV_NONE;
        if (!w.done && !w.abort) { /* next page, from its first byte */
            m->wk.len -= w.b.len;
            m->wk.page++;
            m->wk.off = 0;
        }
    }
    m->wk_abort = (uint8_t)w.abort;
    if (w.done)
        m->wk_busy = 0;
    if (s1_push || walk_end) {
        m->s1_valid = 0;
    } else if (m->s1_valid && ld_ready) {
        m->wk = m->s1;
        if (m->wk.push) { /* a chain deeper than max_indirection */
            m->wk.push = 0;
            m->wk.status = HCA_XLATE_STATUS_ERR_DEPTH;
            m->wk.walk = 0;
            m->wk.pa = 0;
            m->wk.len = 0;
        }
        m->wk_busy = 1;
        m->s1_valid = 0;
    }
    xm_req_t sub;
    if (xk_step(m, s1_push ? &push : NULL, s1_free, walk_end, &sub)) {
        m->s1 = sub;
        m->s1_valid = 1;
    }
    if (req_ready && p->req_valid) {
        const xm_in_t in = {p->req_key, p->req_pd, p->req_len, p->req_va, p->req_tag, p->req_rights, p->req_remote};
#ifdef XM_MUTANT_TRUST_REMOTE
        const int mine = (in.remote & 1u) == XM_MUTANT_TRUST_REMOTE;
        xm_mutant_trusted = mine && m->mut_trust && in.key == m->mut_key;
        xm_check(m, &in, &m->s1);
        xm_mutant_trusted = 0;
        if (mine && m->s1.status == HCA_XLATE_STATUS_OK) {
            m->mut_trust = 1;
            m->mut_key = in.key;
        }
#else
        xm_check(m, &in, &m->s1);
#endif
        m->s1_valid = 1;
        m->accepted++;
    }
    m->rvalid = 0;
    m->rdata = 0;
    const int fr_pending = m->fr_wb; /* written at an earlier edge */
    if (m->inv_wb) { /* the RTL's ST_INV_WB: this cycle's request read the entry VALID and is counted */
        m->mpt[m->inv_idx].flags &= ~XM_STATE_BIT;
#ifndef HCA_MUTANT_NO_FENCE
        m->fence_target = m->accepted;
#else /* mutant (build/mutants/ only, docs/mutation.md): in-flight requests not waited for */
        m->fence_target = m->finished;
#endif
    }
    m->inv_wb = 0;
    if (p->fw_valid) { /* after the request: a request of this cycle saw the old tables */
        m->rvalid = 1;
        if (p->fw_write)
            xm_fw_write(m, p->fw_addr, p->fw_wdata);
        else
            m->rdata = xm_fw_read(m, p->fw_addr);
    }
    /* the RTL's ST_FR_WB: this cycle's request saw the entry as it was, this
     * cycle's access saw the port busy with the old result */
    if (fr_pending)
        xm_fr_wb(m, p->fw_valid && p->fw_write && p->fw_addr == HCA_FWP_CMD);
    /* (an INVALIDATE written at this edge completes at the next one at the
     * earliest: the RTL spends a cycle in ST_INV_WB) */
    if (m->busy && !m->inv_wb && !m->fr_wb && m->finished >= m->fence_target) {
        m->busy = 0;
        m->result = HCA_FWP_RESULT_OK;
    }
}

int xlate_unit_fence_wait(const xu_model_t *m)
{
    return m->busy && !m->inv_wb && !m->fr_wb;
}

uint64_t xlate_unit_quiet_until(const xu_model_t *m, uint64_t now)
{
    if (m->s1_valid || m->wk_busy || m->q_count || m->rvalid || m->busy || m->k_state != XK_IDLE || m->s3_ev)
        return now + 1;
    return UINT64_MAX;
}

static void xm_cycle(void *eng, xu_pins_t *p, uint64_t now)
{
    xlate_unit_comb(eng, p, now);
    xlate_unit_edge(eng, p, now);
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

/* ---------------------------------------------------------------- as a block of the device model */

int xlate_unit_create(xu_model_t **m, const xu_params_t *params) { return xm_create((void **)m, params); }
void xlate_unit_destroy(xu_model_t *m) { xm_destroy(m); }
void xlate_unit_reset(xu_model_t *m) { xm_reset(m); }
