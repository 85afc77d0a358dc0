/* scn_both.c — `hcasim run --engine both` (scn_both.h): two whole devices
 * run the scenario side by side, op by op; after each op the two engines'
 * observations of it are compared, so the run stops at the first divergence
 * (or failure) instead of running on past it. Then the report: each engine's
 * failure, the divergence, the checker lines, the latency comparison, one
 * summary line, and the JSON result.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

/* One engine's side of the pair. */
typedef struct side {
    scn_engine_t engine;
    char label[16];  /* in messages: "rtl", "model", "rtl#2" */
    char prefix[24]; /* of its -v lines */
    scn_run_opts_t o;
    run_t *run;
    scn_rec_t rec;
    int rc;
    scn_report_t rep;
    scn_checker_t ck;
    scn_fw_state_t fw;
} side_t;

/* What the pair found, for the text and JSON reports. */
typedef struct pair {
    const scn_t *s;
    const scn_run_opts_t *o;
    side_t *a, *b;
    int result;
    unsigned stop_line; /* the op both stopped at, 0: they ran every op */
    size_t ops_run;     /* ops both ran */
    int diverged;
    scn_divergence_t d;
    scn_lat_t lat;
} pair_t;

static const char *outcome_word(int rc)
{
    return rc == SCN_PASS ? "ok" : rc == SCN_FAIL ? "MISMATCH" : "ERROR";
}

static int checker_equal(const scn_checker_t *x, const scn_checker_t *y)
{
    return x->dma == y->dma && x->dma_keyed == y->dma_keyed && x->invalidations == y->invalidations &&
           x->registrations == y->registrations && x->write_pkts == y->write_pkts && x->breaches == y->breaches &&
           x->fence_waits == y->fence_waits && x->drain_waits == y->drain_waits &&
           x->refused_after_inv == y->refused_after_inv;
}

/* ================================================================ text */

static void print_failures(const pair_t *p, FILE *err)
{
    const side_t *a = p->a, *b = p->b;
    int same = a->rc && b->rc && a->rep.cmdline == b->rep.cmdline && a->rep.line == b->rep.line &&
               !strcmp(a->rep.msg, b->rep.msg);
    for (const side_t *x = a; x; x = x == a && !same ? b : NULL) {
        if (!x->rc)
            continue;
        char whose[48];
        snprintf(whose, sizeof whose, same ? "both engines" : "the %s engine", x->label);
        if (x->rep.cmdline)
            fprintf(err, "hcasim run: command line: %s (%s)\n", x->rep.msg, whose);
        else
            fprintf(err, "%s:%u: %s (on %s)\n", p->s->file, x->rep.line, x->rep.msg, whose);
    }
    if (p->diverged) {
        if (p->d.line)
            fprintf(err, "%s:%u: op %s: ", p->s->file, p->d.line, p->d.op);
        else
            fprintf(err, "%s: %s: ", p->s->file, p->d.op);
        fprintf(err, "engines diverge on %s: %s %s, %s %s\n", p->d.field, a->label, p->d.a, b->label, p->d.b);
    }
}

static void print_latency(const pair_t *p, FILE *out)
{
    const scn_lat_t *l = &p->lat;
    const char *fa = p->a->label, *fb = p->b->label;
    for (size_t k = 0; p->o->verbose && k < l->nwrs; k++) {
        const scn_lat_wr_t *w = &l->wrs[k];
        fprintf(out, "  %s:%u wr_id %" PRIu64 " %s on %s: latency ", p->s->file, w->wr->line, w->wr->wr_id,
                w->wr->opcode, w->wr->qp);
        if (w->both)
            fprintf(out, "%s %" PRIu64 " %s %" PRIu64 " error %+.1f%%\n", fa, w->a, fb, w->b, w->err);
        else
            fprintf(out, "not compared (completed on %s: %s, on %s: %s)\n", fa, p->a->rec.wrs[k].done ? "yes" : "no",
                    fb, p->b->rec.wrs[k].done ? "yes" : "no");
    }
    fprintf(out, "latency error (%s vs %s, post->CQE, %zu WR%s): ", fb, fa, l->count, l->count == 1 ? "" : "s");
    if (!l->count) {
        fprintf(out, "no work request completed on both engines\n");
        return;
    }
    const scn_lat_wr_t *w = &l->wrs[l->worst];
    fprintf(out, "median %.1f%%, p95 %.1f%%, max %.1f%% (worst: %s:%u wr_id %" PRIu64 ", %s %" PRIu64 " %s %" PRIu64
                 " cycles)\n",
            l->median, l->p95, l->max, p->s->file, w->wr->line, w->wr->wr_id, fa, w->a, fb, w->b);
}

static void print_report(const pair_t *p, FILE *out, FILE *err)
{
    const side_t *a = p->a, *b = p->b;
    fflush(out); /* the reasons come before the summary, also when both go to one pipe */
    print_failures(p, err);
    fflush(err);
    for (const side_t *x = a; x; x = x == a ? b : NULL)
        if (x->rep.fw) {
            char whose[32];
            snprintf(whose, sizeof whose, " (%s)", x->label);
            scn_print_fw(out, x->rep.fw, whose);
        }
    if (a->rep.checker && b->rep.checker && checker_equal(a->rep.checker, b->rep.checker)) {
        char pre[64];
        snprintf(pre, sizeof pre, "checker (%s, %s alike): ", a->label, b->label);
        scn_print_checker(out, pre, a->rep.checker);
    } else
        for (const side_t *x = a; x; x = x == a ? b : NULL)
            if (x->rep.checker) {
                char pre[48];
                snprintf(pre, sizeof pre, "checker (%s): ", x->label);
                scn_print_checker(out, pre, x->rep.checker);
            }
    print_latency(p, out);
    fprintf(out, "%s %s: %zu ops, ", scn_result_name(p->result), p->s->file, scn_op_count(p->s));
    if (p->result == SCN_PASS)
        fprintf(out, "engines %s+%s agree", a->label, b->label);
    else if (p->stop_line || a->rc || b->rc) {
        unsigned line = p->stop_line ? p->stop_line : a->rc ? a->rep.line : b->rep.line;
        fprintf(out, "stopped%s", line ? "" : ":");
        if (line)
            fprintf(out, " at line %u:", line);
        fprintf(out, " %s %s, %s %s%s", a->label, outcome_word(a->rc), b->label, outcome_word(b->rc),
                p->diverged ? ", engines diverge" : "");
    } else
        fprintf(out, "engines %s+%s diverge at the end of the run", a->label, b->label);
    fprintf(out, "; %s %" PRIu64 " cycles, %s %" PRIu64 " cycles, seed %" PRIu64 "\n", a->label, a->rep.cycles,
            b->label, b->rep.cycles, a->rep.seed);
}

/* ================================================================ JSON */

static void json_str(FILE *f, const char *s)
{
    json_write_string(f, s, strlen(s));
}

static void json_side(FILE *f, const side_t *x)
{
    fprintf(f, "{\"engine\":\"%s\",\"result\":\"%s\",\"cycles\":%" PRIu64 ",\"failure\":", scn_engine_name(x->engine),
            x->rc == SCN_PASS ? "pass" : x->rc == SCN_FAIL ? "fail" : "error", x->rep.cycles);
    scn_json_failure(f, x->rc, x->rep.line, x->rep.op, x->rep.msg);
    fputs(",\"checker\":", f);
    scn_json_checker(f, x->rep.checker);
    fputs(",\"breaches\":", f);
    scn_json_breaches(f, x->rep.pc);
    fputc('}', f);
}

static void json_both(FILE *f, const pair_t *p)
{
    fprintf(f, "{\"ops\":%zu,\"ops_run\":%zu,\"rtl\":", scn_op_count(p->s), p->ops_run);
    json_side(f, p->a);
    fputs(",\"model\":", f);
    json_side(f, p->b);
    fputs(",\"divergence\":", f);
    if (p->diverged) {
        fprintf(f, "{\"line\":%u,\"op\":", p->d.line);
        json_str(f, p->d.op);
        fputs(",\"field\":", f);
        json_str(f, p->d.field);
        fputs(",\"rtl\":", f);
        json_str(f, p->d.a);
        fputs(",\"model\":", f);
        json_str(f, p->d.b);
        fputc('}', f);
    } else
        fputs("null", f);
    const scn_lat_t *l = &p->lat;
    fprintf(f, ",\"latency\":{\"count\":%zu,\"median\":%.3f,\"p95\":%.3f,\"max\":%.3f,\"worst\":", l->count, l->median,
            l->p95, l->max);
    if (l->worst >= 0) {
        const scn_lat_wr_t *w = &l->wrs[l->worst];
        fprintf(f, "{\"line\":%u,\"wr_id\":%" PRIu64 ",\"rtl\":%" PRIu64 ",\"model\":%" PRIu64 "}}", w->wr->line,
                w->wr->wr_id, w->a, w->b);
    } else
        fputs("null}", f);
    fputs(",\"wrs\":[", f);
    for (size_t k = 0; k < l->nwrs; k++) {
        const scn_lat_wr_t *w = &l->wrs[k];
        fprintf(f, "%s{\"line\":%u,\"qp\":", k ? "," : "", w->wr->line);
        json_str(f, w->wr->qp);
        fprintf(f, ",\"wr_id\":%" PRIu64 ",\"opcode\":", w->wr->wr_id);
        json_str(f, w->wr->opcode);
        if (w->both)
            fprintf(f, ",\"rtl\":%" PRIu64 ",\"model\":%" PRIu64 ",\"error\":%.3f}", w->a, w->b, w->err);
        else
            fputs(",\"rtl\":null,\"model\":null,\"error\":null}", f);
    }
    fputs("]}", f);
}

static int write_json(const char *path, const pair_t *p)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    const side_t *a = p->a, *b = p->b;
    fputs("{\"file\":", f);
    json_str(f, p->s->file);
    fprintf(f, ",\"engine\":\"both\",\"engines\":[\"%s\",\"%s\"],\"seed\":%" PRIu64 ",\"cycles\":%" PRIu64
               ",\"result\":\"%s\",\"failure\":",
            scn_engine_name(a->engine), scn_engine_name(b->engine), a->rep.seed, a->rep.cycles,
            p->result == SCN_PASS ? "pass" : p->result == SCN_FAIL ? "fail" : "error");
    /* the first reason: an engine's failure, else the divergence */
    const side_t *failed = a->rc ? a : b->rc ? b : NULL;
    if (failed)
        scn_json_failure(f, failed->rc, failed->rep.line, failed->rep.op, failed->rep.msg);
    else if (p->diverged) {
        char msg[1024];
        snprintf(msg, sizeof msg, "op %s: engines diverge on %s: %s %s, %s %s", p->d.op, p->d.field, a->label, p->d.a,
                 b->label, p->d.b);
        scn_json_failure(f, SCN_FAIL, p->d.line, p->d.op, msg);
    } else
        fputs("null", f);
    fputs(",\"firmware\":", f);
    if (a->rep.firmware)
        json_str(f, a->rep.firmware);
    else
        fputs("null", f);
    fputs(",\"checker\":", f);
    scn_json_checker(f, a->rep.checker);
    fputs(",\"timing\":", f); /* one device configuration for both */
    scn_json_timing(f, &a->rep);
    fputs(",\"breaches\":", f); /* the reference's, else the other's (each side's are under "both") */
    scn_json_breaches(f, a->rep.pc && protcheck_count(a->rep.pc) ? a->rep.pc : b->rep.pc);
    fputs(",\"coverage\":", f); /* the reference's: the engines are twins */
    scn_cover_json(f, a->rep.cov);
    fputs(",\"wrs\":", f);
    scn_json_wrs(f, &a->rep);
    fputs(",\"both\":", f);
    json_both(f, p);
    fputs("}\n", f);
    int bad = ferror(f);
    return fclose(f) || bad ? -EIO : 0;
}

/* ================================================================ the pair */

int scn_record(const scn_t *s, const scn_run_opts_t *o, scn_rec_t *rec)
{
    scn_run_opts_t q = *o;
    FILE *sink = o->verbose ? NULL : fopen("/dev/null", "w"); /* the completions' lines are -v's here */
    if (sink)
        q.out = sink;
    q.json_out = NULL;
    run_t *r = scn_run_new(s, &q, q.engine, rec, "");
    if (!r) {
        if (sink)
            fclose(sink);
        return SCN_ERROR;
    }
    int rc = SCN_PASS;
    for (size_t i = 0; i < s->nops && rc == SCN_PASS; i++)
        rc = scn_run_op(r, i);
    scn_report_t rep;
    scn_checker_t ck;
    scn_fw_state_t fw;
    rc = scn_run_end(r, rc, &rep, &ck, &fw);
    scn_run_free(r);
    if (sink)
        fclose(sink);
    return rc;
}

/* A side runs with the pair's output options (o) and its own engine, seed and firmware (mine). */
static void side_init(side_t *x, const scn_run_opts_t *o, const scn_run_opts_t *mine, const char *label, FILE *out)
{
    memset(x, 0, sizeof *x);
    x->engine = mine->engine;
    snprintf(x->label, sizeof x->label, "%s", label);
    snprintf(x->prefix, sizeof x->prefix, "%-6s ", label);
    x->o = *o;
    x->o.engine = mine->engine;
    x->o.seed_set = mine->seed_set;
    x->o.seed = mine->seed;
    x->o.firmware = mine->firmware;
    x->o.json_out = NULL; /* the pair writes one JSON result */
    x->o.out = out;
}

int scn_run_pair(const scn_t *s, const scn_run_opts_t *o, const scn_run_opts_t *ob)
{
    FILE *out = o->out ? o->out : stdout, *err = o->err ? o->err : stderr;
    /* Without -v each engine's own lines (its completions) would say twice what the report says once. */
    FILE *sink = o->verbose ? NULL : fopen("/dev/null", "w");
    side_t a, b;
    char lb[16];
    snprintf(lb, sizeof lb, "%s%s", scn_engine_name(ob->engine), o->engine == ob->engine ? "#2" : "");
    side_init(&a, o, o, scn_engine_name(o->engine), sink ? sink : out);
    side_init(&b, o, ob, lb, sink ? sink : out);
    b.o.trace = NULL; /* waves and the firmware profile are the reference run's */
    b.o.fw_profile = NULL;
    a.run = scn_run_new(s, &a.o, a.engine, &a.rec, o->verbose ? a.prefix : "");
    b.run = scn_run_new(s, &b.o, b.engine, &b.rec, o->verbose ? b.prefix : "");
    pair_t p = {s, o, &a, &b, SCN_PASS, 0, 0, 0, {0}, {0}};
    p.lat.worst = -1;
    int rc = a.run && b.run ? SCN_PASS : SCN_ERROR;
    if (rc)
        fprintf(err, "%s: out of memory\n", s->file);
    for (size_t i = 0; !rc && i < s->nops; i++) {
        size_t na = a.rec.nobs, nb = b.rec.nobs;
        a.rc = scn_run_op(a.run, i);
        b.rc = scn_run_op(b.run, i);
        p.ops_run = i + 1;
        if (a.rc != SCN_ERROR && b.rc != SCN_ERROR) /* an op one engine cannot run is no functional divergence */
            p.diverged = scn_rec_compare(&a.rec, na, &b.rec, nb, &p.d);
        if (a.rc || b.rc || p.diverged) {
            p.stop_line = s->ops[i].line;
            break;
        }
    }
    if (!rc) {
        size_t na = a.rec.nobs, nb = b.rec.nobs;
        a.rc = scn_run_end(a.run, a.rc, &a.rep, &a.ck, &a.fw);
        b.rc = scn_run_end(b.run, b.rc, &b.rep, &b.ck, &b.fw);
        if (!p.diverged && a.rc != SCN_ERROR && b.rc != SCN_ERROR) /* the checker's final counts */
            p.diverged = scn_rec_compare(&a.rec, na, &b.rec, nb, &p.d);
        if (scn_latency(&a.rec, &b.rec, &p.lat) || a.rec.oom || b.rec.oom) {
            fprintf(err, "%s: out of memory recording the runs: the comparison is incomplete\n", s->file);
            rc = SCN_ERROR;
        }
        if (p.diverged)
            scn_watch_diverged(o->watch);
        p.result = a.rc == SCN_ERROR || b.rc == SCN_ERROR || rc ? SCN_ERROR
                   : a.rc || b.rc || p.diverged              ? SCN_FAIL
                                                             : SCN_PASS;
        print_report(&p, out, err);
        int jrc = o->json_out ? write_json(o->json_out, &p) : 0;
        if (jrc) { /* checked before the run; a write can still fail (disk full) */
            fprintf(err, "hcasim run: --json %s: %s\n", o->json_out, strerror(-jrc));
            if (p.result == SCN_PASS)
                p.result = SCN_ERROR;
        }
        scn_run_fw_profile(a.run, out);
        rc = p.result;
    }
    scn_lat_free(&p.lat);
    scn_run_free(a.run);
    scn_run_free(b.run);
    scn_rec_free(&a.rec);
    scn_rec_free(&b.rec);
    if (sink)
        fclose(sink);
    return rc;
}
