/* scn_ops_check.c — the ops that check state against what the scenario
 * expects: the device's capabilities (query_device), buffer contents
 * (check_mem), an MR's MPT entry (check_mr) and a QP's state
 * (expect_qp_state). Completions are checked in scn_ops_cq.c. See scn_int.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

int scn_op_query_device(ctx_t *c, const json_value_t *o)
{
    int rc;
    const json_value_t *e = scn_object_field(c, o, "expect", &rc);
    if (!e)
        return rc;
    static const char *const bools[] = {"mem_mgt_extensions", "read_with_inv", "indir_reg", "peer_memory"};
    static const char *const ints[] = {"fw_version", "max_fast_reg_page_list_len", "reserved_lkey",
                                       "max_indir_reg_list_len", "max_indirection", "max_mr", "max_mtt",
                                       "max_pd", "max_reg_pages", "max_qp", "max_cq", "max_qp_wr", "max_cqe",
                                       "max_send_sge", "max_recv_sge"};
    enum { NINTS = sizeof ints / sizeof ints[0] };
    scn_frame_t fr;
    scn_enter(c, "expect", 0, 0, &fr);
    rc = scn_fields_known(c, e);
    int bv[4] = {0};
    uint64_t iv[NINTS] = {0};
    uint32_t shifts = 0;
    for (int i = 0; i < 4 && !rc; i++)
        rc = scn_bool(c, e, bools[i], &bv[i]);
    for (int i = 0; i < NINTS && !rc; i++)
        rc = scn_int(c, e, ints[i], 0, UINT32_MAX, &iv[i]);
    const json_value_t *ps = json_get(e, "page_shifts");
    if (!rc && ps) {
        rc = scn_need_array(c, ps, "page_shifts", 0, 32);
        for (size_t i = 0; !rc && i < ps->u.array.n; i++) {
            uint64_t s = 0;
            char ik[48];
            snprintf(ik, sizeof ik, "page_shifts[%zu]", i);
            rc = scn_int_value(c, ps->u.array.items[i], ik, 0, 31, &s);
            shifts |= 1u << s;
        }
    }
    scn_leave(c, &fr);
    if (rc || !RUNNING)
        return rc;
    hcadrv_device_attr_t a;
    if ((rc = hcadrv_query_device(scn_drv(c), &a)))
        return scn_refused(c, rc, "QUERY_DEVICE");
    const int got_b[4] = {a.mem_mgt_extensions, a.read_with_inv, a.indir_reg, a.peer_memory};
    const uint64_t got_i[NINTS] = {a.fw_version, a.max_fast_reg_page_list_len, a.reserved_lkey,
                                   a.max_indir_reg_list_len, a.max_indirection, a.max_mr, a.max_mtt, a.max_pd,
                                   a.max_reg_pages, a.max_qp, a.max_cq, a.max_qp_wr, a.max_cqe, a.max_send_sge,
                                   a.max_recv_sge};
    _Static_assert(sizeof got_i / sizeof got_i[0] == NINTS, "a value per capability");
    scn_observe(c, "caps", "0x%x", a.caps);
    for (int i = 0; i < NINTS; i++)
        scn_observe(c, ints[i], "0x%" PRIx64, got_i[i]);
    scn_observe(c, "page_shifts", "0x%08x", a.page_shifts);
    for (int i = 0; i < 4; i++)
        if (json_get(e, bools[i]) && !!bv[i] != !!got_b[i])
            return scn_mismatch(c, "expected %s %s, got %s", bools[i], bv[i] ? "true" : "false",
                                got_b[i] ? "true" : "false");
    for (int i = 0; i < NINTS; i++)
        if (json_get(e, ints[i]) && iv[i] != got_i[i])
            return scn_mismatch(c, "expected %s 0x%" PRIx64 " (%" PRIu64 "), got 0x%" PRIx64 " (%" PRIu64 ")",
                                ints[i], iv[i], iv[i], got_i[i], got_i[i]);
    if (ps && shifts != a.page_shifts)
        return scn_mismatch(c, "expected page_shifts mask 0x%08x, got 0x%08x", shifts, a.page_shifts);
    scn_note(c, "caps 0x%x reserved_lkey 0x%x page_shifts 0x%x", a.caps, a.reserved_lkey, a.page_shifts);
    return 0;
}

int scn_op_check_mem(ctx_t *c, const json_value_t *o)
{
    int id, other = -1;
    uint64_t off = 0, len = 0, off2 = 0;
    uint8_t *want = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "buf", &id);
    const json_value_t *same = json_get(o, "same_as");
    if (!rc)
        rc = scn_int(c, o, "offset", 0, UINT64_MAX, &off);
    if (!rc && !!json_get(o, "hex") == !!same)
        rc = scn_bad(c, "give exactly one of \"hex\" and \"same_as\"");
    if (!rc)
        rc = scn_variant(c, o, same ? 1 : 0);
    if (!rc && same) {
        rc = scn_int(c, o, "length", 0, 1ull << 30, &len);
        if (!rc)
            rc = scn_need_object(c, same, "same_as");
        scn_frame_t fr;
        scn_enter(c, "same_as", 0, 0, &fr);
        if (!rc)
            rc = scn_fields_known(c, same);
        if (!rc)
            rc = scn_ref(c, same, "buf", &other);
        if (!rc)
            rc = scn_int(c, same, "offset", 0, UINT64_MAX, &off2);
        if (!rc)
            rc = scn_buf_range(c, other, "offset", off2, len);
        scn_leave(c, &fr);
    } else if (!rc) {
        rc = scn_hex(c, o, "hex", &want, &n);
        if (!rc && json_get(o, "length")) {
            rc = scn_int(c, o, "length", 0, 1ull << 30, &len);
            if (!rc && len != n)
                rc = scn_bad_field(c, "length", "%" PRIu64 " differs from the %zu bytes of \"hex\"", len, n);
        }
        len = n;
    }
    if (!rc)
        rc = scn_buf_range(c, id, "length", off, len);
    const json_value_t *when = json_get(o, "when");
    int wqp = -1;
    uint64_t wid = 0;
    unsigned wst = 0;
    if (!rc && when) { /* the check applies only to one outcome of a race */
        rc = scn_need_object(c, when, "when");
        scn_frame_t fr;
        scn_enter(c, "when", 0, 0, &fr);
        if (!rc)
            rc = scn_fields_known(c, when);
        if (!rc)
            rc = scn_ref(c, when, "qp", &wqp);
        if (!rc)
            rc = scn_int(c, when, "wr_id", 0, UINT64_MAX, &wid);
        if (!rc)
            rc = scn_enum(c, when, "status", hca_wc_status_name, HCA_WC_STATUS_MAX, &wst);
        scn_leave(c, &fr);
    }
    if (rc || !RUNNING) {
        free(want);
        return rc;
    }
    if (when) {
        const wr_rec_t *w = scn_wr_find(c, wqp, wid);
        if (!w || !w->done) {
            free(want);
            return scn_mismatch(c, "when: wr_id %" PRIu64 " on %s %s", wid, scn_sym(c, wqp)->name,
                                w ? "has not completed (poll its CQE first)" : "was never posted");
        }
        scn_observe(c, "when", "%s", hca_wc_status_name(w->status) ? hca_wc_status_name(w->status) : "?");
        if (w->status != wst) {
            scn_note(c, "not checked: wr_id %" PRIu64 " completed %s", wid,
                     hca_wc_status_name(w->status) ? hca_wc_status_name(w->status) : "?");
            free(want);
            return 0;
        }
    }
    uint8_t *got = malloc(len ? len : 1);
    if (!got) {
        free(want);
        return scn_bad(c, "out of memory");
    }
    if (same) {
        if (!(want = malloc(len ? len : 1)) || scn_mem_read(c, scn_obj(c, other)->addr + off2, want, len))
            rc = scn_bad(c, "cannot read buffer \"%s\"", scn_sym(c, other)->name);
    }
    if (!rc && scn_mem_read(c, scn_obj(c, id)->addr + off, got, len))
        rc = scn_bad(c, "cannot read buffer \"%s\"", scn_sym(c, id)->name);
    if (!rc) { /* what memory holds, whatever the scenario expects */
        scn_observe_bytes(c, "bytes", id, off, got, len);
        if (same)
            scn_observe_bytes(c, "bytes of same_as", other, off2, want, len);
    }
    for (uint64_t i = 0; !rc && i < len; i++)
        if (got[i] != want[i]) {
            char ew[40] = "", gw[40] = "";
            for (uint64_t j = i; j < len && j < i + 16; j++) {
                snprintf(ew + strlen(ew), sizeof ew - strlen(ew), "%02x", want[j]);
                snprintf(gw + strlen(gw), sizeof gw - strlen(gw), "%02x", got[j]);
            }
            char what[160];
            if (same)
                snprintf(what, sizeof what, " (same as %s+0x%" PRIx64 ")", scn_sym(c, other)->name, off2 + i);
            else
                what[0] = 0;
            rc = scn_mismatch(c, "%s+0x%" PRIx64 " (byte %" PRIu64 " of %" PRIu64 "): expected %s…%s, got %s…",
                              scn_sym(c, id)->name, off + i, i, len, ew, what, gw);
        }
    free(got);
    free(want);
    if (!rc)
        scn_note(c, "%" PRIu64 " bytes as expected", len);
    return rc;
}

int scn_op_check_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd = -1, alloc = 0;
    const json_value_t *e = NULL;
    int rc = scn_ref(c, o, "mr", &id);
    if (!rc)
        e = scn_object_field(c, o, "expect", &rc);
    if (rc)
        return rc;
    unsigned state = 0, kind = 0;
    uint64_t key = 0, lkey = 0, rkey = 0, iova = 0, length = 0, ps = 0;
    uint32_t access = 0;
    scn_frame_t fr;
    scn_enter(c, "expect", 0, 0, &fr);
    rc = scn_fields_known(c, e);
    if (!rc)
        rc = scn_enum(c, e, "state", hca_mkey_state_name, HCA_MKEY_STATE_MAX, &state);
    if (!rc)
        rc = scn_int(c, e, "key", 0, 0xff, &key);
    if (!rc)
        rc = scn_int(c, e, "lkey", 0, UINT32_MAX, &lkey);
    if (!rc)
        rc = scn_int(c, e, "rkey", 0, UINT32_MAX, &rkey);
    if (!rc)
        rc = scn_int(c, e, "iova", 0, UINT64_MAX, &iova);
    if (!rc)
        rc = scn_int(c, e, "length", 0, UINT64_MAX, &length);
    if (!rc)
        rc = scn_flags(c, e, "access", hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
    if (!rc)
        rc = scn_enum(c, e, "kind", hca_mkey_kind_name, HCA_MKEY_KIND_MAX, &kind);
    if (!rc)
        rc = scn_ref(c, e, "pd", &pd);
    if (!rc)
        rc = scn_bool(c, e, "allocated", &alloc);
    if (!rc)
        rc = scn_int(c, e, "page_shift", 0, 31, &ps);
    scn_leave(c, &fr);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = scn_mr_key(c, id, "mr", &k)))
        return rc;
    hca_mpt_entry_t m;
    if ((rc = hcadrv_query_mkey(scn_drv(c), k >> HCA_KEY_INDEX_SHIFT, &m)))
        return scn_refused(c, rc, "QUERY_MKEY");
    const char *nm = scn_sym(c, id)->name;
    char pre[96];
    snprintf(pre, sizeof pre, "MPT[%u] of %s", k >> HCA_KEY_INDEX_SHIFT, nm);
    scn_observe_mpt(c, pre, &m);
#define CHECK_NUM(field, want, got)                                                                                   \
    if (json_get(e, field) && (uint64_t)(want) != (uint64_t)(got))                                                    \
        return scn_mismatch(c, "MPT[%u] of %s: expected %s 0x%" PRIx64 ", got 0x%" PRIx64, k >> HCA_KEY_INDEX_SHIFT,  \
                            nm, field, (uint64_t)(want), (uint64_t)(got));
    if (json_get(e, "allocated") && !!alloc != !!hca_mpt_entry_get_alloc(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected allocated %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            alloc ? "true" : "false", alloc ? "false" : "true");
    if (json_get(e, "state") && state != hca_mpt_entry_get_state(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected state %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            hca_mkey_state_name(state), hca_mkey_state_name(hca_mpt_entry_get_state(&m)));
    if (json_get(e, "kind") && kind != hca_mpt_entry_get_kind(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected kind %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            hca_mkey_kind_name(kind), hca_mkey_kind_name(hca_mpt_entry_get_kind(&m)));
    CHECK_NUM("key", key, m.key & HCA_KEY_BYTE_MASK)
    CHECK_NUM("lkey", lkey, m.key)
    CHECK_NUM("rkey", rkey, m.key)
    CHECK_NUM("iova", iova, m.iova)
    CHECK_NUM("length", length, m.length)
    CHECK_NUM("access", access, hca_mpt_entry_get_access(&m))
    CHECK_NUM("page_shift", ps, hca_mpt_entry_get_page_shift(&m))
    if (pd >= 0)
        CHECK_NUM("pd", scn_obj(c, pd)->pd, m.pd)
#undef CHECK_NUM
    scn_note(c, "MPT[%u]: %s %s key 0x%08x pd %u iova 0x%" PRIx64 " length %" PRIu64, k >> HCA_KEY_INDEX_SHIFT,
             hca_mkey_kind_name(hca_mpt_entry_get_kind(&m)), hca_mkey_state_name(hca_mpt_entry_get_state(&m)), m.key,
             m.pd, m.iova, m.length);
    return 0;
}

int scn_op_expect_qp_state(ctx_t *c, const json_value_t *o)
{
    int qp;
    unsigned state = 0;
    int rc = scn_ref(c, o, "qp", &qp);
    if (!rc)
        rc = scn_enum(c, o, "state", hca_qp_state_name, HCA_QP_STATE_MAX, &state);
    if (rc || !RUNNING)
        return rc;
    unsigned got = 0;
    if ((rc = hcadrv_query_qp(scn_drv(c), &scn_obj(c, qp)->qp, &got)))
        return scn_refused(c, rc, "QUERY_QP");
    scn_observe(c, "state", "%s", hca_qp_state_name(got) ? hca_qp_state_name(got) : "?");
    if (got != state)
        return scn_mismatch(c, "expected %s in state %s, got %s", scn_sym(c, qp)->name, hca_qp_state_name(state),
                            hca_qp_state_name(got) ? hca_qp_state_name(got) : "?");
    return 0;
}

/* expect_counters: the race counters so far (docs/scenarios.md "Counters"),
 * each bounded by {"min":N} and/or {"max":N}. */
int scn_op_expect_counters(ctx_t *c, const json_value_t *o)
{
    static const char *const names[] = {"fence_waits", "drain_waits", "refused_after_inv"};
    enum { N = sizeof names / sizeof names[0] };
    uint64_t lo[N], hi[N];
    int named = 0, rc = 0;
    for (size_t i = 0; i < N && !rc; i++) {
        lo[i] = 0;
        hi[i] = UINT64_MAX;
        const json_value_t *e = scn_object_field(c, o, names[i], &rc);
        if (!e)
            continue;
        named++;
        if (!e->u.object.n) {
            rc = scn_bad_field(c, names[i], "expected \"min\" and/or \"max\"");
            break;
        }
        scn_frame_t fr;
        scn_enter(c, names[i], 0, 0, &fr);
        rc = scn_fields_known(c, e);
        if (!rc)
            rc = scn_int(c, e, "min", 0, UINT64_MAX, &lo[i]);
        if (!rc)
            rc = scn_int(c, e, "max", 0, UINT64_MAX, &hi[i]);
        if (!rc && lo[i] > hi[i])
            rc = scn_bad_field(c, "min", "%" PRIu64 " is above max %" PRIu64, lo[i], hi[i]);
        scn_leave(c, &fr);
    }
    if (!rc && !named)
        rc = scn_bad(c, "expected at least one of fence_waits, drain_waits, refused_after_inv");
    if (rc || !RUNNING)
        return rc;
    protcheck_stats_t ps;
    protcheck_get_stats(hca_dev_protcheck(scn_dev(c)), &ps);
    dev_engine_stats_t es;
    hca_dev_get_stats(scn_dev(c), &es);
    const uint64_t got[N] = {es.fence_waits, es.drain_waits, ps.refused_after_inv};
    for (size_t i = 0; i < N; i++)
        scn_observe(c, names[i], "%" PRIu64, got[i]);
    scn_note(c, "fence_waits %" PRIu64 ", drain_waits %" PRIu64 ", refused_after_inv %" PRIu64, got[0], got[1], got[2]);
    for (size_t i = 0; i < N; i++) {
        if (got[i] < lo[i])
            return scn_mismatch(c, "%s: expected at least %" PRIu64 ", got %" PRIu64, names[i], lo[i], got[i]);
        if (got[i] > hi[i])
            return scn_mismatch(c, "%s: expected at most %" PRIu64 ", got %" PRIu64, names[i], hi[i], got[i]);
    }
    return 0;
}
