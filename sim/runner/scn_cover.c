/* scn_cover.c — the functional coverage points of a run (docs/regress.md
 * "Coverage"), counted from what the run saw, never declared: the device's
 * event log (DMA, key validity, KLM lists), the completions the runner took,
 * the firmware's console (its refusals) and the core's fence/DRAIN wait pins.
 * Written as the "coverage" object of --json; `hcasim regress --coverage`
 * sums the runs' objects and lists the points never hit first.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

/** Recent DMAs kept for "a peer revocation mid-op". */
#define COV_RECENT_DMA 1024u
/** Keys of one WR followed for the invalidation phases: its SGEs' and its R_Key. */
#define COV_WR_KEYS (HCA_MAX_SEND_SGE + 1u)

/* Where an invalidation of one of its keys landed in a WR's life. */
enum { PH_BEFORE, PH_BETWEEN, PH_AFTER, PH_N };
static const char *const phase_name[PH_N] = {"before_first_chunk", "between_chunks", "after_last_chunk"};

typedef struct cov_wr {
    size_t wr; /* index in the run's WR records */
    uint64_t post;
    unsigned nkeys;
    uint32_t key[COV_WR_KEYS];
    uint32_t ndma[COV_WR_KEYS]; /* DMAs through key[i] since post, until its invalidation landed */
    uint64_t landed[COV_WR_KEYS]; /* UINT64_MAX: not invalidated while the WR was in flight */
} cov_wr_t;

typedef struct cov_dma {
    uint64_t addr, len, cycle;
} cov_dma_t;

typedef struct cov_count {
    char *name;
    uint64_t n;
} cov_count_t;

struct scn_cover {
    cov_count_t *cqe; /* "OPCODE/STATUS" */
    size_t ncqe;
    cov_count_t *refusals; /* "KIND: reason" from the firmware console */
    size_t nrefusals;
    uint64_t phase[PH_N];
    uint64_t klm_depth[HCA_MAX_INDIRECTION + 1]; /* DMAs through an indirect key of depth d */
    uint64_t peer_revoke_mid_op, peer_revokes;
    uint64_t fence_waits, drain_waits;
    cov_wr_t *act; /* WRs in flight */
    size_t nact, capact;
    struct {
        uint32_t key;
        unsigned depth;
    } *depth;
    size_t ndepth, capdepth;
    cov_dma_t recent[COV_RECENT_DMA];
    size_t nrecent;
    int oom;
};

scn_cover_t *scn_cover_new(void)
{
    return calloc(1, sizeof(scn_cover_t));
}

static void free_counts(cov_count_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
}

void scn_cover_free(scn_cover_t *v)
{
    if (!v)
        return;
    free_counts(v->cqe, v->ncqe);
    free_counts(v->refusals, v->nrefusals);
    free(v->act);
    free(v->depth);
    free(v);
}

static void count(scn_cover_t *v, cov_count_t **c, size_t *n, const char *name, size_t len)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen((*c)[i].name) == len && !strncmp((*c)[i].name, name, len)) {
            (*c)[i].n++;
            return;
        }
    cov_count_t *g = realloc(*c, (*n + 1) * sizeof **c);
    char *s = g ? strndup(name, len) : NULL;
    if (!s) {
        if (g)
            *c = g;
        v->oom = 1;
        return;
    }
    *c = g;
    (*c)[(*n)++] = (cov_count_t){s, 1};
}

static unsigned depth_of(const scn_cover_t *v, uint32_t key)
{
    for (size_t i = 0; i < v->ndepth; i++)
        if (v->depth[i].key == key)
            return v->depth[i].depth;
    return 0;
}

static void set_depth(scn_cover_t *v, uint32_t key, unsigned d)
{
    for (size_t i = 0; i < v->ndepth; i++)
        if (v->depth[i].key == key) {
            v->depth[i].depth = d;
            return;
        }
    if (v->ndepth == v->capdepth) {
        size_t nc = v->capdepth ? 2 * v->capdepth : 16;
        void *g = realloc(v->depth, nc * sizeof *v->depth);
        if (!g) {
            v->oom = 1;
            return;
        }
        v->depth = g;
        v->capdepth = nc;
    }
    v->depth[v->ndepth].key = key;
    v->depth[v->ndepth++].depth = d;
}

static void on_event(void *ctx, const evlog_event_t *e)
{
    scn_cover_t *v = ctx;
    if (e->kind == EVLOG_DMA_ISSUE && !e->refused) {
        const uint32_t key = e->dma->key;
        v->recent[v->nrecent++ % COV_RECENT_DMA] = (cov_dma_t){e->dma->addr, e->dma->len, e->cycle};
        if (!key)
            return;
        for (size_t i = 0; i < v->nact; i++)
            for (unsigned k = 0; k < v->act[i].nkeys; k++)
                if (v->act[i].key[k] == key && v->act[i].landed[k] == UINT64_MAX)
                    v->act[i].ndma[k]++;
        const unsigned d = depth_of(v, key);
        if (d && d <= HCA_MAX_INDIRECTION)
            v->klm_depth[d]++;
    } else if (e->kind == EVLOG_KEY_INVALID) {
        for (size_t i = 0; i < v->nact; i++)
            for (unsigned k = 0; k < v->act[i].nkeys; k++)
                if (v->act[i].key[k] == e->key && v->act[i].landed[k] == UINT64_MAX)
                    v->act[i].landed[k] = e->cycle;
    } else if (e->kind == EVLOG_KEY_DEPENDS) {
        unsigned d = 0;
        for (uint32_t i = 0; i < e->nkeys; i++) {
            const unsigned x = depth_of(v, e->keys[i]);
            d = x > d ? x : d;
        }
        set_depth(v, e->key, d + 1);
    }
}

int scn_cover_attach(scn_cover_t *v, hca_dev_t *dev)
{
    return v && dev ? evlog_subscribe(hca_dev_log(dev), on_event, v) : 0;
}

void scn_cover_detach(scn_cover_t *v, hca_dev_t *dev)
{
    if (v && dev)
        evlog_unsubscribe(hca_dev_log(dev), on_event, v);
}

void scn_cover_posted(scn_cover_t *v, size_t wr, uint64_t post, const uint32_t *keys, unsigned nkeys)
{
    if (!v)
        return;
    if (v->nact == v->capact) {
        size_t nc = v->capact ? 2 * v->capact : 16;
        cov_wr_t *g = realloc(v->act, nc * sizeof *g);
        if (!g) {
            v->oom = 1;
            return;
        }
        v->act = g;
        v->capact = nc;
    }
    cov_wr_t *w = &v->act[v->nact++];
    memset(w, 0, sizeof *w);
    w->wr = wr;
    w->post = post;
    for (unsigned i = 0; i < nkeys && w->nkeys < COV_WR_KEYS; i++) {
        unsigned k = 0;
        while (k < w->nkeys && w->key[k] != keys[i])
            k++;
        if (keys[i] && k == w->nkeys) {
            w->landed[w->nkeys] = UINT64_MAX;
            w->key[w->nkeys++] = keys[i];
        }
    }
}

void scn_cover_completed(scn_cover_t *v, size_t wr, unsigned opcode, unsigned status)
{
    if (!v)
        return;
    char name[64];
    const char *on = hca_wc_opcode_name(opcode), *sn = hca_wc_status_name(status);
    int n = snprintf(name, sizeof name, "%s/%s", on ? on : "?", sn ? sn : "?");
    count(v, &v->cqe, &v->ncqe, name, (size_t)n);
    for (size_t i = 0; i < v->nact; i++) {
        if (v->act[i].wr != wr)
            continue;
        const cov_wr_t *w = &v->act[i];
        for (unsigned k = 0; k < w->nkeys; k++)
            if (w->landed[k] != UINT64_MAX)
                v->phase[!w->ndma[k] ? PH_BEFORE : status == HCA_WC_STATUS_SUCCESS ? PH_AFTER : PH_BETWEEN]++;
        v->act[i] = v->act[--v->nact];
        return;
    }
}

void scn_cover_revoked(scn_cover_t *v, uint64_t addr, uint64_t len)
{
    if (!v)
        return;
    v->peer_revokes++;
    uint64_t oldest = UINT64_MAX; /* the oldest WR in flight was posted then */
    for (size_t i = 0; i < v->nact; i++)
        oldest = v->act[i].post < oldest ? v->act[i].post : oldest;
    const size_t n = v->nrecent < COV_RECENT_DMA ? v->nrecent : COV_RECENT_DMA;
    for (size_t i = 0; oldest != UINT64_MAX && i < n; i++)
        if (v->recent[i].cycle >= oldest && v->recent[i].addr < addr + len && addr < v->recent[i].addr + v->recent[i].len) {
            v->peer_revoke_mid_op++;
            return;
        }
}

void scn_cover_end(scn_cover_t *v, hca_dev_t *dev)
{
    if (!v || !dev)
        return;
    dev_engine_stats_t es;
    hca_dev_get_stats(dev, &es);
    v->fence_waits = es.fence_waits;
    v->drain_waits = es.drain_waits;
    /* the firmware's refusals: "hcafw: KIND key 0x…: reason" (firmware/mm.c refuse()) */
    for (const char *p = hca_dev_console(dev); p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *k = !strncmp(p, "hcafw: ", 7) ? p + 7 : NULL, *key = k ? strstr(k, " key 0x") : NULL;
        const char *why = key && key < p + len ? strstr(key, ": ") : NULL;
        if (why && why < p + len) {
            char name[256];
            int n = snprintf(name, sizeof name, "%.*s: %.*s", (int)(key - k), k, (int)(p + len - why - 2), why + 2);
            count(v, &v->refusals, &v->nrefusals, name, (size_t)n < sizeof name ? (size_t)n : sizeof name - 1);
        }
        p += len + (e != NULL);
    }
}

static void json_counts(FILE *f, const cov_count_t *c, size_t n)
{
    fputc('{', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "," : "", f);
        json_write_string(f, c[i].name, strlen(c[i].name));
        fprintf(f, ":%" PRIu64, c[i].n);
    }
    fputc('}', f);
}

void scn_cover_json(FILE *f, const scn_cover_t *v)
{
    if (!v) {
        fputs("null", f);
        return;
    }
    fputs("{\"cqe\":", f);
    json_counts(f, v->cqe, v->ncqe);
    fputs(",\"fw_refusals\":", f);
    json_counts(f, v->refusals, v->nrefusals);
    fprintf(f, ",\"fence_wait\":%" PRIu64 ",\"drain_wait\":%" PRIu64 ",\"inval_phase\":{", v->fence_waits,
            v->drain_waits);
    for (unsigned i = 0; i < PH_N; i++)
        fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", phase_name[i], v->phase[i]);
    fputs("},\"klm_depth\":{", f);
    for (unsigned d = 1; d <= HCA_MAX_INDIRECTION; d++)
        fprintf(f, "%s\"%u\":%" PRIu64, d > 1 ? "," : "", d, v->klm_depth[d]);
    fprintf(f, "},\"peer_revoke_mid_op\":%" PRIu64 ",\"peer_revokes\":%" PRIu64 ",\"incomplete\":%s}",
            v->peer_revoke_mid_op, v->peer_revokes, v->oom ? "true" : "false");
}
