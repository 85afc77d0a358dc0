/* scn_diag.c — what a scenario is told when something is wrong: the reason
 * of a failing op ("op NAME: field "F": …"), of a file that cannot be loaded
 * ("FILE:LINE: …"), and the "did you mean" of an unknown name. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "scn_int.h"

static void vset(char *dst, size_t n, const char *prefix, const char *fmt, va_list ap)
{
    size_t used = (size_t)snprintf(dst, n, "%s", prefix);
    if (used < n)
        vsnprintf(dst + used, n - used, fmt, ap);
}

int scn_bad(ctx_t *c, const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "op %s: ", c->op ? c->op : "?");
    va_list ap;
    va_start(ap, fmt);
    vset(c->msg, sizeof c->msg, c->op ? prefix : "", fmt, ap);
    va_end(ap);
    return SCN_ERROR;
}

int scn_bad_field(ctx_t *c, const char *field, const char *fmt, ...)
{
    char prefix[256];
    if (c->op)
        snprintf(prefix, sizeof prefix, "op %s: field \"%s%s\": ", c->op, c->path, field);
    else
        snprintf(prefix, sizeof prefix, "field \"%s%s\": ", c->path, field);
    va_list ap;
    va_start(ap, fmt);
    vset(c->msg, sizeof c->msg, prefix, fmt, ap);
    va_end(ap);
    return SCN_ERROR;
}

int scn_mismatch(ctx_t *c, const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "op %s: ", c->op);
    va_list ap;
    va_start(ap, fmt);
    vset(c->msg, sizeof c->msg, prefix, fmt, ap);
    va_end(ap);
    return SCN_FAIL;
}

int scn_unavailable(ctx_t *c, const char *what, const char *feature)
{
    if (feature)
        return scn_bad(c, "%s%snot available yet (arrives with %s)", what ? what : "", what ? ": " : "", feature);
    return scn_bad(c, "%s%snot available on the model engine yet", what ? what : "", what ? ": " : "");
}

int scn_refused(ctx_t *c, int rc, const char *what)
{
    if (rc == -EOPNOTSUPP) {
        if (scn_engine_is_model(c))
            return scn_unavailable(c, NULL, NULL);
        return scn_bad(c, "not available yet: the device answered EOPNOTSUPP%s%s", what ? " to " : "",
                       what ? what : "");
    }
    return scn_mismatch(c, "expected %s to succeed, got %s (%s)", what ? what : "the call", scn_errno_name(rc),
                        strerror(-rc));
}

int scn_expect_rc(ctx_t *c, int rc, int want, const char *what)
{
    char f[96];
    snprintf(f, sizeof f, "%s returned", what);
    scn_observe(c, f, "%s", scn_errno_name(rc));
    if (rc == want)
        return 0;
    if (rc == -EOPNOTSUPP && want != -EOPNOTSUPP && scn_engine_is_model(c))
        return scn_unavailable(c, NULL, NULL);
    return scn_mismatch(c, "expected %s to return %s, got %s", what, scn_errno_name(want), scn_errno_name(rc));
}

void scn_note(ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note, sizeof c->note, fmt, ap);
    va_end(ap);
}

int scn_load_error(char *err, size_t n, const char *file, unsigned line, const char *fmt, ...)
{
    if (err && n) {
        char prefix[600];
        if (line)
            snprintf(prefix, sizeof prefix, "%s:%u: ", file, line);
        else
            snprintf(prefix, sizeof prefix, "%s: ", file);
        va_list ap;
        va_start(ap, fmt);
        vset(err, n, prefix, fmt, ap);
        va_end(ap);
    }
    return SCN_ERROR;
}

void scn_suggest(const char *w, size_t wl, const char *const *names, size_t n, char *out, size_t outlen)
{
    out[0] = 0;
    unsigned best = 3;
    for (size_t k = 0; k < n; k++) {
        const char *p = names[k];
        size_t l = strlen(p);
        if (!l || l >= 40 || wl >= 40)
            continue;
        unsigned d[41][41];
        for (size_t i = 0; i <= wl; i++)
            d[i][0] = (unsigned)i;
        for (size_t j = 0; j <= l; j++)
            d[0][j] = (unsigned)j;
        for (size_t i = 1; i <= wl; i++)
            for (size_t j = 1; j <= l; j++) {
                unsigned sub = d[i - 1][j - 1] + (w[i - 1] != p[j - 1]);
                unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
                d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            }
        if (d[wl][l] < best) {
            best = d[wl][l];
            snprintf(out, outlen, " (did you mean \"%s\"?)", p);
        }
    }
}
