/* xu.c — the translation-unit harness: clock, request/response queues,
 * back-pressure, firmware-port helpers and the trace window (sim/harness/xu.h).
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
 * accept-cycle history grows to PROBE_ACCEPT_HISTORY entries (8 bytes each) and
 * then keeps the most recent PROBE_ACCEPT_HISTORY.
 */
#include "xu.h"
#include "fw_port.h"
#include "probe_client.h"

#include "trace_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/** Accept cycles kept for xu_accept_cycle(): the most recent 2^20 (8 MiB at most). */
/** How long a blocking firmware-port helper waits, in cycles, before -ETIMEDOUT. */
#define XU_FW_TIMEOUT 10000000ull

struct xu {
    const xu_engine_ops_t *ops;
    void *eng;
    xu_pins_t pins;
    uint64_t now; /**< the cycle the next tick runs */

    probe_client_t probe; /* the request/response pins' client */

    /* trace window */
    trace_window_t trace;

    fw_port_t fw; /* the one firmware-port access in flight (xu_fw_post/xu_fw_poll) */
};

/* ---------------------------------------------------------------- helpers */






/** One clock cycle. The hot path: the speed benchmarks run through it. */
static inline void xu_tick(xu_t *xu)
{
    xu_pins_t *p = &xu->pins;

    if (__builtin_expect(trace_window_pending(&xu->trace), 0))
        trace_window_edge(&xu->trace, xu->now);
    const xu_req_t *r;
    if (!p->req_valid && (r = probe_head(&xu->probe)) && !probe_chance(&xu->probe, xu->probe.gap_thr)) {
        p->req_valid = 1;
        p->req_tag = r->tag;
        p->req_rights = r->rights;
        p->req_remote = r->remote;
        p->req_key = r->key;
        p->req_pd = r->pd;
        p->req_len = r->len;
        p->req_va = r->va;
    }
    p->rsp_ready = !probe_chance(&xu->probe, xu->probe.stall_thr);

    xu->ops->cycle(xu->eng, p, xu->now);

    if (p->req_valid && p->req_ready) {
        p->req_valid = 0;
        probe_accepted(&xu->probe, xu->now);
    }
    if (p->rsp_valid && p->rsp_ready) {
        const xu_seg_t beat = {.tag = p->rsp_tag, .status = p->rsp_status, .last = p->rsp_last,
                              .len = p->rsp_len, .pa = p->rsp_pa, .cycle = xu->now};
        probe_push_beat(&xu->probe, &beat);
    }
    fw_port_sample(&xu->fw);
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
    fw_port_bind(&xu->fw, p);
    probe_client_clear(&xu->probe);
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
    if (!xu_params_ok(&prm))
        return -EINVAL;

    xu_t *xu = calloc(1, sizeof *xu);
    if (!xu)
        return -ENOMEM;
    xu->ops = ops;
    if (probe_client_init(&xu->probe)) {
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
    xu->probe.rng = 0x243f6a8885a308d3ull;
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
    probe_client_free(&xu->probe);
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
    return xu && req ? probe_submit(&xu->probe, req) : -EINVAL;
}

size_t xu_pending(const xu_t *xu) { return xu ? xu->probe.rq_count : 0; }

int xu_collect(xu_t *xu, xu_seg_t *seg)
{
    return xu && seg ? probe_collect(&xu->probe, seg) : 0;
}

uint64_t xu_accept_cycle(const xu_t *xu, uint64_t n)
{
    return xu ? probe_accept_cycle(&xu->probe, n) : UINT64_MAX;
}

int xu_set_backpressure(xu_t *xu, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed)
{
    return xu ? probe_set_backpressure(&xu->probe, req_gap_pct, rsp_stall_pct, seed) : -EINVAL;
}

/* ---------------------------------------------------------------- firmware port */

int xu_fw_post(xu_t *xu, int write, uint32_t offset, uint32_t wdata)
{
    if (!xu || (offset & 3u) || offset > HCA_FWP_CONFIG)
        return -EINVAL;
    return fw_port_post(&xu->fw, write, offset, wdata);
}

int xu_fw_poll(xu_t *xu, uint32_t *rdata)
{
    return xu ? fw_port_poll(&xu->fw, rdata) : -ENOENT;
}

static void xu_tick_fn(void *xu) { xu_tick(xu); }

/** One register access, blocking: post it, then tick until it is answered. */
static int xu_fw_access(xu_t *xu, int write, uint32_t offset, uint32_t wdata, uint32_t *rdata)
{
    if (!xu || (offset & 3u) || offset > HCA_FWP_CONFIG)
        return -EINVAL;
    return fw_port_access(&xu->fw, xu_tick_fn, xu, &xu->now, XU_FW_TIMEOUT, write, offset, wdata, rdata);
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
