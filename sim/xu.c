/* xu.c — the translation-unit harness: clock, request/response queues,
 * back-pressure, firmware-port helpers and the trace window (sim/xu.h).
 *
 * One cycle (xu_tick):
 *   1. inputs: present the oldest queued request unless one is already
 *      presented (it stays, unchanged, until accepted) or a random gap idles
 *      the port before it; draw rsp_ready;
 *   2. the engine's cycle: it writes its outputs for this cycle, then takes
 *      the edge;
 *   3. handshakes judged from the pins: an accepted request leaves the queue
 *      and its cycle is recorded; a handed-over beat is appended to the
 *      collected-beat queue.
 * The firmware-port helpers drive fw_* around the same tick, so requests keep
 * flowing while they wait.
 *
 * Memory: the request queue is a fixed ring of XU_QUEUE_DEPTH requests; the
 * collected-beat queue grows (doubling) while beats are not collected; the
 * accept-cycle history grows to XU_ACCEPT_HISTORY entries (8 bytes each) and
 * then keeps the most recent XU_ACCEPT_HISTORY.
 */
#include "xu.h"

#include "trace_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/** Accept cycles kept for xu_accept_cycle(): the most recent 2^20 (8 MiB at most). */
#define XU_ACCEPT_HISTORY (1u << 20)
/** How long a blocking firmware-port helper waits, in cycles, before -ETIMEDOUT. */
#define XU_FW_TIMEOUT 10000000ull
/** First size of the growable queues. */
#define XU_INITIAL_CAP 1024u

struct xu {
    const xu_engine_ops_t *ops;
    void *eng;
    xu_pins_t pins;
    uint64_t now; /**< the cycle the next tick runs */

    /* requests waiting: ring of XU_QUEUE_DEPTH */
    xu_req_t *rq;
    uint32_t rq_head, rq_count;

    /* collected beats: growable ring, capacity a power of two */
    xu_seg_t *bq;
    size_t bq_cap, bq_head, bq_count;

    /* accept cycles of requests since reset: growable, then a ring */
    uint64_t *acc;
    uint64_t acc_cap, acc_n;

    /* back-pressure */
    uint32_t gap_thr, stall_thr; /**< probability * 2^32, 0 = never */
    uint64_t rng;

    /* trace window */
    trace_window_t trace;

    /* the one firmware-port access in flight (xu_fw_post/xu_fw_poll) */
    enum { FW_IDLE, FW_REQ, FW_WAIT, FW_DONE } fw_state;
    uint32_t fw_rdata;
};

/* ---------------------------------------------------------------- helpers */

/** splitmix64: small, fast, good enough for back-pressure decisions. */
static inline uint64_t xu_rand(xu_t *xu)
{
    uint64_t z = (xu->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/** 1 with probability thr / 2^32. */
static inline int xu_chance(xu_t *xu, uint32_t thr) { return thr && (uint32_t)(xu_rand(xu) >> 32) < thr; }

static uint32_t xu_pct_thr(unsigned pct)
{
    if (pct == 0)
        return 0;
    if (pct >= 100)
        return UINT32_MAX;
    return (uint32_t)(((uint64_t)pct << 32) / 100u);
}

static int xu_size_ok(uint32_t v) { return v >= 2 && v <= (1u << 24) && (v & (v - 1)) == 0; }


/** Append a handed-over beat; grows the queue (doubling) when full. */
static void xu_push_beat(xu_t *xu, const xu_pins_t *p)
{
    if (xu->bq_count == xu->bq_cap) {
        size_t ncap = xu->bq_cap * 2;
        xu_seg_t *n = malloc(ncap * sizeof *n);
        if (!n)
            abort(); /* out of memory while the clock runs: nothing sane to return */
        for (size_t i = 0; i < xu->bq_count; i++)
            n[i] = xu->bq[(xu->bq_head + i) & (xu->bq_cap - 1)];
        free(xu->bq);
        xu->bq = n;
        xu->bq_cap = ncap;
        xu->bq_head = 0;
    }
    xu_seg_t *s = &xu->bq[(xu->bq_head + xu->bq_count) & (xu->bq_cap - 1)];
    s->tag = p->rsp_tag;
    s->status = p->rsp_status;
    s->last = p->rsp_last;
    s->len = p->rsp_len;
    s->pa = p->rsp_pa;
    s->cycle = xu->now;
    xu->bq_count++;
}

/** Record the accept cycle of the next request; grows the history to XU_ACCEPT_HISTORY. */
static void xu_push_accept(xu_t *xu)
{
    if (xu->acc_n == xu->acc_cap && xu->acc_cap < XU_ACCEPT_HISTORY) {
        /* still linear (acc_n == acc_cap): doubling keeps index n at n */
        uint64_t *n = realloc(xu->acc, (size_t)xu->acc_cap * 2 * sizeof *n);
        if (!n)
            abort();
        xu->acc = n;
        xu->acc_cap *= 2;
    }
    xu->acc[xu->acc_n & (xu->acc_cap - 1)] = xu->now;
    xu->acc_n++;
}

/** One clock cycle. The hot path: the speed benchmarks run through it. */
static inline void xu_tick(xu_t *xu)
{
    xu_pins_t *p = &xu->pins;

    if (__builtin_expect(trace_window_pending(&xu->trace), 0))
        trace_window_edge(&xu->trace, xu->now);
    if (!p->req_valid && xu->rq_count && !xu_chance(xu, xu->gap_thr)) {
        const xu_req_t *r = &xu->rq[xu->rq_head];
        p->req_valid = 1;
        p->req_tag = r->tag;
        p->req_rights = r->rights;
        p->req_remote = r->remote;
        p->req_key = r->key;
        p->req_pd = r->pd;
        p->req_len = r->len;
        p->req_va = r->va;
    }
    p->rsp_ready = !xu_chance(xu, xu->stall_thr);

    xu->ops->cycle(xu->eng, p, xu->now);

    if (p->req_valid && p->req_ready) {
        p->req_valid = 0;
        xu->rq_head = (xu->rq_head + 1) & (XU_QUEUE_DEPTH - 1);
        xu->rq_count--;
        xu_push_accept(xu);
    }
    if (p->rsp_valid && p->rsp_ready)
        xu_push_beat(xu, p);
    if (__builtin_expect(xu->fw_state != FW_IDLE, 0)) {
        if (xu->fw_state == FW_REQ && p->fw_ready) {
            p->fw_valid = 0;
            p->fw_write = 0;
            xu->fw_state = FW_WAIT; /* the answer comes on a later cycle */
        } else if (xu->fw_state == FW_WAIT && p->fw_rvalid) {
            xu->fw_rdata = p->fw_rdata;
            xu->fw_state = FW_DONE;
        }
    }
    xu->now++;
}
_Static_assert((XU_QUEUE_DEPTH & (XU_QUEUE_DEPTH - 1)) == 0, "XU_QUEUE_DEPTH must be a power of two");

/* ---------------------------------------------------------------- trace window */

int xu_trace_open(xu_t *xu, const char *path, uint64_t from, uint64_t to)
{
    return xu ? trace_window_open(&xu->trace, path, from, to, xu->now) : -EINVAL;
}

void xu_trace_close(xu_t *xu)
{
    if (xu)
        trace_window_close(&xu->trace);
}

/* ---------------------------------------------------------------- life cycle */

static void xu_clear(xu_t *xu)
{
    xu_pins_t *p = &xu->pins;
    p->req_valid = 0;
    p->rsp_ready = 0;
    p->fw_valid = 0;
    p->fw_write = 0;
    xu->fw_state = FW_IDLE;
    xu->rq_head = xu->rq_count = 0;
    xu->bq_head = xu->bq_count = 0;
    xu->acc_n = 0;
}

int xu_create(xu_t **out, xu_engine_kind_t kind, const xu_params_t *params)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    const xu_engine_ops_t *ops;
    switch (kind) {
    case XU_ENGINE_RTL:
        ops = &xu_rtl_ops;
        break;
    case XU_ENGINE_MODEL:
        ops = &xu_model_ops;
        break;
    default:
        return -EINVAL;
    }
    xu_params_t prm = {HCA_MPT_ENTRIES_DEFAULT, HCA_MTT_ENTRIES_DEFAULT};
    if (params)
        prm = *params;
    if (!xu_size_ok(prm.mpt_entries) || !xu_size_ok(prm.mtt_entries))
        return -EINVAL;

    xu_t *xu = calloc(1, sizeof *xu);
    if (!xu)
        return -ENOMEM;
    xu->ops = ops;
    xu->rq = malloc(XU_QUEUE_DEPTH * sizeof *xu->rq);
    xu->bq_cap = XU_INITIAL_CAP;
    xu->bq = malloc(xu->bq_cap * sizeof *xu->bq);
    xu->acc_cap = XU_INITIAL_CAP;
    xu->acc = malloc(xu->acc_cap * sizeof *xu->acc);
    if (!xu->rq || !xu->bq || !xu->acc) {
        xu_destroy(xu);
        return -ENOMEM;
    }
    int rc = ops->create(&xu->eng, &prm);
    if (rc) {
        xu->eng = NULL;
        xu_destroy(xu);
        return rc;
    }
    trace_window_init(&xu->trace, xu->eng, ops->trace_open, ops->trace_close);
    xu->rng = 0x243f6a8885a308d3ull;
    xu_clear(xu);
    ops->reset(xu->eng);
    *out = xu;
    return 0;
}

void xu_destroy(xu_t *xu)
{
    if (!xu)
        return;
    if (xu->eng) {
        xu_trace_close(xu);
        xu->ops->destroy(xu->eng);
    }
    free(xu->rq);
    free(xu->bq);
    free(xu->acc);
    free(xu);
}

void xu_reset(xu_t *xu)
{
    if (!xu)
        return;
    xu->ops->reset(xu->eng);
    xu_clear(xu);
}

const char *xu_engine_name(const xu_t *xu) { return xu ? xu->ops->name : "?"; }

uint64_t xu_cycle(const xu_t *xu) { return xu ? xu->now : 0; }

void xu_step(xu_t *xu, uint64_t n)
{
    if (!xu)
        return;
    while (n--)
        xu_tick(xu);
}

/* ---------------------------------------------------------------- requests and beats */

int xu_submit(xu_t *xu, const xu_req_t *req)
{
    if (!xu || !req)
        return -EINVAL;
    if (xu->rq_count == XU_QUEUE_DEPTH)
        return -ENOSPC;
    xu->rq[(xu->rq_head + xu->rq_count) & (XU_QUEUE_DEPTH - 1)] = *req;
    xu->rq_count++;
    return 0;
}

size_t xu_pending(const xu_t *xu) { return xu ? xu->rq_count : 0; }

int xu_collect(xu_t *xu, xu_seg_t *seg)
{
    if (!xu || !seg || xu->bq_count == 0)
        return 0;
    *seg = xu->bq[xu->bq_head];
    xu->bq_head = (xu->bq_head + 1) & (xu->bq_cap - 1);
    xu->bq_count--;
    return 1;
}

uint64_t xu_accept_cycle(const xu_t *xu, uint64_t n)
{
    if (!xu || n >= xu->acc_n || xu->acc_n - n > xu->acc_cap)
        return UINT64_MAX;
    return xu->acc[n & (xu->acc_cap - 1)];
}

int xu_set_backpressure(xu_t *xu, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed)
{
    if (!xu || req_gap_pct > 100 || rsp_stall_pct > 100)
        return -EINVAL;
    xu->gap_thr = xu_pct_thr(req_gap_pct);
    xu->stall_thr = xu_pct_thr(rsp_stall_pct);
    xu->rng = seed;
    return 0;
}

/* ---------------------------------------------------------------- firmware port */

int xu_fw_post(xu_t *xu, int write, uint32_t offset, uint32_t wdata)
{
    if (!xu || (offset & 3u) || offset > HCA_FWP_SIZES)
        return -EINVAL;
    if (xu->fw_state != FW_IDLE)
        return -EBUSY;
    xu_pins_t *p = &xu->pins;
    p->fw_valid = 1;
    p->fw_write = (uint8_t)(write != 0);
    p->fw_addr = (uint16_t)offset;
    p->fw_wdata = write ? wdata : 0;
    xu->fw_state = FW_REQ;
    return 0;
}

int xu_fw_poll(xu_t *xu, uint32_t *rdata)
{
    if (!xu || xu->fw_state == FW_IDLE)
        return -ENOENT;
    if (xu->fw_state != FW_DONE)
        return 0;
    if (rdata)
        *rdata = xu->fw_rdata;
    xu->fw_state = FW_IDLE;
    return 1;
}

/** One register access, blocking: post it, then tick until it is answered. */
static int xu_fw_access(xu_t *xu, int write, uint32_t offset, uint32_t wdata, uint32_t *rdata)
{
    int rc = xu_fw_post(xu, write, offset, wdata);
    if (rc)
        return rc;
    const uint64_t deadline = xu->now + XU_FW_TIMEOUT;
    while ((rc = xu_fw_poll(xu, rdata)) == 0) {
        if (xu->now >= deadline) {
            xu->pins.fw_valid = 0;
            xu->fw_state = FW_IDLE;
            return -ETIMEDOUT;
        }
        xu_tick(xu);
    }
    return rc < 0 ? rc : 0;
}

int xu_fw_read(xu_t *xu, uint32_t offset, uint32_t *val)
{
    if (!val)
        return -EINVAL;
    return xu_fw_access(xu, 0, offset, 0, val);
}

int xu_fw_write(xu_t *xu, uint32_t offset, uint32_t val) { return xu_fw_access(xu, 1, offset, val, NULL); }

int xu_cmd_start(xu_t *xu, unsigned op, uint32_t index)
{
    if (op > HCA_FWP_CMD_OP_GET(UINT32_MAX) || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    return xu_fw_write(xu, HCA_FWP_CMD, HCA_FWP_CMD_OP_PUT(op) | HCA_FWP_CMD_INDEX_PUT(index));
}

int xu_cmd_busy(xu_t *xu)
{
    uint32_t st;
    int rc = xu_fw_read(xu, HCA_FWP_STATUS, &st);
    return rc ? rc : (int)HCA_FWP_STATUS_BUSY_GET(st);
}

int xu_cmd_wait(xu_t *xu, uint64_t timeout_cycles, unsigned *result)
{
    if (!xu)
        return -EINVAL;
    const uint64_t start = xu->now;
    for (;;) {
        uint32_t st;
        int rc = xu_fw_read(xu, HCA_FWP_STATUS, &st);
        if (rc)
            return rc;
        if (!HCA_FWP_STATUS_BUSY_GET(st)) {
            if (result)
                *result = HCA_FWP_STATUS_RESULT_GET(st);
            return 0;
        }
        if (xu->now - start >= timeout_cycles)
            return -ETIMEDOUT;
    }
}

/** Wait for the port to be idle, run one command, wait for it: 0, or -EIO
 *  when its result is not OK, or the error of the port. */
static int xu_cmd_run(xu_t *xu, unsigned op, uint32_t index)
{
    unsigned res;
    int rc = xu_cmd_wait(xu, XU_FW_TIMEOUT, &res);
    if (!rc)
        rc = xu_cmd_start(xu, op, index);
    if (!rc)
        rc = xu_cmd_wait(xu, XU_FW_TIMEOUT, &res);
    if (!rc && res != HCA_FWP_RESULT_OK)
        rc = -EIO;
    return rc;
}

int xu_write_mpt(xu_t *xu, uint32_t index, const hca_mpt_entry_t *e)
{
    if (!xu || !e || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    uint32_t w[HCA_FWP_MPT_DATA_COUNT];
    memcpy(w, e, sizeof w); /* the entry's bytes are the staging words (little-endian ABI layout) */
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT; i++) {
        int rc = xu_fw_write(xu, HCA_FWP_MPT_DATA + 4 * i, w[i]);
        if (rc)
            return rc;
    }
    return xu_cmd_run(xu, HCA_FWP_OP_WRITE_MPT, index);
}

int xu_read_mpt(xu_t *xu, uint32_t index, hca_mpt_entry_t *e)
{
    if (!xu || !e || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    int rc = xu_cmd_run(xu, HCA_FWP_OP_READ_MPT, index);
    if (rc)
        return rc;
    uint32_t w[HCA_FWP_MPT_DATA_COUNT];
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT; i++) {
        rc = xu_fw_read(xu, HCA_FWP_MPT_DATA + 4 * i, &w[i]);
        if (rc)
            return rc;
    }
    memcpy(e, w, sizeof *e); /* the staging words are the entry's bytes (little-endian ABI layout) */
    return 0;
}

int xu_write_mtt(xu_t *xu, uint32_t index, const hca_mtt_entry_t *e)
{
    if (!xu || !e || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    int rc = xu_fw_write(xu, HCA_FWP_MTT_DATA, (uint32_t)e->word);
    if (!rc)
        rc = xu_fw_write(xu, HCA_FWP_MTT_DATA + 4, (uint32_t)(e->word >> 32));
    return rc ? rc : xu_cmd_run(xu, HCA_FWP_OP_WRITE_MTT, index);
}

int xu_read_mtt(xu_t *xu, uint32_t index, hca_mtt_entry_t *e)
{
    if (!xu || !e || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    int rc = xu_cmd_run(xu, HCA_FWP_OP_READ_MTT, index);
    uint32_t lo = 0, hi = 0;
    if (!rc)
        rc = xu_fw_read(xu, HCA_FWP_MTT_DATA, &lo);
    if (!rc)
        rc = xu_fw_read(xu, HCA_FWP_MTT_DATA + 4, &hi);
    if (!rc)
        e->word = (uint64_t)lo | (uint64_t)hi << 32;
    return rc;
}

int xu_invalidate(xu_t *xu, uint32_t index)
{
    if (!xu || index > HCA_FWP_CMD_INDEX_GET(UINT32_MAX))
        return -EINVAL;
    return xu_cmd_run(xu, HCA_FWP_OP_INVALIDATE, index);
}
