/* scn_run.c — running a loaded scenario: the run state, the device (its
 * configuration, start and teardown), time, watching CQs for completions and
 * recording work requests, the invariants checked after every op, one
 * engine's run op by op (scn_both.c drives two of them) and the run loop. This file is where the runner meets the device, host memory and the
 * driver's setup (hca_dev_*, hostmem_*, hcadrv_open/close/query/poll); the
 * op handlers reach them through the helpers below. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

struct run {
    const scn_run_opts_t *o;
    const scn_t *s;
    scn_engine_t engine; /* rtl or model for this run */
    FILE *out, *err;
    uint64_t seed;
    hca_dev_config_t cfg;
    int host_set; /* some cfg.host field was set: the others hold their defaults */
    hostmem_t *mem;
    hca_dev_t *dev;
    hca_host_t host; /* the device's host boundary: the driver's and the buffers' */
    const scn_target_t *tgt; /* a device the caller built (scn_run_on); NULL: the run builds its own */
    hcadrv_t *drv;
    int attr_valid;
    hcadrv_device_attr_t attr;
    bus_timing_t peer_timing; /* the peer devices' DMA timing (scn_peer_timing) */
    scn_peer_report_t *peers; /* their counters at the end */
    rt_obj_t *obj;
    size_t nobj;
    wr_rec_t *wrs;
    size_t nwrs, capwrs;
    int cmdline_err; /* the error is the command line's (an option's value), not the file's */
    scn_rec_t *rec;    /* --engine both: what each op observed; NULL: not recorded */
    const char *label; /* prefixes the -v lines ("" with one engine) */
    ctx_t c;           /* the op in hand, kept between ops */
    unsigned fline;    /* the last op run: where a failure is */
    const char *fop;
    scn_cover_t *cov; /* the functional coverage points it hits */
    scn_txn_t *txn;   /* a traced run's transaction names (scn_txn.c), or NULL */
};

/* ================================================================ what handlers reach */

rt_obj_t *scn_obj(ctx_t *c, int id)
{
    return &c->run->obj[id];
}
sym_t *scn_sym(ctx_t *c, int id)
{
    return &c->s->syms[id];
}
hcadrv_t *scn_drv(ctx_t *c)
{
    return c->run->drv;
}
uint64_t scn_seed(ctx_t *c)
{
    return c->run->seed;
}
int scn_engine_is_model(ctx_t *c)
{
    return c->run->engine == SCN_ENGINE_MODEL;
}
FILE *scn_out(ctx_t *c)
{
    return c->run->out;
}
const char *scn_label(ctx_t *c)
{
    return c->run->label;
}
uint64_t scn_run_number(const run_t *r, int id)
{
    const rt_obj_t *o = &r->obj[id];
    if (r->s->syms[id].kind == SYM_QP)
        return o->destroyed ? o->number_was : o->live ? o->qp.qpn : UINT64_MAX;
    return o->live ? o->mr.lkey >> HCA_KEY_INDEX_SHIFT : UINT64_MAX;
}
scn_cover_t *scn_cover_of(ctx_t *c)
{
    return c->run ? c->run->cov : NULL;
}
void scn_posted_keys(ctx_t *c, const hca_sge_t *sge, unsigned n, uint32_t rkey)
{
    run_t *r = c->run;
    uint32_t keys[HCA_MAX_SEND_SGE + 1];
    unsigned k = 0;
    for (unsigned i = 0; i < n && k < HCA_MAX_SEND_SGE; i++)
        keys[k++] = sge[i].lkey;
    keys[k++] = rkey;
    if (r->nwrs)
        scn_cover_posted(r->cov, r->nwrs - 1, r->wrs[r->nwrs - 1].post_cycle, keys, k);
}
scn_rec_t *scn_rec_of(ctx_t *c)
{
    return c->run ? c->run->rec : NULL;
}
/* Time is the host's (hca_host.h), so that a device the caller built and
 * steps itself (a virtual platform's) keeps its own clock. */
uint64_t scn_cycle(ctx_t *c)
{
    const hca_host_t *h = &c->run->host;
    return h->ops->now(h->ctx);
}
/* Buffers are device-visible memory, reached as the driver reaches it (hca_host.h). */
int scn_mem_alloc(ctx_t *c, uint64_t size, uint64_t align, uint64_t *addr)
{
    const hca_host_t *h = &c->run->host;
    return h->ops->mem_alloc(h->ctx, size, align, addr);
}
/* The peer memory whose window holds [addr, addr+len), or NULL: host memory. */
static peermem_t *peer_at(const run_t *r, uint64_t addr, uint64_t len)
{
    for (size_t i = 0; i < r->nobj; i++)
        if (r->obj[i].pm && peermem_holds(r->obj[i].pm, addr, len ? len : 1))
            return r->obj[i].pm;
    return NULL;
}
int scn_mem_read(ctx_t *c, uint64_t addr, void *buf, uint64_t len)
{
    peermem_t *pm = peer_at(c->run, addr, len);
    if (pm) /* the peer's owner reads its memory itself, as a GPU driver copies out */
        return peermem_read(pm, addr, buf, len);
    const hca_host_t *h = &c->run->host;
    return h->ops->mem_read(h->ctx, addr, buf, len);
}
int scn_mem_write(ctx_t *c, uint64_t addr, const void *buf, uint64_t len)
{
    peermem_t *pm = peer_at(c->run, addr, len);
    if (pm)
        return peermem_write(pm, addr, buf, len);
    const hca_host_t *h = &c->run->host;
    return h->ops->mem_write(h->ctx, addr, buf, len);
}
hca_dev_t *scn_dev(ctx_t *c)
{
    return c->run->dev;
}
bus_timing_t scn_peer_timing(ctx_t *c)
{
    return c->run->peer_timing;
}

int scn_attr(ctx_t *c, const hcadrv_device_attr_t **attr)
{
    run_t *r = c->run;
    if (!r->attr_valid) {
        int rc = hcadrv_query_device(r->drv, &r->attr);
        if (rc)
            return scn_bad(c, "QUERY_DEVICE (to learn the device's capabilities) failed: %s", strerror(-rc));
        r->attr_valid = 1;
    }
    *attr = &r->attr;
    return 0;
}

int scn_device_option(ctx_t *c, const char *key, uint64_t v)
{
    run_t *r = c->run;
    hca_dev_config_t *cfg = &r->cfg;
    if (!strncmp(key, "host_", 5) && !r->host_set) { /* one host timing field set: the others keep their defaults */
        cfg->host = bus_default_timing();
        r->host_set = 1;
    }
    if (!strcmp(key, "seed")) {
        if (!r->o->seed_set)
            r->seed = v;
    } else if (!strcmp(key, "mpt_entries")) {
        if (!cfg->tables.mtt_entries) /* one table size set: the other keeps its default */
            cfg->tables.mtt_entries = HCA_MTT_ENTRIES_DEFAULT;
        cfg->tables.mpt_entries = (uint32_t)v;
    } else if (!strcmp(key, "mtt_entries")) {
        if (!cfg->tables.mpt_entries)
            cfg->tables.mpt_entries = HCA_MPT_ENTRIES_DEFAULT;
        cfg->tables.mtt_entries = (uint32_t)v;
    } else if (!strcmp(key, "host_read_latency"))
        cfg->host.read_latency = (uint32_t)v;
    else if (!strcmp(key, "host_write_cost"))
        cfg->host.write_cost = (uint32_t)v;
    else if (!strcmp(key, "host_bytes_per_cycle"))
        cfg->host.bytes_per_cycle = (uint32_t)v;
    else if (!strcmp(key, "link_latency"))
        cfg->link_latency = (uint32_t)v;
    else if (!strcmp(key, "link_bytes_per_cycle"))
        cfg->link_bytes_per_cycle = (uint32_t)v;
    else if (!strcmp(key, "peer_latency"))
        r->peer_timing.read_latency = (uint32_t)v;
    else if (!strcmp(key, "peer_bytes_per_cycle"))
        r->peer_timing.bytes_per_cycle = (uint32_t)v;
    else if (!strcmp(key, "max_indirection"))
        cfg->max_indirection = (unsigned)v;
    else if (!strcmp(key, "peer_invalidation"))
        cfg->no_peer_invalidation = !v;
    else
        return scn_bad(c, "%s: no such device option", key);
    return 0;
}

/* ================================================================ time and completions */

/* The device's event log: a CQE written to a live CQ's ring is seen by the
 * host from the next cycle on (its arrival cycle). */
static void on_event(void *ctx, const evlog_event_t *e)
{
    run_t *r = ctx;
    if (e->kind != EVLOG_CQE)
        return;
    for (size_t id = 0; id < r->nobj; id++) {
        rt_obj_t *q = &r->obj[id];
        const uint64_t depth = 1ull << q->cq.log_depth;
        if (r->s->syms[id].kind != SYM_CQ || !q->live || e->addr - q->cq.base >= depth * sizeof(hca_cqe_t))
            continue;
        q->seen_cycle[(e->addr - q->cq.base) / sizeof(hca_cqe_t)] = e->cycle + 1;
        if (q->seen < depth)
            q->seen++;
        return;
    }
}

void scn_advance(ctx_t *c, uint64_t n)
{
    const hca_host_t *h = &c->run->host;
    h->ops->wait(h->ctx, n, 0);
}

uint32_t scn_wait_cqes(ctx_t *c, int cq, uint32_t n, uint64_t timeout)
{
    const rt_obj_t *q = scn_obj(c, cq);
    const uint64_t chunk = c->run->tgt ? c->run->tgt->wait_cycles : 0;
    uint64_t start = scn_cycle(c);
    while (q->seen < n && scn_cycle(c) - start < timeout) {
        const uint64_t left = timeout - (scn_cycle(c) - start);
        /* A device stepped by these waits has no CQE in its quiet cycles; one
         * that runs on its own (a platform's) is looked at every chunk. */
        const uint64_t k = chunk ? chunk : hca_dev_quiet_cycles(c->run->dev);
        scn_advance(c, k ? (k < left ? k : left) : 1);
    }
    return q->seen;
}

int scn_posted(ctx_t *c, int qp, int recv, uint64_t wr_id, const char *opcode, uint32_t index, uint64_t post_cycle)
{
    run_t *r = c->run;
    if (r->nwrs == r->capwrs) {
        size_t nc = r->capwrs ? 2 * r->capwrs : 64;
        wr_rec_t *n = realloc(r->wrs, nc * sizeof *n);
        if (!n)
            return scn_bad(c, "out of memory");
        r->wrs = n;
        r->capwrs = nc;
    }
    r->wrs[r->nwrs++] = (wr_rec_t){c->line, qp, recv, wr_id, opcode, index, post_cycle, 0, 0, 0};
    scn_txn_posted(r->txn, qp, recv, r->obj[qp].qp.qpn, wr_id, opcode, index, c->line);
    return 0;
}

int scn_qp_by_qpn(ctx_t *c, uint32_t qpn)
{
    for (size_t id = 0; id < c->run->nobj; id++)
        if (c->s->syms[id].kind == SYM_QP && c->run->obj[id].live && c->run->obj[id].qp.qpn == qpn)
            return (int)id;
    return -1;
}

/* The posted WR a CQE completes (by QP, queue and WQE index; else by wr_id), or NULL. */
static wr_rec_t *find_wr(ctx_t *c, const hcadrv_wc_t *wc)
{
    run_t *r = c->run;
    int qp = scn_qp_by_qpn(c, wc->qpn);
    int recv = wc->opcode == HCA_WC_OPCODE_RECV;
    for (size_t i = 0; i < r->nwrs; i++) {
        wr_rec_t *w = &r->wrs[i];
        if (!w->done && w->qp == qp && w->recv == recv && (w->index & 0xffff) == (wc->wqe_counter & 0xffff))
            return w;
    }
    for (size_t i = 0; i < r->nwrs; i++) {
        wr_rec_t *w = &r->wrs[i];
        if (!w->done && w->qp == qp && w->wr_id == wc->wr_id)
            return w;
    }
    return NULL;
}

const wr_rec_t *scn_wr_find(ctx_t *c, int qp, uint64_t wr_id)
{
    const run_t *r = c->run;
    for (size_t i = r->nwrs; i-- > 0;)
        if (!r->wrs[i].recv && r->wrs[i].qp == qp && r->wrs[i].wr_id == wr_id)
            return &r->wrs[i];
    return NULL;
}

int scn_poll(ctx_t *c, int cq, int n, hcadrv_wc_t *wc, uint64_t *arrival, wr_rec_t **rec)
{
    rt_obj_t *q = scn_obj(c, cq);
    uint32_t mask = (1u << q->cq.log_depth) - 1, ci0 = q->cq.ci;
    int got = hcadrv_poll_cq(c->run->drv, &q->cq, wc, n);
    if (got < 0)
        return got;
    uint64_t now = scn_cycle(c);
    for (int i = 0; i < got; i++) {
        arrival[i] = (uint32_t)i < q->seen ? q->seen_cycle[(ci0 + (uint32_t)i) & mask] : now;
        wr_rec_t *w = find_wr(c, &wc[i]);
        scn_cover_completed(c->run->cov, w ? (size_t)(w - c->run->wrs) : SIZE_MAX, wc[i].opcode, wc[i].status);
        if (w) {
            w->done = 1;
            w->completion_cycle = arrival[i];
            w->status = wc[i].status;
        }
        if (rec)
            rec[i] = w;
    }
    q->seen = q->seen > (uint32_t)got ? q->seen - (uint32_t)got : 0;
    return got;
}

/* ================================================================ the device */

/* An option of the command line is at fault, not the op that started the
 * device: the reason in c->msg without "op NAME: ", reported without FILE:LINE. */
static int cmdline_bad(ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->run->cmdline_err = 1;
    return SCN_ERROR;
}

/* Start the device at the first op that needs it. SCN_PASS or SCN_ERROR. */
static int start_device(ctx_t *c)
{
    run_t *r = c->run;
    char err[512] = "";
    r->cfg.engine = (dev_engine_kind_t)r->engine; /* rtl or model: scenario.h */
    r->cfg.firmware = r->o->firmware;
    int rc = 0;
    if (r->tgt) { /* built by the caller from scn_device_config's configuration */
        r->dev = r->tgt->dev;
        if (!r->dev) {
            snprintf(err, sizeof err, "%s", r->tgt->error ? r->tgt->error : "no device");
            rc = -ENODEV;
        }
    } else if ((rc = hostmem_create(&r->mem)))
        return scn_bad(c, "host memory: %s", strerror(-rc));
    else
        rc = hca_dev_create(&r->dev, &r->cfg, r->mem, err, sizeof err);
    if (rc) {
        size_t fl = r->o->firmware ? strlen(r->o->firmware) : 0;
        if (fl && !strncmp(err, r->o->firmware, fl) && !strncmp(err + fl, ": ", 2)) /* the image given is bad */
            return cmdline_bad(c, "--firmware %s", err);
        return scn_bad(c, "the %s device could not start: %s", scn_engine_name(r->engine),
                       err[0] ? err : strerror(-rc));
    }
    if (evlog_subscribe(hca_dev_log(r->dev), on_event, r))
        return scn_bad(c, "the device's event log is full");
    if (r->o->verbose)
        fprintf(r->out, "%sfirmware image: %s\n", r->label, hca_dev_firmware(r->dev));
    r->host = r->tgt ? r->tgt->host : hca_dev_host(r->dev);
    if ((rc = hcadrv_open(&r->drv, &r->host)))
        return scn_bad(c, "driver: %s", strerror(-rc));
    if (r->o->fw_profile) { /* its path was checked by scn_check_opts */
        if ((rc = hca_dev_fw_profile_start(r->dev)))
            return cmdline_bad(c, "--fw-profile %s: %s", r->o->fw_profile, strerror(-rc));
    }
    scn_watch_device(r->o->watch, r, r->dev);
    if (scn_cover_attach(r->cov, r->dev))
        return scn_bad(c, "the device's event log is full");
    if (r->o->trace) {
        /* the transaction names beside the RTL's signals; an engine without
           waves refuses the file below, so its refusal here is not the error */
        if (!(r->txn = scn_txn_new(r->s, r->dev, &r->host)))
            return scn_bad(c, "out of memory");
        hca_dev_trace_vars(r->dev, scn_txn_vars(r->txn));
        rc = r->o->trace_spans
                 ? hca_dev_trace_spans(r->dev, r->o->trace, r->o->trace_spans, r->o->ntrace_spans)
                 : hca_dev_trace_open(r->dev, r->o->trace, r->o->trace_from, r->o->trace_to ? r->o->trace_to : UINT64_MAX);
        if (rc)
            return cmdline_bad(c, "--trace %s: %s%s", r->o->trace, strerror(-rc),
                               r->engine == SCN_ENGINE_MODEL ? " (waves come from the RTL engine only)" : "");
    }
    return SCN_PASS;
}

static void teardown(run_t *r, size_t nsyms)
{
    if (r->dev && r->o->trace) {
        hca_dev_trace_close(r->dev);
        hca_dev_trace_vars(r->dev, NULL);
    }
    scn_txn_free(r->txn, r->dev);
    scn_watch_undevice(r->o->watch, r, r->dev);
    scn_cover_detach(r->cov, r->dev);
    scn_cover_free(r->cov);
    hcadrv_close(r->drv); /* the peer clients' registrations go with the driver */
    if (r->tgt) { /* the caller's device outlives the run */
        if (r->dev) {
            evlog_unsubscribe(hca_dev_log(r->dev), on_event, r);
            for (size_t i = 0; r->obj && i < nsyms; i++)
                if (r->obj[i].pm)
                    hca_dev_unmap_window(r->dev, peermem_base(r->obj[i].pm));
        }
    } else {
        hca_dev_destroy(r->dev);
        hostmem_destroy(r->mem);
    }
    for (size_t i = 0; r->obj && i < nsyms; i++) {
        free(r->obj[i].seen_cycle);
        hcadrv_peer_window_free(r->obj[i].win);
        peermem_destroy(r->obj[i].pm);
    }
    free(r->peers);
    free(r->obj);
    free(r->wrs);
}

/* Invariants checked after every op: no breach of the protection checker
 * (SEMANTICS.md "Invariants the harness checks on every run") and the firmware
 * still runs. */
static int check_invariants(ctx_t *c)
{
    char why[600] = "";
    uint64_t n = hca_dev_violations(c->run->dev, why, sizeof why);
    if (n) {
        char *nl = strchr(why, '\n');
        if (nl)
            *nl = 0;
        return scn_mismatch(c, "protection invariant broken (%" PRIu64 " breach%s so far; first: %s)", n,
                            n == 1 ? "" : "es", why);
    }
    if (hca_dev_fw_health(c->run->dev, why, sizeof why))
        return scn_mismatch(c, "the firmware stopped at cycle %" PRIu64 ": %s", hca_dev_cycle(c->run->dev), why);
    return 0;
}

/* What the protection checker watched. */
static const scn_checker_t *checker_of(hca_dev_t *dev, scn_checker_t *ck)
{
    protcheck_stats_t ps;
    protcheck_get_stats(hca_dev_protcheck(dev), &ps);
    dev_engine_stats_t es;
    hca_dev_get_stats(dev, &es);
    *ck = (scn_checker_t){ps.dma_issued,     ps.dma_keyed,   ps.invalidations,  ps.validations,
                          ps.write_pkts,     ps.violations,  es.fence_waits,    es.drain_waits,
                          ps.refused_after_inv};
    return ck;
}

/* ================================================================ one engine's run, op by op */

run_t *scn_run_new(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, scn_rec_t *rec, const char *label)
{
    run_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->o = o;
    r->s = s;
    r->engine = engine;
    r->rec = rec;
    r->label = label ? label : "";
    r->out = o->out ? o->out : stdout;
    r->err = o->err ? o->err : stderr;
    r->seed = o->seed_set ? o->seed : 1;
    r->peer_timing = bus_default_timing(); /* posted writes and bandwidth as host memory's ... */
    r->peer_timing.read_latency = PEERMEM_DEFAULT_READ_LATENCY; /* ... reads cross to another device */
    r->nobj = s->nsyms;
    r->obj = calloc(s->nsyms ? s->nsyms : 1, sizeof *r->obj);
    r->cov = scn_cover_new();
    if (!r->obj || !r->cov) {
        free(r->obj);
        scn_cover_free(r->cov);
        free(r);
        return NULL;
    }
    r->c.s = (scn_t *)s; /* the symbol table is read only while running */
    r->c.run = r;
    return r;
}

int scn_run_op(run_t *r, size_t i)
{
    ctx_t *c = &r->c;
    const op_line_t *l = &r->s->ops[i];
    scn_ctx_op(c, l);
    r->fline = l->line;
    r->fop = c->op;
    int rc = SCN_PASS;
    const uint64_t start = r->dev ? hca_dev_cycle(r->dev) : 0;
    if (!r->dev && !(scn_ops[l->op].flags & SCN_OP_CONFIG))
        rc = start_device(c);
    scn_txn_op(r->txn, l->line, l->op);
    if (!rc)
        rc = scn_ops[l->op].fn(c, l->v);
    if (r->dev && rc == SCN_PASS)
        rc = check_invariants(c);
    if (r->dev && r->rec) { /* the checker's verdict so far, whatever the op's outcome */
        char why[600];
        uint64_t n = hca_dev_violations(r->dev, why, sizeof why);
        why[strcspn(why, "\n")] = 0;
        scn_observe_detail(c, "checker breaches", n ? why : NULL, "%" PRIu64, n);
    }
    scn_observe_outcome(c, rc);
    scn_watch_op(r->o->watch, r, l->line, start, r->dev ? hca_dev_cycle(r->dev) : 0, rc);
    if (r->o->verbose)
        fprintf(r->out, "%scycle %10" PRIu64 "  line %4u  %-24s %s%s%s\n", r->label, r->dev ? hca_dev_cycle(r->dev) : 0,
                l->line, c->op, rc == SCN_PASS ? "ok" : rc == SCN_FAIL ? "MISMATCH" : "ERROR", c->note[0] ? "  " : "",
                rc == SCN_PASS ? c->note : "");
    return rc;
}

int scn_run_end(run_t *r, int rc, scn_report_t *rep, scn_checker_t *ck, scn_fw_state_t *fw)
{
    ctx_t *c = &r->c;
    if (!r->dev && rc == SCN_PASS) { /* a file with no op but `device` still boots the device */
        c->op = "device";
        rc = start_device(c);
    }
    *rep = (scn_report_t){r->s, r->s->file, r->engine, r->seed, 0, rc, r->fline, r->fop, c->msg, NULL, NULL, NULL,
                          r->wrs, r->nwrs, 0, NULL, 0, NULL, NULL, {0, 0, 0}, 0, 0};
    size_t np = 0;
    for (size_t i = 0; i < r->nobj; i++)
        np += r->obj[i].win != NULL;
    free(r->peers);
    r->peers = np ? calloc(np, sizeof *r->peers) : NULL;
    for (size_t i = 0, k = 0; r->peers && i < r->nobj; i++) {
        if (!r->obj[i].win)
            continue;
        const void *h = hcadrv_peer_window_handle(r->obj[i].win);
        const hcadrv_peer_client_t *pc = hcadrv_peer_client_of(h);
        r->peers[k].name = r->s->syms[i].name;
        r->peers[k].version = pc ? pc->version : "";
        hcadrv_peer_get_stats(r->drv, h, &r->peers[k].st);
        k++;
    }
    rep->peers = r->peers;
    rep->npeers = r->peers ? np : 0;
    if (r->cmdline_err) { /* no line of the file is to blame */
        rep->line = 0;
        rep->op = NULL;
        rep->cmdline = 1;
    }
    if (r->dev) {
        scn_watch_end(r->o->watch, r, r->dev, rc);
        rep->firmware = hca_dev_firmware(r->dev);
        rep->cycles = hca_dev_cycle(r->dev);
        rep->checker = checker_of(r->dev, ck);
        rep->host = r->host_set ? r->cfg.host : bus_default_timing();
        rep->link_latency = r->cfg.link_latency ? r->cfg.link_latency : DEV_ENGINE_LINK_LATENCY_DEFAULT;
        rep->link_bytes_per_cycle =
            r->cfg.link_bytes_per_cycle ? r->cfg.link_bytes_per_cycle : DEV_ENGINE_LINK_BYTES_PER_CYCLE_DEFAULT;
        rep->pc = hca_dev_protcheck(r->dev);
        scn_cover_end(r->cov, r->dev);
        rep->cov = r->cov;
        if (rc && r->o->verbose) { /* what the firmware said, for the diagnosis */
            *fw = (scn_fw_state_t){hca_dev_console(r->dev), hca_dev_fw_instret(r->dev), hca_dev_fw_busy_cycles(r->dev),
                                   rep->cycles};
            rep->fw = fw;
        }
    }
    if (r->rec) /* what both engines must agree on at the end, and each WR's timing */
        scn_observe_end(r->rec, rep);
    return rc;
}

void scn_run_fw_profile(run_t *r, FILE *out)
{
    if (!r->o->fw_profile || !r->dev)
        return;
    size_t words = 0;
    const uint64_t *hist = hca_dev_fw_profile(r->dev, &words);
    int prc = scn_write_fw_profile(r->o->fw_profile, hca_dev_firmware(r->dev), hist, words);
    if (prc)
        fprintf(r->err, "%s: --fw-profile %s: %s\n", r->s->file, r->o->fw_profile, strerror(-prc));
    else
        fprintf(out, "firmware profile: %s\n", r->o->fw_profile);
}

void scn_run_free(run_t *r)
{
    if (!r)
        return;
    teardown(r, r->s->nsyms);
    free(r);
}

static int run_one_engine(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, const scn_target_t *t);

int scn_run_single(const scn_t *s, const scn_run_opts_t *o)
{
    return run_one_engine(s, o, o->engine, NULL);
}

int scn_run_both(const scn_t *s, const scn_run_opts_t *o)
{
    scn_run_opts_t a = *o, b = *o; /* the RTL is the reference the model is held to */
    a.engine = SCN_ENGINE_RTL;
    b.engine = SCN_ENGINE_MODEL;
    return scn_run_pair(s, &a, &b);
}

static int run_one_engine(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, const scn_target_t *t)
{
    run_t *r = scn_run_new(s, o, engine, NULL, "");
    if (!r) {
        fprintf(o->err ? o->err : stderr, "%s: out of memory\n", s->file);
        return SCN_ERROR;
    }
    r->tgt = t;
    int rc = SCN_PASS;
    for (size_t i = 0; i < s->nops && rc == SCN_PASS; i++)
        rc = scn_run_op(r, i);
    if (o->run_on_to && r->dev && hca_dev_cycle(r->dev) < o->run_on_to) /* a traced re-run: the window after */
        scn_advance(&r->c, o->run_on_to - hca_dev_cycle(r->dev));
    scn_report_t rep;
    scn_checker_t ck;
    scn_fw_state_t fw;
    rc = scn_run_end(r, rc, &rep, &ck, &fw);
    scn_print_report(&rep, r->out, r->err);
    int jrc = o->json_out ? scn_write_json(o->json_out, &rep) : 0;
    if (jrc) { /* checked before the run; a write can still fail (disk full) */
        fprintf(r->err, "hcasim run: --json %s: %s\n", o->json_out, strerror(-jrc));
        if (rc == SCN_PASS)
            rc = SCN_ERROR;
    }
    scn_run_fw_profile(r, r->out);
    int prc = o->peer_stats ? scn_write_peer_stats(o->peer_stats, &rep) : 0;
    if (prc) {
        fprintf(r->err, "hcasim run: --peer-stats %s: %s\n", o->peer_stats, strerror(-prc));
        if (rc == SCN_PASS)
            rc = SCN_ERROR;
    }
    scn_run_free(r);
    return rc;
}

/* An output path the run cannot write is refused now, not found after the run. */
static int check_writable(const char *opt, const char *path, char *err, size_t errlen)
{
    FILE *t = path ? fopen(path, "w") : NULL;
    if (path && !t) {
        snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
        return SCN_ERROR;
    }
    if (t)
        fclose(t);
    return SCN_PASS;
}

int scn_check_opts(const scn_run_opts_t *o, char *err, size_t errlen)
{
    if (check_writable("--json", o->json_out, err, errlen) || check_writable("--fw-profile", o->fw_profile, err, errlen))
        return SCN_ERROR;
    if (o->firmware) { /* its contents are checked when the device loads it */
        FILE *t = fopen(o->firmware, "rb");
        if (!t) {
            snprintf(err, errlen, "--firmware %s: %s", o->firmware, strerror(errno));
            return SCN_ERROR;
        }
        fclose(t);
    }
    if (o->trace && o->engine == SCN_ENGINE_MODEL && !o->nwhen) { /* --trace-when re-runs on the RTL */
        snprintf(err, errlen, "--trace %s: waves come from the RTL engine only (--engine rtl)", o->trace);
        return SCN_ERROR;
    }
    return check_writable("--trace", o->trace, err, errlen);
}

int scn_run(const scn_t *s, const scn_run_opts_t *o)
{
    char why[600];
    if (scn_check_opts(o, why, sizeof why)) { /* a command-line error: no FILE:LINE */
        fprintf(o->err ? o->err : stderr, "hcasim run: command line: %s\n", why);
        if (o->json_out && strncmp(why, "--json ", 7))
            scn_write_load_error_json(o->json_out, s->file, why, o->engine);
        return SCN_ERROR;
    }
    if (o->waves_dir || o->nwhen) {
        if (scn_check_waves_opts(s, o, why, sizeof why)) {
            fprintf(o->err ? o->err : stderr, "hcasim run: command line: %s\n", why);
            if (o->json_out)
                scn_write_load_error_json(o->json_out, s->file, why, o->engine);
            return SCN_ERROR;
        }
        return scn_run_watched(s, o);
    }
    return o->engine == SCN_ENGINE_BOTH ? scn_run_both(s, o) : scn_run_single(s, o);
}

int scn_device_config(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, hca_dev_config_t *cfg, char *err,
                      size_t errlen)
{
    scn_run_opts_t q = *o;
    q.verbose = 0;
    run_t *r = scn_run_new(s, &q, engine, NULL, "");
    if (!r) {
        snprintf(err, errlen, "%s: out of memory", s->file);
        return SCN_ERROR;
    }
    int rc = SCN_PASS;
    if (s->nops && (scn_ops[s->ops[0].op].flags & SCN_OP_CONFIG)) /* only the first line configures */
        rc = scn_run_op(r, 0);
    if (rc)
        scn_load_error(err, errlen, s->file, r->fline, "%s", r->c.msg);
    r->cfg.engine = (dev_engine_kind_t)engine;
    r->cfg.firmware = o->firmware;
    *cfg = r->cfg;
    scn_run_free(r);
    return rc ? SCN_ERROR : SCN_PASS;
}

int scn_run_on(const scn_t *s, const scn_run_opts_t *o, scn_engine_t engine, const scn_target_t *t)
{
    char why[600];
    if (engine != SCN_ENGINE_RTL && engine != SCN_ENGINE_MODEL) {
        fprintf(o->err ? o->err : stderr, "hcasim: command line: --engine %s: a platform's device runs one engine (rtl or model)\n",
                scn_engine_name(engine));
        return SCN_ERROR;
    }
    if (scn_check_opts(o, why, sizeof why)) {
        fprintf(o->err ? o->err : stderr, "hcasim: command line: %s\n", why);
        return SCN_ERROR;
    }
    if (o->waves_dir || o->nwhen) {
        fprintf(o->err ? o->err : stderr,
                "hcasim: command line: --waves-on-fail and --trace-when re-run the scenario on a device of their "
                "own: not on a platform's device\n");
        return SCN_ERROR;
    }
    return run_one_engine(s, o, engine, t);
}
