/* scn_cli.c — the options of a scenario run as a command line gives them,
 * shared by `hcasim run` and `hcasim-vp` (scenario.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

int scn_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

/* "B[:A]" (A absent: keep *after) into before/after: 0 or -1. */
static int parse_window(const char *s, uint64_t *before, uint64_t *after)
{
    char b[32];
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    if (n == 0 || n >= sizeof b)
        return -1;
    memcpy(b, s, n);
    b[n] = 0;
    if (scn_parse_u64(b, before))
        return -1;
    return colon ? scn_parse_u64(colon + 1, after) : 0;
}

/* --trace-when EXPR[@BEFORE[:AFTER]]: key=K, mpt=I, qp=N, line=L or breach. */
static int parse_when(const char *v, scn_run_opts_t *o, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        scn_when_kind_t kind;
    } kinds[] = {{"key=", SCN_WHEN_KEY}, {"mpt=", SCN_WHEN_MPT}, {"qp=", SCN_WHEN_QP}, {"mr=", SCN_WHEN_MR},
                 {"line=", SCN_WHEN_LINE}};
    if (o->nwhen == SCN_MAX_TRACE_WHEN) {
        snprintf(err, errlen, "--trace-when %s: at most %u triggers", v, SCN_MAX_TRACE_WHEN);
        return -1;
    }
    scn_trace_when_t *w = &o->when[o->nwhen];
    memset(w, 0, sizeof *w);
    char expr[64];
    const char *at = strchr(v, '@');
    size_t n = at ? (size_t)(at - v) : strlen(v);
    if (n >= sizeof expr)
        n = sizeof expr - 1;
    memcpy(expr, v, n);
    expr[n] = 0;
    int ok = 0;
    if (!strcmp(expr, "breach")) {
        w->kind = SCN_WHEN_BREACH;
        ok = 1;
    }
    for (size_t k = 0; !ok && k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t kl = strlen(kinds[k].name);
        if (!strncmp(expr, kinds[k].name, kl)) {
            w->kind = kinds[k].kind;
            ok = w->kind != SCN_WHEN_MR && !scn_parse_u64(expr + kl, &w->value);
            if (!ok && (w->kind == SCN_WHEN_QP || w->kind == SCN_WHEN_MR) && expr[kl] &&
                strlen(expr + kl) < sizeof w->name) { /* a name of the scenario's, found when the file is */
                snprintf(w->name, sizeof w->name, "%s", expr + kl);
                ok = 1;
            }
            if (!ok) {
                snprintf(err, errlen, "--trace-when %s: '%s' is not a %s", v, expr + kl,
                         w->kind == SCN_WHEN_MR ? "name (mr=NAME)" : w->kind == SCN_WHEN_QP ? "number or name" : "number");
                return -1;
            }
        }
    }
    if (!ok) {
        snprintf(err, errlen,
                 "--trace-when %s: expected key=K, mpt=I, qp=N|NAME, mr=NAME, line=L or breach, then @BEFORE[:AFTER]",
                 v);
        return -1;
    }
    if (at) {
        w->after = SCN_WAVES_AFTER_DEFAULT;
        if (parse_window(at + 1, &w->before, &w->after)) {
            snprintf(err, errlen, "--trace-when %s: expected @BEFORE[:AFTER] in cycles", v);
            return -1;
        }
        w->window_set = 1;
    }
    o->nwhen++;
    return 0;
}

int scn_parse_run_option(int argc, char **argv, int *i, scn_run_opts_t *o, char *err, size_t errlen)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    static const char *const valued[] = {"--engine",     "--seed",       "--trace-from", "--trace-to",
                                         "--json",       "--trace",      "--firmware",   "--fw-profile",
                                         "--peer-stats", "--trace-when", "--waves-window", NULL};
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
        o->verbose = 1;
        return 1;
    }
    if (!strcmp(a, "--waves-on-fail") || !strncmp(a, "--waves-on-fail=", 16)) {
        o->waves_dir = a[15] == '=' ? a + 16 : SCN_WAVES_DIR_DEFAULT;
        if (!o->waves_dir[0]) {
            snprintf(err, errlen, "--waves-on-fail=: expected a directory");
            return -1;
        }
        return 1;
    }
    size_t k = 0;
    while (valued[k] && strcmp(a, valued[k]))
        k++;
    if (!valued[k])
        return 0;
    if (!v) {
        snprintf(err, errlen, "unexpected argument '%s' (missing value?)", a);
        return -1;
    }
    uint64_t n = 0;
    if (!strcmp(a, "--engine")) {
        if (!strcmp(v, "rtl"))
            o->engine = SCN_ENGINE_RTL;
        else if (!strcmp(v, "model"))
            o->engine = SCN_ENGINE_MODEL;
        else if (!strcmp(v, "both"))
            o->engine = SCN_ENGINE_BOTH;
        else if (!strcmp(v, "lockstep"))
            o->engine = SCN_ENGINE_LOCKSTEP;
        else {
            snprintf(err, errlen, "--engine %s: expected rtl, model, both or lockstep", v);
            return -1;
        }
    } else if (!strcmp(a, "--seed") || !strcmp(a, "--trace-from") || !strcmp(a, "--trace-to")) {
        if (scn_parse_u64(v, &n)) {
            snprintf(err, errlen, "%s %s: expected a number", a, v);
            return -1;
        }
        if (!strcmp(a, "--seed")) {
            o->seed = n;
            o->seed_set = 1;
        } else if (!strcmp(a, "--trace-from"))
            o->trace_from = n;
        else
            o->trace_to = n;
    } else if (!strcmp(a, "--trace-when")) {
        if (parse_when(v, o, err, errlen))
            return -1;
    } else if (!strcmp(a, "--waves-window")) {
        o->waves_after = SCN_WAVES_AFTER_DEFAULT;
        if (parse_window(v, &o->waves_before, &o->waves_after)) {
            snprintf(err, errlen, "--waves-window %s: expected BEFORE[:AFTER] in cycles", v);
            return -1;
        }
        o->waves_window_set = 1;
    } else if (!strcmp(a, "--json"))
        o->json_out = v;
    else if (!strcmp(a, "--trace"))
        o->trace = v;
    else if (!strcmp(a, "--firmware"))
        o->firmware = v;
    else if (!strcmp(a, "--fw-profile"))
        o->fw_profile = v;
    else
        o->peer_stats = v;
    (*i)++;
    return 1;
}

void scn_share_path(char *out, size_t len, const char *name, const char *fallback)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, len, "%s/../share/hcasim/%s", exe, name);
            if (access(out, R_OK) == 0)
                return;
        }
    }
    snprintf(out, len, "%s", fallback);
}
