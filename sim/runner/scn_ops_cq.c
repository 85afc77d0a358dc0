/* scn_ops_cq.c — time and completions (SCENARIO.md "Time and completions"):
 * run, poll_cq (expected completions, in order or as a set) and
 * expect_cq_empty. Watching the CQs while time advances is scn_run.c's.
 * See scn_int.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

int scn_op_run(ctx_t *c, const json_value_t *o)
{
    uint64_t n = 0;
    int rc = scn_int(c, o, "cycles", 0, 1ull << 40, &n);
    if (rc || !RUNNING)
        return rc;
    scn_advance(c, n);
    return 0;
}

/* ================================================================ expected completions */

typedef struct cqe_exp {
    unsigned has; /* bits: E_* */
    uint64_t wr_id, status_mask, max_latency;
    unsigned opcode;
    uint32_t byte_len, wc_flags, inv_rkey;
    int qp;
} cqe_exp_t;

enum { E_WR_ID = 1, E_STATUS = 2, E_OPCODE = 4, E_BYTE_LEN = 8, E_FLAGS = 16, E_INV = 32, E_QP = 64, E_LAT = 128 };

static int parse_cqe_exp(ctx_t *c, const json_value_t *v, size_t i, cqe_exp_t *x)
{
    char ik[48];
    snprintf(ik, sizeof ik, "expect[%zu]", i);
    int rc = scn_need_object(c, v, ik);
    if (rc)
        return rc;
    memset(x, 0, sizeof *x);
    scn_frame_t fr;
    scn_enter(c, "expect", i, 1, &fr);
    rc = scn_fields_known(c, v);
    uint64_t bl = 0;
    if (!rc)
        rc = scn_int(c, v, "wr_id", 0, UINT64_MAX, &x->wr_id);
    const json_value_t *st = json_get(v, "status"); /* a name, or a list of the accepted ones */
    if (!rc && st) {
        unsigned s;
        if (st->type == JSON_ARRAY) {
            rc = scn_need_array(c, st, "status", 1, 64);
            for (size_t k = 0; !rc && k < st->u.array.n; k++) {
                char sk[48];
                snprintf(sk, sizeof sk, "status[%zu]", k);
                rc = scn_enum_value(c, st->u.array.items[k], sk, hca_wc_status_name, HCA_WC_STATUS_MAX, &s);
                x->status_mask |= 1ull << s;
            }
        } else {
            rc = scn_enum_value(c, st, "status", hca_wc_status_name, HCA_WC_STATUS_MAX, &s);
            x->status_mask = 1ull << s;
        }
    }
    if (!rc)
        rc = scn_enum(c, v, "opcode", hca_wc_opcode_name, HCA_WC_OPCODE_MAX, &x->opcode);
    if (!rc)
        rc = scn_int(c, v, "byte_len", 0, UINT32_MAX, &bl);
    x->byte_len = (uint32_t)bl;
    if (!rc)
        rc = scn_flags(c, v, "wc_flags", hca_wc_flags_bit_name, HCA_WC_FLAGS_WIDTH, &x->wc_flags);
    if (!rc)
        rc = scn_keyref(c, v, "invalidate_rkey", &x->inv_rkey);
    if (!rc)
        rc = scn_ref(c, v, "qp", &x->qp);
    if (!rc)
        rc = scn_int(c, v, "max_latency_cycles", 0, UINT64_MAX, &x->max_latency);
    scn_leave(c, &fr);
    static const char *const keys[] = {"wr_id", "status", "opcode", "byte_len", "wc_flags", "invalidate_rkey",
                                       "qp", "max_latency_cycles"}; /* E_* bit order */
    for (unsigned k = 0; k < 8; k++)
        if (json_get(v, keys[k]))
            x->has |= 1u << k;
    return rc;
}

static const char *name_or(const char *n, const char *dflt)
{
    return n ? n : dflt;
}

static void fmt_flags(char *b, size_t n, uint32_t f)
{
    b[0] = 0;
    for (unsigned i = 0; i < HCA_WC_FLAGS_WIDTH; i++)
        if (f & (1u << i))
            snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? "|" : "", name_or(hca_wc_flags_bit_name(i), "?"));
    if (!b[0])
        snprintf(b, n, "none");
}

static void fmt_wc(ctx_t *c, char *b, size_t n, const hcadrv_wc_t *wc)
{
    int qp = scn_qp_by_qpn(c, wc->qpn);
    char fl[64];
    fmt_flags(fl, sizeof fl, wc->wc_flags);
    char inv[40] = "";
    if (wc->wc_flags & HCA_WC_FLAGS_WITH_INVALIDATE)
        snprintf(inv, sizeof inv, ", invalidate_rkey 0x%08x", wc->invalidate_rkey);
    snprintf(b, n, "{qp %s, wr_id %" PRIu64 ", %s, %s, byte_len %u%s%s%s}",
             qp >= 0 ? scn_sym(c, qp)->name : "?", wc->wr_id, name_or(hca_wc_opcode_name(wc->opcode), "?"),
             name_or(hca_wc_status_name(wc->status), "?"), wc->byte_len, wc->wc_flags ? ", flags " : "",
             wc->wc_flags ? fl : "", inv);
}

/* NULL when wc matches x, else what differs. */
static const char *cqe_differs(ctx_t *c, const cqe_exp_t *x, const hcadrv_wc_t *wc, uint64_t latency, int lat_known,
                               char *b, size_t n)
{
    if ((x->has & E_WR_ID) && x->wr_id != wc->wr_id)
        snprintf(b, n, "wr_id %" PRIu64 ", got %" PRIu64, x->wr_id, wc->wr_id);
    else if ((x->has & E_STATUS) && !(wc->status < 64 && (x->status_mask >> wc->status) & 1)) {
        char all[256] = "";
        for (unsigned s = 0; s <= HCA_WC_STATUS_MAX; s++)
            if ((x->status_mask >> s) & 1)
                snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? " or " : "",
                         hca_wc_status_name(s));
        snprintf(b, n, "status %s, got %s", all, name_or(hca_wc_status_name(wc->status), "?"));
    } else if ((x->has & E_OPCODE) && x->opcode != wc->opcode)
        snprintf(b, n, "opcode %s, got %s", hca_wc_opcode_name(x->opcode), name_or(hca_wc_opcode_name(wc->opcode), "?"));
    else if ((x->has & E_BYTE_LEN) && x->byte_len != wc->byte_len)
        snprintf(b, n, "byte_len %u, got %u", x->byte_len, wc->byte_len);
    else if ((x->has & E_FLAGS) && x->wc_flags != wc->wc_flags) {
        char e[64], g[64];
        fmt_flags(e, sizeof e, x->wc_flags);
        fmt_flags(g, sizeof g, wc->wc_flags);
        snprintf(b, n, "wc_flags %s, got %s", e, g);
    } else if ((x->has & E_INV) && x->inv_rkey != wc->invalidate_rkey)
        snprintf(b, n, "invalidate_rkey 0x%08x, got 0x%08x", x->inv_rkey, wc->invalidate_rkey);
    else if ((x->has & E_QP) && scn_qpn(c, x->qp) != wc->qpn)
        snprintf(b, n, "qp %s (qpn %u), got qpn %u", scn_sym(c, x->qp)->name, scn_qpn(c, x->qp), wc->qpn);
    else if ((x->has & E_LAT) && !lat_known)
        snprintf(b, n, "a latency of at most %" PRIu64 " cycles, got a completion of no posted work request",
                 x->max_latency);
    else if ((x->has & E_LAT) && latency > x->max_latency)
        snprintf(b, n, "a latency of at most %" PRIu64 " cycles, got %" PRIu64, x->max_latency, latency);
    else
        return NULL;
    return b;
}

/* Kuhn's augmenting paths: can expected i take a completion? */
static int augment(size_t i, size_t n, const unsigned char *ok, int *owner, unsigned char *seen)
{
    for (size_t j = 0; j < n; j++)
        if (ok[i * n + j] && !seen[j]) {
            seen[j] = 1;
            if (owner[j] < 0 || augment((size_t)owner[j], n, ok, owner, seen)) {
                owner[j] = (int)i;
                return 1;
            }
        }
    return 0;
}

/* ================================================================ the ops */

int scn_op_poll_cq(ctx_t *c, const json_value_t *o)
{
    int cq, any = 0;
    uint64_t timeout = 1000000;
    const json_value_t *ev = NULL;
    int rc = scn_ref(c, o, "cq", &cq);
    if (!rc)
        ev = scn_field(c, o, "expect", K_LIST, &rc);
    if (!rc)
        rc = scn_need_array(c, ev, "expect", 1, 1u << HCA_QUEUE_LOG_MAX);
    if (!rc)
        rc = scn_int(c, o, "timeout_cycles", 0, 1ull << 40, &timeout);
    if (!rc)
        rc = scn_bool(c, o, "any_order", &any);
    size_t n = rc ? 0 : ev->u.array.n;
    cqe_exp_t *x = calloc(n ? n : 1, sizeof *x);
    hcadrv_wc_t *wc = calloc(n ? n : 1, sizeof *wc);
    uint64_t *arrival = calloc(n ? n : 1, sizeof *arrival);
    wr_rec_t **rec = calloc(n ? n : 1, sizeof *rec);
    unsigned char *ok = NULL;
    int *owner = NULL;
    if (!x || !wc || !arrival || !rec)
        rc = scn_bad(c, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        rc = parse_cqe_exp(c, ev->u.array.items[i], i, &x[i]);
    if (rc || !RUNNING)
        goto out;
    uint32_t seen = scn_wait_cqes(c, cq, (uint32_t)n, timeout);
    int want = (int)(seen < n ? seen : n);
    int got = want ? scn_poll(c, cq, want, wc, arrival, rec) : 0;
    if (got < 0) {
        rc = scn_mismatch(c, "poll_cq failed: %s", scn_errno_name(got));
        goto out;
    }
    const char *cqn = scn_sym(c, cq)->name;
    scn_observe(c, "completions taken", "%d", got);
    for (int i = 0; i < got; i++) {
        char k[64];
        snprintf(k, sizeof k, "completion %d of %d", i + 1, got);
        scn_observe_wc(c, k, &wc[i]);
    }
    for (int i = 0; i < got; i++) { /* the completions, pleasant to read */
        char b[256];
        fmt_wc(c, b, sizeof b, &wc[i]);
        if (rec[i])
            fprintf(scn_out(c), "%s  %s:%u poll_cq %s: %s  %" PRIu64 " cycles post to CQE (posted line %u)\n",
                    scn_label(c), c->s->file, c->line, cqn, b, arrival[i] - rec[i]->post_cycle, rec[i]->line);
        else
            fprintf(scn_out(c), "%s  %s:%u poll_cq %s: %s  (no posted work request matches)\n", scn_label(c),
                    c->s->file, c->line, cqn, b);
    }
    char why[256], all[1024] = "";
    for (int i = 0; i < got; i++) {
        char b[256];
        fmt_wc(c, b, sizeof b, &wc[i]);
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", b);
    }
    if ((size_t)got < n) {
        rc = scn_mismatch(c, "expected %zu completion%s on %s within %" PRIu64 " cycles, got %d%s%s", n,
                          n == 1 ? "" : "s", cqn, timeout, got, got ? ": " : "", all);
        goto out;
    }
    if (!any) {
        for (size_t i = 0; i < n; i++)
            if (cqe_differs(c, &x[i], &wc[i], rec[i] ? arrival[i] - rec[i]->post_cycle : 0, rec[i] != NULL, why,
                            sizeof why)) {
                char b[256];
                fmt_wc(c, b, sizeof b, &wc[i]);
                rc = scn_mismatch(c, "completion %zu of %zu: expected %s (%s)", i + 1, n, why, b);
                goto out;
            }
    } else {
        ok = calloc(n * n, 1);
        owner = malloc(n * sizeof *owner);
        unsigned char *taken = calloc(n, 1);
        if (!ok || !owner || !taken) {
            free(taken);
            rc = scn_bad(c, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                ok[i * n + j] = !cqe_differs(c, &x[i], &wc[j], rec[j] ? arrival[j] - rec[j]->post_cycle : 0,
                                             rec[j] != NULL, why, sizeof why);
        for (size_t j = 0; j < n; j++)
            owner[j] = -1;
        for (size_t i = 0; i < n && !rc; i++) {
            memset(taken, 0, n);
            if (!augment(i, n, ok, owner, taken))
                rc = scn_mismatch(c, "expected[%zu] matches no completion (in any order); got %s", i, all);
        }
        free(taken);
    }
    if (!rc)
        scn_note(c, "%zu completion%s as expected", n, n == 1 ? "" : "s");
out:
    free(x);
    free(wc);
    free(arrival);
    free(rec);
    free(ok);
    free(owner);
    return rc;
}

int scn_op_expect_cq_empty(ctx_t *c, const json_value_t *o)
{
    int cq;
    uint64_t after = 0;
    int rc = scn_ref(c, o, "cq", &cq);
    if (!rc)
        rc = scn_int(c, o, "after_cycles", 0, 1ull << 40, &after);
    if (rc || !RUNNING)
        return rc;
    scn_advance(c, after);
    scn_observe(c, "empty", "%s", scn_obj(c, cq)->seen ? "no" : "yes");
    if (!scn_obj(c, cq)->seen)
        return 0;
    hcadrv_wc_t wc;
    uint64_t arrived;
    const char *cqn = scn_sym(c, cq)->name;
    if (scn_poll(c, cq, 1, &wc, &arrived, NULL) != 1)
        return scn_mismatch(c, "expected %s empty, got a CQE the driver could not read", cqn);
    scn_observe_wc(c, "its first completion", &wc);
    char b[256];
    fmt_wc(c, b, sizeof b, &wc);
    return scn_mismatch(c, "expected %s empty, got %s (arrived at cycle %" PRIu64 ")", cqn, b, arrived);
}
