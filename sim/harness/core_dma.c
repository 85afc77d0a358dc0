/* core_dma.c — the DMA block of the device core's harness (core.h, "Timing"):
 * serves the engine's dma_req against the bus and the packet buffers,
 * answers dma_rsp in order per direction, and reports every request, its
 * end, each completion written and each port-contract breach on the event
 * log.
 *
 * Memory: one slot per outstanding request, a ring of CORE_DMA_OUTSTANDING_MAX
 * per direction (reads: READ_DATA, HOST_TO_BUF; writes: WRITE_DATA,
 * BUF_TO_HOST). Each direction has its own data channel, as a PCIe link's two
 * directions do, so completion times are monotonic within a ring.
 */
#include "core.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((CORE_DMA_OUTSTANDING_MAX & (CORE_DMA_OUTSTANDING_MAX - 1)) == 0, "ring index by mask");
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

typedef struct dma_slot {
    hca_dma_req_t req;
    hca_dma_rsp_t rsp;
    uint64_t issue_at, done_at;
    uint8_t bad; /**< malformed: answered err, no bus time */
} dma_slot_t;

/* One direction: its data channel and its requests, answered in order. */
typedef struct dma_dir {
    dma_slot_t *slot;         /* ring of CORE_DMA_OUTSTANDING_MAX */
    unsigned head, count;
    unsigned ncopied;         /* slots from head whose transfer completed */
    uint64_t chan_free;       /* first cycle the data channel is free */
    uint64_t last_done;       /* completion cycle of the newest slot */
} dma_dir_t;

struct core_dma {
    bus_t bus;
    bus_timing_t t;
    unsigned max;
    uint8_t *pbufs;
    const evlog_t *log;
    dma_dir_t dir[2];         /* 0 reads, 1 writes */
    unsigned count;           /* outstanding, both directions */
    int offered;              /* the direction whose head is on dma_rsp, or -1 */
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
    d->dir[0].slot = calloc(2 * CORE_DMA_OUTSTANDING_MAX, sizeof *d->dir[0].slot);
    if (!d->dir[0].slot) {
        free(d);
        return -ENOMEM;
    }
    d->dir[1].slot = d->dir[0].slot + CORE_DMA_OUTSTANDING_MAX;
    d->offered = -1;
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
    free(d->dir[0].slot);
    free(d);
}

void core_dma_reset(core_dma_t *d)
{
    if (!d)
        return;
    for (int i = 0; i < 2; i++) {
        dma_dir_t *q = &d->dir[i];
        q->head = q->count = q->ncopied = 0;
        q->chan_free = q->last_done = 0;
    }
    d->count = 0;
    d->offered = -1;
    memset(d->tag_busy, 0, sizeof d->tag_busy);
    memset(&d->st, 0, sizeof d->st);
}

unsigned core_dma_outstanding(const core_dma_t *d) { return d ? d->count : 0; }

uint64_t core_dma_quiet_until(const core_dma_t *d, uint64_t next)
{
    if (!d || !d->count)
        return UINT64_MAX;
    uint64_t due = UINT64_MAX;
    for (int i = 0; i < 2; i++) {
        const dma_dir_t *q = &d->dir[i];
        if (q->ncopied)
            return next; /* a response is offered */
        if (q->count && q->slot[q->head].done_at < due)
            due = q->slot[q->head].done_at; /* in order: the head completes first */
    }
    return due > next ? due : next;
}

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
    const unsigned op = hca_dma_req_get_op(req);
    const unsigned tag = hca_dma_req_get_tag(req);
    const int write = op == HCA_DMA_OP_WRITE_DATA || op == HCA_DMA_OP_BUF_TO_HOST;
    dma_dir_t *q = &d->dir[write];
    dma_slot_t *s = &q->slot[(q->head + q->count) & (CORE_DMA_OUTSTANDING_MAX - 1)];
    q->count++;
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
        s->done_at = max_u64(now + 1, q->last_done);
        q->last_done = s->done_at;
        d->st.dma_bad_reqs++;
        engine_bug(d->log, now, req, "malformed dma_req (%s): op %u tag %u buf %u buf_off %u len %u", bad, op, tag,
                   hca_dma_req_get_buf(req), req->buf_off, req->len);
        return;
    }
    /* The memory at the address may have its own timing (a peer's window);
     * every memory shares the device's data channel of the direction. */
    const bus_timing_t t = bus_timing_at(&d->bus, req->addr, &d->t);
    const uint64_t data = div_up(req->len, t.bytes_per_cycle ? t.bytes_per_cycle : 1);
    const uint64_t start = max_u64(now + (write ? t.write_cost : t.read_latency), q->chan_free);
    q->chan_free = start + data;
    d->st.dma_busy_cycles += data;
    s->done_at = max_u64(start + data, now + 1);
    q->last_done = s->done_at;
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
    for (int i = 0; i < 2; i++) {
        dma_dir_t *q = &d->dir[i];
        while (q->ncopied < q->count) {
            dma_slot_t *s = &q->slot[(q->head + q->ncopied) & (CORE_DMA_OUTSTANDING_MAX - 1)];
            if (s->done_at > now)
                break;
            dma_complete(d, s, now);
            q->ncopied++;
        }
    }
    p->dma_req_ready = d->count < d->max;
    if (d->offered < 0) {
        /* the head that completed first (then the older request) goes next */
        const dma_dir_t *r = &d->dir[0], *w = &d->dir[1];
        if (r->ncopied && w->ncopied) {
            const dma_slot_t *a = &r->slot[r->head], *b = &w->slot[w->head];
            d->offered = (b->done_at < a->done_at || (b->done_at == a->done_at && b->issue_at < a->issue_at));
        } else if (r->ncopied || w->ncopied) {
            d->offered = w->ncopied != 0;
        }
    }
    if (d->offered >= 0) {
        if (!p->dma_rsp_valid) {
            const dma_dir_t *q = &d->dir[d->offered];
            p->dma_rsp = q->slot[q->head].rsp;
            p->dma_rsp_valid = 1;
        }
    } else {
        p->dma_rsp_valid = 0;
    }
}

static inline void dma_sample(core_dma_t *d, core_pins_t *p, uint64_t now)
{
    if (p->dma_rsp_valid && p->dma_rsp_ready && d->offered >= 0) {
        dma_dir_t *q = &d->dir[d->offered];
        const unsigned tag = hca_dma_rsp_get_rtag(&p->dma_rsp);
        d->tag_busy[tag >> 6] &= ~(1ull << (tag & 63));
        q->head = (q->head + 1) & (CORE_DMA_OUTSTANDING_MAX - 1);
        q->count--;
        q->ncopied--;
        d->count--;
        d->offered = -1;
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
