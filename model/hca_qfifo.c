/* hca_qfifo.c — C twin of rtl/hca_qfifo.sv (see hca_qfifo.h). */
#include "hca_qfifo.h"

#include <errno.h>
#include <string.h>

int hca_qfifo_init(hca_qfifo_t *q, unsigned n)
{
    if (n < 2 || n > HCA_QFIFO_MAX_N || (n & (n - 1u)) != 0)
        return -EINVAL;
    memset(q, 0, sizeof(*q));
    q->n = n;
    return 0;
}

void hca_qfifo_reset(hca_qfifo_t *q)
{
    q->rd = q->wr = 0;
    memset(q->inq, 0, q->n);
}

void hca_qfifo_edge_slow(hca_qfifo_t *q, int popped, const uint8_t *push, const uint16_t *val, unsigned np)
{
    const unsigned mask = q->n - 1u; /* n is a power of two (init) */
    const unsigned head = hca_qfifo_head(q);
    uint8_t take[HCA_QFIFO_MAX_PUSH];
    for (unsigned k = 0; k < np; k++) {
        const unsigned v = val[k] & mask;
        int t = push[k] && !(q->inq[v] && !(popped && head == v));
        for (unsigned j = 0; j < k && t; j++)
            if (push[j] && (val[j] & mask) == v)
                t = 0;
        take[k] = (uint8_t)t;
    }
    if (popped) {
        q->inq[head] = 0;
        q->rd++;
    }
    for (unsigned k = 0; k < np; k++)
        if (take[k]) {
            const unsigned v = val[k] & mask;
            q->slot[q->wr & mask] = (uint16_t)v;
            q->inq[v] = 1;
            q->wr++;
        }
}
