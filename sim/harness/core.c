/* core.c — the controller of the device core's harness (core.h): the clock,
 * reset, waves, and the per-cycle order of its adapters (the DMA block,
 * core_dma.c; the link, core_link.c; the firmware-port client, fw_port.h;
 * the key-check probe client, probe_client.h; the doorbell queue, here) and
 * the lockstep comparison. Over core_rtl_ops, core_model_ops or both in
 * lockstep it is the rtl, model and lockstep device engines (dev_engine.h).
 *
 * One cycle (core_tick):
 *   1. inputs: present the oldest queued doorbell and translation probe
 *      unless one is already presented (it stays until accepted); draw
 *      xs_ready; the DMA block completes what is due and drives dma_req_ready
 *      and its oldest response; the link drives tx_ready and its oldest
 *      arrived packet;
 *   2. the engine's cycle: it writes its outputs for this cycle, then takes
 *      the edge;
 *   3. handshakes judged from the pins: doorbell and probe taken, beats
 *      collected, firmware-port access answered, DMA request accepted and
 *      response retired, packet sent and packet delivered.
 *
 * Memory: the doorbell queue is a ring of CORE_DB_QUEUE_DEPTH; the probe
 * queues are probe_client.h's (a ring of XU_QUEUE_DEPTH requests, a growable
 * beat queue, the last 2^20 accept cycles).
 */
#include "core.h"
#include "fw_port.h"
#include "probe_client.h"

#include "trace_window.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** How long a blocking firmware-port access waits, in cycles. */
#define CORE_FW_TIMEOUT 10000000ull

_Static_assert((CORE_DB_QUEUE_DEPTH & (CORE_DB_QUEUE_DEPTH - 1)) == 0, "ring index by mask");

typedef struct db_entry {
    uint8_t addr;
    uint32_t data;
} db_entry_t;

struct core {
    const core_engine_ops_t *ops;
    void *eng;
    core_pins_t pins;
    uint64_t now; /* the cycle the next tick runs */
    uint8_t *pbufs;
    core_dma_t *dma;
    core_link_t *link;

    /* doorbells waiting */
    db_entry_t *dbq;
    uint32_t db_head, db_count;
    uint64_t doorbells;
    uint64_t fence_waits, drain_waits; /* rising edges of the pins of that name */

    fw_port_t fw; /* the one firmware-port access in flight */

    /* translation probes: ring of XU_QUEUE_DEPTH requests, growable beat
     * queue, accept history (as xu.c) */
    probe_client_t probe; /* the xq/xs pins' client */

    /* trace window */
    trace_window_t trace;

    /* lockstep: a second engine fed the same inputs every cycle, its outputs
     * compared with the first's (which alone drive the harness) */
    const core_engine_ops_t *shadow_ops;
    void *shadow;
    core_pins_t shadow_pins;
    const evlog_t *log;
    uint64_t mismatches;
};

/* ---------------------------------------------------------------- lockstep */

/* The first output pin where the shadow differs, written into buf; 0 when
 * they agree. Ready pins and payloads are compared only where their valid
 * makes them observable. */
static int pins_differ(const core_pins_t *a, const core_pins_t *b, char *buf, size_t len)
{
#define PIN_DIFF(cond, name, fa, fb)                                                                                   \
    if (cond) {                                                                                                        \
        snprintf(buf, len, "%s: rtl 0x%llx, model 0x%llx", name, (unsigned long long)(fa), (unsigned long long)(fb));  \
        return 1;                                                                                                      \
    }
    PIN_DIFF(a->db_valid && a->db_ready != b->db_ready, "db_ready", a->db_ready, b->db_ready);
    PIN_DIFF(a->fw_valid && a->fw_ready != b->fw_ready, "fw_ready", a->fw_ready, b->fw_ready);
    PIN_DIFF(a->fw_rvalid != b->fw_rvalid, "fw_rvalid", a->fw_rvalid, b->fw_rvalid);
    PIN_DIFF(a->fw_rvalid && a->fw_rdata != b->fw_rdata, "fw_rdata", a->fw_rdata, b->fw_rdata);
    PIN_DIFF(a->fw_irq != b->fw_irq, "fw_irq", a->fw_irq, b->fw_irq);
    PIN_DIFF(a->fence_wait != b->fence_wait, "fence_wait", a->fence_wait, b->fence_wait);
    PIN_DIFF(a->drain_wait != b->drain_wait, "drain_wait", a->drain_wait, b->drain_wait);
    PIN_DIFF(a->dma_req_valid != b->dma_req_valid, "dma_req_valid", a->dma_req_valid, b->dma_req_valid);
    if (a->dma_req_valid && memcmp(&a->dma_req, &b->dma_req, sizeof a->dma_req)) {
        snprintf(buf, len, "dma_req: rtl {op %u tag 0x%x addr 0x%llx len %u key 0x%x buf %u off %u}, "
                           "model {op %u tag 0x%x addr 0x%llx len %u key 0x%x buf %u off %u}",
                 hca_dma_req_get_op(&a->dma_req), hca_dma_req_get_tag(&a->dma_req),
                 (unsigned long long)a->dma_req.addr, a->dma_req.len, a->dma_req.key,
                 hca_dma_req_get_buf(&a->dma_req), a->dma_req.buf_off, hca_dma_req_get_op(&b->dma_req),
                 hca_dma_req_get_tag(&b->dma_req), (unsigned long long)b->dma_req.addr, b->dma_req.len,
                 b->dma_req.key, hca_dma_req_get_buf(&b->dma_req), b->dma_req.buf_off);
        return 1;
    }
    PIN_DIFF(a->dma_rsp_valid && a->dma_rsp_ready != b->dma_rsp_ready, "dma_rsp_ready", a->dma_rsp_ready,
             b->dma_rsp_ready);
    PIN_DIFF(a->tx_valid != b->tx_valid, "tx_valid", a->tx_valid, b->tx_valid);
    if (a->tx_valid && memcmp(&a->tx, &b->tx, sizeof a->tx)) {
        snprintf(buf, len, "tx: rtl {op %u psn %u len %u off %u} model {op %u psn %u len %u off %u}",
                 hca_pkt_get_op(&a->tx), a->tx.psn, a->tx.len, a->tx.offset, hca_pkt_get_op(&b->tx), b->tx.psn,
                 b->tx.len, b->tx.offset);
        return 1;
    }
    PIN_DIFF(a->rx_valid && a->rx_ready != b->rx_ready, "rx_ready", a->rx_ready, b->rx_ready);
    PIN_DIFF(a->xq_valid && a->xq_ready != b->xq_ready, "xq_ready", a->xq_ready, b->xq_ready);
    PIN_DIFF(a->xs_valid != b->xs_valid, "xs_valid", a->xs_valid, b->xs_valid);
    if (a->xs_valid && (a->xs_tag != b->xs_tag || a->xs_status != b->xs_status || a->xs_last != b->xs_last ||
                        a->xs_len != b->xs_len || a->xs_pa != b->xs_pa)) {
        snprintf(buf, len, "xs beat: rtl {tag %u status %u last %u len %u pa 0x%llx}, model {tag %u status %u "
                           "last %u len %u pa 0x%llx}",
                 a->xs_tag, a->xs_status, a->xs_last, a->xs_len, (unsigned long long)a->xs_pa, b->xs_tag,
                 b->xs_status, b->xs_last, b->xs_len, (unsigned long long)b->xs_pa);
        return 1;
    }
#undef PIN_DIFF
    return 0;
}

/* Run the shadow on this cycle's inputs and compare its outputs. The first
 * mismatch goes to the event log as an engine bug (the checker fails the
 * run), later ones are counted. */
static void core_lockstep_cycle(core_t *c)
{
    c->shadow_pins = c->pins; /* inputs as driven (the engine wrote only outputs) */
    c->shadow_ops->cycle(c->shadow, &c->shadow_pins, c->now);
    char why[400];
    if (__builtin_expect(!pins_differ(&c->pins, &c->shadow_pins, why, sizeof why), 1))
        return;
    if (c->mismatches++ == 0) {
        static char first[480];
        snprintf(first, sizeof first, "lockstep: %s and %s differ at cycle %llu, %s", c->ops->name,
                 c->shadow_ops->name, (unsigned long long)c->now, why);
        evlog_emit(c->log, &(evlog_event_t){.kind = EVLOG_ENGINE_BUG, .cycle = c->now, .what = first});
    }
}

/* ---------------------------------------------------------------- the clock */

/** One clock cycle: the hot path (the device's speed). */
static inline void core_tick(core_t *c)
{
    core_pins_t *p = &c->pins;

    if (__builtin_expect(trace_window_pending(&c->trace), 0))
        trace_window_edge(&c->trace, c->now);
    if (!p->db_valid && c->db_count) {
        const db_entry_t *e = &c->dbq[c->db_head];
        p->db_valid = 1;
        p->db_addr = e->addr;
        p->db_data = e->data;
    }
    const xu_req_t *r;
    if (!p->xq_valid && (r = probe_head(&c->probe)) && !probe_chance(&c->probe, c->probe.gap_thr)) {
        p->xq_valid = 1;
        p->xq_tag = r->tag;
        p->xq_rights = r->rights;
        p->xq_remote = r->remote;
        p->xq_key = r->key;
        p->xq_pd = r->pd;
        p->xq_len = r->len;
        p->xq_va = r->va;
    }
    p->xs_ready = !probe_chance(&c->probe, c->probe.stall_thr);
    core_dma_drive(c->dma, p, c->now);
    core_link_drive(c->link, p, c->now);

    const uint8_t fence_was = p->fence_wait, drain_was = p->drain_wait;
    c->ops->cycle(c->eng, p, c->now);
    if (c->shadow)
        core_lockstep_cycle(c);
    c->fence_waits += p->fence_wait && !fence_was;
    c->drain_waits += p->drain_wait && !drain_was;

    if (p->db_valid && p->db_ready) {
        p->db_valid = 0;
        c->db_head = (c->db_head + 1) & (CORE_DB_QUEUE_DEPTH - 1);
        c->db_count--;
        c->doorbells++;
    }
    if (p->xq_valid && p->xq_ready) {
        p->xq_valid = 0;
        probe_accepted(&c->probe, c->now);
    }
    if (p->xs_valid && p->xs_ready) {
        const xu_seg_t beat = {.tag = p->xs_tag, .status = p->xs_status, .last = p->xs_last,
                               .len = p->xs_len, .pa = p->xs_pa, .cycle = c->now};
        probe_push_beat(&c->probe, &beat);
    }
    fw_port_sample(&c->fw);
    core_dma_sample(c->dma, p, c->now);
    core_link_sample(c->link, p, c->now);
    c->now++;
}

void core_step(core_t *c, uint64_t n)
{
    if (!c)
        return;
    while (n--)
        core_tick(c);
}

uint64_t core_cycle(const core_t *c) { return c ? c->now : 0; }

uint64_t core_quiet_until(const core_t *c)
{
    if (!c)
        return 0;
    const core_pins_t *p = &c->pins;
    const int fw_busy = c->fw.state == FW_PORT_REQ || c->fw.state == FW_PORT_WAIT || c->fw.drop;
    if (!c->ops->quiet_until || c->db_count || p->db_valid || fw_busy || p->xq_valid || c->probe.rq_count ||
        trace_window_pending(&c->trace))
        return c->now;
    uint64_t q = c->ops->quiet_until(c->eng, c->now);
    if (c->shadow) { /* lockstep: both engines quiet, or the shadow would miss cycles it acts in */
        const uint64_t sq = c->shadow_ops->quiet_until ? c->shadow_ops->quiet_until(c->shadow, c->now) : c->now;
        if (sq < q)
            q = sq;
    }
    const uint64_t dq = core_dma_quiet_until(c->dma, c->now);
    const uint64_t lq = core_link_quiet_until(c->link, c->now);
    if (dq < q)
        q = dq;
    if (lq < q)
        q = lq;
    return q < c->now ? c->now : q;
}

void core_skip(core_t *c, uint64_t to)
{
    if (c && to > c->now && to <= core_quiet_until(c)) {
        if (c->ops->skip)
            c->ops->skip(c->eng, c->now, to);
        if (c->shadow && c->shadow_ops->skip)
            c->shadow_ops->skip(c->shadow, c->now, to);
        c->now = to;
    }
}

/* ---------------------------------------------------------------- trace window */

int core_trace_open(core_t *c, const char *path, uint64_t from, uint64_t to)
{
    return c ? trace_window_open(&c->trace, path, from, to, c->now) : -EINVAL;
}

int core_trace_spans(core_t *c, const char *path, const uint64_t *spans, size_t n)
{
    return c ? trace_window_open_spans(&c->trace, path, spans, n, c->now) : -EINVAL;
}

int core_trace_vars(core_t *c, const trace_vars_t *vars)
{
    if (!c)
        return -EINVAL;
    return c->ops->trace_vars ? c->ops->trace_vars(c->eng, vars) : -ENOTSUP;
}

void core_trace_close(core_t *c)
{
    if (c)
        trace_window_close(&c->trace);
}

/* ---------------------------------------------------------------- life cycle */

static void core_clear(core_t *c)
{
    memset(&c->pins, 0, sizeof c->pins);
    fw_port_bind(&c->fw, &c->pins);
    c->db_head = c->db_count = 0;
    c->doorbells = 0;
    c->fence_waits = c->drain_waits = 0;
    probe_client_clear(&c->probe);
    core_dma_reset(c->dma);
    core_link_reset(c->link);
}

static int core_create_pair(core_t **out, const core_engine_ops_t *ops, const core_engine_ops_t *shadow_ops,
                            const dev_engine_config_t *cfg, const dev_engine_env_t *env);

int core_create(core_t **out, const core_engine_ops_t *ops, const dev_engine_config_t *cfg,
                const dev_engine_env_t *env)
{
    return core_create_pair(out, ops, NULL, cfg, env);
}

int core_create_lockstep(core_t **out, const core_engine_ops_t *ops, const core_engine_ops_t *shadow_ops,
                         const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    return shadow_ops ? core_create_pair(out, ops, shadow_ops, cfg, env) : -EINVAL;
}

static int core_create_pair(core_t **out, const core_engine_ops_t *ops, const core_engine_ops_t *shadow_ops,
                            const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!ops || !env || !env->dma.ops)
        return -EINVAL;
    dev_engine_config_t k;
    memset(&k, 0, sizeof k);
    if (cfg)
        k = *cfg;
    xu_params_t tables = {HCA_MPT_ENTRIES_DEFAULT, HCA_MTT_ENTRIES_DEFAULT};
    if (k.tables.mpt_entries || k.tables.mtt_entries)
        tables = k.tables;
    if (!k.dma.bytes_per_cycle)
        k.dma = bus_default_timing();
    if (!k.link_latency)
        k.link_latency = DEV_ENGINE_LINK_LATENCY_DEFAULT;
    if (!k.link_bytes_per_cycle)
        k.link_bytes_per_cycle = DEV_ENGINE_LINK_BYTES_PER_CYCLE_DEFAULT;
    if (!k.dma_max_outstanding)
        k.dma_max_outstanding = DEV_ENGINE_DMA_OUTSTANDING_DEFAULT;
    if (k.dma_max_outstanding > CORE_DMA_OUTSTANDING_MAX)
        return -EINVAL;

    core_t *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    c->ops = ops;
    c->pbufs = calloc(HCA_PKT_BUFS, HCA_PKT_BUF_SIZE);
    c->dbq = malloc(CORE_DB_QUEUE_DEPTH * sizeof *c->dbq);
    const int probe_rc = probe_client_init(&c->probe);
    int rc = -ENOMEM;
    if (c->pbufs && c->dbq && !probe_rc) {
        rc = core_dma_create(&c->dma, &env->dma, &k.dma, k.dma_max_outstanding, c->pbufs, env->log);
        if (!rc)
            rc = core_link_create(&c->link, k.link_latency, k.link_bytes_per_cycle, env->log);
    }
    if (!rc) {
        rc = ops->create(&c->eng, &tables);
        if (rc)
            c->eng = NULL;
    }
    if (!rc && shadow_ops) {
        rc = shadow_ops->create(&c->shadow, &tables);
        if (rc)
            c->shadow = NULL;
        else
            c->shadow_ops = shadow_ops;
    }
    c->log = env->log;
    if (rc) {
        core_destroy(c);
        return rc;
    }
    trace_window_init(&c->trace, c->eng, ops->trace_open, ops->trace_close);
    trace_window_set_pause(&c->trace, ops->trace_pause);
    c->probe.rng = 0x243f6a8885a308d3ull;
    core_clear(c);
    ops->reset(c->eng);
    if (c->shadow)
        shadow_ops->reset(c->shadow);
    *out = c;
    return 0;
}

void core_destroy(core_t *c)
{
    if (!c)
        return;
    if (c->eng) {
        core_trace_close(c);
        c->ops->destroy(c->eng);
    }
    if (c->shadow)
        c->shadow_ops->destroy(c->shadow);
    core_dma_destroy(c->dma);
    core_link_destroy(c->link);
    free(c->pbufs);
    free(c->dbq);
    probe_client_free(&c->probe);
    free(c);
}

void core_reset(core_t *c)
{
    if (!c)
        return;
    c->ops->reset(c->eng);
    if (c->shadow)
        c->shadow_ops->reset(c->shadow);
    core_clear(c);
}

void core_get_stats(const core_t *c, dev_engine_stats_t *st)
{
    if (!c || !st)
        return;
    dev_engine_stats_t l = {0};
    core_dma_get_stats(c->dma, st);
    core_link_get_stats(c->link, &l);
    st->pkts = l.pkts;
    st->pkt_bytes = l.pkt_bytes;
    st->doorbells = c->doorbells;
    st->fence_waits = c->fence_waits;
    st->drain_waits = c->drain_waits;
}

uint8_t *core_pbuf(core_t *c, unsigned id)
{
    return c && id < HCA_PKT_BUFS ? c->pbufs + (size_t)id * HCA_PKT_BUF_SIZE : NULL;
}

/* ---------------------------------------------------------------- doorbells */

int core_db_write(core_t *c, uint32_t off, uint32_t val)
{
    if (!c || (off != HCA_DB_SQ && off != HCA_DB_RQ && off != HCA_DB_CQ))
        return -EINVAL;
    if (c->db_count == CORE_DB_QUEUE_DEPTH)
        return -ENOSPC;
    db_entry_t *e = &c->dbq[(c->db_head + c->db_count) & (CORE_DB_QUEUE_DEPTH - 1)];
    e->addr = (uint8_t)off;
    e->data = val;
    c->db_count++;
    return 0;
}

size_t core_db_pending(const core_t *c) { return c ? c->db_count : 0; }

/* ---------------------------------------------------------------- firmware port */

int core_fw_post(core_t *c, int write, uint32_t offset, uint32_t wdata)
{
    if (!c || (offset & 3u) || offset > UINT16_MAX)
        return -EINVAL;
    return fw_port_post(&c->fw, write, offset, wdata);
}

int core_fw_irq(const core_t *c)
{
    return c && c->pins.fw_irq;
}

int core_fw_poll(core_t *c, uint32_t *rdata)
{
    return c ? fw_port_poll(&c->fw, rdata) : -ENOENT;
}

static void core_tick_fn(void *c) { core_tick(c); }

static int core_fw_access(core_t *c, int write, uint32_t offset, uint32_t wdata, uint32_t *rdata)
{
    if (!c || (offset & 3u) || offset > UINT16_MAX)
        return -EINVAL;
    return fw_port_access(&c->fw, core_tick_fn, c, &c->now, CORE_FW_TIMEOUT, write, offset, wdata, rdata);
}

int core_fw_read(core_t *c, uint32_t offset, uint32_t *val)
{
    if (!val)
        return -EINVAL;
    return core_fw_access(c, 0, offset, 0, val);
}

int core_fw_write(core_t *c, uint32_t offset, uint32_t val) { return core_fw_access(c, 1, offset, val, NULL); }

/* ---------------------------------------------------------------- translation probes */

int core_xlate_submit(core_t *c, const xu_req_t *req)
{
    return c && req ? probe_submit(&c->probe, req) : -EINVAL;
}

size_t core_xlate_pending(const core_t *c) { return c ? c->probe.rq_count : 0; }

int core_xlate_collect(core_t *c, xu_seg_t *seg)
{
    return c && seg ? probe_collect(&c->probe, seg) : 0;
}

uint64_t core_xlate_accept_cycle(const core_t *c, uint64_t n)
{
    return c ? probe_accept_cycle(&c->probe, n) : UINT64_MAX;
}

int core_xlate_backpressure(core_t *c, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed)
{
    return c ? probe_set_backpressure(&c->probe, req_gap_pct, rsp_stall_pct, seed) : -EINVAL;
}

/* ---------------------------------------------------------------- as a device engine: rtl and model */

static int rtl_create(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    return core_create((core_t **)eng, &core_rtl_ops, cfg, env);
}

static int model_create(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    return core_create((core_t **)eng, &core_model_ops, cfg, env);
}

static int lockstep_create(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    return core_create_lockstep((core_t **)eng, &core_rtl_ops, &core_model_ops, cfg, env);
}

static void dev_destroy(void *eng) { core_destroy(eng); }
static void dev_step(void *eng) { core_tick(eng); }
static uint64_t dev_quiet_until(const void *eng) { return core_quiet_until(eng); }
static void dev_skip(void *eng, uint64_t to) { core_skip(eng, to); }
static int dev_doorbell(void *eng, uint32_t off, uint32_t val) { return core_db_write(eng, off, val); }
static int dev_fw_post(void *eng, int write, uint32_t off, uint32_t wdata) { return core_fw_post(eng, write, off, wdata); }
static int dev_fw_poll(void *eng, uint32_t *rdata) { return core_fw_poll(eng, rdata); }
static const uint8_t *dev_fw_irq_pin(void *eng) { return &((core_t *)eng)->pins.fw_irq; }
static int dev_probe_submit(void *eng, const xu_req_t *req) { return core_xlate_submit(eng, req); }
static size_t dev_probe_pending(const void *eng) { return core_xlate_pending(eng); }
static int dev_probe_collect(void *eng, xu_seg_t *seg) { return core_xlate_collect(eng, seg); }
static uint64_t dev_probe_accept_cycle(const void *eng, uint64_t n) { return core_xlate_accept_cycle(eng, n); }
static int dev_probe_backpressure(void *eng, unsigned gap, unsigned stall, uint64_t seed)
{
    return core_xlate_backpressure(eng, gap, stall, seed);
}
static int dev_trace_open(void *eng, const char *path, uint64_t from, uint64_t to)
{
    return core_trace_open(eng, path, from, to);
}
static int dev_trace_spans(void *eng, const char *path, const uint64_t *spans, size_t n)
{
    return core_trace_spans(eng, path, spans, n);
}
static void dev_trace_close(void *eng) { core_trace_close(eng); }
static int dev_trace_vars(void *eng, const trace_vars_t *v) { return core_trace_vars(eng, v); }
static void dev_get_stats(const void *eng, dev_engine_stats_t *st) { core_get_stats(eng, st); }

/* One table per engine: they differ in name and core_engine_ops only. */
#define DEV_ENGINE_CORE_OPS(nm, mk)                                                                                    \
    {                                                                                                                  \
        .name = nm, .create = mk, .destroy = dev_destroy, .step = dev_step, .quiet_until = dev_quiet_until,            \
        .skip = dev_skip, .doorbell = dev_doorbell, .fw_post = dev_fw_post, .fw_poll = dev_fw_poll,                    \
        .fw_irq_pin = dev_fw_irq_pin, .probe_submit = dev_probe_submit, .probe_pending = dev_probe_pending,            \
        .probe_collect = dev_probe_collect, .probe_accept_cycle = dev_probe_accept_cycle,                              \
        .probe_backpressure = dev_probe_backpressure, .trace_open = dev_trace_open, .trace_close = dev_trace_close,    \
        .trace_spans = dev_trace_spans, .get_stats = dev_get_stats, .trace_vars = dev_trace_vars,                      \
    }

const dev_engine_ops_t dev_engine_rtl = DEV_ENGINE_CORE_OPS("rtl", rtl_create);
const dev_engine_ops_t dev_engine_model = DEV_ENGINE_CORE_OPS("model", model_create);
const dev_engine_ops_t dev_engine_lockstep = DEV_ENGINE_CORE_OPS("lockstep", lockstep_create);
