/* scn_rec.c — recordings of what a run observed, their comparison and the
 * latency statistics of --engine both (scn_both.h). Plain data only: nothing
 * here reaches a device, so tests compare recordings they build by hand. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn_both.h"

/* ================================================================ recording */

static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;
    if (s && !d)
        *oom = 1;
    return d;
}

static scn_obs_t *obs_slot(scn_rec_t *r)
{
    if (r->nobs == r->capobs) {
        size_t nc = r->capobs ? 2 * r->capobs : 64;
        scn_obs_t *n = realloc(r->obs, nc * sizeof *n);
        if (!n) {
            r->oom = 1;
            return NULL;
        }
        r->obs = n;
        r->capobs = nc;
    }
    scn_obs_t *o = &r->obs[r->nobs];
    memset(o, 0, sizeof *o);
    return o;
}

/* Keep o (its strings allocated) or drop it when an allocation failed. */
static int obs_commit(scn_rec_t *r, scn_obs_t *o, int oom)
{
    if (oom || !o->op || !o->field) {
        free(o->op);
        free(o->field);
        free(o->value);
        free(o->detail);
        free(o->bytes);
        free(o->buf);
        r->oom = 1;
        return -ENOMEM;
    }
    r->nobs++;
    return 0;
}

/* A new observation of op's field on line (obs_commit keeps or drops it). */
static scn_obs_t *obs_start(scn_rec_t *r, unsigned line, const char *op, const char *field, int *oom)
{
    scn_obs_t *o = obs_slot(r);
    if (o) {
        o->line = line;
        o->op = dup_or_null(op, oom);
        o->field = dup_or_null(field, oom);
    }
    return o;
}

int scn_rec_add(scn_rec_t *r, unsigned line, const char *op, const char *field, const char *value,
                const char *detail)
{
    int oom = 0;
    scn_obs_t *o = obs_start(r, line, op, field, &oom);
    if (!o)
        return -ENOMEM;
    o->value = dup_or_null(value ? value : "", &oom);
    o->detail = dup_or_null(detail, &oom);
    return obs_commit(r, o, oom);
}

int scn_rec_add_bytes(scn_rec_t *r, unsigned line, const char *op, const char *field, const char *buf,
                      uint64_t offset, const uint8_t *bytes, size_t n)
{
    int oom = 0;
    scn_obs_t *o = obs_start(r, line, op, field, &oom);
    if (!o)
        return -ENOMEM;
    o->buf = dup_or_null(buf ? buf : "?", &oom);
    o->offset = offset;
    o->nbytes = n;
    if (!(o->bytes = malloc(n ? n : 1)))
        oom = 1;
    else if (n)
        memcpy(o->bytes, bytes, n);
    return obs_commit(r, o, oom);
}

int scn_rec_add_wr(scn_rec_t *r, unsigned line, const char *qp, const char *opcode, uint64_t wr_id, int done,
                   uint64_t post_cycle, uint64_t completion_cycle)
{
    if (r->nwrs == r->capwrs) {
        size_t nc = r->capwrs ? 2 * r->capwrs : 64;
        scn_rec_wr_t *n = realloc(r->wrs, nc * sizeof *n);
        if (!n) {
            r->oom = 1;
            return -ENOMEM;
        }
        r->wrs = n;
        r->capwrs = nc;
    }
    int oom = 0;
    scn_rec_wr_t w = {line, dup_or_null(qp, &oom), dup_or_null(opcode, &oom), wr_id, done, post_cycle,
                      completion_cycle};
    if (oom) {
        free(w.qp);
        free(w.opcode);
        r->oom = 1;
        return -ENOMEM;
    }
    r->wrs[r->nwrs++] = w;
    return 0;
}

void scn_rec_free(scn_rec_t *r)
{
    for (size_t i = 0; i < r->nobs; i++) {
        scn_obs_t *o = &r->obs[i];
        free(o->op);
        free(o->field);
        free(o->value);
        free(o->detail);
        free(o->bytes);
        free(o->buf);
    }
    for (size_t i = 0; i < r->nwrs; i++) {
        free(r->wrs[i].qp);
        free(r->wrs[i].opcode);
    }
    free(r->obs);
    free(r->wrs);
    memset(r, 0, sizeof *r);
}

/* ================================================================ comparison */

/* What an engine observed, for the report: the value and its detail. */
static void shown(char *b, size_t n, const scn_obs_t *o)
{
    if (!o)
        snprintf(b, n, "(not observed)");
    else if (o->bytes)
        snprintf(b, n, "%zu bytes", o->nbytes);
    else if (o->detail && o->detail[0])
        snprintf(b, n, "%s (%s)", o->value, o->detail);
    else
        snprintf(b, n, "%s", o->value);
}

static int diverged(scn_divergence_t *d, const scn_obs_t *x, const scn_obs_t *y, const char *field)
{
    const scn_obs_t *w = x ? x : y;
    d->line = w->line;
    snprintf(d->op, sizeof d->op, "%s", w->op);
    snprintf(d->field, sizeof d->field, "%s", field ? field : w->field);
    shown(d->a, sizeof d->a, x);
    shown(d->b, sizeof d->b, y);
    return 1;
}

/* Up to 16 bytes from k, as hex, "…" when more follow. */
static void hex_from(char *b, size_t n, const uint8_t *p, size_t len, size_t k)
{
    b[0] = 0;
    for (size_t i = k; i < len && i < k + 16; i++)
        snprintf(b + strlen(b), n - strlen(b), "%02x", p[i]);
    if (len > k + 16)
        snprintf(b + strlen(b), n - strlen(b), "…");
}

/* Two observations of the same field: 1 and *d when they differ. */
static int differ(const scn_obs_t *x, const scn_obs_t *y, scn_divergence_t *d)
{
    char f[160];
    if (!x->bytes != !y->bytes)
        return diverged(d, x, y, NULL);
    if (!x->bytes)
        return strcmp(x->value, y->value) ? diverged(d, x, y, NULL) : 0;
    if (x->nbytes != y->nbytes) {
        snprintf(f, sizeof f, "%s: length", x->field);
        diverged(d, x, y, f);
        snprintf(d->a, sizeof d->a, "%zu", x->nbytes);
        snprintf(d->b, sizeof d->b, "%zu", y->nbytes);
        return 1;
    }
    for (size_t k = 0; k < x->nbytes; k++)
        if (x->bytes[k] != y->bytes[k]) {
            snprintf(f, sizeof f, "%s: %s+0x%" PRIx64 " (byte %zu of %zu)", x->field, x->buf, x->offset + k, k,
                     x->nbytes);
            diverged(d, x, y, f);
            hex_from(d->a, sizeof d->a, x->bytes, x->nbytes, k);
            hex_from(d->b, sizeof d->b, y->bytes, y->nbytes, k);
            return 1;
        }
    return 0;
}

/* Line order of the run: line 0 (the end of the run) comes last. */
static unsigned order(const scn_obs_t *o)
{
    return o ? (o->line ? o->line : UINT_MAX - 1) : UINT_MAX;
}

/* The entry of field k among r's observations of line from i on, or NULL. */
static const scn_obs_t *find_in_line(const scn_rec_t *r, size_t i, unsigned line, const char *k)
{
    for (; i < r->nobs && r->obs[i].line == line; i++)
        if (!strcmp(r->obs[i].field, k))
            return &r->obs[i];
    return NULL;
}

/* The recordings part at a[i], b[j] (either may have ended): one engine
 * observed something the other did not. */
static int parted(const scn_rec_t *a, size_t i, const scn_rec_t *b, size_t j, scn_divergence_t *d)
{
    const scn_obs_t *x = i < a->nobs ? &a->obs[i] : NULL, *y = j < b->nobs ? &b->obs[j] : NULL;
    if (order(x) < order(y))
        return diverged(d, x, NULL, NULL);
    if (order(y) < order(x))
        return diverged(d, NULL, y, NULL);
    /* the same op took different paths: its outcome says most, when it differs */
    const scn_obs_t *ox = find_in_line(a, i, x->line, "outcome"), *oy = find_in_line(b, j, y->line, "outcome");
    if (ox && oy && strcmp(ox->value, oy->value))
        return diverged(d, ox, oy, NULL);
    const scn_obs_t *yx = find_in_line(b, j, x->line, x->field);
    if (!yx)
        return diverged(d, x, NULL, NULL);
    return diverged(d, find_in_line(a, i, y->line, y->field), y, NULL);
}

int scn_rec_compare(const scn_rec_t *a, size_t from_a, const scn_rec_t *b, size_t from_b, scn_divergence_t *d)
{
    size_t i = from_a, j = from_b;
    while (i < a->nobs || j < b->nobs) {
        const scn_obs_t *x = i < a->nobs ? &a->obs[i] : NULL, *y = j < b->nobs ? &b->obs[j] : NULL;
        if (!x || !y || x->line != y->line || strcmp(x->field, y->field))
            return parted(a, i, b, j, d);
        if (differ(x, y, d))
            return 1;
        i++;
        j++;
    }
    return 0;
}

/* ================================================================ latency */

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

void scn_stats(double *v, size_t n, double *median, double *p95, double *max)
{
    *median = *p95 = *max = 0;
    if (!n)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *p95 = v[(95 * n + 99) / 100 - 1]; /* nearest rank ceil(0.95 n), in integers: no rounding surprise */
    *max = v[n - 1];
}

int scn_latency(const scn_rec_t *a, const scn_rec_t *b, scn_lat_t *out)
{
    memset(out, 0, sizeof *out);
    out->worst = -1;
    size_t n = a->nwrs < b->nwrs ? a->nwrs : b->nwrs;
    out->wrs = calloc(n ? n : 1, sizeof *out->wrs);
    double *abs_err = calloc(n ? n : 1, sizeof *abs_err);
    if (!out->wrs || !abs_err) {
        free(abs_err);
        scn_lat_free(out);
        return -ENOMEM;
    }
    double worst = -1;
    for (size_t k = 0; k < n; k++) {
        const scn_rec_wr_t *x = &a->wrs[k], *y = &b->wrs[k];
        if (x->line != y->line || x->wr_id != y->wr_id)
            break; /* the runs posted different WRs from here: a divergence says where */
        scn_lat_wr_t *w = &out->wrs[out->nwrs++];
        w->wr = x;
        if (!x->done || !y->done)
            continue;
        w->both = 1;
        w->a = x->completion_cycle - x->post_cycle;
        w->b = y->completion_cycle - y->post_cycle;
        w->err = 100.0 * ((double)w->b - (double)w->a) / (double)(w->a ? w->a : 1);
        double e = w->err < 0 ? -w->err : w->err;
        abs_err[out->count++] = e;
        if (e > worst) {
            worst = e;
            out->worst = (long)(out->nwrs - 1);
        }
    }
    scn_stats(abs_err, out->count, &out->median, &out->p95, &out->max);
    free(abs_err);
    return 0;
}

void scn_lat_free(scn_lat_t *l)
{
    free(l->wrs);
    memset(l, 0, sizeof *l);
    l->worst = -1;
}
