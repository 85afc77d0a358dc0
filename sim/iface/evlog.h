/* evlog.h — the device's event log: what happened, when, told once.
 *
 * The engine and the device report what crosses their boundaries (DMA issued
 * and ended, packets sent and delivered, completions written, key validity
 * changes the firmware made, contract breaches the harness saw) as events on
 * one log; whoever needs to know subscribes: the protection checker
 * (protcheck_attach), the scenario runner (completion arrival times), tests,
 * tracers. Nobody learns by scanning memory or by being called from three
 * places.
 *
 * Events are delivered synchronously, in emission order (non-decreasing
 * cycle), to every subscriber in subscription order. Pointers in an event are
 * valid only during the callback.
 */
#ifndef EVLOG_H
#define EVLOG_H

#include <stdint.h>

#include "hca_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum evlog_kind {
    EVLOG_DMA_ISSUE,        /**< the engine's DMA block accepted dma */
    EVLOG_DMA_DONE,         /**< its transfer ended (err: no byte moved) */
    EVLOG_PKT_TX,           /**< a packet left the engine's tx port */
    EVLOG_PKT_RX,           /**< a packet was delivered to its rx port */
    EVLOG_CQE,              /**< a completion reached host memory at addr (the CQ writer's write ended) */
    EVLOG_KEY_INVALIDATING, /**< an invalidation of key was requested (on = 1) or withdrawn (on = 0) */
    EVLOG_KEY_INVALID,      /**< key invalid from this cycle on (what: the event's name) */
    EVLOG_KEY_VALID,        /**< key valid from this cycle on (a registration carrying it completed) */
    EVLOG_KEY_DEPENDS,      /**< indirect key maps onto KLM entries with keys[0..nkeys) (a REG_INDIR_MR completed) */
    EVLOG_ENGINE_BUG,       /**< the harness saw the engine break its port contract (what: the reason) */
    EVLOG_QP_FENCED,        /**< no DMA of QP qpn from this cycle on (DESTROY_QP / MODIFY_QP RESET answered; what: which) */
    EVLOG_QP_LIVE,          /**< QP qpn may do DMA again from this cycle on (CONNECT_QP answered) */
    EVLOG_KINDS
} evlog_kind_t;

typedef struct evlog_event {
    evlog_kind_t kind;
    uint64_t cycle;             /**< device cycle it happened in */
    const hca_dma_req_t *dma;   /**< DMA_ISSUE, DMA_DONE */
    uint64_t issue_cycle;       /**< DMA_DONE: the cycle its request was accepted */
    uint8_t err;                /**< DMA_DONE: 1 when no byte moved (bus error or refused request) */
    uint8_t refused;            /**< DMA_*: malformed request, answered err without bus time */
    uint8_t on;                 /**< KEY_INVALIDATING */
    const hca_pkt_t *pkt;       /**< PKT_TX, PKT_RX */
    uint32_t key;               /**< KEY_*, ENGINE_BUG (0: none) */
    uint64_t addr;              /**< CQE: bus address of the CQE; ENGINE_BUG (0: none) */
    const char *what;           /**< KEY_INVALID: a static name; ENGINE_BUG: the reason */
    const uint32_t *keys;       /**< KEY_DEPENDS: the entries' keys */
    uint32_t nkeys;
    uint32_t qpn;               /**< QP_FENCED, QP_LIVE */
} evlog_event_t;

typedef void (*evlog_fn_t)(void *ctx, const evlog_event_t *ev);

#define EVLOG_MAX_SUBSCRIBERS 8

/** The log: its subscribers. Zero-initialised = empty. */
typedef struct evlog {
    struct {
        evlog_fn_t fn;
        void *ctx;
    } sub[EVLOG_MAX_SUBSCRIBERS];
    unsigned n;
} evlog_t;

/** Add a subscriber. 0, or -1 when EVLOG_MAX_SUBSCRIBERS are there. */
static inline int evlog_subscribe(evlog_t *log, evlog_fn_t fn, void *ctx)
{
    if (log->n == EVLOG_MAX_SUBSCRIBERS)
        return -1;
    log->sub[log->n].fn = fn;
    log->sub[log->n].ctx = ctx;
    log->n++;
    return 0;
}

/** Remove every subscription of (fn, ctx). */
static inline void evlog_unsubscribe(evlog_t *log, evlog_fn_t fn, void *ctx)
{
    unsigned k = 0;
    for (unsigned i = 0; i < log->n; i++)
        if (log->sub[i].fn != fn || log->sub[i].ctx != ctx)
            log->sub[k++] = log->sub[i];
    log->n = k;
}

/** Deliver ev to every subscriber; log may be NULL (nobody listens). */
static inline void evlog_emit(const evlog_t *log, const evlog_event_t *ev)
{
    if (!log)
        return;
    for (unsigned i = 0; i < log->n; i++)
        log->sub[i].fn(log->sub[i].ctx, ev);
}

#ifdef __cplusplus
}
#endif
#endif /* EVLOG_H */
