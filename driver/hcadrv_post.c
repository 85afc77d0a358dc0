/* hcadrv_post.c — posting: a WR written as a WQE at the ring's producer
 * index, then the SQ / RQ doorbell (docs/engine.md). */
#include "hcadrv_int.h"

#include <errno.h>
#include <string.h>

/* The checks every post makes: a known, connected QP with room. */
static int post_check(hcadrv_t *drv, hcadrv_qp_t *qp, int recv, drv_qp_t **out)
{
    drv_qp_t *s = drv_qp_of(drv, qp->qpn);
    if (!s)
        return -EINVAL;
    drv_qp_view(s, qp);
    if (!s->connected)
        return -ENOTCONN;
    uint32_t used = recv ? s->rq_pi - s->rq_done : s->sq_pi - s->sq_done;
    if (used >= (1u << (recv ? s->rq_log : s->sq_log)))
        return -ENOMEM;
    *out = s;
    return 0;
}

/* Write one SQ WQE at sq_pi, advance sq_pi and ring the SQ doorbell. */
static int sq_push(hcadrv_t *drv, drv_qp_t *s, hcadrv_qp_t *qp, const void *wqe)
{
    uint64_t at = s->sq_base + (uint64_t)(s->sq_pi & ((1u << s->sq_log) - 1)) * SQ_WQE_BYTES;
    int rc = mem_wr(drv, at, wqe, SQ_WQE_BYTES);
    if (rc)
        return rc;
    uint32_t pi = s->sq_pi + 1;
    rc = doorbell(drv, HCA_DB_SQ, HCA_DB_SQ_QPN_PUT(qp->qpn) | HCA_DB_SQ_PI_PUT(pi & INDEX_MASK));
    if (rc)
        return rc; /* a device without doorbells: nothing was posted */
    s->sq_pi = pi;
    drv_qp_view(s, qp);
    return 0;
}

/* A posted registration WR: the consumer's copy of its MR takes it (hcadrv.h, hcadrv_send_wr_t.mr). */
static void take_registration(const hcadrv_send_wr_t *wr)
{
    hcadrv_mr_t *m = wr->mr;
    if (!m || !((wr->opcode == HCA_WR_OPCODE_FAST_REG_MR && m->kind == HCA_MKEY_KIND_FAST_REG) ||
                (wr->opcode == HCA_WR_OPCODE_REG_INDIR_MR && m->kind == HCA_MKEY_KIND_INDIRECT)))
        return;
    if ((wr->fr_key >> HCA_KEY_INDEX_SHIFT) == (m->lkey >> HCA_KEY_INDEX_SHIFT))
        m->lkey = m->rkey = wr->fr_key;
    m->iova = wr->fr_iova;
    m->length = wr->fr_length;
    m->access = wr->fr_access;
}

int hcadrv_post_send(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_send_wr_t *wr)
{
    if (!drv || !qp || !wr || wr->opcode > HCA_WR_OPCODE_MAX || wr->num_sge > HCA_MAX_SEND_SGE ||
        (wr->flags & ~(unsigned)(HCA_SEND_FLAGS_SIGNALED | HCA_SEND_FLAGS_FENCE)))
        return -EINVAL;
    drv_pl_t *pl = NULL; /* the page or KLM list the WR names */
    if (wr->page_list && wr->indir_list)
        return -EINVAL;
    if (wr->page_list && (wr->opcode != HCA_WR_OPCODE_FAST_REG_MR || !(pl = drv_pl_of(drv, wr->page_list))))
        return -EINVAL;
    if (wr->indir_list && (wr->opcode != HCA_WR_OPCODE_REG_INDIR_MR || !(pl = drv_klm_of(drv, wr->indir_list))))
        return -EINVAL;
    if (pl && wr->fr_list_len > pl->len)
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 0, &s);
    if (rc)
        return rc;
    if (pl && drv_pl_owned(drv, pl))
        return -EBUSY;
    hca_sq_wqe_t w;
    memset(&w, 0, sizeof w);
    hca_sq_wqe_set_opcode(&w, wr->opcode);
    hca_sq_wqe_set_flags(&w, wr->flags);
    hca_sq_wqe_set_num_sge(&w, wr->num_sge);
    w.wr_id = wr->wr_id;
    switch (wr->opcode) {
    case HCA_WR_OPCODE_RDMA_WRITE:
    case HCA_WR_OPCODE_RDMA_READ:
        w.remote_addr = wr->remote_addr;
        w.rkey = wr->rkey;
        break;
    case HCA_WR_OPCODE_RDMA_READ_WITH_INV:
        w.remote_addr = wr->remote_addr;
        w.rkey = wr->rkey;
        w.inv_key = wr->inv_key;
        break;
    case HCA_WR_OPCODE_SEND_WITH_INV:
    case HCA_WR_OPCODE_LOCAL_INV:
        w.inv_key = wr->inv_key;
        break;
    case HCA_WR_OPCODE_FAST_REG_MR:
    case HCA_WR_OPCODE_REG_INDIR_MR:
        w.fr_iova = wr->fr_iova;
        w.fr_length = wr->fr_length;
        w.fr_list = pl ? pl->bus : wr->fr_list;
        if (pl && wr->opcode == HCA_WR_OPCODE_FAST_REG_MR && wr->fr_list_len == 1 &&
            (drv->attr.caps & HCA_DEV_CAP_FR_INLINE_PAGE)) {
            /* the page in the WQE: the device reads no list */
            if ((rc = mem_rd(drv, pl->bus, &w.fr_list, sizeof w.fr_list)))
                return rc;
            hca_sq_wqe_set_fr_inline(&w, 1);
        }
        w.fr_key = wr->fr_key;
        w.rkey = wr->mr ? wr->mr->lkey : wr->fr_key; /* the MR: the device compares the indices */
        hca_sq_wqe_set_fr_page_shift(&w, wr->fr_page_shift);
        hca_sq_wqe_set_fr_access(&w, wr->fr_access);
        hca_sq_wqe_set_fr_list_len(&w, wr->fr_list_len);
        break;
    default: /* SEND */
        break;
    }
    for (unsigned i = 0; i < wr->num_sge; i++)
        w.sge[i] = wr->sge[i];
    if ((rc = sq_push(drv, s, qp, &w)))
        return rc;
    if (pl) { /* the driver owns the list until this WR completes */
        pl->owned = 1;
        pl->qpn = qp->qpn;
        pl->sq_index = s->sq_pi - 1;
    }
    take_registration(wr);
    return 0;
}

int hcadrv_post_send_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len)
{
    if (!drv || !qp || !wqe || len == 0 || len > SQ_WQE_BYTES)
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 0, &s);
    if (rc)
        return rc;
    uint8_t w[sizeof(hca_sq_wqe_t)];
    memset(w, 0, sizeof w);
    memcpy(w, wqe, len);
    return sq_push(drv, s, qp, w);
}

int hcadrv_post_recv(hcadrv_t *drv, hcadrv_qp_t *qp, const hcadrv_recv_wr_t *wr)
{
    if (!drv || !qp || !wr || wr->num_sge > HCA_MAX_RECV_SGE)
        return -EINVAL;
    hca_rq_wqe_t w;
    memset(&w, 0, sizeof w);
    w.wr_id = wr->wr_id;
    hca_rq_wqe_set_num_sge(&w, wr->num_sge);
    for (unsigned i = 0; i < wr->num_sge; i++)
        w.sge[i] = wr->sge[i];
    return hcadrv_post_recv_raw(drv, qp, &w, sizeof w);
}

int hcadrv_post_recv_raw(hcadrv_t *drv, hcadrv_qp_t *qp, const void *wqe, size_t len)
{
    if (!drv || !qp || !wqe || len == 0 || len > sizeof(hca_rq_wqe_t))
        return -EINVAL;
    drv_qp_t *s = NULL;
    int rc = post_check(drv, qp, 1, &s);
    if (rc)
        return rc;
    hca_rq_wqe_t w;
    memset(&w, 0, sizeof w);
    memcpy(&w, wqe, len);
    uint64_t at = s->rq_base + (uint64_t)(s->rq_pi & ((1u << s->rq_log) - 1)) * RQ_WQE_BYTES;
    if ((rc = mem_wr(drv, at, &w, sizeof w)))
        return rc;
    uint32_t pi = s->rq_pi + 1;
    if ((rc = doorbell(drv, HCA_DB_RQ, HCA_DB_RQ_QPN_PUT(qp->qpn) | HCA_DB_RQ_PI_PUT(pi & INDEX_MASK))))
        return rc;
    s->rq_pi = pi;
    drv_qp_view(s, qp);
    return 0;
}
