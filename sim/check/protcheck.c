/* protcheck.c — the protection checker (sim/protcheck.h).
 *
 * State: a table of keys that were ever invalidated or validated (their last
 * invalidation cycle and whether they are invalid now), the WRITE message in
 * progress per (responder QP, requester QP) pair, which WRITE message each
 * packet buffer holds, the revoked host ranges, and the kept breaches.
 * Tables are open-addressed hashes that double at half load.
 */
#include "protcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVER UINT64_MAX
#define PC_INITIAL_CAP 64u
#define PC_PBUFS 256u /* dma_req.buf / pkt.pbuf are 8 bits wide */

/* ---------------------------------------------------------------- hash table */

/** Open-addressed u64 -> fixed-size value table. */
typedef struct pc_table {
    uint64_t *keys;
    uint8_t *used;
    unsigned char *vals;
    size_t cap, count, vsize;
} pc_table_t;

static size_t pc_hash(uint64_t k, size_t cap)
{
    k *= 0x9e3779b97f4a7c15ull;
    return (size_t)(k >> 20) & (cap - 1);
}

static int tab_init(pc_table_t *t, size_t vsize)
{
    memset(t, 0, sizeof *t);
    t->vsize = vsize;
    t->cap = PC_INITIAL_CAP;
    t->keys = calloc(t->cap, sizeof *t->keys);
    t->used = calloc(t->cap, 1);
    t->vals = calloc(t->cap, vsize);
    return t->keys && t->used && t->vals ? 0 : -ENOMEM;
}

static void tab_free(pc_table_t *t)
{
    free(t->keys);
    free(t->used);
    free(t->vals);
    memset(t, 0, sizeof *t);
}

static void tab_clear(pc_table_t *t)
{
    memset(t->used, 0, t->cap);
    t->count = 0;
}

static void *tab_find(const pc_table_t *t, uint64_t k)
{
    for (size_t i = pc_hash(k, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (!t->used[i])
            return NULL;
        if (t->keys[i] == k)
            return t->vals + i * t->vsize;
    }
}

/** The value of k, inserted zeroed (and *fresh = 1) when absent; NULL when out of memory. */
static void *tab_get(pc_table_t *t, uint64_t k, int *fresh)
{
    void *v = tab_find(t, k);
    *fresh = !v;
    if (v)
        return v;
    if (2 * (t->count + 1) > t->cap) {
        pc_table_t n;
        n.vsize = t->vsize;
        n.cap = t->cap * 2;
        n.count = 0;
        n.keys = calloc(n.cap, sizeof *n.keys);
        n.used = calloc(n.cap, 1);
        n.vals = calloc(n.cap, n.vsize);
        if (!n.keys || !n.used || !n.vals) {
            tab_free(&n);
            return NULL;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->used[i])
                continue;
            size_t j = pc_hash(t->keys[i], n.cap);
            while (n.used[j])
                j = (j + 1) & (n.cap - 1);
            n.used[j] = 1;
            n.keys[j] = t->keys[i];
            memcpy(n.vals + j * n.vsize, t->vals + i * t->vsize, t->vsize);
            n.count++;
        }
        tab_free(t);
        *t = n;
    }
    size_t i = pc_hash(k, t->cap);
    while (t->used[i])
        i = (i + 1) & (t->cap - 1);
    t->used[i] = 1;
    t->keys[i] = k;
    t->count++;
    v = t->vals + i * t->vsize;
    memset(v, 0, t->vsize);
    return v;
}

/* ---------------------------------------------------------------- state */

typedef struct key_state {
    uint64_t inv_at;   /**< last invalidation cycle, NEVER if none */
    uint64_t inv_req_at; /**< when that invalidation was requested (= inv_at if not told) */
    uint64_t pending_at; /**< an invalidation requested then and not complete, NEVER if none */
    uint64_t valid_at; /**< last validation cycle, NEVER if none */
    int invalid;       /**< the latest event was an invalidation */
    const char *why;   /**< what the last invalidation was */
    uint64_t fence_at; /**< an indirect key: last invalidation of one of its KLM entries' keys, NEVER if none */
    uint64_t fence_req_at; /**< ... when that invalidation was requested */
    uint64_t fence_pending_at; /**< an entry's invalidation requested then and not complete, NEVER if none */
    uint32_t fence_key; /**< ... that entry's key */
} key_state_t;

/** An indirect key's KLM entries' keys (protcheck_key_depends). */
typedef struct dep {
    uint32_t *entries;
    size_t n;
} dep_t;

/** The WRITE or READ message in progress on one (responder, requester) QP pair. */
typedef struct msg_state {
    uint32_t psn, rkey;
    uint64_t first_at;    /**< cycle its first packet was delivered */
    uint64_t placed;      /**< payload bytes placed (BUF_TO_HOST issued) */
    uint64_t place_at;    /**< first placement: cycle, address */
    uint64_t place_addr;
    uint64_t nak_at;      /**< NAK REM_ACCESS_ERR cycle, NEVER if none */
} msg_state_t;

/** What a packet buffer holds: a WRITE packet of message (pair, psn). */
typedef struct pbuf_owner {
    int write;
    uint32_t pair; /**< responder qpn << 16 | requester qpn */
    uint32_t psn;
} pbuf_owner_t;

/** A QP's fence (I6). */
typedef struct qp_state {
    uint64_t fenced_at; /**< last DESTROY_QP / MODIFY_QP RESET answer, NEVER if none */
    uint64_t live_at;   /**< last connection after it, NEVER if none */
    const char *why;
} qp_state_t;

typedef struct range {
    uint64_t addr, end; /**< [addr, end) */
    uint64_t at;
    const char *why;
} range_t;

struct protcheck {
    pc_table_t keys; /* key -> key_state_t */
    pc_table_t msgs; /* pair -> msg_state_t */
    pc_table_t deps; /* indirect key -> dep_t */
    pc_table_t qps;  /* qpn -> qp_state_t */
    pbuf_owner_t pbuf[PC_PBUFS];
    range_t *ranges;
    size_t nranges, ranges_cap;
    protcheck_violation_t kept[PROTCHECK_KEEP];
    protcheck_stats_t st;
    uint8_t dma_flagged[256]; /* by DMA tag: reported at issue already (evlog feed) */
};

/* b: the breach's cycles and names (its reason is written here). */
static void pc_add(protcheck_t *pc, const protcheck_violation_t *b, const char *fmt, va_list ap)
{
    if (pc->st.violations < PROTCHECK_KEEP) {
        protcheck_violation_t *v = &pc->kept[pc->st.violations];
        *v = *b;
        vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    }
    pc->st.violations++;
}

static void pc_report_at(protcheck_t *pc, const protcheck_violation_t *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pc_report_at(protcheck_t *pc, const protcheck_violation_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pc_add(pc, b, fmt, ap);
    va_end(ap);
}

/* A breach detected in `cycle` of a DMA (req) issued in `issue`, landed in
 * `land` (NONE: caught at issue), racing an invalidation requested in
 * `inv_req` and completed in `inv` (NONE: none). */
static void pc_breach(protcheck_t *pc, uint64_t cycle, const hca_dma_req_t *req, uint64_t issue, uint64_t land,
                      uint64_t inv_req, uint64_t inv, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void pc_breach(protcheck_t *pc, uint64_t cycle, const hca_dma_req_t *req, uint64_t issue, uint64_t land,
                      uint64_t inv_req, uint64_t inv, const char *fmt, ...)
{
    const protcheck_violation_t b = {cycle, req->key, req->addr, req->qpn, issue, inv_req, inv, land, ""};
    va_list ap;
    va_start(ap, fmt);
    pc_add(pc, &b, fmt, ap);
    va_end(ap);
}

void protcheck_report(protcheck_t *pc, uint64_t cycle, uint32_t key, uint64_t addr, const char *fmt, ...)
{
    if (!pc || !fmt)
        return;
    const protcheck_violation_t b = {cycle, key, addr, 0, PROTCHECK_NONE, PROTCHECK_NONE, PROTCHECK_NONE,
                                     PROTCHECK_NONE, ""};
    va_list ap;
    va_start(ap, fmt);
    pc_add(pc, &b, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- life cycle */

int protcheck_create(protcheck_t **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    protcheck_t *pc = calloc(1, sizeof *pc);
    if (!pc)
        return -ENOMEM;
    if (tab_init(&pc->keys, sizeof(key_state_t)) || tab_init(&pc->msgs, sizeof(msg_state_t)) ||
        tab_init(&pc->deps, sizeof(dep_t)) || tab_init(&pc->qps, sizeof(qp_state_t))) {
        protcheck_destroy(pc);
        return -ENOMEM;
    }
    *out = pc;
    return 0;
}

static void deps_clear(protcheck_t *pc)
{
    for (size_t i = 0; pc->deps.vals && i < pc->deps.cap; i++)
        if (pc->deps.used[i])
            free(((dep_t *)(pc->deps.vals + i * pc->deps.vsize))->entries);
    if (pc->deps.used)
        tab_clear(&pc->deps);
}

void protcheck_destroy(protcheck_t *pc)
{
    if (!pc)
        return;
    deps_clear(pc);
    tab_free(&pc->deps);
    tab_free(&pc->keys);
    tab_free(&pc->msgs);
    tab_free(&pc->qps);
    free(pc->ranges);
    free(pc);
}

void protcheck_reset(protcheck_t *pc)
{
    if (!pc)
        return;
    tab_clear(&pc->keys);
    tab_clear(&pc->msgs);
    if (pc->qps.used)
        tab_clear(&pc->qps);
    deps_clear(pc);
    memset(pc->pbuf, 0, sizeof pc->pbuf);
    pc->nranges = 0;
    memset(&pc->st, 0, sizeof pc->st);
}

/* ---------------------------------------------------------------- keys and ranges */

/* A key's state, created as "never invalidated nor validated". */
static key_state_t *key_of(protcheck_t *pc, uint32_t key)
{
    int fresh;
    key_state_t *k = tab_get(&pc->keys, key, &fresh);
    if (k && fresh)
        k->inv_at = k->inv_req_at = k->valid_at = k->pending_at = k->fence_at = k->fence_pending_at = NEVER;
    return k;
}

/* Entry key `entry` was invalidated at cycle, requested at req: every
 * indirect key whose KLM list holds it (and, through nesting, the keys
 * holding those) is fenced: a DMA through it issued before the request was
 * checked before the INVALIDATE, so the DRAIN must see it answered before
 * the invalidation completes. One issued later may have been checked after
 * the INVALIDATE and touch other entries only (legitimately), so neither I1
 * nor this I2 form applies to it: the checker does not know which entry a
 * DMA's address belongs to. */
/* What an entry's invalidation does to the indirect keys over it. */
enum { FENCE_DONE, FENCE_PENDING, FENCE_WITHDRAWN };

static void entry_fence(protcheck_t *pc, int what, uint64_t cycle, uint64_t req, uint32_t entry, unsigned depth)
{
    if (depth > HCA_MAX_INDIRECTION)
        return; /* deeper chains are refused by the device */
    for (size_t i = 0; i < pc->deps.cap; i++) {
        if (!pc->deps.used[i])
            continue;
        const dep_t *d = (const dep_t *)(pc->deps.vals + i * pc->deps.vsize);
        const uint32_t ind = (uint32_t)pc->deps.keys[i];
        size_t j = 0;
        while (j < d->n && d->entries[j] != entry)
            j++;
        if (j == d->n || ind == entry)
            continue;
        key_state_t *k = key_of(pc, ind);
        if (!k)
            return;
        if (what == FENCE_DONE) {
            k->fence_at = cycle;
            k->fence_req_at = req;
            k->fence_key = entry;
            k->fence_pending_at = NEVER;
        } else if (what == FENCE_PENDING) {
            if (k->fence_pending_at == NEVER)
                k->fence_pending_at = cycle;
        } else {
            k->fence_pending_at = NEVER;
        }
        entry_fence(pc, what, cycle, req, ind, depth + 1);
    }
}

void protcheck_key_depends(protcheck_t *pc, uint64_t cycle, uint32_t key, const uint32_t *entries, size_t n)
{
    (void)cycle;
    if (!pc || (n && !entries))
        return;
    int fresh;
    dep_t *d = tab_get(&pc->deps, key, &fresh);
    if (!d)
        return;
    free(d->entries);
    d->entries = n ? malloc(n * sizeof *entries) : NULL;
    d->n = d->entries ? n : 0;
    if (d->entries)
        memcpy(d->entries, entries, n * sizeof *entries);
}

void protcheck_key_invalid(protcheck_t *pc, uint64_t cycle, uint32_t key, const char *why)
{
    if (!pc)
        return;
    key_state_t *k = key_of(pc, key);
    if (!k)
        return;
    k->inv_req_at = k->pending_at != NEVER && k->pending_at <= cycle ? k->pending_at : cycle;
    k->pending_at = NEVER;
    k->inv_at = cycle;
    k->invalid = 1;
    k->why = why ? why : "invalidation";
    pc->st.invalidations++;
    if (pc->deps.count)
        entry_fence(pc, FENCE_DONE, cycle, k->inv_req_at, key, 0);
}

void protcheck_key_valid(protcheck_t *pc, uint64_t cycle, uint32_t key)
{
    if (!pc)
        return;
    key_state_t *k = key_of(pc, key);
    if (!k)
        return;
    k->pending_at = NEVER;
    k->valid_at = cycle;
    k->invalid = 0;
    pc->st.validations++;
}

void protcheck_key_invalidating(protcheck_t *pc, uint64_t cycle, uint32_t key, int on)
{
    if (!pc)
        return;
    key_state_t *k = key_of(pc, key);
    if (!k)
        return;
    if (!on)
        k->pending_at = NEVER;
    else if (k->pending_at == NEVER)
        k->pending_at = cycle;
    if (pc->deps.count) /* I4: checks through the indirect keys over it may fail from now on */
        entry_fence(pc, on ? FENCE_PENDING : FENCE_WITHDRAWN, cycle, cycle, key, 0);
}

int protcheck_range_revoke(protcheck_t *pc, uint64_t cycle, uint64_t addr, uint64_t len, const char *why)
{
    if (!pc || len == 0 || addr + len < addr)
        return -EINVAL;
    if (pc->nranges == pc->ranges_cap) {
        size_t ncap = pc->ranges_cap ? 2 * pc->ranges_cap : 16;
        range_t *n = realloc(pc->ranges, ncap * sizeof *n);
        if (!n)
            return -ENOMEM;
        pc->ranges = n;
        pc->ranges_cap = ncap;
    }
    pc->ranges[pc->nranges++] = (range_t){addr, addr + len, cycle, why ? why : "revocation"};
    return 0;
}

void protcheck_range_restore(protcheck_t *pc, uint64_t addr, uint64_t len)
{
    if (!pc)
        return;
    uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
    for (size_t i = 0; i < pc->nranges;) {
        range_t *r = &pc->ranges[i];
        if (r->addr >= addr && r->end <= end)
            pc->ranges[i] = pc->ranges[--pc->nranges]; /* wholly restored */
        else
            i++;
    }
}

/* ---------------------------------------------------------------- QPs */

void protcheck_qp_fenced(protcheck_t *pc, uint64_t cycle, uint32_t qpn, const char *why)
{
    if (!pc)
        return;
    int fresh;
    qp_state_t *q = tab_get(&pc->qps, qpn, &fresh);
    if (!q)
        return;
    if (fresh)
        q->live_at = NEVER;
    q->fenced_at = cycle;
    q->why = why ? why : "fence";
    pc->st.qp_fences++;
}

void protcheck_qp_live(protcheck_t *pc, uint64_t cycle, uint32_t qpn)
{
    qp_state_t *q = pc ? tab_find(&pc->qps, qpn) : NULL;
    if (q)
        q->live_at = cycle;
}

/* The fence of the QP whose DMA req is, or NULL: none, or not one of a QP. */
static const qp_state_t *qp_fence(const protcheck_t *pc, const hca_dma_req_t *req)
{
    return req->qpn && pc->qps.count ? tab_find(&pc->qps, req->qpn) : NULL;
}

/* ---------------------------------------------------------------- DMA */

static const char *dma_op_name(unsigned op)
{
    const char *n = hca_dma_op_name(op);
    return n ? n : "?";
}

/** The revoked range [addr, addr+len) overlaps, revoked at or before cycle; NULL if none. */
static const range_t *revoked(const protcheck_t *pc, uint64_t cycle, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
    for (size_t i = 0; i < pc->nranges; i++) {
        const range_t *r = &pc->ranges[i];
        if (r->at <= cycle && addr < r->end && r->addr < end)
            return r;
    }
    return NULL;
}

static int touches_host(unsigned op)
{
    return op <= HCA_DMA_OP_BUF_TO_HOST;
}

/** What a DMA of a QP is, for an I6 breach: a WQE read or a CQE write is told
 *  by its tag (docs/engine.md: tag[7:6] = client, requester 0 / responder 1 /
 *  CQ writer 2; the send engine's fetch is tag 0, its read-ahead 0000_1sss). A label only: the
 *  check itself goes by dma_req.qpn. */
static const char *dma_what(const hca_dma_req_t *req)
{
    const unsigned op = hca_dma_req_get_op(req), tag = hca_dma_req_get_tag(req);
    if (op == HCA_DMA_OP_WRITE_DATA && tag >> 6 == 2u)
        return "CQE write (WRITE_DATA)"; /* the CQ writer, client 2: qpn is the CQE's */
    if (op != HCA_DMA_OP_READ_DATA)
        return dma_op_name(op);
    if (tag >> 6 == 1u)
        return "RQ WQE fetch (READ_DATA)";
    if ((tag & 0xf8u) == 0x08u)
        return "SQ WQE read-ahead (READ_DATA)";
    return tag == 0u ? "SQ WQE fetch (READ_DATA)" : "READ_DATA";
}

/** I4: a BUF_TO_HOST issued from a buffer holding a WRITE packet. */
static void check_placement(protcheck_t *pc, uint64_t cycle, const hca_dma_req_t *req)
{
    const pbuf_owner_t *o = &pc->pbuf[hca_dma_req_get_buf(req)];
    if (!o->write || req->len == 0)
        return;
    msg_state_t *m = tab_find(&pc->msgs, o->pair);
    if (!m || m->psn != o->psn)
        return;
    if (m->nak_at != NEVER) {
        pc_breach(pc, cycle, req, cycle, PROTCHECK_NONE, PROTCHECK_NONE, PROTCHECK_NONE,
                  "I4: WRITE psn %" PRIu32 " (qp %u <- qp %u) NAKed REM_ACCESS_ERR at cycle %" PRIu64
                  ", yet BUF_TO_HOST of %" PRIu32 " bytes issued %" PRIu64 " cycles later",
                  m->psn, o->pair >> 16, o->pair & 0xffffu, m->nak_at, req->len, cycle - m->nak_at);
        return;
    }
    if (m->placed == 0) {
        m->place_at = cycle;
        m->place_addr = req->addr;
    }
    m->placed += req->len;
}

int protcheck_dma_issue(protcheck_t *pc, uint64_t cycle, const hca_dma_req_t *req)
{
    if (!pc || !req)
        return 0;
    pc->st.dma_issued++;
    const unsigned op = hca_dma_req_get_op(req);
    if (op == HCA_DMA_OP_HOST_TO_BUF)
        pc->pbuf[hca_dma_req_get_buf(req)].write = 0; /* the buffer is being refilled by a sender */
    if (op == HCA_DMA_OP_BUF_TO_HOST)
        check_placement(pc, cycle, req);
    if (!touches_host(op))
        return 0;
    int flagged = 0;
    if (req->key) {
        pc->st.dma_keyed++;
        const key_state_t *k = tab_find(&pc->keys, req->key);
        if (k && k->invalid) {
            pc_breach(pc, cycle, req, cycle, PROTCHECK_NONE, k->inv_req_at, k->inv_at,
                      "I1: %s of %" PRIu32 " bytes through key 0x%08" PRIx32 " issued %" PRIu64
                      " cycles after its invalidation (%s at cycle %" PRIu64 ")",
                      dma_op_name(op), req->len, req->key, cycle - k->inv_at, k->why, k->inv_at);
            flagged = 1;
        }
    }
    const qp_state_t *q = qp_fence(pc, req);
    if (q && !flagged && (q->live_at == NEVER || q->live_at < q->fenced_at)) {
        pc_breach(pc, cycle, req, cycle, PROTCHECK_NONE, q->fenced_at, q->fenced_at,
                  "I6: %s of %" PRIu32 " bytes at 0x%" PRIx64 " of QP %" PRIu32 " issued %" PRIu64
                  " cycles after its %s returned (cycle %" PRIu64 ")",
                  dma_what(req), req->len, req->addr, req->qpn, cycle - q->fenced_at, q->why, q->fenced_at);
        flagged = 1;
    }
    const range_t *r = pc->nranges ? revoked(pc, cycle, req->addr, req->len) : NULL;
    if (r && !flagged) {
        pc_breach(pc, cycle, req, cycle, PROTCHECK_NONE, r->at, r->at,
                  "I3: %s of %" PRIu32 " bytes at 0x%" PRIx64 " touches [0x%" PRIx64 ", 0x%" PRIx64
                  ") revoked at cycle %" PRIu64 " (%s)",
                  dma_op_name(op), req->len, req->addr, r->addr, r->end, r->at, r->why);
        flagged = 1;
    }
    return flagged;
}

void protcheck_dma_done(protcheck_t *pc, uint64_t issue_cycle, uint64_t cycle, const hca_dma_req_t *req,
                        int transferred, int flagged)
{
    if (!pc || !req || flagged)
        return;
    const unsigned op = hca_dma_req_get_op(req);
    if (!touches_host(op))
        return;
    /* A bus error moved nothing (I2 and I3 hold), but it was on the bus:
       after the QP's fence that is I6 all the same (a driver that freed the
       ring at the destroy's return gets this very fault, an IOMMU's on a real
       host). */
    const qp_state_t *q = qp_fence(pc, req);
    const int qp_late = q && issue_cycle < q->fenced_at && q->fenced_at <= cycle;
    if (!transferred && !qp_late)
        return;
    if (req->key && transferred) {
        const key_state_t *k = tab_find(&pc->keys, req->key);
        if (k && k->inv_at != NEVER && k->inv_at >= issue_cycle && k->inv_at <= cycle) {
            pc_breach(pc, cycle, req, issue_cycle, cycle, k->inv_req_at, k->inv_at,
                      "I2: %s of %" PRIu32 " bytes through key 0x%08" PRIx32 " issued at cycle %" PRIu64
                      " reached memory at cycle %" PRIu64 ", after its invalidation (%s at cycle %" PRIu64 ")",
                      dma_op_name(op), req->len, req->key, issue_cycle, cycle, k->why, k->inv_at);
            return;
        }
        if (k && k->fence_at != NEVER && issue_cycle < k->fence_req_at && k->fence_at <= cycle) {
            pc_breach(pc, cycle, req, issue_cycle, cycle, k->fence_req_at, k->fence_at,
                      "I2: %s of %" PRIu32 " bytes through indirect key 0x%08" PRIx32 " issued at cycle %" PRIu64
                      " reached memory at cycle %" PRIu64 ", after its KLM entry's key 0x%08" PRIx32
                      " was invalidated at cycle %" PRIu64 " (requested at cycle %" PRIu64 ")",
                      dma_op_name(op), req->len, req->key, issue_cycle, cycle, k->fence_key, k->fence_at,
                      k->fence_req_at);
            return;
        }
    }
    if (qp_late) {
        const int rd = op == HCA_DMA_OP_READ_DATA || op == HCA_DMA_OP_HOST_TO_BUF;
        pc_breach(pc, cycle, req, issue_cycle, cycle, q->fenced_at, q->fenced_at,
                  "I6: %s of %" PRIu32 " bytes at 0x%" PRIx64 " of QP %" PRIu32 " issued at cycle %" PRIu64
                  " %s at cycle %" PRIu64 ", after its %s returned (cycle %" PRIu64 ")",
                  dma_what(req), req->len, req->addr, req->qpn, issue_cycle,
                  !transferred ? "was on the bus (a bus error)" : rd ? "read memory" : "reached memory", cycle,
                  q->why, q->fenced_at);
        return;
    }
    const range_t *r = pc->nranges ? revoked(pc, cycle, req->addr, req->len) : NULL;
    if (r)
        pc_breach(pc, cycle, req, issue_cycle, cycle, r->at, r->at,
                  "I3: %s of %" PRIu32 " bytes at 0x%" PRIx64 " issued at cycle %" PRIu64
                  " reached [0x%" PRIx64 ", 0x%" PRIx64 ") at cycle %" PRIu64 ", after its revocation at cycle %" PRIu64
                  " (%s)",
                  dma_op_name(op), req->len, req->addr, issue_cycle, r->addr, r->end, cycle, r->at, r->why);
}

/* ---------------------------------------------------------------- packets */

void protcheck_pkt_rx(protcheck_t *pc, uint64_t cycle, const hca_pkt_t *p)
{
    if (!pc || !p)
        return;
    const unsigned op = hca_pkt_get_op(p);
    pbuf_owner_t *o = &pc->pbuf[hca_pkt_get_pbuf(p)];
    const uint32_t pair = hca_pkt_get_dst_qpn(p) << 16 | hca_pkt_get_src_qpn(p);
    if (op != HCA_PKT_OP_WRITE) {
        if (p->len)
            o->write = 0; /* the buffer now holds another kind of payload */
        if (op != HCA_PKT_OP_READ_REQ)
            return;
    } else {
        pc->st.write_pkts++;
    }
    /* A WRITE or READ message: its rkey's invalidation span against its NAK
       (I4 for a WRITE; refused_after_inv for both). */
    int fresh;
    msg_state_t *m = tab_get(&pc->msgs, pair, &fresh);
    if (!m)
        return;
    if (fresh || hca_pkt_get_first(p) || m->psn != p->psn) {
        /* a new message (a later packet whose first we missed starts one too) */
        m->psn = p->psn;
        m->rkey = p->rkey;
        m->first_at = cycle;
        m->placed = 0;
        m->nak_at = NEVER;
    }
    if (op == HCA_PKT_OP_WRITE && p->len) {
        o->write = 1;
        o->pair = pair;
        o->psn = p->psn;
    }
}

void protcheck_pkt_tx(protcheck_t *pc, uint64_t cycle, const hca_pkt_t *p)
{
    if (!pc || !p || hca_pkt_get_op(p) != HCA_PKT_OP_NAK || hca_pkt_get_syndrome(p) != HCA_WC_STATUS_REM_ACCESS_ERR)
        return;
    pc->st.access_naks++;
    /* The responder sends the NAK: its src is the responder, dst the requester. */
    const uint32_t pair = hca_pkt_get_src_qpn(p) << 16 | hca_pkt_get_dst_qpn(p);
    msg_state_t *m = tab_find(&pc->msgs, pair);
    if (!m || m->psn != p->psn || m->nak_at != NEVER)
        return; /* not a WRITE or READ message we saw */
    m->nak_at = cycle;
    const key_state_t *k = tab_find(&pc->keys, m->rkey);
    /* An invalidation whose span [requested, completed] meets [first packet, NAK]. */
    const int invalidated_during =
        k && ((k->pending_at != NEVER && k->pending_at <= cycle) ||
              (k->inv_at != NEVER && k->inv_at >= m->first_at && k->inv_req_at <= cycle) ||
              (k->fence_pending_at != NEVER && k->fence_pending_at <= cycle) || /* one of its KLM entries' */
              (k->fence_at != NEVER && k->fence_at >= m->first_at && k->fence_req_at <= cycle));

    /* Refused after an invalidation: one requested once the message had
       arrived (the key was valid, not even being invalidated, when the
       message's check began), still pending or completed by the NAK. */
    const int invalidated_under =
        k && ((k->pending_at != NEVER && k->pending_at >= m->first_at && k->pending_at <= cycle) ||
              (k->inv_at != NEVER && k->inv_req_at >= m->first_at && k->inv_at <= cycle) ||
              (k->fence_pending_at != NEVER && k->fence_pending_at >= m->first_at && k->fence_pending_at <= cycle) ||
              (k->fence_at != NEVER && k->fence_req_at >= m->first_at && k->fence_at <= cycle));
    if (invalidated_under)
        pc->st.refused_after_inv++;
    if (!invalidated_during && m->placed) {
        const protcheck_violation_t b = {m->place_at, m->rkey, m->place_addr, pair >> 16, m->place_at,
                                         PROTCHECK_NONE, PROTCHECK_NONE, PROTCHECK_NONE, ""};
        pc_report_at(pc, &b,
                  "I4: WRITE psn %" PRIu32 " (qp %u <- qp %u, rkey 0x%08" PRIx32 ") failed its whole-range check "
                  "(NAK REM_ACCESS_ERR at cycle %" PRIu64 ", no invalidation since its first packet), yet %" PRIu64
                  " bytes were placed from cycle %" PRIu64,
                  m->psn, pair >> 16, pair & 0xffffu, m->rkey, cycle, m->placed, m->place_at);
    }
}

/* ---------------------------------------------------------------- results */

uint64_t protcheck_count(const protcheck_t *pc)
{
    return pc ? pc->st.violations : 0;
}

int protcheck_get(const protcheck_t *pc, size_t i, protcheck_violation_t *v)
{
    if (!pc || !v || i >= pc->st.violations || i >= PROTCHECK_KEEP)
        return -ENOENT;
    *v = pc->kept[i];
    return 0;
}

uint64_t protcheck_format(const protcheck_t *pc, char *buf, size_t len)
{
    if (!pc)
        return 0;
    if (buf && len) {
        size_t at = 0;
        buf[0] = 0;
        uint64_t n = pc->st.violations < PROTCHECK_KEEP ? pc->st.violations : PROTCHECK_KEEP;
        for (uint64_t i = 0; i < n && at + 1 < len; i++) {
            const protcheck_violation_t *v = &pc->kept[i];
            int w = snprintf(buf + at, len - at, "cycle %" PRIu64 " key 0x%08" PRIx32 " addr 0x%" PRIx64 ": %s\n",
                             v->cycle, v->key, v->addr, v->reason);
            if (w < 0)
                break;
            at += (size_t)w < len - at ? (size_t)w : len - at - 1;
        }
        if (pc->st.violations > n && at + 1 < len)
            snprintf(buf + at, len - at, "... and %" PRIu64 " more\n", pc->st.violations - n);
    }
    return pc->st.violations;
}

void protcheck_get_stats(const protcheck_t *pc, protcheck_stats_t *st)
{
    if (!st)
        return;
    if (!pc)
        memset(st, 0, sizeof *st);
    else
        *st = pc->st;
}

/* ---------------------------------------------------------------- the event-log feed */

static void on_event(void *ctx, const evlog_event_t *e)
{
    protcheck_t *pc = ctx;
    switch (e->kind) {
    case EVLOG_DMA_ISSUE:
        if (!e->refused)
            pc->dma_flagged[hca_dma_req_get_tag(e->dma)] = (uint8_t)protcheck_dma_issue(pc, e->cycle, e->dma);
        break;
    case EVLOG_DMA_DONE:
        if (!e->refused)
            protcheck_dma_done(pc, e->issue_cycle, e->cycle, e->dma, !e->err,
                               pc->dma_flagged[hca_dma_req_get_tag(e->dma)]);
        break;
    case EVLOG_PKT_TX: protcheck_pkt_tx(pc, e->cycle, e->pkt); break;
    case EVLOG_PKT_RX: protcheck_pkt_rx(pc, e->cycle, e->pkt); break;
    case EVLOG_KEY_INVALIDATING: protcheck_key_invalidating(pc, e->cycle, e->key, e->on); break;
    case EVLOG_KEY_INVALID: protcheck_key_invalid(pc, e->cycle, e->key, e->what); break;
    case EVLOG_KEY_VALID: protcheck_key_valid(pc, e->cycle, e->key); break;
    case EVLOG_KEY_DEPENDS: protcheck_key_depends(pc, e->cycle, e->key, e->keys, e->nkeys); break;
    case EVLOG_ENGINE_BUG: protcheck_report(pc, e->cycle, e->key, e->addr, "I5: engine bug: %s", e->what); break;
    case EVLOG_QP_FENCED: protcheck_qp_fenced(pc, e->cycle, e->qpn, e->what); break;
    case EVLOG_QP_LIVE: protcheck_qp_live(pc, e->cycle, e->qpn); break;
    default: break; /* completions: nothing to check */
    }
}

int protcheck_attach(protcheck_t *pc, evlog_t *log)
{
    if (!pc || !log)
        return -EINVAL;
    return evlog_subscribe(log, on_event, pc) ? -ENOSPC : 0;
}

void protcheck_detach(protcheck_t *pc, evlog_t *log)
{
    if (pc && log)
        evlog_unsubscribe(log, on_event, pc);
}
