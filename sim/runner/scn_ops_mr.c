/* scn_ops_mr.c — the registration ops (SCENARIO.md "Registration"): memory
 * regions and their keys, fast-registration page lists. Checking an MR's MPT
 * entry (check_mr) is in scn_ops_check.c; registering by work request
 * (FAST_REG_MR, REG_INDIR_MR) in scn_ops_wr.c. See scn_int.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "scn_int.h"

int scn_op_reg_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, b, want = 0;
    uint64_t off = 0, len = 0, iova = 0, ps = HCA_PAGE_SHIFT_MIN;
    uint32_t access = 0;
    int rc = scn_bind(c, o, "mr", &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", &pd);
    if (!rc)
        rc = scn_ref(c, o, "buf", &b);
    if (!rc)
        rc = scn_int(c, o, "offset", 0, UINT64_MAX, &off);
    if (!rc)
        rc = scn_int(c, o, "length", 0, UINT64_MAX, &len);
    if (!rc && !json_get(o, "length") && !RUNNING && off > scn_sym(c, b)->size)
        rc = scn_bad_field(c, "offset", "%" PRIu64 " is past the end of buffer \"%s\"", off, scn_sym(c, b)->name);
    if (!rc)
        rc = scn_flags(c, o, "access", hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
    if (!rc)
        rc = scn_int(c, o, "iova", 0, UINT64_MAX, &iova);
    if (!rc)
        rc = scn_int(c, o, "page_shift", 0, 63, &ps);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *m = scn_obj(c, id), *buf = scn_obj(c, b);
    if (!json_get(o, "length"))
        len = buf->size - off;
    uint64_t addr = buf->addr + off;
    if (!json_get(o, "iova"))
        iova = addr;
    rc = hcadrv_reg_mr(scn_drv(c), scn_obj(c, pd)->pd, addr, len, iova, access, (unsigned)ps, &m->mr);
    if ((rc = scn_expect_rc(c, rc, want, "reg_mr")))
        return rc;
    m->live = want == 0;
    if (m->live && buf->revoked) { /* the peer handed the pages out again */
        protcheck_range_restore(hca_dev_protcheck(scn_dev(c)), buf->addr, buf->size);
        buf->revoked = 0;
    }
    if (m->live)
        scn_observe(c, "lkey, rkey", "0x%08x, 0x%08x", m->mr.lkey, m->mr.rkey);
    if (m->live)
        scn_note(c, "lkey 0x%08x rkey 0x%08x iova 0x%" PRIx64 " length %" PRIu64, m->mr.lkey, m->mr.rkey, iova, len);
    return 0;
}

int scn_op_get_dma_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, want = 0;
    int rc = scn_bind(c, o, "mr", &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", &pd);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    const hcadrv_device_attr_t *a;
    if ((rc = scn_attr(c, &a)))
        return rc;
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_get_dma_mr(scn_drv(c), scn_obj(c, pd)->pd, &m->mr);
    if ((rc = scn_expect_rc(c, rc, want, "get_dma_mr")))
        return rc;
    m->live = want == 0;
    if (m->live)
        scn_observe(c, "lkey, rkey", "0x%08x, 0x%08x", m->mr.lkey, m->mr.rkey);
    if (m->live)
        scn_note(c, "%s 0x%08x", a->reserved_lkey_valid ? "the reserved L_Key" : "DMA MR key", m->mr.lkey);
    return 0;
}

int scn_op_alloc_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, want = 0;
    unsigned type = 0;
    uint64_t len = 0;
    int rc = scn_bind(c, o, "mr", &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", &pd);
    if (!rc)
        rc = scn_choice(c, o, "type", (const char *const[]){"fast_reg", "indirect", NULL}, &type);
    if (!rc)
        rc = scn_variant(c, o, type); /* the other type's list length does not apply */
    if (!rc)
        rc = scn_int(c, o, type == 0 ? "max_page_list_len" : "max_indir_list_len", 0, UINT32_MAX, &len);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    if (type == 1) {
        const hcadrv_device_attr_t *a;
        if ((rc = scn_attr(c, &a)))
            return rc;
        if (!a->indir_reg)
            return scn_unavailable(c, "type indirect", "indirect registration (REG_INDIR_MR)");
    }
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_alloc_mr(scn_drv(c), scn_obj(c, pd)->pd, type == 0 ? HCA_MKEY_KIND_FAST_REG : HCA_MKEY_KIND_INDIRECT,
                         (uint32_t)len, &m->mr);
    if ((rc = scn_expect_rc(c, rc, want, "alloc_mr")))
        return rc;
    m->live = want == 0;
    if (m->live)
        scn_observe(c, "lkey, rkey", "0x%08x, 0x%08x", m->mr.lkey, m->mr.rkey);
    if (m->live)
        scn_note(c, "key 0x%08x (FREE until registered by a work request)", m->mr.lkey);
    return 0;
}

int scn_op_alloc_fast_reg_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t len = 0;
    int rc = scn_bind(c, o, "pl", &id);
    if (!rc)
        rc = scn_int(c, o, "len", 1, 1u << 16, &len);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = len;
        return 0;
    }
    rt_obj_t *p = scn_obj(c, id);
    if ((rc = hcadrv_alloc_fast_reg_page_list(scn_drv(c), (uint32_t)len, &p->pl)))
        return scn_bad(c, "the driver refused a page list of %" PRIu64 " entries: %s", len, strerror(-rc));
    p->addr = p->pl.bus_addr;
    p->size = len;
    p->live = 1;
    scn_note(c, "%" PRIu64 " entries (%u held) at bus address 0x%" PRIx64, len, p->pl.max_page_list_len, p->addr);
    return 0;
}

int scn_op_free_fast_reg_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    int rc = scn_pl_ref(c, o, "pl", &id);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->freed = c->line;
        return 0;
    }
    rt_obj_t *p = scn_obj(c, id);
    if ((rc = hcadrv_free_fast_reg_page_list(scn_drv(c), &p->pl)))
        return scn_bad(c, "the driver refused to free page list \"%s\": %s%s", scn_sym(c, id)->name, strerror(-rc),
                       rc == -EBUSY ? " (a FAST_REG_MR naming it has not completed: poll its CQE first)" : "");
    p->live = 0;
    return 0;
}

int scn_op_set_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    const json_value_t *pages = NULL;
    int rc = scn_pl_ref(c, o, "pl", &id);
    if (!rc)
        pages = scn_field(c, o, "pages", K_LIST, &rc);
    if (!rc)
        rc = scn_need_array(c, pages, "pages", 1, RUNNING ? SIZE_MAX : scn_sym(c, id)->size);
    for (size_t i = 0; !rc && i < pages->u.array.n; i++) {
        const json_value_t *e = pages->u.array.items[i];
        char ik[48];
        snprintf(ik, sizeof ik, "pages[%zu]", i);
        if ((rc = scn_need_object(c, e, ik)))
            break;
        scn_frame_t fr;
        scn_enter(c, "pages", i, 1, &fr);
        uint64_t addr = 0, off = 0;
        int b = -1, by_buf = json_get(e, "buf") != NULL;
        rc = scn_variant(c, e, by_buf ? 0 : 1);
        if (!rc)
            rc = scn_fields_known(c, e);
        if (!rc && by_buf) {
            rc = scn_ref(c, e, "buf", &b);
            if (!rc)
                rc = scn_int(c, e, "offset", 0, UINT64_MAX, &off);
        } else if (!rc)
            rc = scn_int(c, e, "addr", 0, UINT64_MAX, &addr);
        scn_leave(c, &fr);
        if (!rc && RUNNING) {
            if (b >= 0)
                addr = scn_obj(c, b)->addr + off;
            int err = hcadrv_page_list_set(&scn_obj(c, id)->pl, (uint32_t)i, addr);
            if (err)
                rc = scn_bad(c, "the driver refused to set page list entry %zu: %s%s", i, strerror(-err),
                             err == -EBUSY ? " (a FAST_REG_MR naming it has not completed)" : "");
        }
    }
    return rc;
}

int scn_op_update_fast_reg_key(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t key = 0;
    int rc = scn_ref(c, o, "mr", &id);
    if (!rc)
        rc = scn_int(c, o, "key", 0, 0xff, &key);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = scn_mr_key(c, id, "mr", &k)))
        return rc;
    hcadrv_mr_t *m = &scn_obj(c, id)->mr;
    hcadrv_update_fast_reg_key(m, (uint8_t)key);
    scn_note(c, "driver-side key now 0x%08x", m->lkey);
    return 0;
}

int scn_op_dereg_mr(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_ref_errno(c, o, "mr", &id, &want);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = scn_mr_key(c, id, "mr", &k)))
        return rc;
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_dereg_mr(scn_drv(c), &m->mr);
    return scn_expect_rc(c, rc, want, "dereg_mr");
}
