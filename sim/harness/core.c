/* core.c — the harness of the device core (sim/core.h).
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
 * Memory: the DMA block keeps one slot per outstanding request (a ring of
 * CORE_DMA_OUTSTANDING_MAX); the link a ring of CORE_LINK_DEPTH packets; the
 * doorbell queue a ring of CORE_DB_QUEUE_DEPTH; the probe queues are xu.c's
 * (a ring of XU_QUEUE_DEPTH requests, a growable beat queue, the last 2^20
 * accept cycles).
 */
#include "core.h"
#include "fw_port.h"
#include "probe_client.h"

#include "trace_window.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** How long a blocking firmware-port access waits, in cycles. */
#define CORE_FW_TIMEOUT 10000000ull

_Static_assert((CORE_DMA_OUTSTANDING_MAX & (CORE_DMA_OUTSTANDING_MAX - 1)) == 0, "ring index by mask");
_Static_assert((CORE_LINK_DEPTH & (CORE_LINK_DEPTH - 1)) == 0, "ring index by mask");
_Static_assert((CORE_DB_QUEUE_DEPTH & (CORE_DB_QUEUE_DEPTH - 1)) == 0, "ring index by mask");
_Static_assert(sizeof(((hca_dma_rsp_t *)0)->rdata) == CORE_DMA_READ_DATA_MAX, "READ_DATA limit = rdata size");
_Static_assert(sizeof(((hca_dma_req_t *)0)->data) == CORE_DMA_WRITE_DATA_MAX, "WRITE_DATA limit = data size");

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/** Report a breach of the engine's port contract (the checker's I5). */
static void engine_bug(const evlog_t *log, uint64_t now, const hca_dma_req_t *req, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void engine_bug(const evlog_t *log, uint64_t now, const hca_dma_req_t *req, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    evlog_emit(log, &(evlog_event_t){.kind = EVLOG_ENGINE_BUG, .cycle = now, .key = req->key, .addr = req->addr,
                                     .what = why});
}

/* ================================================================ DMA block */

typedef struct dma_slot {
    hca_dma_req_t req;
    hca_dma_rsp_t rsp;
    uint64_t issue_at, done_at;
    uint8_t bad; /**< malformed: answered err, no bus time */
} dma_slot_t;

struct core_dma {
    bus_t bus;
    bus_timing_t t;
    unsigned max;
    uint8_t *pbufs;
    const evlog_t *log;
    dma_slot_t *slot;         /* ring of CORE_DMA_OUTSTANDING_MAX */
    unsigned head, count;     /* outstanding = count */
    unsigned ncopied;         /* slots from head whose transfer completed */
    uint64_t chan_free;       /* first cycle the data channel is free */
    uint64_t last_done;       /* completion cycle of the newest slot */
    uint64_t tag_busy[4];     /* outstanding tags (bitmap) */
    dev_engine_stats_t st;
};

int core_dma_create(core_dma_t **out, const bus_t *bus, const bus_timing_t *t, unsigned max_outstanding,
                    uint8_t *pbufs, const evlog_t *log)
{
    if (!out || !bus || !bus->ops || !t || !pbufs || t->bytes_per_cycle == 0 || max_outstanding == 0 ||
        max_outstanding > CORE_DMA_OUTSTANDING_MAX)
        return -EINVAL;
    core_dma_t *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->slot = calloc(CORE_DMA_OUTSTANDING_MAX, sizeof *d->slot);
    if (!d->slot) {
        free(d);
        return -ENOMEM;
    }
    d->bus = *bus;
    d->t = *t;
    d->max = max_outstanding;
    d->pbufs = pbufs;
    d->log = log;
    *out = d;
    return 0;
}

void core_dma_destroy(core_dma_t *d)
{
    if (!d)
        return;
    free(d->slot);
    free(d);
}

void core_dma_reset(core_dma_t *d)
{
    if (!d)
        return;
    d->head = d->count = d->ncopied = 0;
    d->chan_free = d->last_done = 0;
    memset(d->tag_busy, 0, sizeof d->tag_busy);
    memset(&d->st, 0, sizeof d->st);
}

unsigned core_dma_outstanding(const core_dma_t *d) { return d ? d->count : 0; }

void core_dma_get_stats(const core_dma_t *d, dev_engine_stats_t *st)
{
    if (d && st)
        *st = d->st;
}

/** Why a request breaks the wire format's limits, or NULL. */
static const char *dma_bad_reason(const hca_dma_req_t *r)
{
    const unsigned op = hca_dma_req_get_op(r);
    switch (op) {
    case HCA_DMA_OP_READ_DATA:
        return r->len > CORE_DMA_READ_DATA_MAX ? "READ_DATA longer than 128 bytes" : NULL;
    case HCA_DMA_OP_WRITE_DATA:
        return r->len > CORE_DMA_WRITE_DATA_MAX ? "WRITE_DATA longer than 32 bytes" : NULL;
    case HCA_DMA_OP_HOST_TO_BUF:
    case HCA_DMA_OP_BUF_TO_HOST:
        if (hca_dma_req_get_buf(r) >= HCA_PKT_BUFS)
            return "packet buffer id beyond PKT_BUFS";
        if (r->buf_off > HCA_PKT_BUF_SIZE || r->len > HCA_PKT_BUF_SIZE - r->buf_off)
            return "buf_off + len beyond PKT_BUF_SIZE";
        return NULL;
    default:
        return "unknown op";
    }
}

static void dma_accept(core_dma_t *d, const hca_dma_req_t *req, uint64_t now)
{
    dma_slot_t *s = &d->slot[(d->head + d->count) & (CORE_DMA_OUTSTANDING_MAX - 1)];
    const unsigned op = hca_dma_req_get_op(req);
    const unsigned tag = hca_dma_req_get_tag(req);
    s->req = *req;
    s->issue_at = now;
    memset(&s->rsp, 0, sizeof s->rsp);
    hca_dma_rsp_set_rtag(&s->rsp, tag);
    d->count++;
    d->st.dma_reqs++;
    if (d->tag_busy[tag >> 6] & (1ull << (tag & 63)))
        engine_bug(d->log, now, req, "dma_req tag %u reused while outstanding", tag);
    d->tag_busy[tag >> 6] |= 1ull << (tag & 63);

    const char *bad = dma_bad_reason(req);
    s->bad = bad != NULL;
    evlog_emit(d->log, &(evlog_event_t){.kind = EVLOG_DMA_ISSUE, .cycle = now, .dma = req, .refused = s->bad});
    if (bad) {
        s->done_at = max_u64(now + 1, d->last_done);
        d->last_done = s->done_at;
        d->st.dma_bad_reqs++;
        engine_bug(d->log, now, req, "malformed dma_req (%s): op %u tag %u buf %u buf_off %u len %u", bad, op, tag,
                   hca_dma_req_get_buf(req), req->buf_off, req->len);
        return;
    }
    const int write = op == HCA_DMA_OP_WRITE_DATA || op == HCA_DMA_OP_BUF_TO_HOST;
    const uint64_t data = div_up(req->len, d->t.bytes_per_cycle);
    const uint64_t start = max_u64(now + (write ? d->t.write_cost : d->t.read_latency), d->chan_free);
    d->chan_free = start + data;
    d->st.dma_busy_cycles += data;
    s->done_at = max_u64(start + data, now + 1);
    d->last_done = s->done_at;
}

/** The transfer of s ends in cycle now: the bytes move (or a bus error). */
static void dma_complete(core_dma_t *d, dma_slot_t *s, uint64_t now)
{
    if (s->bad) {
        hca_dma_rsp_set_err(&s->rsp, 1);
        evlog_emit(d->log, &(evlog_event_t){.kind = EVLOG_DMA_DONE, .cycle = now, .dma = &s->req,
                                            .issue_cycle = s->issue_at, .err = 1, .refused = 1});
        return;
    }
    const hca_dma_req_t *r = &s->req;
    uint8_t *buf = d->pbufs + (size_t)hca_dma_req_get_buf(r) * HCA_PKT_BUF_SIZE + r->buf_off;
    int rc, write = 0;
    switch (hca_dma_req_get_op(r)) {
    case HCA_DMA_OP_READ_DATA:
        rc = bus_read(&d->bus, r->addr, s->rsp.rdata, r->len);
        break;
    case HCA_DMA_OP_WRITE_DATA:
        rc = bus_write(&d->bus, r->addr, r->data, r->len);
        write = 1;
        break;
    case HCA_DMA_OP_HOST_TO_BUF:
        rc = bus_read(&d->bus, r->addr, buf, r->len);
        break;
    default: /* BUF_TO_HOST: dma_bad_reason() let nothing else through */
        rc = bus_write(&d->bus, r->addr, buf, r->len);
        write = 1;
        break;
    }
    if (rc) {
        hca_dma_rsp_set_err(&s->rsp, 1);
        d->st.dma_bus_errs++;
    } else if (write) {
        d->st.dma_wr_bytes += r->len;
    } else {
        d->st.dma_rd_bytes += r->len;
    }
    evlog_emit(d->log, &(evlog_event_t){.kind = EVLOG_DMA_DONE, .cycle = now, .dma = r, .issue_cycle = s->issue_at,
                                        .err = rc != 0});
    /* WRITE_DATA is the CQ writer's only op: a completion is in host memory */
    if (rc == 0 && hca_dma_req_get_op(r) == HCA_DMA_OP_WRITE_DATA)
        evlog_emit(d->log, &(evlog_event_t){.kind = EVLOG_CQE, .cycle = now, .addr = r->addr});
}

static inline void dma_drive(core_dma_t *d, core_pins_t *p, uint64_t now)
{
    while (d->ncopied < d->count) {
        dma_slot_t *s = &d->slot[(d->head + d->ncopied) & (CORE_DMA_OUTSTANDING_MAX - 1)];
        if (s->done_at > now)
            break;
        dma_complete(d, s, now);
        d->ncopied++;
    }
    p->dma_req_ready = d->count < d->max;
    if (d->ncopied) {
        if (!p->dma_rsp_valid) {
            p->dma_rsp = d->slot[d->head].rsp;
            p->dma_rsp_valid = 1;
        }
    } else {
        p->dma_rsp_valid = 0;
    }
}

static inline void dma_sample(core_dma_t *d, core_pins_t *p, uint64_t now)
{
    if (p->dma_rsp_valid && p->dma_rsp_ready) {
        const unsigned tag = hca_dma_rsp_get_rtag(&p->dma_rsp);
        d->tag_busy[tag >> 6] &= ~(1ull << (tag & 63));
        d->head = (d->head + 1) & (CORE_DMA_OUTSTANDING_MAX - 1);
        d->count--;
        d->ncopied--;
        p->dma_rsp_valid = 0; /* the next drive loads the next response */
    }
    if (p->dma_req_valid && p->dma_req_ready)
        dma_accept(d, &p->dma_req, now);
}

void core_dma_drive(core_dma_t *d, core_pins_t *p, uint64_t now)
{
    if (d && p)
        dma_drive(d, p, now);
}

void core_dma_sample(core_dma_t *d, core_pins_t *p, uint64_t now)
{
    if (d && p)
        dma_sample(d, p, now);
}

/* ================================================================ link */

typedef struct link_slot {
    hca_pkt_t pkt;
    uint64_t arrive; /**< first cycle it is offered on rx */
} link_slot_t;

struct core_link {
    uint32_t latency, bpc;
    const evlog_t *log;
    link_slot_t q[CORE_LINK_DEPTH];
    unsigned head, count;
    uint64_t wire_free; /* first cycle the wire is free */
    dev_engine_stats_t st;
};

int core_link_create(core_link_t **out, uint32_t latency, uint32_t bytes_per_cycle, const evlog_t *log)
{
    if (!out || bytes_per_cycle == 0)
        return -EINVAL;
    core_link_t *l = calloc(1, sizeof *l);
    if (!l)
        return -ENOMEM;
    l->latency = latency;
    l->bpc = bytes_per_cycle;
    l->log = log;
    *out = l;
    return 0;
}

void core_link_destroy(core_link_t *l) { free(l); }

void core_link_reset(core_link_t *l)
{
    if (!l)
        return;
    l->head = l->count = 0;
    l->wire_free = 0;
    memset(&l->st, 0, sizeof l->st);
}

unsigned core_link_in_flight(const core_link_t *l) { return l ? l->count : 0; }

void core_link_get_stats(const core_link_t *l, dev_engine_stats_t *st)
{
    if (l && st)
        *st = l->st;
}

static inline void link_drive(core_link_t *l, core_pins_t *p, uint64_t now)
{
    p->tx_ready = l->count < CORE_LINK_DEPTH;
    if (l->count && l->q[l->head].arrive <= now) {
        if (!p->rx_valid) {
            p->rx = l->q[l->head].pkt;
            p->rx_valid = 1;
        }
    } else {
        p->rx_valid = 0;
    }
}

static inline void link_sample(core_link_t *l, core_pins_t *p, uint64_t now)
{
    if (p->rx_valid && p->rx_ready) {
        evlog_emit(l->log, &(evlog_event_t){.kind = EVLOG_PKT_RX, .cycle = now, .pkt = &p->rx});
        l->head = (l->head + 1) & (CORE_LINK_DEPTH - 1);
        l->count--;
        p->rx_valid = 0;
    }
    if (p->tx_valid && p->tx_ready) {
        link_slot_t *s = &l->q[(l->head + l->count) & (CORE_LINK_DEPTH - 1)];
        const uint64_t wire_end = max_u64(now, l->wire_free) + div_up(p->tx.len, l->bpc);
        s->pkt = p->tx;
        s->arrive = max_u64(wire_end + l->latency, now + 1);
        l->wire_free = wire_end;
        l->count++;
        l->st.pkts++;
        l->st.pkt_bytes += p->tx.len;
        evlog_emit(l->log, &(evlog_event_t){.kind = EVLOG_PKT_TX, .cycle = now, .pkt = &p->tx});
    }
}

void core_link_drive(core_link_t *l, core_pins_t *p, uint64_t now)
{
    if (l && p)
        link_drive(l, p, now);
}

void core_link_sample(core_link_t *l, core_pins_t *p, uint64_t now)
{
    if (l && p)
        link_sample(l, p, now);
}

/* ================================================================ the core */

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

    fw_port_t fw; /* the one firmware-port access in flight */

    /* translation probes: ring of XU_QUEUE_DEPTH requests, growable beat
     * queue, accept history (as xu.c) */
    probe_client_t probe; /* the xq/xs pins' client */

    /* trace window */
    trace_window_t trace;
};

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
    dma_drive(c->dma, p, c->now);
    link_drive(c->link, p, c->now);

    c->ops->cycle(c->eng, p, c->now);

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
    dma_sample(c->dma, p, c->now);
    link_sample(c->link, p, c->now);
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

/* ---------------------------------------------------------------- trace window */

int core_trace_open(core_t *c, const char *path, uint64_t from, uint64_t to)
{
    return c ? trace_window_open(&c->trace, path, from, to, c->now) : -EINVAL;
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
    probe_client_clear(&c->probe);
    core_dma_reset(c->dma);
    core_link_reset(c->link);
}

int core_create(core_t **out, const core_engine_ops_t *ops, const dev_engine_config_t *cfg,
                const dev_engine_env_t *env)
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
    if (rc) {
        core_destroy(c);
        return rc;
    }
    trace_window_init(&c->trace, c->eng, ops->trace_open, ops->trace_close);
    c->probe.rng = 0x243f6a8885a308d3ull;
    core_clear(c);
    ops->reset(c->eng);
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

/* ---------------------------------------------------------------- as the rtl device engine */

static int rtl_create(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env)
{
    return core_create((core_t **)eng, &core_rtl_ops, cfg, env);
}

static void rtl_destroy(void *eng) { core_destroy(eng); }
static void rtl_step(void *eng) { core_tick(eng); }
/* RTL state changes every cycle: never quiet, never skipped. */
static uint64_t rtl_quiet_until(const void *eng) { return ((const core_t *)eng)->now + 1; }
static void rtl_skip(void *eng, uint64_t to) { (void)eng, (void)to; }
static int rtl_doorbell(void *eng, uint32_t off, uint32_t val) { return core_db_write(eng, off, val); }
static int rtl_fw_post(void *eng, int write, uint32_t off, uint32_t wdata) { return core_fw_post(eng, write, off, wdata); }
static int rtl_fw_poll(void *eng, uint32_t *rdata) { return core_fw_poll(eng, rdata); }
static int rtl_fw_irq(const void *eng) { return core_fw_irq(eng); }
static int rtl_probe_submit(void *eng, const xu_req_t *req) { return core_xlate_submit(eng, req); }
static size_t rtl_probe_pending(const void *eng) { return core_xlate_pending(eng); }
static int rtl_probe_collect(void *eng, xu_seg_t *seg) { return core_xlate_collect(eng, seg); }
static uint64_t rtl_probe_accept_cycle(const void *eng, uint64_t n) { return core_xlate_accept_cycle(eng, n); }
static int rtl_probe_backpressure(void *eng, unsigned gap, unsigned stall, uint64_t seed)
{
    return core_xlate_backpressure(eng, gap, stall, seed);
}
static int rtl_trace_open(void *eng, const char *path, uint64_t from, uint64_t to)
{
    return core_trace_open(eng, path, from, to);
}
static void rtl_trace_close(void *eng) { core_trace_close(eng); }
static void rtl_get_stats(const void *eng, dev_engine_stats_t *st) { core_get_stats(eng, st); }

const dev_engine_ops_t dev_engine_rtl = {
    .name = "rtl",
    .create = rtl_create,
    .destroy = rtl_destroy,
    .step = rtl_step,
    .quiet_until = rtl_quiet_until,
    .skip = rtl_skip,
    .doorbell = rtl_doorbell,
    .fw_post = rtl_fw_post,
    .fw_poll = rtl_fw_poll,
    .fw_irq = rtl_fw_irq,
    .probe_submit = rtl_probe_submit,
    .probe_pending = rtl_probe_pending,
    .probe_collect = rtl_probe_collect,
    .probe_accept_cycle = rtl_probe_accept_cycle,
    .probe_backpressure = rtl_probe_backpressure,
    .trace_open = rtl_trace_open,
    .trace_close = rtl_trace_close,
    .get_stats = rtl_get_stats,
};
