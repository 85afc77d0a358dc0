/* hcadrv_poll.c — polling a CQ: new CQEs by their owner bit, the WQEs they
 * complete retired, the CQ doorbell; an overrun CQ is an error for good. */
#include "hcadrv_int.h"

#include <errno.h>

/* A CQE for WQE index counter (16 bits) completes every WQE up to it: the
 * queue's done index moves to counter + 1 (never past what was posted). */
static void advance_done(uint32_t *done, uint32_t pi, uint32_t counter)
{
    uint32_t step = (counter + 1 - *done) & INDEX_MASK;
    if (step <= pi - *done)
        *done += step;
}

/* 1 when the CQE at free-running index i is new (docs/engine.md, CQ writer:
 * owner == ((i >> log_depth) & 1) ^ 1), 0 when not, or a negative errno. */
static int cqe_at(hcadrv_t *drv, const drv_cq_t *c, uint32_t i, hca_cqe_t *e)
{
    int rc = mem_rd(drv, c->base + (uint64_t)(i & ((1u << c->log_depth) - 1)) * CQE_BYTES, e, sizeof *e);
    if (rc)
        return rc;
    return hca_cqe_get_owner(e) == (((i >> c->log_depth) & 1u) ^ 1u);
}

/* A CQE can only have been dropped while the ring was full, so the device is
 * asked (QUERY_CQ) only then: the last slot before ci holds a new CQE. An
 * overrun CQ is broken for good (IBA: CQ error), so this stays -EIO. */
static int cq_check_overflow(hcadrv_t *drv, drv_cq_t *c, uint32_t cqn)
{
    if (c->overflowed)
        return -EIO;
    hca_cqe_t e;
    int full = cqe_at(drv, c, c->ci + (1u << c->log_depth) - 1, &e);
    if (full <= 0)
        return full;
    hca_cq_ctx_t ctx;
    int rc = drv_cmd_out(drv, HCA_CMD_OP_QUERY_CQ, cqn, &ctx, sizeof ctx);
    if (rc)
        return rc;
    c->overflowed = hca_cq_ctx_get_overflow(&ctx) != 0;
    return c->overflowed ? -EIO : 0;
}

int hcadrv_poll_cq(hcadrv_t *drv, hcadrv_cq_t *cq, hcadrv_wc_t *wc, int max)
{
    if (!drv || !cq || (!wc && max > 0) || max < 0)
        return -EINVAL;
    drv_cq_t *c = drv_cq_of(drv, cq->cqn);
    if (!c)
        return -EINVAL;
    int rc = cq_check_overflow(drv, c, cq->cqn);
    if (rc)
        return rc;
    int n = 0;
    while (n < max) {
        hca_cqe_t e;
        rc = cqe_at(drv, c, c->ci, &e);
        if (rc < 0)
            return rc;
        if (!rc)
            break;
        hcadrv_wc_t *w = &wc[n++];
        w->wr_id = e.wr_id;
        w->status = hca_cqe_get_status(&e);
        w->opcode = hca_cqe_get_opcode(&e);
        w->wc_flags = hca_cqe_get_wc_flags(&e);
        w->byte_len = e.byte_len;
        w->qpn = e.qpn;
        w->invalidate_rkey = e.invalidate_rkey;
        w->wqe_counter = e.wqe_counter;
        c->ci++;
        drv_qp_t *q = drv_qp_of(drv, e.qpn);
        if (q) {
            /* Which queue: the CQ decides when the QP's two CQs differ, the opcode when they are one. */
            int recv = q->send_cqn != q->recv_cqn ? cq->cqn == q->recv_cqn
                                                  : (w->opcode & HCA_WC_OPCODE_RECV) != 0;
            if (recv)
                advance_done(&q->rq_done, q->rq_pi, e.wqe_counter);
            else
                advance_done(&q->sq_done, q->sq_pi, e.wqe_counter);
        }
    }
    cq->ci = c->ci;
    if (n) {
        int rc = doorbell(drv, HCA_DB_CQ, HCA_DB_CQ_CQN_PUT(cq->cqn) | HCA_DB_CQ_CI_PUT(c->ci & INDEX_MASK));
        if (rc)
            return rc;
    }
    return n;
}
