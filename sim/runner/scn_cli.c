/* scn_cli.c — the options of a scenario run as a command line gives them,
 * shared by `hcasim run` and `hcasim-vp` (scenario.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int scn_parse_run_option(int argc, char **argv, int *i, scn_run_opts_t *o, char *err, size_t errlen)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    static const char *const valued[] = {"--engine", "--seed", "--trace-from", "--trace-to", "--json", "--trace",
                                         "--firmware", "--fw-profile", "--peer-stats", NULL};
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
        o->verbose = 1;
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
