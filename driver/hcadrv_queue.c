/* hcadrv_queue.c — CQ and QP lifecycle: create (rings in device-visible
 * memory), connect, modify, query, destroy (docs/engine.md).
 *
 * Queue state: the driver holds the authoritative copy of every CQ's and
 * QP's indices in its own tables, indexed by CQ/QP number, so a caller may
 * copy or move its hcadrv_cq_t / hcadrv_qp_t freely. The caller's structs are
 * views: every call that takes one refreshes its indices (post_*, connect,
 * query_qp, poll_cq for the CQ). poll_cq advances the driver's sq_done /
 * rq_done of the QPs its CQEs name; a caller's hcadrv_qp_t shows them at its
 * next call with that QP.
 */
#include "hcadrv_int.h"

#include <errno.h>
#include <string.h>

/* log2 of the smallest power of two >= n (n <= 1: 0). */
static unsigned log2_ceil(uint32_t n)
{
    unsigned l = 0;
    while (l < 32 && (1ull << l) < n)
        l++;
    return l;
}

/* A ring of bytes (rounded up to whole pages), zeroed. */
static int ring_alloc(hcadrv_t *drv, uint64_t bytes, uint64_t *addr, uint64_t *mapped)
{
    *mapped = (bytes + DRV_PAGE_SIZE - 1) & ~(uint64_t)(DRV_PAGE_SIZE - 1);
    return mem_alloc(drv, *mapped, DRV_PAGE_SIZE, addr);
}

drv_cq_t *drv_cq_of(hcadrv_t *drv, uint32_t cqn)
{
    return cqn > 0 && cqn < HCA_MAX_CQ && drv->cqs[cqn].used ? &drv->cqs[cqn] : NULL;
}

drv_qp_t *drv_qp_of(hcadrv_t *drv, uint32_t qpn)
{
    return qpn > 0 && qpn < HCA_MAX_QP && drv->qps[qpn].used ? &drv->qps[qpn] : NULL;
}

/* Refresh a caller's view of a QP from the driver's copy. */
void drv_qp_view(const drv_qp_t *s, hcadrv_qp_t *qp)
{
    qp->sq_pi = s->sq_pi;
    qp->rq_pi = s->rq_pi;
    qp->sq_done = s->sq_done;
    qp->rq_done = s->rq_done;
    qp->connected = s->connected;
}

int hcadrv_create_cq(hcadrv_t *drv, uint32_t depth, hcadrv_cq_t *cq)
{
    if (!drv || !cq)
        return -EINVAL;
    unsigned log = log2_ceil(depth);
    if (log > HCA_QUEUE_LOG_MAX)
        return -EINVAL;
    uint64_t base = 0, mapped = 0;
    int rc = ring_alloc(drv, CQE_BYTES << log, &base, &mapped);
    if (rc)
        return rc;
    hca_create_cq_in_t in;
    memset(&in, 0, sizeof in);
    in.base = base;
    in.log_depth = log;
    uint32_t cqn = 0;
    rc = drv_cmd_in(drv, HCA_CMD_OP_CREATE_CQ, &in, sizeof in, &cqn);
    if (!rc && (cqn == 0 || cqn >= HCA_MAX_CQ || drv->cqs[cqn].used))
        rc = -EIO; /* the firmware handed out a number it should not have */
    if (rc) {
        mem_free(drv, base, mapped);
        return rc;
    }
    drv->cqs[cqn] = (drv_cq_t){.used = 1, .base = base, .bytes = mapped, .log_depth = log, .ci = 0};
    *cq = (hcadrv_cq_t){.cqn = cqn, .base = base, .log_depth = log, .ci = 0};
    return 0;
}

int hcadrv_destroy_cq(hcadrv_t *drv, hcadrv_cq_t *cq)
{
    if (!drv || !cq)
        return -EINVAL;
    drv_cq_t *c = drv_cq_of(drv, cq->cqn);
    if (!c)
        return -EINVAL;
    int rc = drv_destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_CQ, 0, 0, cq->cqn, NULL));
    if (rc)
        return rc;
    mem_free(drv, c->base, c->bytes);
    memset(c, 0, sizeof *c);
    return 0;
}

int hcadrv_create_qp(hcadrv_t *drv, const hcadrv_qp_attr_t *attr, hcadrv_qp_t *qp)
{
    if (!drv || !attr || !qp || !attr->send_cq || !attr->recv_cq || attr->rnr_retry > 7)
        return -EINVAL;
    unsigned sq_log = log2_ceil(attr->sq_depth), rq_log = log2_ceil(attr->rq_depth);
    if (sq_log > HCA_QUEUE_LOG_MAX || rq_log > HCA_QUEUE_LOG_MAX)
        return -EINVAL;
    unsigned mtu_log2 = 0; /* the device's MTU_DEFAULT */
    if (attr->mtu) {
        mtu_log2 = log2_ceil(attr->mtu);
        if ((1u << mtu_log2) != attr->mtu || attr->mtu < 256 || attr->mtu > 4096)
            return -EINVAL;
    }
    uint64_t sq = 0, rq = 0, sq_bytes = 0, rq_bytes = 0;
    int rc = ring_alloc(drv, SQ_WQE_BYTES << sq_log, &sq, &sq_bytes);
    if (rc)
        return rc;
    rc = ring_alloc(drv, RQ_WQE_BYTES << rq_log, &rq, &rq_bytes);
    if (rc) {
        mem_free(drv, sq, sq_bytes);
        return rc;
    }
    hca_create_qp_in_t in;
    memset(&in, 0, sizeof in);
    in.pd = attr->pd;
    hca_create_qp_in_set_send_cqn(&in, attr->send_cq->cqn);
    hca_create_qp_in_set_recv_cqn(&in, attr->recv_cq->cqn);
    in.sq_base = sq;
    in.rq_base = rq;
    hca_create_qp_in_set_sq_log(&in, sq_log);
    hca_create_qp_in_set_rq_log(&in, rq_log);
    hca_create_qp_in_set_mtu_log2(&in, mtu_log2);
    hca_create_qp_in_set_rnr_retry(&in, attr->rnr_retry);
    in.rnr_timer = attr->rnr_timer;
    uint32_t qpn = 0;
    rc = drv_cmd_in(drv, HCA_CMD_OP_CREATE_QP, &in, sizeof in, &qpn);
    if (!rc && (qpn == 0 || qpn >= HCA_MAX_QP || drv->qps[qpn].used))
        rc = -EIO;
    if (rc) {
        mem_free(drv, sq, sq_bytes);
        mem_free(drv, rq, rq_bytes);
        return rc;
    }
    drv_qp_t *s = &drv->qps[qpn];
    *s = (drv_qp_t){.used = 1, .sq_base = sq, .rq_base = rq, .sq_bytes = sq_bytes, .rq_bytes = rq_bytes,
                    .sq_log = sq_log, .rq_log = rq_log, .send_cqn = attr->send_cq->cqn,
                    .recv_cqn = attr->recv_cq->cqn};
    *qp = (hcadrv_qp_t){.qpn = qpn, .pd = attr->pd, .sq_base = sq, .rq_base = rq, .sq_log = sq_log,
                        .rq_log = rq_log, .send_cqn = s->send_cqn, .recv_cqn = s->recv_cqn};
    return 0;
}

int hcadrv_connect(hcadrv_t *drv, hcadrv_qp_t *a, hcadrv_qp_t *b)
{
    if (!drv || !a || !b)
        return -EINVAL;
    drv_qp_t *sa = drv_qp_of(drv, a->qpn), *sb = drv_qp_of(drv, b->qpn);
    if (!sa || !sb)
        return -EINVAL;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_CONNECT_QP, 0, 0, a->qpn | b->qpn << 16, NULL);
    if (rc)
        return rc;
    /* RTS gives both fresh indices on the device: so here. */
    drv_qp_t *both[2] = {sa, sb};
    for (int i = 0; i < 2; i++) {
        both[i]->sq_pi = both[i]->rq_pi = both[i]->sq_done = both[i]->rq_done = 0;
        both[i]->connected = 1;
    }
    drv_qp_view(sa, a);
    drv_qp_view(sb, b);
    return 0;
}

int hcadrv_destroy_qp(hcadrv_t *drv, hcadrv_qp_t *qp)
{
    if (!drv || !qp)
        return -EINVAL;
    drv_qp_t *s = drv_qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    int rc = drv_destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_QP, 0, 0, qp->qpn, NULL));
    if (rc)
        return rc;
    mem_free(drv, s->sq_base, s->sq_bytes);
    mem_free(drv, s->rq_base, s->rq_bytes);
    memset(s, 0, sizeof *s);
    drv_release_lists(drv, qp->qpn);
    qp->connected = 0;
    return 0;
}

int hcadrv_modify_qp(hcadrv_t *drv, hcadrv_qp_t *qp, unsigned state)
{
    if (!drv || !qp || (state != HCA_QP_STATE_RESET && state != HCA_QP_STATE_ERROR))
        return -EINVAL;
    drv_qp_t *s = drv_qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    int rc = drv_destroy_errno(hcadrv_cmd(drv, HCA_CMD_OP_MODIFY_QP, 0, 0, qp->qpn | state << 16, NULL));
    if (rc)
        return rc;
    if (state == HCA_QP_STATE_RESET) {
        /* The device emptied the queues and forgot the indices: so here.
         * The rings stay (the QP keeps them for its next connection). */
        s->sq_pi = s->rq_pi = s->sq_done = s->rq_done = 0;
        s->connected = 0;
        drv_release_lists(drv, qp->qpn);
    }
    drv_qp_view(s, qp);
    return 0;
}

int hcadrv_query_qp(hcadrv_t *drv, const hcadrv_qp_t *qp, unsigned *state)
{
    if (!drv || !qp || !state)
        return -EINVAL;
    if (!drv_qp_of(drv, qp->qpn))
        return -EINVAL;
    hca_qp_ctx_t c;
    int rc = drv_cmd_out(drv, HCA_CMD_OP_QUERY_QP, qp->qpn, &c, sizeof c);
    if (rc)
        return rc;
    *state = hca_qp_ctx_get_state(&c);
    return 0;
}
