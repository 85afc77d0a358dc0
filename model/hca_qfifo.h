/* hca_qfifo.h — C twin of rtl/hca_qfifo.sv: a FIFO of distinct numbers in
 * [0, n) with up to HCA_QFIFO_MAX_PUSH pushes and one pop per cycle.
 *
 * A push is dropped when its number is queued already (and is not the head
 * popped in the same edge) or an earlier port of the same edge pushes it;
 * pushes are taken in port order. The RTL tests membership with a sparse
 * set (no reset); here an in-queue flag per number, cleared at reset, gives
 * the same answers. */
#ifndef HCA_QFIFO_H
#define HCA_QFIFO_H

#include <stdint.h>

#include "hca_abi.h"

#define HCA_QFIFO_MAX_N HCA_MAX_QP
#define HCA_QFIFO_MAX_PUSH 8u

typedef struct hca_qfifo {
    uint32_t n;                       /**< N */
    uint32_t rd, wr;                  /**< positions (mod n: the slot) */
    uint16_t slot[HCA_QFIFO_MAX_N];   /**< slot_m */
    uint8_t inq[HCA_QFIFO_MAX_N];     /**< queued */
} hca_qfifo_t;

int hca_qfifo_init(hca_qfifo_t *q, unsigned n); /* 0 / -EINVAL */
void hca_qfifo_reset(hca_qfifo_t *q);
static inline int hca_qfifo_valid(const hca_qfifo_t *q) { return q->rd != q->wr; }
static inline unsigned hca_qfifo_head(const hca_qfifo_t *q) { return q->slot[q->rd & (q->n - 1u)]; }
/* hca_qfifo_edge with a pop (popped: pop && valid) or a push. */
void hca_qfifo_edge_slow(hca_qfifo_t *q, int popped, const uint8_t *push, const uint16_t *val, unsigned np);
/** One edge: pop (ignored while empty), then the np pushes push[k] of val[k].
 *  Inline for the common edge that neither pops nor pushes (four run every
 *  stepped cycle). */
static inline void hca_qfifo_edge(hca_qfifo_t *q, int pop, const uint8_t *push, const uint16_t *val, unsigned np)
{
    unsigned any = 0;
    for (unsigned k = 0; k < np; k++)
        any |= push[k];
    const int popped = pop && hca_qfifo_valid(q);
    if (any || popped)
        hca_qfifo_edge_slow(q, popped, push, val, np);
}

#endif /* HCA_QFIFO_H */
