/* scn_waves.c — waves where they matter (docs/waves.md): `--trace-when`
 * windows around triggers and `--waves-on-fail` around a failure.
 *
 * Both are a deterministic re-run: the run asked for goes untraced (on any
 * engine) while a watch notes the cycles that matter (trigger hits, the
 * failure, the breach's issue/invalidation/landing cycles); then the same
 * scenario runs again on the RTL engine (lockstep stays lockstep), quietly,
 * dumping only those windows into one FST, and a GTKWave save file with
 * markers at those cycles is written beside it (abi/gtkwgen.py's race view).
 * The engines are cycle-exact twins, so a model run's cycles are the RTL's;
 * the re-run checks that it failed the same way and says so when it did not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protcheck.h"
#include "scn_int.h"

#ifndef HCASIM_GTKWGEN_DEFAULT
#define HCASIM_GTKWGEN_DEFAULT "abi/gtkwgen.py"
#endif
#ifndef HCASIM_ABI_DEFAULT
#define HCASIM_ABI_DEFAULT "abi/hca.toml"
#endif

/** GTKWave names markers A..Z. */
#define MAX_MARKERS 26

typedef struct marker {
    char name[24];
    uint64_t cycle;
} marker_t;

/** A window [from, to) and the first trigger hit in it. */
typedef struct span {
    uint64_t from, to, hit;
} span_t;

struct scn_watch {
    const scn_run_opts_t *o;
    const void *owner; /* the run whose events and lines it follows (the reference of a pair) */
    int sym[SCN_MAX_TRACE_WHEN]; /* a named trigger's symbol (scn_check_waves_opts), -1: by value */
    span_t *spans;
    size_t nspans, cap;
    int oom;
    /* the first failure of a watched run */
    unsigned last_line; /* the owner's last op */
    uint64_t last_start, last_end;
    /* how the owner's run ended: what its traced re-run must end as */
    int own_rc;
    unsigned own_line;     /* its failing op's line, 0: none */
    uint64_t own_breach;   /* its first breach's cycle, PROTCHECK_NONE: none */
    int failed;
    unsigned line;
    uint64_t op_start, stop;
    int diverged;
    int have_breach;
    protcheck_violation_t breach;
};

static uint64_t before_of(const scn_run_opts_t *o)
{
    return o->waves_window_set ? o->waves_before : SCN_WAVES_BEFORE_DEFAULT;
}
static uint64_t after_of(const scn_run_opts_t *o)
{
    return o->waves_window_set ? o->waves_after : SCN_WAVES_AFTER_DEFAULT;
}

static void add_span(scn_watch_t *w, uint64_t from, uint64_t to, uint64_t hit)
{
    if (w->nspans) { /* hits come in cycle order: most merge with the last */
        span_t *l = &w->spans[w->nspans - 1];
        if (from >= l->from && from <= l->to) {
            if (to > l->to)
                l->to = to;
            return;
        }
    }
    if (w->nspans == w->cap) {
        size_t nc = w->cap ? 2 * w->cap : 64;
        span_t *n = realloc(w->spans, nc * sizeof *n);
        if (!n) {
            w->oom = 1;
            return;
        }
        w->spans = n;
        w->cap = nc;
    }
    w->spans[w->nspans++] = (span_t){from, to, hit};
}

/* A window around [lo, hi] for trigger t. */
static void add_hit(scn_watch_t *w, const scn_trace_when_t *t, uint64_t lo, uint64_t hi)
{
    const uint64_t b = t->window_set ? t->before : before_of(w->o), a = t->window_set ? t->after : after_of(w->o);
    const uint64_t to = hi + a + 1 < hi ? UINT64_MAX : hi + a + 1;
    add_span(w, lo > b ? lo - b : 0, to, lo);
}

static int key_hit(const scn_trace_when_t *t, uint64_t value, uint32_t key)
{
    return key && ((t->kind == SCN_WHEN_KEY && key == value) ||
                   ((t->kind == SCN_WHEN_MPT || t->kind == SCN_WHEN_MR) && key >> HCA_KEY_INDEX_SHIFT == value));
}

/* The device's event log: key, mpt and qp triggers. */
static void on_event(void *ctx, const evlog_event_t *e)
{
    scn_watch_t *w = ctx;
    for (size_t i = 0; i < w->o->nwhen; i++) {
        const scn_trace_when_t *t = &w->o->when[i];
        /* a named QP or MR: its number now (an MR's index is fixed once it exists) */
        const uint64_t v = w->sym[i] >= 0 ? scn_run_number(w->owner, w->sym[i]) : t->value;
        int hit = 0;
        if (v == UINT64_MAX)
            continue;
        switch (e->kind) {
        case EVLOG_DMA_ISSUE:
        case EVLOG_DMA_DONE:
            hit = key_hit(t, v, e->dma->key) || (t->kind == SCN_WHEN_QP && e->dma->qpn && e->dma->qpn == v);
            break;
        case EVLOG_PKT_TX:
        case EVLOG_PKT_RX:
            hit = key_hit(t, v, e->pkt->rkey) ||
                  (t->kind == SCN_WHEN_QP && (hca_pkt_get_src_qpn(e->pkt) == v || hca_pkt_get_dst_qpn(e->pkt) == v));
            break;
        case EVLOG_KEY_INVALIDATING:
        case EVLOG_KEY_INVALID:
        case EVLOG_KEY_VALID:
        case EVLOG_KEY_DEPENDS: hit = key_hit(t, v, e->key); break;
        case EVLOG_QP_FENCED:
        case EVLOG_QP_LIVE: hit = t->kind == SCN_WHEN_QP && e->qpn == v; break;
        default: break;
        }
        if (hit)
            add_hit(w, t, e->cycle, e->cycle);
    }
}

void scn_watch_device(scn_watch_t *w, const void *run, hca_dev_t *dev)
{
    if (!w || w->owner)
        return;
    w->owner = run;
    int events = 0;
    for (size_t i = 0; i < w->o->nwhen; i++)
        events |= w->o->when[i].kind <= SCN_WHEN_MR;
    if (events && evlog_subscribe(hca_dev_log(dev), on_event, w))
        w->oom = 1;
}

void scn_watch_undevice(scn_watch_t *w, const void *run, hca_dev_t *dev)
{
    if (w && w->owner == run && dev)
        evlog_unsubscribe(hca_dev_log(dev), on_event, w);
}

void scn_watch_op(scn_watch_t *w, const void *run, unsigned line, uint64_t start, uint64_t end, int rc)
{
    if (!w)
        return;
    if (w->owner == run || !w->owner) {
        w->last_line = line;
        w->last_start = start;
        w->last_end = end;
        if (rc == SCN_FAIL && !w->own_line)
            w->own_line = line;
    }
    if (w->owner == run || !w->owner)
        for (size_t i = 0; i < w->o->nwhen; i++)
            if (w->o->when[i].kind == SCN_WHEN_LINE && w->o->when[i].value == line)
                add_hit(w, &w->o->when[i], start, end);
    if (rc == SCN_FAIL && !w->failed) {
        w->failed = 1;
        w->line = line;
        w->op_start = start;
        w->stop = end;
    }
}

void scn_watch_end(scn_watch_t *w, const void *run, hca_dev_t *dev, int rc)
{
    if (!w || !dev)
        return;
    const protcheck_t *pc = hca_dev_protcheck(dev);
    const uint64_t n = protcheck_count(pc);
    if (w->owner == run)
        for (size_t i = 0; i < w->o->nwhen; i++) {
            if (w->o->when[i].kind != SCN_WHEN_BREACH)
                continue;
            protcheck_violation_t v;
            for (size_t k = 0; k < n && !protcheck_get(pc, k, &v); k++) {
                uint64_t lo = v.cycle, hi = v.cycle;
                const uint64_t c[] = {v.issue_cycle, v.inval_req_cycle, v.inval_cycle, v.land_cycle};
                for (size_t j = 0; j < 4; j++)
                    if (c[j] != PROTCHECK_NONE) {
                        lo = c[j] < lo ? c[j] : lo;
                        hi = c[j] > hi ? c[j] : hi;
                    }
                add_hit(w, &w->o->when[i], lo, hi);
            }
        }
    if (w->owner == run) {
        protcheck_violation_t v;
        w->own_rc = rc;
        w->own_breach = n && !protcheck_get(pc, 0, &v) ? v.cycle : PROTCHECK_NONE;
    }
    if (rc == SCN_FAIL && n && !w->have_breach && !protcheck_get(pc, 0, &w->breach))
        w->have_breach = 1;
    if (rc == SCN_FAIL && !w->failed) { /* failed at the end of the run (a file of only `device`) */
        w->failed = 1;
        w->op_start = w->stop = hca_dev_cycle(dev);
    }
}

void scn_watch_diverged(scn_watch_t *w)
{
    if (!w || w->failed)
        return;
    w->failed = w->diverged = 1;
    w->line = w->last_line;
    w->op_start = w->last_start;
    w->stop = w->last_end;
}

/* ================================================================ the re-run and its files */

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* Sort and merge into flat [from, to) pairs (*out, malloc'd); n pairs. */
static size_t merge_spans(span_t *s, size_t n, uint64_t **out)
{
    qsort(s, n, sizeof *s, span_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && s[i].from <= s[k - 1].to) {
            if (s[i].to > s[k - 1].to)
                s[k - 1].to = s[i].to;
            if (s[i].hit < s[k - 1].hit)
                s[k - 1].hit = s[i].hit;
        } else
            s[k++] = s[i];
    }
    *out = k ? malloc(2 * k * sizeof **out) : NULL;
    for (size_t i = 0; *out && i < k; i++) {
        (*out)[2 * i] = s[i].from;
        (*out)[2 * i + 1] = s[i].to;
    }
    return *out ? k : 0;
}

/* The race view for fst with these markers (abi/gtkwgen.py): 0, or -1 (its reason on stderr). */
static int write_gtkw(const char *fst, const char *gtkw, const marker_t *mk, size_t nmk)
{
    char script[4200], abi[4200], dir[4200];
    scn_share_path(script, sizeof script, "gtkwgen.py", HCASIM_GTKWGEN_DEFAULT);
    scn_share_path(abi, sizeof abi, "hca.toml", HCASIM_ABI_DEFAULT);
    snprintf(dir, sizeof dir, "%s", gtkw);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    char marks[MAX_MARKERS][48];
    const char *argv[12 + 2 * MAX_MARKERS];
    size_t a = 0;
    argv[a++] = "python3";
    argv[a++] = script;
    argv[a++] = "view";
    argv[a++] = abi;
    argv[a++] = dir;
    argv[a++] = "--dump";
    argv[a++] = fst;
    argv[a++] = "--out";
    argv[a++] = gtkw;
    for (size_t i = 0; i < nmk && i < MAX_MARKERS; i++) {
        snprintf(marks[i], sizeof marks[i], "%s=%" PRIu64, mk[i].name, mk[i].cycle);
        argv[a++] = "--marker";
        argv[a++] = marks[i];
    }
    argv[a] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "hcasim run: cannot run python3 %s: %s\n", script, strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    return 0;
}

/* Append ,"waves":{…} to the JSON result the run wrote (it ends "}\n"). */
static void json_add_waves(const char *path, const char *fst, const char *gtkw, scn_engine_t engine,
                           const uint64_t *sp, size_t n, const marker_t *mk, size_t nmk, int reproduced)
{
    FILE *f = path ? fopen(path, "r+") : NULL;
    if (!f)
        return;
    if (fseek(f, -2, SEEK_END) || fgetc(f) != '}' || fseek(f, -2, SEEK_END)) {
        fclose(f);
        return;
    }
    fputs(",\"waves\":{\"fst\":", f);
    json_write_string(f, fst, strlen(fst));
    fputs(",\"gtkw\":", f);
    if (gtkw)
        json_write_string(f, gtkw, strlen(gtkw));
    else
        fputs("null", f);
    fprintf(f, ",\"engine\":\"%s\",\"reproduced\":%s,\"windows\":[", scn_engine_name(engine),
            reproduced ? "true" : "false");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "", sp[2 * i], sp[2 * i + 1]);
    fputs("],\"markers\":{", f);
    for (size_t i = 0; i < nmk; i++) {
        fprintf(f, "%s", i ? "," : "");
        json_write_string(f, mk[i].name, strlen(mk[i].name));
        fprintf(f, ":%" PRIu64, mk[i].cycle);
    }
    fputs("}}}\n", f);
    fclose(f);
}

static void add_marker(marker_t *mk, size_t *n, const char *name, uint64_t cycle)
{
    if (cycle == PROTCHECK_NONE || *n == MAX_MARKERS)
        return;
    for (size_t i = 0; i < *n; i++)
        if (mk[i].cycle == cycle && !strcmp(mk[i].name, name))
            return;
    snprintf(mk[*n].name, sizeof mk[*n].name, "%s", name);
    mk[(*n)++].cycle = cycle;
}

/* Run s again on the RTL (lockstep: as it ran), quietly, dumping spans into
 * fst; the re-run's own watch in *again. */
static int rerun_traced(const scn_t *s, const scn_run_opts_t *o, const char *fst, const uint64_t *sp, size_t n,
                        scn_watch_t *again)
{
    FILE *sink = fopen("/dev/null", "w");
    scn_run_opts_t q = *o;
    q.engine = o->engine == SCN_ENGINE_LOCKSTEP ? SCN_ENGINE_LOCKSTEP : SCN_ENGINE_RTL;
    q.out = q.err = sink ? sink : stderr;
    q.json_out = q.fw_profile = q.peer_stats = NULL;
    q.verbose = 0;
    q.waves_dir = NULL;
    q.nwhen = 0;
    q.trace = fst;
    q.trace_from = q.trace_to = 0;
    q.trace_spans = sp;
    q.ntrace_spans = n;
    q.run_on_to = sp[2 * n - 1] == UINT64_MAX ? 0 : sp[2 * n - 1];
    memset(again, 0, sizeof *again);
    again->o = &q;
    q.watch = again;
    int rc = scn_run_single(s, &q);
    if (sink)
        fclose(sink);
    return rc;
}

/* "FILE.fst" -> "FILE.gtkw" (same folder). */
static void gtkw_of(const char *fst, char *out, size_t len)
{
    size_t n = strlen(fst);
    if (n > 4 && !strcmp(fst + n - 4, ".fst"))
        n -= 4;
    snprintf(out, len, "%.*s.gtkw", (int)n, fst);
}

/* The traced re-run over sp, the save file, the lines printed and the JSON field. */
static void write_waves(const scn_t *s, const scn_run_opts_t *o, const char *what, const char *fst, uint64_t *sp,
                        size_t n, const marker_t *mk, size_t nmk, const scn_watch_t *first)
{
    FILE *out = o->out ? o->out : stdout, *err = o->err ? o->err : stderr;
    scn_watch_t again;
    const int rrc = rerun_traced(s, o, fst, sp, n, &again);
    const scn_engine_t eng = o->engine == SCN_ENGINE_LOCKSTEP ? SCN_ENGINE_LOCKSTEP : SCN_ENGINE_RTL;
    struct stat st;
    if (stat(fst, &st)) {
        fprintf(err, "hcasim run: %s: the traced re-run wrote no %s (re-run exit %d)\n", what, fst, rrc);
        free(again.spans);
        return;
    }
    /* The re-run ended as the reference run did (of a pair: the RTL's, which
     * a divergence need not fail): same result, same failing line, same first
     * breach at the same cycle. */
    const int reproduced = rrc == first->own_rc && again.own_rc == first->own_rc &&
                           again.own_line == first->own_line && again.own_breach == first->own_breach;
    free(again.spans);
    char gtkw[4200];
    gtkw_of(fst, gtkw, sizeof gtkw);
    const int grc = write_gtkw(fst, gtkw, mk, nmk);
    fprintf(out, "waves (%s): %s, %zu window%s from cycle %" PRIu64 " to %" PRIu64 ", a re-run on the %s engine%s\n",
            what, fst, n, n == 1 ? "" : "s", sp[0], sp[2 * n - 1], scn_engine_name(eng),
            reproduced ? "" : " that did NOT end as this run did (see docs/waves.md)");
    for (size_t i = 0; i < nmk; i++)
        fprintf(out, "  marker %c: %s at cycle %" PRIu64 "\n", 'A' + (int)i, mk[i].name, mk[i].cycle);
    if (!grc)
        fprintf(out, "  view: gtkwave %s\n", gtkw);
    else
        fprintf(err, "hcasim run: %s: could not write %s (abi/gtkwgen.py failed); the FST is there\n", what, gtkw);
    json_add_waves(o->json_out, fst, grc ? NULL : gtkw, eng, sp, n, mk, nmk, reproduced);
}

/* mkdir -p: 0, or -1 with errno. */
static int mkdir_p(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

/* --waves-on-fail: the window around the failure into DIR/STEM.fst. */
static void waves_on_fail(const scn_t *s, const scn_run_opts_t *o, const scn_watch_t *w)
{
    marker_t mk[MAX_MARKERS];
    size_t nmk = 0;
    if (w->have_breach) {
        const protcheck_violation_t *v = &w->breach;
        add_marker(mk, &nmk, "issue", v->issue_cycle);
        add_marker(mk, &nmk, "inval_req", v->inval_req_cycle);
        add_marker(mk, &nmk, "inval", v->inval_cycle);
        add_marker(mk, &nmk, "land", v->land_cycle);
        add_marker(mk, &nmk, "breach", v->cycle);
    }
    /* The window: around the breach's cycles, else the failing op's end (and
     * its start when near: a poll that timed out is long). The op's cycles
     * are marked when the window holds them. */
    const uint64_t b = before_of(o), a = after_of(o);
    uint64_t lo = w->stop, hi = w->stop;
    for (size_t i = 0; i < nmk; i++) {
        lo = mk[i].cycle < lo || !i ? mk[i].cycle : lo;
        hi = mk[i].cycle > hi || !i ? mk[i].cycle : hi;
    }
    if (!w->have_breach && w->stop - w->op_start <= b)
        lo = w->op_start;
    uint64_t sp[2] = {lo > b ? lo - b : 0, hi + a + 1};
    if (w->op_start >= sp[0] && w->op_start < sp[1])
        add_marker(mk, &nmk, "op_start", w->op_start);
    if (w->stop >= sp[0] && w->stop < sp[1])
        add_marker(mk, &nmk, w->diverged ? "diverge" : "fail", w->stop);
    if (mkdir_p(o->waves_dir)) {
        fprintf(o->err ? o->err : stderr, "hcasim run: --waves-on-fail=%s: %s\n", o->waves_dir, strerror(errno));
        return;
    }
    const char *base = strrchr(s->file, '/');
    base = base ? base + 1 : s->file;
    size_t bl = strlen(base);
    if (bl > 6 && !strcmp(base + bl - 6, ".jsonl"))
        bl -= 6;
    char fst[4200];
    snprintf(fst, sizeof fst, "%s/%.*s.fst", o->waves_dir, (int)bl, base);
    write_waves(s, o, "on fail", fst, sp, 1, mk, nmk, w);
}

/* --trace-when: every trigger's windows into --trace's file. */
static void waves_when(const scn_t *s, const scn_run_opts_t *o, scn_watch_t *w)
{
    FILE *out = o->out ? o->out : stdout;
    if (o->trace_from || o->trace_to) /* an explicit --trace-from/--trace-to window joins them */
        add_span(w, o->trace_from, o->trace_to ? o->trace_to : UINT64_MAX, o->trace_from);
    if (!w->nspans) {
        fprintf(out, "waves (--trace-when): no trigger was hit; %s not written\n", o->trace);
        remove(o->trace);
        return;
    }
    uint64_t *sp = NULL;
    size_t n = merge_spans(w->spans, w->nspans, &sp);
    if (!n) {
        fprintf(o->err ? o->err : stderr, "hcasim run: --trace-when: out of memory\n");
        return;
    }
    marker_t mk[MAX_MARKERS];
    size_t nmk = 0;
    for (size_t i = 0; i < n && nmk < MAX_MARKERS; i++) {
        char name[24];
        snprintf(name, sizeof name, "hit%zu", i + 1);
        add_marker(mk, &nmk, name, w->spans[i].hit);
    }
    write_waves(s, o, "--trace-when", o->trace, sp, n, mk, nmk, w);
    free(sp);
}

int scn_check_waves_opts(const scn_t *s, const scn_run_opts_t *o, char *err, size_t errlen)
{
    if (o->nwhen && !o->trace) {
        snprintf(err, errlen, "--trace-when needs --trace OUT.fst (the file its windows go to)");
        return SCN_ERROR;
    }
    for (size_t i = 0; i < o->nwhen; i++) {
        const scn_trace_when_t *t = &o->when[i];
        if (t->name[0] && scn_sym_lookup(s, t->name, t->kind == SCN_WHEN_QP ? SYM_QP : SYM_MR) < 0) {
            snprintf(err, errlen, "--trace-when %s=%s: %s binds no %s of that name", t->kind == SCN_WHEN_QP ? "qp" : "mr",
                     t->name, s->file, t->kind == SCN_WHEN_QP ? "QP" : "MR");
            return SCN_ERROR;
        }
        if (o->when[i].kind != SCN_WHEN_LINE)
            continue;
        size_t k = 0;
        while (k < s->nops && s->ops[k].line != o->when[i].value)
            k++;
        if (k == s->nops) {
            snprintf(err, errlen, "--trace-when line=%" PRIu64 ": line %" PRIu64 " of %s holds no op", o->when[i].value,
                     o->when[i].value, s->file);
            return SCN_ERROR;
        }
    }
    return SCN_PASS;
}

int scn_run_watched(const scn_t *s, const scn_run_opts_t *o)
{
    return scn_run_pair_watched(s, o, NULL);
}

int scn_run_pair_watched(const scn_t *s, const scn_run_opts_t *o, const scn_run_opts_t *ob)
{
    scn_watch_t w;
    memset(&w, 0, sizeof w);
    w.o = o;
    for (size_t i = 0; i < o->nwhen; i++) /* checked by scn_check_waves_opts */
        w.sym[i] = o->when[i].name[0] ? scn_sym_lookup(s, o->when[i].name,
                                                       o->when[i].kind == SCN_WHEN_QP ? SYM_QP : SYM_MR)
                                      : -1;
    scn_run_opts_t p = *o;
    p.watch = &w;
    if (o->nwhen)
        p.trace = NULL; /* the windows are the re-run's */
    int rc = ob ? scn_run_pair(s, &p, ob) : o->engine == SCN_ENGINE_BOTH ? scn_run_both(s, &p) : scn_run_single(s, &p);
    if (w.oom)
        fprintf(o->err ? o->err : stderr, "hcasim run: out of memory watching for waves: some windows are missing\n");
    if (o->nwhen && rc != SCN_ERROR)
        waves_when(s, o, &w);
    if (o->waves_dir && rc == SCN_FAIL && w.failed)
        waves_on_fail(s, o, &w);
    free(w.spans);
    return rc;
}
