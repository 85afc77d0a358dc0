/* mm.c — the memory-management event service (docs/engine.md "Memory-management
 * events"; every check is SEMANTICS.md's).
 *
 * The engine queues one fw_event per FAST_REG_MR, REG_INDIR_MR or LOCAL_INV
 * work request, per SEND_WITH_INV received (REMOTE_INV) and per
 * RDMA_READ_WITH_INV finished (READ_INV). For each: read EVT_DATA, POP,
 * perform, DONE {tag, status}. The checks use mkey.c's shadow of the MPT
 * (kind, PD, key byte, FREE/VALID as the firmware set it, MTT space owned).
 *
 * Registrations validate everything — the page addresses / KLM entries
 * included, read once by fdma into mkey_list_buf — before they write
 * anything; then the MTT words, then the MPT entry (WRITE_MPT). A refused
 * registration leaves the MR as it was. The WR names its MR by mr_key
 * (sq_wqe.rkey: the MR's key as the consumer holds it, only its index counts)
 * apart from the key it carries (fr_key); SEMANTICS' "the WR's key index
 * differs from the MR's" is index(mr_key) != index(key), checked first.
 * mr_key 0 names no MR (index 0 never is one): the WQE of a driver written
 * before mr_key existed (it zeroed the field) or a raw WQE — the MR is then
 * the one key's index names, as before, rather than refusing WRs that were
 * correct when written; hcadrv always fills it.
 *
 * Layouts written:
 *  - FAST_REG_MR: MTT[mtt_base + i] = page i (present, pfn); MPT: key = the
 *    WR's key, kind fast_reg, mode MTT, state VALID, access, iova, length,
 *    page_shift, mtt_count = page_list_len (the pages of this registration,
 *    so the walk never reaches a stale entry of an earlier, longer one).
 *  - REG_INDIR_MR: KLM entry i (abi struct klm_entry, the host's list is an
 *    array of sge in the same layout) in two MTT words:
 *    MTT[mtt_base + 2i] = addr, MTT[mtt_base + 2i + 1] = length | lkey << 32;
 *    MPT: mode KLM, mtt_count = 2 x entries. The translation unit walks the
 *    list at access time (rule 7: each entry checked with its own key).
 *  - Invalidations: fwp INVALIDATE (MPT state FREE, checks fenced), then ctx
 *    DRAIN (no DMA checked with the old entry still on its way), then DONE.
 *    An MR already FREE is invalidated again (harmless) and succeeds.
 *
 * The port traffic goes through the port sequencer (regs fseq,
 * docs/device.md "Port sequencer"): one program reads a batch of events
 * whole and POPs each; a registration or invalidation that passed every
 * check is one program — its table commands, each WAITed and checked, then
 * DONE — started while the next event is looked at, and the one-page
 * registrations or the invalidations a batch holds one after another are
 * one program together (a run: run_take, fr_run_take). The shadow says at once
 * what the program will leave; settle() waits for it and, should a command
 * be refused, puts the shadow back as a synchronous refusal would have left
 * it and answers DONE with the failure itself. An event on the MR of the
 * program under way, any direct port access and the end of the service
 * settle first, so every decision sees the tables the commands left.
 *
 * Every refusal prints one console line naming the rule.
 */
#define MM_C /* mm_fast.h is this file's */
#include <stddef.h>

#include "cmd.h"
#include "console.h"
#include "dev.h"
#include "mm.h"

#define EVT(off) (HCA_FW_EVT_BASE + (off))
#define EVT_WORDS (sizeof(hca_fw_event_t) / 4)
/* The words the service reads of each event: all of a registration's (the
 * fast path commits mpt_flags as read); of an invalidation's, READ_EVT reads EVT_INV_WORDS only
 * (hdr, pd, key: all that find_mr, invalidate, invalidate_quick and refuse
 * look at; the rest of its rd_evt slot is an earlier event's). */
#define EVT_READ_WORDS EVT_WORDS
_Static_assert(offsetof(hca_fw_event_t, key) + 4 == 4 * HCA_EVT_INV_WORDS && offsetof(hca_fw_event_t, pd) < 4 * HCA_EVT_INV_WORDS,
               "an invalidation's words come first");

/* Bytes per list transfer; the host tests use a smaller one to cover the loop
 * (with FDMA_MAX_LEN 4096 the longest list is a single transfer). */
#ifndef MM_FDMA_CHUNK
#define MM_FDMA_CHUNK HCA_FDMA_MAX_LEN
#endif
_Static_assert(MM_FDMA_CHUNK >= 1 && MM_FDMA_CHUNK <= HCA_FDMA_MAX_LEN, "chunk is one fdma transfer");
_Static_assert(EVT_WORDS == HCA_EVT_DATA_COUNT, "fw_event is EVT_DATA");
_Static_assert(HCA_MAX_FAST_REG_PAGE_LIST_LEN * 8 <= MKEY_LIST_BYTES, "a page list fits the staging");
_Static_assert(HCA_MAX_INDIR_REG_LIST_LEN * sizeof(hca_klm_entry_t) <= MKEY_LIST_BYTES, "a KLM list fits the staging");
_Static_assert(sizeof(hca_klm_entry_t) == sizeof(hca_sge_t), "the host's KLM list is sge-shaped");

/* fw_event.params = sq_wqe.fr_params */
#define PARAM(ev, f) (((ev)->params >> HCA_SQ_WQE_##f##_LSB) & ((1u << HCA_SQ_WQE_##f##_WIDTH) - 1))

enum { EVT_UNKNOWN, EVT_PRESENT, EVT_ABSENT };
static uint8_t evt_block;

/* ---- sequencer programs ---- */

#define EVT_BATCH HCA_EVT_QUEUE_DEPTH /* events read per program */
#define EVT_READ_OPS 2u               /* READ_EVT of the DATA words, POP */
_Static_assert(EVT_BATCH * EVT_READ_OPS <= HCA_FSEQ_MAX_OPS, "a batch is one program");
_Static_assert(HCA_FW_RAM_SIZE / 8 <= 1u << HCA_FSEQ_GO_ENTRY_WIDTH && HCA_FSEQ_MAX_OPS < 1u << HCA_FSEQ_GO_COUNT_WIDTH,
               "fseq_start's GO names every entry in RAM and every count");
_Static_assert(EVT_WORDS <= HCA_FSEQ_MAX_WORDS && HCA_FWP_MPT_DATA_COUNT <= HCA_FSEQ_MAX_WORDS, "one entry each");

#define CTL(addr, kind, arg)                                                                                        \
    (FSEQ_PORT(addr) | (uint32_t)(kind) << HCA_FSEQ_ENTRY_KIND_LSB | (uint32_t)(arg) << HCA_FSEQ_ENTRY_ARG_LSB)
#define FWP(off) (HCA_FWP_BASE + (off))
#define CTXP(off) (HCA_FW_CTX_BASE + (off))
_Static_assert(EVT_READ_OPS == 2, "mm_service counts events popped by a shift");
#define ACCEPT_OK (1u << HCA_FWP_RESULT_OK)
#define PENDING 0x100u /* perform(): the program under way answers DONE */

static hca_fseq_entry_t rd_prog[EVT_BATCH * EVT_READ_OPS] __attribute__((aligned(8)));
static hca_fw_event_t rd_evt[EVT_BATCH]; /* where rd_prog puts the events */
/* Two program buffers, each with the MPT entry it writes: one is built while
 * the other may run. */
static hca_fseq_entry_t cprog[2][HCA_FSEQ_MAX_OPS] __attribute__((aligned(8)));
static hca_mpt_entry_t cmpt[2];
static unsigned cbuf;

typedef struct prog {
    hca_fseq_entry_t *e;
    hca_mpt_entry_t *mpt;
    unsigned n;
} prog_t;

static prog_t prog_new(void)
{
    cbuf ^= 1;
    return (prog_t){cprog[cbuf], &cmpt[cbuf], 0};
}

/* The shadow's first word {in_use, kind, key_byte, state}: the fast paths
 * test and set it whole (one load, one store). */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shadow word is read little-endian"
#endif
_Static_assert(offsetof(mkey_t, in_use) == 0 && offsetof(mkey_t, kind) == 1 && offsetof(mkey_t, key_byte) == 2 &&
                   offsetof(mkey_t, state) == 3,
               "the shadow word's bytes");
#define SHADOW(in_use, kind, key_byte, state)                                                                     \
    ((uint32_t)(in_use) | (uint32_t)(kind) << 8 | (uint32_t)(key_byte) << 16 | (uint32_t)(state) << 24)
#define SHADOW_KEY_BYTE SHADOW(0, 0, 0xff, 0)
static inline uint32_t shadow_word(const mkey_t *m)
{
    uint32_t w;
    __builtin_memcpy(&w, m, 4);
    return w;
}
static inline void shadow_set(mkey_t *m, uint32_t w)
{
    __builtin_memcpy(m, &w, 4);
}

/* What a commit program's stop means, and where in it. */
typedef struct commit {
    unsigned fail;  /* DONE status */
    int undo_b;     /* why_b leaves the MR as it was too */
    const char *why_a, *why_b; /* stopped before split: why_a, the MR as it was; from split on: why_b */
    unsigned split, last;      /* the entry where the second half starts; the DONE entry */
} commit_t;

struct run_prog;

/* The commit program under way (at most one): m is NULL when none is. A
 * run of invalidations (run below) is one program too: then run is it and
 * m PEND_RUN (pend_on asks the run). */
static struct {
    mkey_t *m;
    const hca_fw_event_t *ev; /* its event, in rd_evt: the next batch read starts only once it is settled */
    uint32_t shadow;          /* m's shadow word before it */
    const commit_t *c;
    struct run_prog *run;
} pend;
#define PEND_RUN (&mkeys[0]) /* pend.m while a run is under way: slot 0, never an MR */

static unsigned refuse(const hca_fw_event_t *ev, unsigned st, const char *why);

static inline uint32_t done_word(const hca_fw_event_t *ev, unsigned st)
{
    _Static_assert(HCA_EVT_DONE_TAG_LSB == HCA_FW_EVENT_TAG_LSB && HCA_EVT_DONE_TAG_WIDTH == HCA_FW_EVENT_TAG_WIDTH,
                   "DONE's tag sits where hdr's does");
    return HCA_EVT_DONE_STATUS_PUT(st) | (ev->hdr & ((1u << HCA_FW_EVENT_TAG_WIDTH) - 1) << HCA_FW_EVENT_TAG_LSB);
}

static inline void settle(void);

/* Start the program GO names as the commit c of ev on m, whose shadow word
 * was shadow; the program before it is settled first. */
static inline void pend_start(uint32_t go, const hca_fw_event_t *ev, mkey_t *m, uint32_t shadow, const commit_t *c)
{
    settle();
    pend.m = m;
    pend.ev = ev;
    pend.shadow = shadow;
    pend.c = c;
    reg_write(HCA_FW_FSEQ_BASE + HCA_FSEQ_GO, go);
}

/* The slow paths' programs: c's split and DONE entry are the program's. */
static void pend_start_slow(const hca_fseq_entry_t *e, unsigned n, const hca_fw_event_t *ev, mkey_t *m,
                            uint32_t shadow, const commit_t *c, unsigned split)
{
    static commit_t slow;
    settle(); /* slow is the running program's until then */
    slow = *c;
    slow.split = split;
    slow.last = n - 1;
    pend_start(fseq_go(e, n), ev, m, shadow, &slow);
}

/* Wait for the commit program; a stop is the refusal it stands for. */
static void settle_stopped(uint32_t st, struct run_prog *building);
static inline void settle(void)
{
    if (!pend.m)
        return;
    uint32_t st = fseq_wait();
    if (HCA_FSEQ_STATUS_ERROR_GET(st) || HCA_FSEQ_STATUS_STOPPED_GET(st))
        settle_stopped(st, 0);
    pend.m = 0;
}

/* Out of line: the commit program stopped at entry STATUS.done (building:
 * the run about to start, run_stopped's business). */
static void run_stopped(uint32_t st, struct run_prog *building);
static void __attribute__((noinline)) settle_stopped(uint32_t st, struct run_prog *building)
{
    if (pend.m == PEND_RUN) {
        run_stopped(st, building);
        return;
    }
    const hca_fw_event_t *ev = pend.ev;
    const commit_t *c = pend.c;
    unsigned at = HCA_FSEQ_STATUS_DONE_GET(st);
    if (at >= c->last) { /* the operation is done, only its DONE was not taken */
        reg_write(EVT(HCA_EVT_DONE), done_word(ev, HCA_WC_STATUS_SUCCESS));
        return;
    }
    if (at < c->split || c->undo_b)
        shadow_set(pend.m, pend.shadow);
    refuse(ev, c->fail, at < c->split ? c->why_a : c->why_b);
    reg_write(EVT(HCA_EVT_DONE), done_word(ev, c->fail));
}

void mm_reset(void)
{
    evt_block = EVT_UNKNOWN;
    pend.m = 0;
    pend.run = 0;
    mm_init();
}

/* One console line per refusal; returns st. */
static unsigned refuse(const hca_fw_event_t *ev, unsigned st, const char *why)
{
    const char *k = hca_evt_kind_name(hca_fw_event_get_kind(ev));
    con_puts("hcafw: ");
    con_puts(k ? k : "event");
    con_puts(" key ");
    con_puthex(ev->key);
    con_puts(": ");
    con_puts(why);
    con_putc('\n');
    return st;
}

/* The checks every operation starts with: a registration's MR (mr_key) is
 * the one its key's index names, the MR named by the key's index, its kind,
 * its PD. NULL after a refusal (printed). */
static mkey_t *find_mr(const hca_fw_event_t *ev, unsigned fail, int inval, unsigned *st)
{
    /* invalidations name the MR by the key only; mr_key 0: the key's MR */
    const uint32_t named = !inval && ev->mr_key ? ev->mr_key : ev->key;
    mkey_t *m = mkey_get(ev->key >> HCA_KEY_INDEX_SHIFT);
    unsigned kind = hca_fw_event_get_kind(ev);
    const char *why = 0;
    if (named >> HCA_KEY_INDEX_SHIFT != ev->key >> HCA_KEY_INDEX_SHIFT)
        why = "the WR's key index differs from the MR's";
    else if (!m)
        why = "the key's index names no allocated MR";
    else if (inval && m->key_byte != (ev->key & HCA_KEY_BYTE_MASK))
        why = "the key is not the MR's current key";
    else if (inval && m->kind != HCA_MKEY_KIND_FAST_REG && m->kind != HCA_MKEY_KIND_INDIRECT)
        why = "the MR is neither fast_reg nor indirect";
    else if (kind == HCA_EVT_KIND_FAST_REG_MR && m->kind != HCA_MKEY_KIND_FAST_REG)
        why = "the MR is not fast_reg";
    else if (kind == HCA_EVT_KIND_REG_INDIR_MR && m->kind != HCA_MKEY_KIND_INDIRECT)
        why = "the MR is not indirect";
    else if (!inval && m->state != HCA_MKEY_STATE_FREE)
        why = "the MR is VALID (invalidate it first)";
    else if (m->pd != ev->pd)
        why = "the MR's PD is not the QP's";
    if (why) {
        *st = refuse(ev, fail, why);
        return 0;
    }
    return m;
}

/* The WR's list into mkey_list_buf, in two halves: list_fetch_begin starts
 * the first transfer, so the caller can check the WR's other fields during
 * the host's read round trip (~250 cycles, the largest single cost of a short
 * registration); list_fetch_end waits for it, reads the rest and returns 0,
 * or -1 on a bus error. Every begin is ended, refusals included (the fdma
 * engine takes no new transfer while one runs). */
static struct {
    uint64_t list;
    uint32_t bytes;
} fetch;

static void list_fetch_begin(uint64_t list, uint32_t bytes)
{
    fetch.list = list;
    fetch.bytes = bytes;
    fdma_start(list, mkey_list_buf, bytes < MM_FDMA_CHUNK ? bytes : MM_FDMA_CHUNK, 0);
}

static int list_fetch_end(void)
{
    uint8_t *buf = (uint8_t *)mkey_list_buf;
    int lost = fdma_wait();
    for (uint32_t off = MM_FDMA_CHUNK; !lost && off < fetch.bytes; off += MM_FDMA_CHUNK) {
        uint32_t n = fetch.bytes - off < MM_FDMA_CHUNK ? fetch.bytes - off : MM_FDMA_CHUNK;
        lost = fdma_copy(fetch.list + off, buf + off, n, 0);
    }
    return lost;
}

/* The MPT entry of a registration on m. */
static hca_mpt_entry_t mpt_of(const hca_fw_event_t *ev, const mkey_t *m, unsigned mode, unsigned ps,
                              uint32_t mtt_count)
{
    hca_mpt_entry_t e = {0, 0, 0, 0, 0, 0, 0, 0};
    hca_mpt_entry_set_alloc(&e, 1);
    hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
    hca_mpt_entry_set_kind(&e, m->kind);
    hca_mpt_entry_set_mode(&e, mode);
    hca_mpt_entry_set_access(&e, PARAM(ev, FR_ACCESS));
    hca_mpt_entry_set_page_shift(&e, ps);
    e.key = ev->key;
    e.pd = m->pd;
    e.mtt_base = m->mtt_base;
    e.iova = ev->iova;
    e.length = ev->length;
    e.mtt_count = mtt_count;
    return e;
}

/* The MPT entry of a registration on m, synchronously (indirect MRs). */
static unsigned write_mpt(const hca_fw_event_t *ev, mkey_t *m, unsigned mode, unsigned ps, uint32_t mtt_count)
{
    hca_mpt_entry_t e = mpt_of(ev, m, mode, ps, mtt_count);
    fwp_stage_mpt(&e);
    if (fwp_run(HCA_FWP_OP_WRITE_MPT, ev->key >> HCA_KEY_INDEX_SHIFT) != HCA_FWP_RESULT_OK)
        return 1;
    m->state = HCA_MKEY_STATE_VALID;
    m->key_byte = (uint8_t)(ev->key & HCA_KEY_BYTE_MASK);
    return 0;
}

/* FAST_REG_MR's checks of the WR's own fields: the reason it is refused, or NULL. */
static const char *fast_reg_check(const hca_fw_event_t *ev, uint32_t n, uint32_t ps)
{
    if (ps < HCA_PAGE_SHIFT_MIN || ps > HCA_PAGE_SHIFT_MAX)
        return "page_shift outside the supported sizes";
    if (ev->length == 0 || ev->iova + ev->length < ev->iova)
        return "length is 0 or iova + length wraps 2^64";
    uint64_t fbo = ev->iova & ((1ull << ps) - 1);
    if (ev->length > ((uint64_t)n << ps) - fbo) /* n <= 2^16, ps <= 30: no overflow */
        return "(iova & (page_size-1)) + length is above page_list_len << page_shift";
    if (!mkey_access_valid(PARAM(ev, FR_ACCESS)))
        return "access flags: a remote write or atomic right needs LOCAL_WRITE";
    return 0;
}

/* How a stopped commit is explained: the registrations' and the invalidations'
 * (the slow paths' split and DONE entry are their programs': pend_start_slow;
 * the fast paths' are their templates'). */
#define FR_WHY HCA_WC_STATUS_MW_BIND_ERR, 1, "the translation unit refused WRITE_MTT", "the translation unit refused WRITE_MPT"
#define INV_WHY(fail) (fail), 0, "the translation unit refused INVALIDATE", "ctx DRAIN did not complete"
static const commit_t FR_COMMIT = {FR_WHY, 0, 0};
static const commit_t INV_COMMIT = {INV_WHY(HCA_WC_STATUS_MW_BIND_ERR), 0, 0};
static const commit_t RINV_COMMIT = {INV_WHY(HCA_WC_STATUS_REM_INV_REQ_ERR), 0, 0};

#define MTT_OPS 3u /* MTT_DATA, CMD, WAIT per page */
#define MPT_OPS 4u /* MPT_DATA, CMD, WAIT, DONE */

/* The pieces of the commit programs, at e; each returns the entry after
 * it. The slow paths build their programs from them, the fast paths'
 * templates are built from them once. */
static inline hca_fseq_entry_t *ops_mtt(hca_fseq_entry_t *e, const uint64_t *word, uint32_t index)
{
    e[0] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_MTT_DATA), HCA_FSEQ_KIND_WRITE_RAM, 2), fw_local_addr((void *)word)};
    e[1] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_CMD), HCA_FSEQ_KIND_WRITE, 0),
                              HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_WRITE_MTT) | HCA_FWP_CMD_INDEX_PUT(index)};
    e[2] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_STATUS), HCA_FSEQ_KIND_WAIT, ACCEPT_OK), 0};
    return e + MTT_OPS;
}

/* WRITE_MPT, its WAIT, DONE: after the MPT words are staged. */
static inline hca_fseq_entry_t *ops_mpt_cmd_done(hca_fseq_entry_t *e, uint32_t index, uint32_t done)
{
    e[0] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_CMD), HCA_FSEQ_KIND_WRITE, 0),
                              HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_WRITE_MPT) | HCA_FWP_CMD_INDEX_PUT(index)};
    e[1] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_STATUS), HCA_FSEQ_KIND_WAIT, ACCEPT_OK), 0};
    e[2] = (hca_fseq_entry_t){CTL(EVT(HCA_EVT_DONE), HCA_FSEQ_KIND_WRITE, 0), done};
    return e + 3;
}

static inline hca_fseq_entry_t *ops_mpt_done(hca_fseq_entry_t *e, const hca_mpt_entry_t *mpt, uint32_t index,
                                             uint32_t done)
{
    e[0] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_MPT_DATA), HCA_FSEQ_KIND_WRITE_RAM, HCA_FWP_MPT_DATA_COUNT),
                              fw_local_addr((void *)mpt)};
    return ops_mpt_cmd_done(e + 1, index, done);
}

/* INVALIDATE and its WAIT (the fence), then with drain the ctx DRAIN and its
 * WAIT (OK, or BAD_OP: an engine without a WQE engine has nothing to
 * drain; as mkey_destroy), then DONE. */
static inline hca_fseq_entry_t *ops_inv_done(hca_fseq_entry_t *e, uint32_t index, int drain, uint32_t done)
{
    *e++ = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_CMD), HCA_FSEQ_KIND_WRITE, 0),
                              HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_INVALIDATE) | HCA_FWP_CMD_INDEX_PUT(index)};
    *e++ = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_STATUS), HCA_FSEQ_KIND_WAIT, ACCEPT_OK), 0};
    if (drain) {
        *e++ = (hca_fseq_entry_t){CTL(CTXP(HCA_CTX_CMD), HCA_FSEQ_KIND_WRITE, 0), HCA_CTX_CMD_OP_PUT(HCA_CTX_OP_DRAIN)};
        *e++ = (hca_fseq_entry_t){CTL(CTXP(HCA_CTX_STATUS), HCA_FSEQ_KIND_WAIT, ACCEPT_OK | 1u << HCA_FWP_RESULT_BAD_OP),
                                  0};
    }
    *e++ = (hca_fseq_entry_t){CTL(EVT(HCA_EVT_DONE), HCA_FSEQ_KIND_WRITE, 0), done};
    return e;
}
#define INV_SPLIT 2u /* ops_inv_done's entries before the DRAIN's: from there on the entry is FREE */

static unsigned fast_reg(const hca_fw_event_t *ev)
{
    const unsigned FAIL = HCA_WC_STATUS_MW_BIND_ERR;
    unsigned st;
    mkey_t *m = find_mr(ev, FAIL, 0, &st);
    if (!m)
        return st;
    uint32_t n = PARAM(ev, FR_LIST_LEN), ps = PARAM(ev, FR_PAGE_SHIFT);
    if (n == 0 || n > m->mtt_count)
        return refuse(ev, FAIL, "page_list_len is 0 or above the MR's max_page_list_len");
    /* An inline page (cap FR_INLINE_PAGE): list is the page, nothing to read. */
    const int inl = PARAM(ev, FR_INLINE);
    if (inl && n != 1)
        return refuse(ev, FAIL, "an inline page list holds one page (page_list_len 1)");
    if (!inl)
        list_fetch_begin(ev->list, 8 * n);
    const char *why = fast_reg_check(ev, n, ps);
    int lost = 0;
    if (inl)
        mkey_list_buf[0] = ev->list;
    else
        lost = list_fetch_end();
    if (why)
        return refuse(ev, FAIL, why);
    if (lost)
        return refuse(ev, FAIL, "the page list could not be read");
    /* The low words carry every bit below the page (ps <= 30); each page's
     * word is then its address | present (below). */
    _Static_assert(HCA_PAGE_SHIFT_MAX < 32, "the page offset is in the low word");
    uint32_t *const lo = (uint32_t *)mkey_list_buf, off_mask = (1u << ps) - 1;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 2 * n; i += 2)
        bad |= lo[i] & off_mask;
    if (bad)
        return refuse(ev, FAIL, "a page address is not aligned to the page size");
    /* Decided: the MTT words, then the MPT entry, then DONE, as one program
     * (a long list's first pages in programs of their own, waited for). The
     * list becomes its MTT words in place: aligned to the page (ps >= 12),
     * a page's word is its address | present. */
    _Static_assert(HCA_MTT_ENTRY_PRESENT_LSB == 0 && HCA_MTT_ENTRY_PFN_LSB == 12 && HCA_PAGE_SHIFT_MIN >= 12,
                   "an aligned page address | 1 is its MTT word");
    prog_t p = prog_new();
    for (uint32_t i = 0; i < n;) {
        /* as many pages as fit before the MPT's entries, then the next program */
        uint32_t end = n - i < (HCA_FSEQ_MAX_OPS - MPT_OPS) / MTT_OPS ? n : i + (HCA_FSEQ_MAX_OPS - MPT_OPS) / MTT_OPS;
        hca_fseq_entry_t *e = p.e;
        for (; i < end; i++) {
            lo[2 * i] |= 1u << HCA_MTT_ENTRY_PRESENT_LSB;
            e = ops_mtt(e, &mkey_list_buf[i], m->mtt_base + i);
        }
        p.n = (unsigned)(e - p.e);
        if (i < n) {
            settle();
            fseq_start(p.e, p.n);
            uint32_t st = fseq_wait();
            if (HCA_FSEQ_STATUS_ERROR_GET(st) || HCA_FSEQ_STATUS_STOPPED_GET(st))
                return refuse(ev, FAIL, FR_COMMIT.why_a);
            p = prog_new();
        }
    }
    const unsigned split = p.n; /* from here on the MPT's */
    *p.mpt = mpt_of(ev, m, HCA_MKEY_MODE_MTT, ps, n);
    p.n = (unsigned)(ops_mpt_done(p.e + p.n, p.mpt, ev->key >> HCA_KEY_INDEX_SHIFT, done_word(ev, HCA_WC_STATUS_SUCCESS)) -
                     p.e);
    const uint32_t shadow = shadow_word(m);
    m->state = HCA_MKEY_STATE_VALID;
    m->key_byte = (uint8_t)(ev->key & HCA_KEY_BYTE_MASK);
    pend_start_slow(p.e, p.n, ev, m, shadow, &FR_COMMIT, split);
    return PENDING;
}

static unsigned reg_indir(const hca_fw_event_t *ev)
{
    const unsigned FAIL = HCA_WC_STATUS_MW_BIND_ERR;
    settle(); /* the port directly below */
    unsigned st;
    mkey_t *m = find_mr(ev, FAIL, 0, &st);
    if (!m)
        return st;
    uint32_t n = PARAM(ev, FR_LIST_LEN), access = PARAM(ev, FR_ACCESS);
    if (n == 0 || n > m->mtt_count / 2)
        return refuse(ev, FAIL, "the list length is 0 or above the MR's max_indir_list_len");
    if (!mkey_access_valid(access))
        return refuse(ev, FAIL, "access flags: a remote write or atomic right needs LOCAL_WRITE");
    if (PARAM(ev, FR_INLINE))
        return refuse(ev, FAIL, "a KLM list is never inline (fr_inline is FAST_REG_MR's)");
    list_fetch_begin(ev->list, n * sizeof(hca_klm_entry_t));
    if (list_fetch_end())
        return refuse(ev, FAIL, "the KLM list could not be read");
    const hca_klm_entry_t *klm = (const hca_klm_entry_t *)mkey_list_buf;
    uint64_t sum = 0; /* n <= 2^16 entries of < 2^32 bytes: no overflow */
    for (uint32_t i = 0; i < n; i++) {
        if (klm[i].length == 0)
            return refuse(ev, FAIL, "a KLM entry has length 0");
        sum += klm[i].length;
    }
    if (sum != ev->length)
        return refuse(ev, FAIL, "the KLM entries' lengths do not add up to length");
    for (uint32_t i = 0; i < n; i++)
        if (fwp_write_mtt(m->mtt_base + 2 * i, klm[i].addr) != HCA_FWP_RESULT_OK ||
            fwp_write_mtt(m->mtt_base + 2 * i + 1, klm[i].length | (uint64_t)klm[i].lkey << 32) != HCA_FWP_RESULT_OK)
            return refuse(ev, FAIL, "the translation unit refused WRITE_MTT");
    if (write_mpt(ev, m, HCA_MKEY_MODE_KLM, HCA_PAGE_SHIFT_MIN, 2 * n))
        return refuse(ev, FAIL, "the translation unit refused WRITE_MPT");
    return HCA_WC_STATUS_SUCCESS;
}

/* The mutant images (firmware/firmware.mk, docs/mutation.md; never the real
 * image) that prove a missing fence is caught: the invalidation answers
 * without its ctx DRAIN for every event kind, or for one. */
#if defined(HCAFW_MUTANT_NO_DRAIN)
#define MUTANT_SKIPS_DRAIN(kind) 1
#elif defined(HCAFW_MUTANT_NO_DRAIN_LINV)
#define MUTANT_SKIPS_DRAIN(kind) ((kind) == HCA_EVT_KIND_LOCAL_INV)
#elif defined(HCAFW_MUTANT_NO_DRAIN_RINV)
#define MUTANT_SKIPS_DRAIN(kind) ((kind) == HCA_EVT_KIND_REMOTE_INV)
#elif defined(HCAFW_MUTANT_NO_DRAIN_READINV)
#define MUTANT_SKIPS_DRAIN(kind) ((kind) == HCA_EVT_KIND_READ_INV)
#else
#define MUTANT_SKIPS_DRAIN(kind) 0
#define MUTANT_DRAINS_EVERY_KIND /* run_trusted is hdr.inv_ok alone (but for inv_trust_all) */
#endif

/* LOCAL_INV, READ_INV, REMOTE_INV: the LOCAL_INV rules. */
static unsigned invalidate(const hca_fw_event_t *ev)
{
    const unsigned FAIL = hca_fw_event_get_kind(ev) == HCA_EVT_KIND_REMOTE_INV ? HCA_WC_STATUS_REM_INV_REQ_ERR
                                                                               : HCA_WC_STATUS_MW_BIND_ERR;
    unsigned st;
    mkey_t *m = find_mr(ev, FAIL, 1, &st);
    if (!m)
        return st;
    /* INVALIDATE (its fence WAITed), then the device-level fence, then
     * DONE: one program. */
    prog_t p = prog_new();
    p.n = (unsigned)(ops_inv_done(p.e, ev->key >> HCA_KEY_INDEX_SHIFT, !MUTANT_SKIPS_DRAIN(hca_fw_event_get_kind(ev)),
                                  done_word(ev, HCA_WC_STATUS_SUCCESS)) -
                     p.e);
    const unsigned split = INV_SPLIT;
    const uint32_t shadow = shadow_word(m);
    m->state = HCA_MKEY_STATE_FREE; /* the device's entry is FREE once INVALIDATE ran */
    pend_start_slow(p.e, p.n, ev, m, shadow, FAIL == HCA_WC_STATUS_MW_BIND_ERR ? &INV_COMMIT : &RINV_COMMIT, split);
    return PENDING;
}

#include "mm_fast.h" /* the fast paths: mm.c's, in its translation unit */

/* Inline (GCC's choice): out of line, the fast paths' loop kept more
 * constants in registers (LOCAL_INV 106 cycles/WR steady against 114) but
 * every slow-path event paid its prologue (a 16-page FAST_REG_MR 1248
 * against 1202), and the slow paths' timing is what the race files aim at. */
static unsigned perform(const hca_fw_event_t *ev)
{
    const uint32_t idx = ev->key >> HCA_KEY_INDEX_SHIFT;
    if (pend_on(mkey_get(idx), idx)) /* (none under way: settle does nothing) */
        settle(); /* decide on the tables that program leaves */
    switch (hca_fw_event_get_kind(ev)) {
    case HCA_EVT_KIND_FAST_REG_MR: return fast_reg(ev);
    case HCA_EVT_KIND_REG_INDIR_MR: return reg_indir(ev);
    case HCA_EVT_KIND_LOCAL_INV:
    case HCA_EVT_KIND_REMOTE_INV:
    case HCA_EVT_KIND_READ_INV: return invalidate(ev);
    default: return refuse(ev, HCA_WC_STATUS_GENERAL_ERR, "unknown event kind");
    }
}

int mm_events_served(void)
{
    if (evt_block == EVT_UNKNOWN) {
        uint32_t v;
        evt_block = reg_probe(EVT(HCA_EVT_STATUS), &v) ? EVT_ABSENT : EVT_PRESENT;
        if (evt_block == EVT_ABSENT)
            con_puts("hcafw: no event queue (regs evt): memory-management events are not served\n");
    }
    return evt_block == EVT_PRESENT;
}

/* RAM only (the programs): at boot, so the first call's probe costs one
 * access and no command waits behind the templates (16 of them). */
void mm_init(void)
{
    templates_init();
    for (unsigned b = 0; b < EVT_BATCH; b++) {
        hca_fseq_entry_t *r = &rd_prog[b * EVT_READ_OPS];
        r[0] = (hca_fseq_entry_t){CTL(EVT(HCA_EVT_DATA), HCA_FSEQ_KIND_READ_EVT, EVT_READ_WORDS),
                                  fw_local_addr(&rd_evt[b])};
        r[1] = (hca_fseq_entry_t){CTL(EVT(HCA_EVT_POP), HCA_FSEQ_KIND_WRITE, 0), HCA_EVT_POP_SLOT_PUT(b)}; /* bank slot b */
    }
}

void mm_service(void)
{
    if (evt_block != EVT_PRESENT && !mm_events_served())
        return;
    run_prog_t *r = &runp[0]; /* the next run's buffer (the other may be under way) */
    for (;;) {
        /* A batch read and popped by one program, then served in order: the
         * program stops at the first READ_EVT that finds the queue empty, so
         * no STATUS read is needed to tell how many there are; the service
         * ends when a read finds none. */
        settle();
        fseq_start(rd_prog, EVT_BATCH * EVT_READ_OPS);
        const uint32_t st = fseq_wait();
        const unsigned n = HCA_FSEQ_STATUS_DONE_GET(st) >> 1; /* the events popped (EVT_READ_OPS 2) */
        if (HCA_FSEQ_STATUS_ERROR_GET(st)) {
            con_puts("hcafw: the port sequencer could not read the event queue\n");
            break;
        }
        if (n == 0)
            break;
        fr_tmpl_t *t = fr_t; /* ev's slot's */
        for (const hca_fw_event_t *ev = rd_evt, *end = &rd_evt[n]; ev < end; ev++, t++) {
#if defined(HCAFW_MUTANT_DONE_AT_ONCE)
            /* bench_mm's engine floor: every event answered SUCCESS as read, no rule, no table write */
            reg_write(EVT(HCA_EVT_DONE), done_word(ev, HCA_WC_STATUS_SUCCESS));
            continue;
#endif
            const unsigned kind = hca_fw_event_get_kind(ev);
            if (__builtin_expect(kind == HCA_EVT_KIND_FAST_REG_MR, 1)) {
                /* a run when another registration follows (one alone: its own program, shorter) */
                const unsigned k = ev + 1 < end && hca_fw_event_get_kind(ev + 1) == HCA_EVT_KIND_FAST_REG_MR
                                       ? fr_run_take(r, ev, end, (unsigned)(t - fr_t))
                                       : 0;
                if (k) {
                    r = r == &runp[0] ? &runp[1] : &runp[0];
                    ev += k - 1;
                    t += k - 1;
                    continue;
                }
                if (fast_reg_quick(ev, t))
                    continue;
            } else { /* the run of invalidations from ev: none (0) for another kind, which has no
                      * inv_ok and fails run_take_untrusted's kind test */
                const unsigned k = run_take(r, ev, end);
                if (k) {
                    r = r == &runp[0] ? &runp[1] : &runp[0];
                    ev += k - 1;
                    t += k - 1;
                    continue;
                }
            }
            unsigned st = perform(ev);
            if (st != PENDING)
                reg_write(EVT(HCA_EVT_DONE), done_word(ev, st));
        }
    }
    settle(); /* nothing under way when the mailbox runs */
}
