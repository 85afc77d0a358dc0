/* scn_ops_wr.c — posting work requests (SCENARIO.md "Work requests"):
 * post_send with each opcode's fields (the variants of its schema), post_recv
 * and post_raw_wqe. Their completions are scn_ops_cq.c's. See scn_int.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

/* The device serves send opcode opc: 0, or "not available" naming the capability it lacks. */
static int opcode_available(ctx_t *c, unsigned opc)
{
    if (opc == HCA_WR_OPCODE_SEND || opc == HCA_WR_OPCODE_RDMA_WRITE || opc == HCA_WR_OPCODE_RDMA_READ)
        return 0;
    const hcadrv_device_attr_t *a;
    int rc = scn_attr(c, &a);
    if (rc)
        return rc;
    const char *name = hca_wr_opcode_name(opc);
    if (!a->mem_mgt_extensions)
        return scn_unavailable(c, name, "the memory-management extensions (FAST_REG_MR, LOCAL_INV, SEND_WITH_INV)");
    if (opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !a->read_with_inv)
        return scn_unavailable(c, name, "the read_with_inv capability");
    if (opc == HCA_WR_OPCODE_REG_INDIR_MR && !a->indir_reg)
        return scn_unavailable(c, name, "indirect registration (REG_INDIR_MR)");
    return 0;
}

/* A post the driver answered rc, asked at cycle now: the errno the scenario
 * expects, and when the WR was posted, its record (its WQE is now the last of
 * the QP's SQ, or RQ when recv). */
static int post_done(ctx_t *c, int rc, int want, const char *what, int qp, int recv, uint64_t wr_id,
                     const char *opcode, uint64_t now)
{
    if ((rc = scn_expect_rc(c, rc, want, what)) || want)
        return rc;
    const hcadrv_qp_t *q = &scn_obj(c, qp)->qp; /* the call refreshed the driver's indices */
    return scn_posted(c, qp, recv, wr_id, opcode, (recv ? q->rq_pi : q->sq_pi) - 1, now);
}

/* post_send's remote address: "remote_addr" (with "rkey"), or "remote" naming
 * an MR (*mr) or a buffer (*buf, with "rkey") and an offset. */
static int remote_of(ctx_t *c, const json_value_t *o, const char *oname, hcadrv_send_wr_t *wr, int *mr, int *buf,
                     uint64_t *off)
{
    const json_value_t *r = json_get(o, "remote");
    int has_addr = json_get(o, "remote_addr") != NULL, rc = 0;
    if (!!r == has_addr)
        rc = scn_bad(c, "%s takes exactly one of \"remote_addr\" and \"remote\"", oname);
    if (!rc && has_addr) {
        rc = scn_int(c, o, "remote_addr", 0, UINT64_MAX, &wr->remote_addr);
        if (!rc && !json_get(o, "rkey"))
            rc = scn_bad_field(c, "rkey", "missing (with \"remote_addr\", name the R_Key)");
    }
    if (!rc && r) {
        scn_frame_t fr;
        rc = scn_need_object(c, r, "remote");
        scn_enter(c, "remote", 0, 0, &fr);
        if (!rc)
            rc = scn_fields_known(c, r);
        if (!rc && !!json_get(r, "mr") == !!json_get(r, "buf"))
            rc = scn_bad(c, "\"remote\" names exactly one of \"mr\" (its iova and R_Key) and \"buf\" (its bus "
                            "address, with \"rkey\")");
        if (!rc && json_get(r, "mr"))
            rc = scn_ref(c, r, "mr", mr);
        if (!rc && json_get(r, "buf")) {
            rc = scn_ref(c, r, "buf", buf);
            if (!rc && !json_get(o, "rkey")) {
                scn_leave(c, &fr);
                return scn_bad_field(c, "rkey", "missing (with \"remote\":{\"buf\":…}, name the R_Key)");
            }
        }
        if (!rc)
            rc = scn_int(c, r, "offset", 0, UINT64_MAX, off);
        scn_leave(c, &fr);
    }
    if (!rc)
        rc = scn_keyref(c, o, "rkey", &wr->rkey);
    return rc;
}

int scn_op_post_send(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0, signaled = 1, fence = 0;
    unsigned opc = 0;
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    int rc = scn_ref(c, o, "qp", &qp);
    if (!rc)
        rc = scn_int(c, o, "wr_id", 0, UINT64_MAX, &wr.wr_id);
    if (!rc)
        rc = scn_enum(c, o, "opcode", hca_wr_opcode_name, HCA_WR_OPCODE_MAX, &opc);
    if (!rc)
        rc = scn_variant(c, o, opc); /* the fields of other opcodes do not apply */
    if (rc)
        return rc;
    const char *oname = hca_wr_opcode_name(opc);
    rc = scn_bool(c, o, "signaled", &signaled);
    if (!rc)
        rc = scn_bool(c, o, "fence", &fence);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", &want);
    unsigned nsge = 0;
    if (!rc && scn_takes(c, "sge"))
        rc = scn_sge_list(c, o, "sge", wr.sge, HCA_MAX_SEND_SGE, &nsge);
    wr.num_sge = nsge;
    int remote_id = -1, remote_buf = -1, fr_mr = -1, pl = -1;
    uint64_t remote_off = 0;
    if (!rc && scn_takes(c, "remote"))
        rc = remote_of(c, o, oname, &wr, &remote_id, &remote_buf, &remote_off);
    if (!rc && scn_takes(c, "invalidate"))
        rc = scn_keyref(c, o, "invalidate", &wr.inv_key);
    if (!rc && opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !json_get(o, "invalidate") && !nsge)
        rc = scn_bad_field(c, "invalidate", "missing (with no sge, there is no sge[0] whose key it defaults to)");
    uint64_t list_len = 0, ps = HCA_PAGE_SHIFT_MIN, iova = 0, length = 0;
    uint32_t access = 0, key = 0;
    static hca_sge_t klm[HCA_MAX_INDIR_REG_LIST_LEN + 1u]; /* the runner runs one op at a time */
    unsigned nklm = 0;
    if (!rc && scn_takes(c, "mr")) { /* FAST_REG_MR, REG_INDIR_MR */
        rc = scn_ref(c, o, "mr", &fr_mr);
        if (!rc && scn_takes(c, "page_list")) {
            rc = scn_pl_ref(c, o, "page_list", &pl);
            if (!rc)
                rc = scn_int(c, o, "page_list_len", 0, 0xffff, &list_len);
            if (!rc)
                rc = scn_int(c, o, "page_shift", 0, 31, &ps);
        }
        if (!rc && scn_takes(c, "list")) {
            memset(klm, 0, sizeof klm);
            rc = scn_sge_list(c, o, "list", klm, HCA_MAX_INDIR_REG_LIST_LEN + 1u, &nklm);
        }
        if (!rc)
            rc = scn_int(c, o, "iova", 0, UINT64_MAX, &iova);
        if (!rc)
            rc = scn_int(c, o, "length", 0, UINT64_MAX, &length);
        if (!rc)
            rc = scn_flags(c, o, "access", hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
        const json_value_t *kv = json_get(o, "key");
        if (!rc && kv && kv->type != JSON_OBJECT) {
            uint64_t x = 0;
            rc = scn_int_value(c, kv, "key", 0, UINT32_MAX, &x);
            key = (uint32_t)x;
        } else if (!rc && kv)
            rc = scn_keyref_value(c, kv, "key", &key);
    }
    if (rc || !RUNNING)
        return rc;

    /* ---- run */
    if ((rc = opcode_available(c, opc)))
        return rc;
    rt_obj_t *q = scn_obj(c, qp);
    wr.opcode = opc;
    wr.flags = (signaled ? HCA_SEND_FLAGS_SIGNALED : 0) | (fence ? HCA_SEND_FLAGS_FENCE : 0);
    if (remote_buf >= 0)
        wr.remote_addr = scn_obj(c, remote_buf)->addr + remote_off; /* a bus address: for keys without translation */
    if (remote_id >= 0) {
        uint32_t rk;
        if ((rc = scn_mr_key(c, remote_id, "remote.mr", &rk)))
            return rc;
        wr.remote_addr = scn_obj(c, remote_id)->mr.iova + remote_off;
        if (!json_get(o, "rkey"))
            wr.rkey = rk;
    }
    if (opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !json_get(o, "invalidate"))
        wr.inv_key = wr.sge[0].lkey; /* SEMANTICS.md: default the MR of sge[0] (validated: nsge >= 1) */
    hcadrv_indir_reg_list_t klm_list = {0};
    if (fr_mr >= 0) {
        uint32_t mk;
        if ((rc = scn_mr_key(c, fr_mr, "mr", &mk)))
            return rc;
        const json_value_t *kv = json_get(o, "key");
        if (!kv)
            key = mk;
        else if (kv->type != JSON_OBJECT && key <= HCA_KEY_BYTE_MASK)
            key = (mk & ~(uint32_t)HCA_KEY_BYTE_MASK) | key; /* a key byte on the MR's index */
        wr.fr_key = key;
        /* The WR names its MR apart from its key (hcadrv_send_wr_t.mr: the
         * WQE's rkey is the MR's key as the driver holds it; only its index
         * counts), so a "key" on another index is refused by the device
         * (MW_BIND_ERR) rather than registering that other MR. */
        wr.mr = &scn_obj(c, fr_mr)->mr;
        wr.fr_iova = iova;
        wr.fr_length = length;
        wr.fr_access = access;
        if (pl >= 0) {
            wr.page_list = &scn_obj(c, pl)->pl;
            wr.fr_list_len = (unsigned)(json_get(o, "page_list_len") ? list_len : scn_obj(c, pl)->size);
            wr.fr_page_shift = (unsigned)ps;
        } else if (nklm) {
            /* the KLM list is the driver's: {addr, length, lkey} entries in device-visible memory */
            if ((rc = hcadrv_alloc_indir_reg_list(scn_drv(c), nklm, &klm_list)))
                return scn_bad(c, "the driver refused a KLM list of %u entries: %s", nklm, strerror(-rc));
            for (unsigned i = 0; i < nklm && !rc; i++)
                rc = hcadrv_indir_reg_list_set(&klm_list, i, &klm[i]);
            if (rc)
                return scn_bad(c, "the driver refused a KLM entry: %s", strerror(-rc));
            wr.indir_list = &klm_list;
            wr.fr_list_len = nklm;
        }
    }
    uint64_t now = scn_cycle(c);
    rc = post_done(c, hcadrv_post_send(scn_drv(c), &q->qp, &wr), want, "post_send", qp, 0, wr.wr_id, oname, now);
    if (rc || want)
        return rc; /* posted: the driver gave the MR's copy its registration (hcadrv_send_wr_t.mr) */
    const int remote = opc == HCA_WR_OPCODE_RDMA_WRITE || opc == HCA_WR_OPCODE_RDMA_READ ||
                       opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV; /* the data moves through rkey too */
    scn_posted_keys(c, wr.sge, wr.num_sge, remote ? wr.rkey : 0);
    scn_note(c, "%s wr_id %" PRIu64 " posted at SQ index %u", oname, wr.wr_id, q->qp.sq_pi - 1);
    return 0;
}

int scn_op_post_recv(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0;
    hcadrv_recv_wr_t wr;
    memset(&wr, 0, sizeof wr);
    hca_sge_t sge[SCN_MAX_SGES];
    unsigned n = 0;
    int rc = scn_ref(c, o, "qp", &qp);
    if (!rc)
        rc = scn_int(c, o, "wr_id", 0, UINT64_MAX, &wr.wr_id);
    if (!rc)
        rc = scn_sge_list(c, o, "sge", sge, SCN_MAX_SGES, &n);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", &want);
    if (rc || !RUNNING)
        return rc;
    wr.num_sge = n;
    memcpy(wr.sge, sge, sizeof wr.sge);
    uint64_t now = scn_cycle(c);
    rc = hcadrv_post_recv(scn_drv(c), &scn_obj(c, qp)->qp, &wr);
    rc = post_done(c, rc, want, "post_recv", qp, 1, wr.wr_id, "RECV", now);
    if (!rc && !want)
        scn_posted_keys(c, wr.sge, wr.num_sge, 0);
    return rc;
}

int scn_op_post_raw_wqe(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0, recv = 0;
    uint64_t wr_id = 0;
    uint8_t *bytes = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "qp", &qp);
    if (!rc && json_get(o, "recv"))
        rc = scn_bool(c, o, "recv", &recv);
    if (!rc)
        rc = scn_hex(c, o, "hex", &bytes, &n);
    const size_t max = recv ? sizeof(hca_rq_wqe_t) : sizeof(hca_sq_wqe_t);
    if (!rc && n > max)
        rc = scn_bad_field(c, "hex", "%zu bytes, %s WQE has %zu", n, recv ? "an RQ" : "an SQ", max);
    if (!rc)
        rc = scn_int(c, o, "wr_id", 0, UINT64_MAX, &wr_id);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", &want);
    if (rc || !RUNNING) {
        free(bytes);
        return rc;
    }
    uint8_t wqe[sizeof(hca_sq_wqe_t)];
    memset(wqe, 0, sizeof wqe);
    memcpy(wqe, bytes, n);
    free(bytes);
    if (!json_get(o, "wr_id"))
        memcpy(&wr_id, wqe + (recv ? offsetof(hca_rq_wqe_t, wr_id) : offsetof(hca_sq_wqe_t, wr_id)), 8);
    uint64_t now = scn_cycle(c);
    rc = recv ? hcadrv_post_recv_raw(scn_drv(c), &scn_obj(c, qp)->qp, wqe, max)
              : hcadrv_post_send_raw(scn_drv(c), &scn_obj(c, qp)->qp, wqe, max);
    return post_done(c, rc, want, "post_raw_wqe", qp, recv, wr_id, recv ? "RECV" : "RAW", now);
}
