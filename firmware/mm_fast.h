/* mm_fast.h — mm.c's fast paths: the one-page FAST_REG_MR and the runs of
 * invalidations and registrations a batch commits as one program.
 *
 * Not a module: mm.c includes it once, where these stood, so they stay in
 * its translation unit. GCC inlines them into the service loop, and the
 * firmware's cycles (what the race files aim at) depend on that; the image
 * is byte for byte the one a single mm.c built. They use mm.c's sequencer
 * programs, shadow helpers, slow paths and pending-commit state above the
 * #include. */
#ifndef MM_FAST_H
#define MM_FAST_H
#ifndef MM_C
#error "mm_fast.h is part of mm.c (its fast paths), included once by it"
#endif

/* ---- fast paths ----
 *
 * The common cases, decided and committed in a few dozen instructions: a
 * FAST_REG_MR of one inline page and the invalidations. Each takes the
 * event only when every rule of its slow path (fast_reg, invalidate above)
 * passes, from the same shadow, and commits what the slow path would (an
 * invalidation: the very program; one page: fwp FAST_REG, which writes the
 * slow path's MPT entry and MTT word), from a template whose fixed entries
 * are written once (at boot, mm_init): per event only the values change.
 * Anything else — any rule failing, a list to read — returns 0 having
 * changed nothing, and the slow path decides again from scratch and prints
 * the refusal: the rules are the slow path's, the fast path only recognises
 * the case they all pass. (A FAST_REG_MR with wqe_ok, read short, is
 * refused by fast_reg_refuse through the slow path's find_mr instead.)
 * One template per rd_evt slot, each its slot's events' only: the one the
 * sequencer may still be reading (the last started) is the slot before,
 * and a slot is read again only by the next batch read, which starts once
 * the last commit is settled. Each template's GO word is worked out once. */
/* The one-page commit is fwp FAST_REG: the translation unit writes the MPT
 * entry (the event's mpt_flags, key, iova, length; the MR's own pd and
 * mtt_base; mtt_count 1) and the MTT word (the page | present) from what its
 * registration bank kept of the event at its POP — rd_prog's POP of slot b
 * names bank slot b — at one edge: the slow path's entry and word for n = 1.
 * With its WAIT and DONE the commit is 3 port accesses, the slow path's
 * one-page program 17. The firmware decides first; FAST_REG only carries
 * out what it decided. */
enum { FR_CMD, FR_WAIT, FR_DONE, FR_OPS };
typedef struct __attribute__((aligned(8))) fr_tmpl {
    hca_fseq_entry_t e[FR_OPS];
    uint32_t go;
} fr_tmpl_t;
/* A run: the invalidations a batch holds one after another that all pass
 * their rules (each decided against the shadow as the earlier ones leave
 * it), committed as one program: every INVALIDATE and its WAIT, one DRAIN
 * and its WAIT, every DONE in event order. The FAST_REG_MRs a batch holds
 * one after another that fast_reg_quick would take make a run too, each
 * event's pair its FAST_REG and WAIT, the DRAIN a ctx NOP (a registration
 * fences nothing; fr_run_take); the two kinds never share a run (a
 * registration and an invalidation of one MR must run in event order). Each completion still follows
 * its key's INVALIDATE and a DRAIN begun after it (the fence), and the
 * run pays one program start, one settle and one DRAIN instead of one
 * each per event. The template holds the longest run (a batch): event j's
 * INVALIDATE at RUN_TAIL - 2 - 2j, so a run of k starts at
 * RUN_TAIL - 2k and every entry an event patches sits where it is
 * whatever k turns out to be (the INVALIDATEs run last event first: all
 * of them come before the DRAIN, their order is no part of the fence).
 * Two buffers: one is built while the other may run. */
#define RUN_MAX EVT_BATCH
enum { RUN_TAIL = 2 * RUN_MAX, RUN_DRAIN = RUN_TAIL, RUN_OPS = RUN_TAIL + 2 + RUN_MAX };
typedef struct __attribute__((aligned(8))) run_prog {
    hca_fseq_entry_t e[RUN_OPS];
    unsigned k;  /* its events, the k before end in rd_evt, once committed */
    const hca_fw_event_t *end;
    uint32_t shadow[RUN_MAX]; /* each event's MR's shadow word before it (not kept for an invalidation
                                 with hdr.inv_ok, run_trusted: its MR's state is the MPT's) */
    uint32_t go[RUN_MAX];     /* the GO word of a run of k + 1 */
} run_prog_t;
static fr_tmpl_t fr_t[EVT_BATCH];
static run_prog_t runp[2];
_Static_assert(offsetof(fr_tmpl_t, e) == 0 && offsetof(run_prog_t, e) == 0 && sizeof(fr_tmpl_t) % 8 == 0 &&
                   sizeof(run_prog_t) % 8 == 0,
               "every template's entries 8-aligned");
_Static_assert(RUN_OPS <= HCA_FSEQ_MAX_OPS, "a run is one program");
static const commit_t FR1_COMMIT = {HCA_WC_STATUS_MW_BIND_ERR, 1, "the translation unit refused FAST_REG",
                                     "the translation unit refused FAST_REG", FR_DONE, FR_DONE};

/* The templates: FAST_REG of the slot for one page (its DONE patched per
 * event), the runs of invalidations. */
_Static_assert(EVT_BATCH == 1u << HCA_EVT_POP_SLOT_WIDTH, "rd_evt slot b is fwp's registration bank slot b");
static void templates_init(void)
{
    for (unsigned b = 0; b < EVT_BATCH; b++) {
        /* FAST_REG of bank slot b (the slot's event), its WAIT, DONE */
        hca_fseq_entry_t *e = fr_t[b].e;
        e[FR_CMD] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_CMD), HCA_FSEQ_KIND_WRITE, 0),
                                       HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_FAST_REG) | HCA_FWP_CMD_INDEX_PUT(b)};
        e[FR_WAIT] = (hca_fseq_entry_t){CTL(FWP(HCA_FWP_STATUS), HCA_FSEQ_KIND_WAIT, ACCEPT_OK), 0};
        e[FR_DONE] = (hca_fseq_entry_t){CTL(EVT(HCA_EVT_DONE), HCA_FSEQ_KIND_WRITE, 0), 0};
        fr_t[b].go = fseq_go(fr_t[b].e, FR_OPS);
    }
    /* the runs: ops_inv_done's entries, each event's INVALIDATE and WAIT
     * (the DONE it writes after them is the next one's place, or the
     * DRAIN's), then the DRAIN and the DONEs */
    for (unsigned r = 0; r < 2; r++) {
        hca_fseq_entry_t *e = runp[r].e;
        for (unsigned j = RUN_MAX; j-- > 1;)
            ops_inv_done(&e[RUN_TAIL - 2 - 2 * j], 0, 0, 0);
        ops_inv_done(&e[RUN_TAIL - 2], 0, 1, 0);
        for (unsigned j = 1; j < RUN_MAX; j++)
            e[RUN_TAIL + 2 + j] = e[RUN_TAIL + 2];
        for (unsigned k = 1; k <= RUN_MAX; k++)
            runp[r].go[k - 1] = fseq_go(&e[RUN_TAIL - 2 * k], 3 * k + 2);
    }
}

/* The fast paths' rule failures: the slow path's business, laid out off the straight line. */
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Event j of a committed run. */
static inline const hca_fw_event_t *run_ev(const run_prog_t *r, unsigned j)
{
    return r->end - r->k + j;
}

/* Out of line: the run under way has an event on the MR of index idx. */
static int __attribute__((noinline)) run_on(uint32_t idx)
{
    const run_prog_t *r = pend.run;
    for (unsigned j = 0; j < r->k; j++)
        if (run_ev(r, j)->key >> HCA_KEY_INDEX_SHIFT == idx)
            return 1;
    return 0;
}

/* The program under way is on m, the MR of index idx. */
static inline int pend_on(const mkey_t *m, uint32_t idx)
{
    return pend.m == m || (UNLIKELY(pend.m == PEND_RUN) && run_on(idx));
}

/* The mutant image (firmware/firmware.mk, docs/mutation.md) that proves a
 * run's fence must follow its last INVALIDATE: a run of two or more DRAINs
 * before the INVALIDATE it runs last (the first event's). */
#if defined(HCAFW_MUTANT_RUN_DRAIN_EARLY)
static void mutant_drain_early(run_prog_t *r, unsigned k)
{
    hca_fseq_entry_t t[5], *e = &r->e[RUN_TAIL - 2];
    ops_inv_done(t, 0, 1, 0); /* INVALIDATE, WAIT, DRAIN, WAIT, DONE */
    t[0].val = e[0].val;      /* the first event's INVALIDATE, as invalidate_quick put it */
    const unsigned d = k >= 2 ? 2 : 0; /* the DRAIN's two entries first, or (a run of one) as the template has them */
    e[0] = t[d];
    e[1] = t[d + 1];
    e[2] = t[2 - d];
    e[3] = t[3 - d];
}
#endif

/* The MR a fast path may take: the key's index names a usable slot (the
 * shadow's in_use and kind are tested by the caller), and the program under
 * way, if it is on this MR, is settled first. NULL: leave it to the slow path. */
static inline mkey_t *fast_mr(uint32_t key)
{
    const uint32_t idx = key >> HCA_KEY_INDEX_SHIFT;
    if (UNLIKELY(idx == 0 || idx >= mkey_slots)) /* never an MR */
        return 0;
    mkey_t *m = &mkeys[idx];
    if (UNLIKELY(pend_on(m, idx)))
        settle(); /* decide on the tables that program leaves */
    return m;
}

/* FAST_REG_MR of one inline page, the event in rd_evt slot t's: fast_reg's
 * rules, in its order of cost. The engine checked the WQE's own (hdr.wqe_ok:
 * one page inline, the key indices, page_shift, length, wrap, the page's
 * alignment, the access combination; abi/hca.toml); this path trusts it
 * for those and checks what needs the shadow: the slot, in_use, kind,
 * FREE, the PD (mtt_count >= 1 = n: every fast_reg MR has one at least,
 * mkey_create refuses max_page_list_len 0). wqe_ok clear: the slow path,
 * which checks every rule itself. */
static int fast_reg_refuse(const hca_fw_event_t *ev);
/* fast_reg_quick's rules on m's shadow word fail: not in use, fast_reg,
 * FREE, or not the event's PD. not_key_byte: ~SHADOW_KEY_BYTE (a loop keeps
 * it in a register). */
static inline int fast_reg_refused(const hca_fw_event_t *ev, const mkey_t *m, uint32_t shadow, uint32_t not_key_byte)
{
    return UNLIKELY((shadow & not_key_byte) != SHADOW(1, HCA_MKEY_KIND_FAST_REG, 0, HCA_MKEY_STATE_FREE)) ||
           UNLIKELY(m->pd != ev->pd);
}
static inline int fast_reg_quick(const hca_fw_event_t *ev, fr_tmpl_t *t)
{
    const uint32_t hdr = ev->hdr, key = ev->key;
    if (!(hdr & 1u << HCA_FW_EVENT_WQE_OK_LSB))
        return 0;
    mkey_t *m = fast_mr(key);
    if (UNLIKELY(!m))
        return fast_reg_refuse(ev);
    const uint32_t shadow = shadow_word(m);
    if (fast_reg_refused(ev, m, shadow, ~SHADOW_KEY_BYTE))
        return fast_reg_refuse(ev);
    _Static_assert(HCA_ACCESS_ALL == (1u << HCA_SQ_WQE_FR_ACCESS_WIDTH) - 1, "every fr_access value is a flag set");
    /* Decided: FAST_REG of this slot writes the slow path's MPT entry and
     * MTT word for n = 1 (the flags the engine's mpt_flags); DONE SUCCESS
     * is hdr's tag (done_word), the shadow's key byte and state change */
    _Static_assert(HCA_WC_STATUS_SUCCESS == 0, "DONE SUCCESS is the tag alone");
    t->e[FR_DONE].val = hdr & ~0xffu; /* DONE ignores bits 20-31 (hdr's qpn): as run_take's */
    m->key_byte = (uint8_t)(key & HCA_KEY_BYTE_MASK);
    m->state = HCA_MKEY_STATE_VALID;
    pend_start(t->go, ev, m, shadow, &FR1_COMMIT);
    return 1;
}

/* A FAST_REG_MR with wqe_ok that fast_reg_quick does not take. READ_EVT
 * read its hdr, pd and key only (hca_evt_reads_short: the rest of its rd_evt
 * slot is an earlier event's; fwp's bank has the registration), so the slow
 * path cannot decide it; none is needed: wqe_ok covers every rule on the
 * WQE's own fields, index(mr_key) = index(key) among them, so what fails is
 * one of find_mr's rules on the MR's state, the same ones fast_reg_quick
 * tests. find_mr decides them on hdr, pd and key with mr_key 0 (the key's
 * MR, of the same index) and prints the refusal; then DONE. */
static int __attribute__((noinline)) fast_reg_refuse(const hca_fw_event_t *ev)
{
    hca_fw_event_t e = {0};
    e.hdr = ev->hdr;
    e.pd = ev->pd;
    e.key = ev->key;
    unsigned st;
    if (find_mr(&e, HCA_WC_STATUS_MW_BIND_ERR, 0, &st)) /* the fast path's rules and find_mr's disagree */
        st = refuse(&e, HCA_WC_STATUS_GENERAL_ERR, "internal: the MR's state passes find_mr, not the fast path");
    reg_write(EVT(HCA_EVT_DONE), done_word(ev, st));
    return 1;
}

/* LOCAL_INV, REMOTE_INV, READ_INV without hdr.inv_ok (or a mutant's):
 * invalidate's rules on the shadow of the MR of index idx (checked first),
 * the program under way on it settled first (a registration's changes the
 * key byte these rules read; a run of invalidations only the state byte,
 * and run_stopped redoes the run built meanwhile on the shadow it leaves,
 * but a run is asked as a whole). 0: the slow path's. */
static inline int invalidate_rules(const hca_fw_event_t *ev, uint32_t key, uint32_t idx)
{
    if (MUTANT_SKIPS_DRAIN(hca_fw_event_get_kind(ev))) /* the mutants' programs are the slow path's */
        return 0;
    if (UNLIKELY(idx - 1 >= mkey_slots - 1)) /* never an MR (index 0 wraps) */
        return 0;
    const mkey_t *m = &mkeys[idx];
    if (UNLIKELY(pend_on(m, idx)))
        settle(); /* decide on the tables that program leaves */
    const uint32_t shadow = shadow_word(m);
    /* in use, kind FAST_REG or INDIRECT (one apart), the key's key byte: with
     * the state byte shifted out, the shadow word is want or want + the kind's
     * one step, nothing else */
    _Static_assert(HCA_MKEY_KIND_INDIRECT == HCA_MKEY_KIND_FAST_REG + 1, "the two kinds an invalidation takes");
    const uint32_t want = key << 24 | SHADOW(1, HCA_MKEY_KIND_FAST_REG, 0, 0) << 8;
    return !UNLIKELY((((shadow << 8) - want) & ~SHADOW(0, 1, 0, 0) << 8) != 0 || m->pd != ev->pd);
}

static inline int is_inv(unsigned kind)
{
    return kind - HCA_EVT_KIND_LOCAL_INV <= HCA_EVT_KIND_READ_INV - HCA_EVT_KIND_LOCAL_INV;
}

/* ev (hdr its first word) is an invalidation the fast path takes on the
 * device's verdict, hdr.inv_ok (a mutant's kind never: its programs are the
 * slow path's). */
static inline int run_trusted(const hca_fw_event_t *ev, uint32_t hdr)
{
    (void)ev; /* (the mutants' kind) */
#if defined(HCAFW_MUTANT_INV_TRUST_ALL)
    /* the mutant image (firmware/firmware.mk, docs/mutation.md) that proves
     * the verdict is needed: every invalidation taken as if the device had
     * found its rules true (a device setting inv_ok always) */
    (void)hdr;
    return is_inv(hca_fw_event_get_kind(ev));
#endif
    return (hdr & 1u << HCA_FW_EVENT_INV_OK_LSB) && !MUTANT_SKIPS_DRAIN(hca_fw_event_get_kind(ev));
}

/* Both of two events are run_trusted (hdrs h0, h1): in the service's
 * image one test of both inv_ok bits. */
static inline int run_trusted2(const hca_fw_event_t *e, uint32_t h0, uint32_t h1)
{
#if defined(MUTANT_DRAINS_EVERY_KIND) && !defined(HCAFW_MUTANT_INV_TRUST_ALL)
    (void)e;
    return (h0 & h1) >> HCA_FW_EVENT_INV_OK_LSB & 1u;
#else
    return run_trusted(&e[0], h0) && run_trusted(&e[1], h1);
#endif
}

/* Out of line (its constants stay off the run's loop): event j of the run r
 * has no hdr.inv_ok (a later one on an MR in the batch, a mutant's): taken
 * if it is an invalidation passing its rules, with the shadow word
 * run_stopped restores (a trusted one's is the MPT's). Its index is checked
 * there before any MR of it is named. */
static int __attribute__((noinline)) run_take_untrusted(run_prog_t *r, unsigned j, const hca_fw_event_t *e)
{
    const uint32_t key = e->key, idx = key >> HCA_KEY_INDEX_SHIFT;
    if (!(is_inv(hca_fw_event_get_kind(e)) && invalidate_rules(e, key, idx)))
        return 0;
    r->shadow[j] = shadow_word(&mkeys[idx]);
    return 1;
}

/* Start the run of k events before end in r, once the program before it is settled. */
static inline void run_start(run_prog_t *r, unsigned k, const hca_fw_event_t *end)
{
    if (UNLIKELY(pend.m != 0)) { /* settle(), r the run built meanwhile: run_stopped may redo its shadow words */
        r->k = k;
        r->end = end;
        uint32_t st = fseq_wait();
        if (HCA_FSEQ_STATUS_ERROR_GET(st) || HCA_FSEQ_STATUS_STOPPED_GET(st))
            settle_stopped(st, r);
    }
#if defined(HCAFW_MUTANT_RUN_DRAIN_EARLY)
    if (hca_fw_event_get_kind(end - k) != HCA_EVT_KIND_FAST_REG_MR)
        mutant_drain_early(r, k);
#endif
    /* GO first: the bookkeeping is the core's alone, the run the device's critical path */
    reg_write(HCA_FW_FSEQ_BASE + HCA_FSEQ_GO, r->go[k - 1]);
    r->k = k;
    r->end = end;
    pend.m = PEND_RUN;
    pend.run = r;
}

/* The run that starts at ev and takes every invalidation from it, up to
 * end, that passes its rules: built in r and started; returns how many it
 * took (0: ev is the slow path's — any event but an invalidation passing
 * its rules, run_take_untrusted testing the kind). An event with
 * hdr.inv_ok passed them as the device checked them on the MPT (every
 * program is settled before a batch read, so the MPT was the shadow then)
 * and is the batch's first on its MR (the port sequencer clears the bit of
 * a later one): no program is under way on it, its rules need no shadow.
 * inv_ok is set on invalidations only, so it is also the kind test. */
static inline unsigned run_take(run_prog_t *r, const hca_fw_event_t *ev, const hca_fw_event_t *end)
{
    hca_fseq_entry_t *inv = &r->e[RUN_TAIL - 2], *done = &r->e[RUN_TAIL + 2];
    hca_fseq_entry_t *const done0 = done;
    const hca_fw_event_t *e = ev;
    /* INVALIDATE's command word but the index: in a register for the loop
     * (GCC would rebuild it every event, the loop being the service's) */
    uint32_t inv_op = HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_INVALIDATE);
    __asm__("" : "+r"(inv_op));
    _Static_assert(HCA_FWP_CMD_INDEX_LSB == 0, "the index is the low bits");
    /* done_word(SUCCESS): hdr's low byte cleared (one andi), its qpn in DONE's ignored bits */
    _Static_assert(HCA_WC_STATUS_SUCCESS == 0 && HCA_EVT_DONE_STATUS_LSB == 0 && HCA_EVT_DONE_STATUS_WIDTH == 8 &&
                       HCA_FW_EVENT_TAG_LSB == 8 && HCA_EVT_DONE_TAG_LSB + HCA_EVT_DONE_TAG_WIDTH == HCA_FW_EVENT_QPN_LSB,
                   "hdr & ~0xff is DONE {SUCCESS, tag} and bits DONE ignores");
    for (;;) {
        /* Trusted ones two at a time: one loop branch, one step of each pointer per pair
         * (the device found their entries allocated, so their indices are MRs') */
        while (e + 1 < end) {
            const uint32_t h0 = e[0].hdr, h1 = e[1].hdr;
            if (!run_trusted2(e, h0, h1))
                break;
            const uint32_t i0 = e[0].key >> HCA_KEY_INDEX_SHIFT, i1 = e[1].key >> HCA_KEY_INDEX_SHIFT;
            inv[0].val = inv_op | i0;
            inv[-2].val = inv_op | i1;
            done[0].val = h0 & ~0xffu;
            done[1].val = h1 & ~0xffu;
            mkeys[i0].state = HCA_MKEY_STATE_FREE; /* the device's entry is FREE once INVALIDATE ran */
            mkeys[i1].state = HCA_MKEY_STATE_FREE;
            inv -= 4;
            done += 2;
            e += 2;
        }
        if (e >= end)
            break;
        const uint32_t hdr = e->hdr, idx = e->key >> HCA_KEY_INDEX_SHIFT;
        if (UNLIKELY(!run_trusted(e, hdr)) && !run_take_untrusted(r, (unsigned)(done - done0), e))
            break;
        inv->val = inv_op | idx;
        done->val = hdr & ~0xffu;
        mkeys[idx].state = HCA_MKEY_STATE_FREE;
        inv -= 2;
        done++;
        e++;
    }
    const unsigned k = (unsigned)(done - done0); /* = e - ev, without a division */
    if (k) {
        r->e[RUN_DRAIN].val = HCA_CTX_CMD_OP_PUT(HCA_CTX_OP_DRAIN); /* (an FAST_REG_MR run's NOP before) */
        run_start(r, k, e);
    }
    return k;
}

/* The run of FAST_REG_MRs from ev (rd_evt slot b) up to end that
 * fast_reg_quick would take, each decided on the shadow as the earlier ones
 * leave it: built in r and started; returns how many it took (0: ev is
 * fast_reg_quick's). One the rules refuse, or on an MR a program under way
 * is on, ends it: fast_reg_quick settles and decides it alone. */
static inline unsigned fr_run_take(run_prog_t *r, const hca_fw_event_t *ev, const hca_fw_event_t *end, unsigned b)
{
    hca_fseq_entry_t *cmd = &r->e[RUN_TAIL - 2], *done = &r->e[RUN_TAIL + 2];
    hca_fseq_entry_t *const done0 = done;
    uint32_t *saved = r->shadow;
    const hca_fw_event_t *e = ev;
    /* In registers for the loop (GCC would rebuild them every event, the loop
     * being the service's): FAST_REG's command word of bank slot b (the next
     * event's one more), the kind and wqe_ok bits of a FAST_REG_MR the engine
     * checked, the shadow word of a usable MR but its key byte, the MR count. */
    _Static_assert(HCA_FWP_CMD_INDEX_LSB == 0 && HCA_FW_EVENT_KIND_LSB == 0, "the slot, the kind: the low bits");
    uint32_t op = HCA_FWP_CMD_OP_PUT(HCA_FWP_OP_FAST_REG) | b;
    uint32_t kind_mask = ((1u << HCA_FW_EVENT_KIND_WIDTH) - 1) | 1u << HCA_FW_EVENT_WQE_OK_LSB;
    uint32_t key_mask = ~SHADOW_KEY_BYTE;
    const uint32_t slots = mkey_slots - 1;
    __asm__("" : "+r"(kind_mask), "+r"(key_mask));
    for (; e < end; e++) {
        const uint32_t hdr = e->hdr, key = e->key, idx = key >> HCA_KEY_INDEX_SHIFT;
        if (UNLIKELY((hdr & kind_mask) != (HCA_EVT_KIND_FAST_REG_MR | 1u << HCA_FW_EVENT_WQE_OK_LSB)) ||
            UNLIKELY(idx - 1 >= slots)) /* (index 0 wraps) */
            break;
        mkey_t *m = &mkeys[idx];
        const uint32_t shadow = shadow_word(m);
        if (fast_reg_refused(e, m, shadow, key_mask) || UNLIKELY(pend.m != 0 && pend_on(m, idx)))
            break; /* fast_reg_quick's rules, or a program under way on it */
        /* decided, as fast_reg_quick: FAST_REG of the slot, DONE SUCCESS, the shadow's key byte and state */
        *saved++ = shadow;
        cmd->val = op++;
        done->val = hdr & ~0xffu;
        m->key_byte = (uint8_t)(key & HCA_KEY_BYTE_MASK);
        m->state = HCA_MKEY_STATE_VALID;
        cmd -= 2;
        done++;
    }
    const unsigned k = (unsigned)(done - done0);
    if (k) {
        r->e[RUN_DRAIN].val = HCA_CTX_CMD_OP_PUT(HCA_CTX_OP_NOP);
        run_start(r, k, e);
    }
    return k;
}

static inline mkey_t *run_mr(const run_prog_t *r, unsigned j)
{
    return &mkeys[run_ev(r, j)->key >> HCA_KEY_INDEX_SHIFT];
}

/* Event j of r (not committed) restored on its MR's shadow: the word saved
 * before it, or for one taken on the device's verdict (run_trusted: the
 * first of its batch on the MR, so its entry is as the batch read found it,
 * the shadow's image) the state of the MPT entry its INVALIDATE never
 * reached. Its only change was the state byte. */
static void run_restore(const run_prog_t *r, unsigned j)
{
    const hca_fw_event_t *ev = run_ev(r, j);
    mkey_t *m = run_mr(r, j);
    if (!run_trusted(ev, ev->hdr)) {
        shadow_set(m, r->shadow[j]);
        return;
    }
    hca_mpt_entry_t e;
    if (fwp_run(HCA_FWP_OP_READ_MPT, ev->key >> HCA_KEY_INDEX_SHIFT) != HCA_FWP_RESULT_OK) {
        m->state = HCA_MKEY_STATE_VALID; /* (an index the device checked): VALID refuses a registration */
        return;
    }
    fwp_fetch_mpt(&e);
    m->state = (uint8_t)hca_mpt_entry_get_state(&e);
}

/* Out of line: the run under way stopped at its entry STATUS.done. The
 * events whose INVALIDATE ran are committed: after a DRAIN they succeed;
 * each of the others fails as its own program stopped there would have
 * (its kind's status, the MR as it was). The run about to start on top
 * (building) is undone first and redone last, on the shadow this
 * leaves. */
/* Event j of r on its MR's shadow: an invalidation's entry FREE, a
 * registration's VALID with its key byte. */
static void run_apply(const run_prog_t *r, unsigned j)
{
    const hca_fw_event_t *ev = run_ev(r, j);
    mkey_t *m = run_mr(r, j);
    if (hca_fw_event_get_kind(ev) == HCA_EVT_KIND_FAST_REG_MR) {
        m->key_byte = (uint8_t)(ev->key & HCA_KEY_BYTE_MASK);
        m->state = HCA_MKEY_STATE_VALID;
    } else {
        m->state = HCA_MKEY_STATE_FREE;
    }
}

static void run_stopped(uint32_t st, run_prog_t *b)
{
    run_prog_t *r = pend.run;
    const unsigned k = r->k, at = HCA_FSEQ_STATUS_DONE_GET(st), bk = b ? b->k : 0;
    const int regs = hca_fw_event_get_kind(run_ev(r, 0)) == HCA_EVT_KIND_FAST_REG_MR; /* a FAST_REG_MR run */
    for (unsigned j = bk; j-- > 0;)
        run_restore(b, j);
    /* s: the first event (in event order) committed; the ones before it were not */
    const unsigned s = at >= 2 * k ? 0 : k - at / 2;
    for (unsigned j = s; j-- > 0;)
        run_restore(r, j);
    for (unsigned j = s; j < k; j++)
        run_apply(r, j);
    unsigned drained = 1; /* the run's DRAIN ran, or none is needed */
    if (at < 2 * k + 2 && !regs) { /* the DRAIN did not run, or did not complete */
        unsigned dr = at < 2 * k && s < k ? ctx_run(HCA_CTX_OP_DRAIN, 0) : HCA_FWP_RESULT_BUSY;
        drained = dr == HCA_FWP_RESULT_OK || dr == HCA_FWP_RESULT_BAD_OP;
    }
    for (unsigned j = at >= 2 * k + 2 ? at - 2 * k - 2 : 0; j < k; j++) {
        const hca_fw_event_t *ev = run_ev(r, j);
        const unsigned kind = hca_fw_event_get_kind(ev);
        const commit_t *c = regs ? &FR1_COMMIT : kind == HCA_EVT_KIND_REMOTE_INV ? &RINV_COMMIT : &INV_COMMIT;
        unsigned status = HCA_WC_STATUS_SUCCESS;
        if (j + 1 < s)
            status = refuse(ev, c->fail, regs ? "its run stopped before its FAST_REG (an earlier one's was refused)"
                                              : "its run stopped before its INVALIDATE (an earlier one's was refused)");
        else if (j + 1 == s)
            status = refuse(ev, c->fail, c->why_a);
        else if (!drained)
            status = refuse(ev, c->fail, c->why_b);
        reg_write(EVT(HCA_EVT_DONE), done_word(ev, status));
    }
    for (unsigned j = 0; j < bk; j++) {
        b->shadow[j] = shadow_word(run_mr(b, j));
        run_apply(b, j);
    }
}

#endif /* MM_FAST_H */
