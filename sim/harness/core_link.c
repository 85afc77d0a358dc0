/* core_link.c — the loopback link of the device core's harness (core.h,
 * "Timing"): packets from tx come back on rx after serialization and latency,
 * in order, with back-pressure; each is reported on the event log.
 *
 * Memory: a ring of CORE_LINK_DEPTH packets.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((CORE_LINK_DEPTH & (CORE_LINK_DEPTH - 1)) == 0, "ring index by mask");

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

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

uint64_t core_link_quiet_until(const core_link_t *l, uint64_t next)
{
    if (!l || !l->count)
        return UINT64_MAX;
    const uint64_t due = l->q[l->head].arrive;
    return due > next ? due : next;
}

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
