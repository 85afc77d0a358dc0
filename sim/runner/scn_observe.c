/* scn_observe.c — what each op observed, recorded for --engine both
 * (scn_both.h): the two engines' records are compared field by field, so
 * every value here is one both engines must agree on (no cycle counts: timing
 * is compared as latency, apart). Nothing is done when the run does not
 * record. See scn_int.h.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scn_int.h"

static void vobserve(ctx_t *c, const char *field, const char *detail, const char *fmt, va_list ap)
{
    scn_rec_t *r = scn_rec_of(c);
    if (!r)
        return;
    char v[512];
    vsnprintf(v, sizeof v, fmt, ap);
    scn_rec_add(r, c->line, c->op, field, v, detail); /* a failed allocation marks the recording (r->oom) */
}

void scn_observe(ctx_t *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vobserve(c, field, NULL, fmt, ap);
    va_end(ap);
}

void scn_observe_detail(ctx_t *c, const char *field, const char *detail, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vobserve(c, field, detail, fmt, ap);
    va_end(ap);
}

void scn_observe_bytes(ctx_t *c, const char *field, int sym, uint64_t offset, const uint8_t *b, size_t n)
{
    scn_rec_t *r = scn_rec_of(c);
    if (r)
        scn_rec_add_bytes(r, c->line, c->op, field, scn_sym(c, sym)->name, offset, b, n);
}

static const char *name_or_num(const char *name, unsigned v, char *b, size_t n)
{
    if (name)
        return name;
    snprintf(b, n, "%u", v);
    return b;
}

void scn_observe_wc(ctx_t *c, const char *prefix, const hcadrv_wc_t *wc)
{
    if (!scn_rec_of(c))
        return;
    char f[160], nb[16], fl[128] = "";
    int qp = scn_qp_by_qpn(c, wc->qpn);
    for (unsigned i = 0; i < 32; i++)
        if (wc->wc_flags & (1u << i)) {
            const char *bn = i < HCA_WC_FLAGS_WIDTH ? hca_wc_flags_bit_name(i) : NULL;
            snprintf(fl + strlen(fl), sizeof fl - strlen(fl), "%s%s", fl[0] ? "|" : "", bn ? bn : "?");
        }
#define WC(name, ...)                                                                                                 \
    do {                                                                                                              \
        snprintf(f, sizeof f, "%s: %s", prefix, name);                                                                \
        scn_observe(c, f, __VA_ARGS__);                                                                               \
    } while (0)
    WC("wr_id", "%" PRIu64, wc->wr_id);
    WC("status", "%s", name_or_num(hca_wc_status_name(wc->status), wc->status, nb, sizeof nb));
    WC("opcode", "%s", name_or_num(hca_wc_opcode_name(wc->opcode), wc->opcode, nb, sizeof nb));
    WC("byte_len", "%" PRIu32, wc->byte_len);
    WC("qp", "%s (qpn %" PRIu32 ")", qp >= 0 ? scn_sym(c, qp)->name : "?", wc->qpn);
    WC("wc_flags", "%s", fl[0] ? fl : "none");
    WC("invalidate_rkey", "0x%08" PRIx32, wc->invalidate_rkey);
    WC("wqe_counter", "%" PRIu32, wc->wqe_counter);
#undef WC
}

void scn_observe_mpt(ctx_t *c, const char *prefix, const hca_mpt_entry_t *m)
{
    if (!scn_rec_of(c))
        return;
    char f[160], nb[16];
#define MPT(name, ...)                                                                                                \
    do {                                                                                                              \
        snprintf(f, sizeof f, "%s: %s", prefix, name);                                                                \
        scn_observe(c, f, __VA_ARGS__);                                                                               \
    } while (0)
    unsigned st = hca_mpt_entry_get_state(m), kind = hca_mpt_entry_get_kind(m);
    MPT("allocated", "%s", hca_mpt_entry_get_alloc(m) ? "true" : "false");
    MPT("state", "%s", name_or_num(hca_mkey_state_name(st), st, nb, sizeof nb));
    MPT("kind", "%s", name_or_num(hca_mkey_kind_name(kind), kind, nb, sizeof nb));
    MPT("key", "0x%08" PRIx32, m->key);
    MPT("pd", "%" PRIu32, m->pd);
    MPT("iova", "0x%" PRIx64, m->iova);
    MPT("length", "%" PRIu64, m->length);
    MPT("access", "0x%x", (unsigned)hca_mpt_entry_get_access(m));
    MPT("page_shift", "%u", (unsigned)hca_mpt_entry_get_page_shift(m));
#undef MPT
}

void scn_observe_outcome(ctx_t *c, int rc)
{
    scn_observe_detail(c, "outcome", rc ? c->msg : NULL, "%s",
                       rc == SCN_PASS ? "ok" : rc == SCN_FAIL ? "MISMATCH" : "ERROR");
}

void scn_observe_end(scn_rec_t *rec, const scn_report_t *rep)
{
    const char *end = "end of run";
    if (rep->checker) {
        const scn_checker_t *k = rep->checker;
        const char *names[] = {"checker: engine DMAs", "checker: DMAs through a key", "checker: key invalidations",
                               "checker: registrations", "checker: WRITE packets", "checker: breaches",
                               "checker: fence waits", "checker: drain waits", "checker: refused after an invalidation"};
        const uint64_t v[] = {k->dma,        k->dma_keyed, k->invalidations, k->registrations,   k->write_pkts,
                              k->breaches,   k->fence_waits, k->drain_waits, k->refused_after_inv};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            char b[32];
            snprintf(b, sizeof b, "%" PRIu64, v[i]);
            scn_rec_add(rec, 0, end, names[i], b, NULL);
        }
    }
    for (size_t i = 0; i < rep->nwrs; i++) {
        const wr_rec_t *w = &rep->wrs[i];
        scn_rec_add_wr(rec, w->line, rep->s->syms[w->qp].name, w->opcode, w->wr_id, w->done, w->post_cycle,
                       w->completion_cycle);
    }
}
