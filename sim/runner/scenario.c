/* scenario.c — loading and validating scenario files, the field readers and
 * names every op handler uses, and the run loop (device, time, CQ watching,
 * invariants, results). The ops themselves are in scenario_ops.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "elf_syms.h"
#include "scenario_int.h"
#include "xu.h"

/* ================================================================ diagnostics */

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

void scn_note(ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->note, sizeof c->note, fmt, ap);
    va_end(ap);
}

/* ================================================================ names */

static const char *const kind_names[SYM_KINDS] = {"pd", "cq", "qp", "buffer", "mr", "page list", "peer client"};

const char *scn_sym_kind_name(sym_kind_t k)
{
    return k < SYM_KINDS ? kind_names[k] : "?";
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int sym_find(const scn_t *s, const char *name, size_t len)
{
    if (!s->hashcap)
        return -1;
    for (size_t i = fnv1a(name, len) & (s->hashcap - 1);; i = (i + 1) & (s->hashcap - 1)) {
        int id = s->hash[i];
        if (id < 0)
            return -1;
        if (strlen(s->syms[id].name) == len && !memcmp(s->syms[id].name, name, len))
            return id;
    }
}

static int sym_add(scn_t *s, const char *name, size_t len, sym_kind_t kind, unsigned line)
{
    if (s->nsyms == s->capsyms) {
        size_t nc = s->capsyms ? 2 * s->capsyms : 32;
        sym_t *n = realloc(s->syms, nc * sizeof *n);
        if (!n)
            return -1;
        s->syms = n;
        s->capsyms = nc;
    }
    if (2 * (s->nsyms + 1) > s->hashcap) {
        size_t nc = s->hashcap ? 2 * s->hashcap : 64;
        int *h = malloc(nc * sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < nc; i++)
            h[i] = -1;
        for (size_t id = 0; id < s->nsyms; id++) {
            size_t i = fnv1a(s->syms[id].name, strlen(s->syms[id].name)) & (nc - 1);
            while (h[i] >= 0)
                i = (i + 1) & (nc - 1);
            h[i] = (int)id;
        }
        free(s->hash);
        s->hash = h;
        s->hashcap = nc;
    }
    sym_t *y = &s->syms[s->nsyms];
    memset(y, 0, sizeof *y);
    if (!(y->name = malloc(len + 1)))
        return -1;
    memcpy(y->name, name, len);
    y->name[len] = 0;
    y->kind = kind;
    y->line = line;
    size_t i = fnv1a(name, len) & (s->hashcap - 1);
    while (s->hash[i] >= 0)
        i = (i + 1) & (s->hashcap - 1);
    s->hash[i] = (int)s->nsyms;
    return (int)s->nsyms++;
}

static int name_of(ctx_t *c, const json_value_t *v, const char *k, const char **name, size_t *len)
{
    if (v->type != JSON_STRING)
        return scn_bad_field(c, k, "expected a name (a string), got a %s", json_type_name(v->type));
    size_t n = v->u.string.len;
    if (n < 1 || n > 64)
        return scn_bad_field(c, k, "a name has 1 to 64 characters");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v->u.string.s[i] <= ' ' || (unsigned char)v->u.string.s[i] == 0x7f)
            return scn_bad_field(c, k, "a name has no spaces or control characters");
    *name = v->u.string.s;
    *len = n;
    return 0;
}

int scn_bind(ctx_t *c, const json_value_t *o, const char *k, sym_kind_t kind, int *id)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return scn_bad_field(c, k, "missing (the name this op binds)");
    const char *name;
    size_t len;
    int rc = name_of(c, v, k, &name, &len);
    if (rc)
        return rc;
    int found = sym_find(c->s, name, len);
    if (c->run) { /* validated: bound by this very line */
        *id = found;
        return 0;
    }
    if (found >= 0)
        return scn_bad_field(c, k, "\"%s\" is already bound (a %s, line %u)", name,
                             scn_sym_kind_name(c->s->syms[found].kind), c->s->syms[found].line);
    if ((*id = sym_add(c->s, name, len, kind, c->line)) < 0)
        return scn_bad(c, "out of memory");
    return 0;
}

int scn_ref_value(ctx_t *c, const json_value_t *v, const char *k, sym_kind_t kind, int *id)
{
    const char *name;
    size_t len;
    int rc = name_of(c, v, k, &name, &len);
    if (rc)
        return rc;
    int found = sym_find(c->s, name, len);
    if (!c->run) {
        if (found < 0)
            return scn_bad_field(c, k, "\"%s\" is not bound by any earlier line", name);
        const sym_t *y = &c->s->syms[found];
        if (y->kind != kind)
            return scn_bad_field(c, k, "\"%s\" is a %s (line %u), expected a %s", name, scn_sym_kind_name(y->kind),
                                 y->line, scn_sym_kind_name(kind));
    }
    *id = found;
    return 0;
}

int scn_ref(ctx_t *c, const json_value_t *o, const char *k, int req, sym_kind_t kind, int *id)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (a %s name)", scn_sym_kind_name(kind)) : 0;
    return scn_ref_value(c, v, k, kind, id);
}

/* ================================================================ field readers */

/* Closest of the space-separated words to w (edit distance <= 2), for "did you mean". */
static void suggest(const char *w, size_t wl, const char *words, char *out, size_t n)
{
    out[0] = 0;
    unsigned best = 3;
    for (const char *p = words; *p;) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        size_t l = (size_t)(e - p);
        if (l && l < 40 && wl < 40) {
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
                snprintf(out, n, " (did you mean \"%.*s\"?)", (int)l, p);
            }
        }
        p = e;
    }
}

static int word_in(const char *w, size_t wl, const char *words)
{
    for (const char *p = words; *p;) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if ((size_t)(e - p) == wl && wl && !memcmp(p, w, wl))
            return 1;
        p = e;
    }
    return 0;
}

int scn_fields_known(ctx_t *c, const json_value_t *o, const char *allowed)
{
    for (size_t i = 0; i < o->u.object.n; i++) {
        const json_member_t *m = &o->u.object.members[i];
        if (!word_in(m->key, m->key_len, allowed)) {
            char hint[96];
            suggest(m->key, m->key_len, allowed, hint, sizeof hint);
            return scn_bad_field(c, m->key, "unknown field%s", hint);
        }
    }
    return 0;
}

static int parse_int_string(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (n - 2 > 16)
            return -ERANGE;
        for (size_t i = 2; i < n; i++) {
            char ch = s[i];
            unsigned d;
            if (ch >= '0' && ch <= '9')
                d = (unsigned)(ch - '0');
            else if (ch >= 'a' && ch <= 'f')
                d = (unsigned)(ch - 'a' + 10);
            else if (ch >= 'A' && ch <= 'F')
                d = (unsigned)(ch - 'A' + 10);
            else
                return -EINVAL;
            v = v << 4 | d;
        }
        *out = v;
        return 0;
    }
    if (!n)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -EINVAL;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static void fmt_u64(char *b, size_t n, uint64_t v)
{
    if (v > 0xffffffffull)
        snprintf(b, n, "0x%" PRIx64, v);
    else
        snprintf(b, n, "%" PRIu64, v);
}

int scn_int_value(ctx_t *c, const json_value_t *v, const char *k, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t x = 0;
    switch (v->type) {
    case JSON_INT:
        if (v->u.integer.neg)
            return scn_bad_field(c, k, "-%" PRIu64 " is negative", v->u.integer.mag);
        x = v->u.integer.mag;
        break;
    case JSON_NUMBER:
        if (strpbrk(v->u.number.raw, ".eE"))
            return scn_bad_field(c, k, "expected an integer, got %s (write integers without fraction or exponent)",
                                 v->u.number.raw);
        return scn_bad_field(c, k, "%s is out of range (integers are 64-bit)", v->u.number.raw);
    case JSON_STRING: {
        int rc = parse_int_string(v->u.string.s, v->u.string.len, &x);
        if (rc == -ERANGE)
            return scn_bad_field(c, k, "\"%.40s\" is out of range (integers are 64-bit)", v->u.string.s);
        if (rc)
            return scn_bad_field(c, k, "\"%.40s\" is not an integer (decimal or \"0x\" hex)", v->u.string.s);
        break;
    }
    default:
        return scn_bad_field(c, k, "expected an integer, got a %s", json_type_name(v->type));
    }
    if (x < min || x > max) {
        char a[24], b[24], d[24];
        fmt_u64(a, sizeof a, x);
        fmt_u64(b, sizeof b, min);
        fmt_u64(d, sizeof d, max);
        return scn_bad_field(c, k, "%s is out of range %s..%s", a, b, d);
    }
    *out = x;
    return 0;
}

int scn_int(ctx_t *c, const json_value_t *o, const char *k, int req, uint64_t min, uint64_t max, uint64_t *out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (an integer)") : 0;
    return scn_int_value(c, v, k, min, max, out);
}

int scn_bool(ctx_t *c, const json_value_t *o, const char *k, int req, int *out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (true or false)") : 0;
    if (v->type != JSON_BOOL)
        return scn_bad_field(c, k, "expected true or false, got a %s", json_type_name(v->type));
    *out = v->u.boolean;
    return 0;
}

int scn_str(ctx_t *c, const json_value_t *o, const char *k, int req, const char **out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (a string)") : 0;
    if (v->type != JSON_STRING)
        return scn_bad_field(c, k, "expected a string, got a %s", json_type_name(v->type));
    if (strlen(v->u.string.s) != v->u.string.len)
        return scn_bad_field(c, k, "the string holds a NUL character");
    *out = v->u.string.s;
    return 0;
}

static void list_names(char *b, size_t n, const char *(*name)(unsigned), unsigned max, const char *const *names)
{
    b[0] = 0;
    for (unsigned i = 0; name ? i <= max : names[i] != NULL; i++) {
        const char *s = name ? name(i) : names[i];
        if (s && strlen(b) + strlen(s) + 3 < n)
            snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? ", " : "", s);
    }
}

int scn_choice(ctx_t *c, const json_value_t *o, const char *k, int req, const char *const *names, unsigned *out)
{
    const char *s = NULL;
    int rc = scn_str(c, o, k, req, &s);
    if (rc || !s)
        return rc;
    for (unsigned i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) {
            *out = i;
            return 0;
        }
    char all[512];
    list_names(all, sizeof all, NULL, 0, names);
    return scn_bad_field(c, k, "\"%.40s\" is not one of %s", s, all);
}

int scn_enum_value(ctx_t *c, const json_value_t *v, const char *k, const char *(*name)(unsigned), unsigned max,
                   unsigned *out)
{
    if (v->type != JSON_STRING)
        return scn_bad_field(c, k, "expected a name (a string), got a %s", json_type_name(v->type));
    for (unsigned i = 0; i <= max; i++) {
        const char *n = name(i);
        if (n && strlen(n) == v->u.string.len && !strcmp(n, v->u.string.s)) {
            *out = i;
            return 0;
        }
    }
    char all[768];
    list_names(all, sizeof all, name, max, NULL);
    return scn_bad_field(c, k, "\"%.40s\" is not one of %s", v->u.string.s, all);
}

int scn_enum(ctx_t *c, const json_value_t *o, const char *k, int req, const char *(*name)(unsigned), unsigned max,
             unsigned *out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing") : 0;
    return scn_enum_value(c, v, k, name, max, out);
}

int scn_flags(ctx_t *c, const json_value_t *o, const char *k, int req, const char *(*bit_name)(unsigned),
              unsigned width, uint32_t *out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (a list of names)") : 0;
    if (v->type != JSON_ARRAY)
        return scn_bad_field(c, k, "expected a list of names, got a %s", json_type_name(v->type));
    uint32_t mask = 0;
    for (size_t i = 0; i < v->u.array.n; i++) {
        char ik[64];
        snprintf(ik, sizeof ik, "%s[%zu]", k, i);
        unsigned b;
        int rc = scn_enum_value(c, v->u.array.items[i], ik, bit_name, width - 1, &b);
        if (rc)
            return rc;
        if (mask & (1u << b))
            return scn_bad_field(c, ik, "%s is listed twice", bit_name(b));
        mask |= 1u << b;
    }
    *out = mask;
    return 0;
}

static const struct {
    const char *name;
    int value;
} errno_names[] = {
    {"OK", 0},         {"EINVAL", EINVAL},   {"ENOMEM", ENOMEM},       {"EBUSY", EBUSY},
    {"ENOENT", ENOENT}, {"EFAULT", EFAULT},  {"EOPNOTSUPP", EOPNOTSUPP}, {"EIO", EIO},
    {"ETIMEDOUT", ETIMEDOUT}, {"ENOTCONN", ENOTCONN}, {"ENOSPC", ENOSPC}, {"EPERM", EPERM},
    {"EAGAIN", EAGAIN}, {"EEXIST", EEXIST},  {"ERANGE", ERANGE},       {"ENOSYS", ENOSYS},
};

const char *scn_errno_name(int neg)
{
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
        if (-errno_names[i].value == neg)
            return errno_names[i].name;
    return "E?";
}

int scn_errno(ctx_t *c, const json_value_t *o, const char *k, int req, int *out)
{
    const char *s = NULL;
    int rc = scn_str(c, o, k, req, &s);
    if (rc || !s)
        return rc;
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
        if (!strcmp(s, errno_names[i].name)) {
            *out = -errno_names[i].value;
            return 0;
        }
    char all[512] = "";
    for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", errno_names[i].name);
    return scn_bad_field(c, k, "\"%.40s\" is not one of %s", s, all);
}

int scn_hex(ctx_t *c, const json_value_t *o, const char *k, int req, uint8_t **bytes, size_t *len)
{
    const char *s = NULL;
    int rc = scn_str(c, o, k, req, &s);
    if (rc || !s)
        return rc;
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '_')
            continue;
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
            return scn_bad_field(c, k, "'%c' is not a hex digit (spaces and '_' may separate bytes)", *p);
        n++;
    }
    if (n % 2)
        return scn_bad_field(c, k, "odd number of hex digits (%zu)", n);
    uint8_t *b = malloc(n / 2 + 1);
    if (!b)
        return scn_bad(c, "out of memory");
    size_t j = 0;
    unsigned acc = 0, half = 0;
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '_')
            continue;
        unsigned d = *p <= '9' ? (unsigned)(*p - '0') : (unsigned)((*p | 0x20) - 'a' + 10);
        acc = acc << 4 | d;
        if (++half == 2) {
            b[j++] = (uint8_t)acc;
            acc = half = 0;
        }
    }
    *bytes = b;
    *len = j;
    return 0;
}

/* ================================================================ loading */

static int load_error(char *err, size_t n, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int load_error(char *err, size_t n, const char *file, unsigned line, const char *fmt, ...)
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

void scn_free(scn_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nops; i++)
        json_free(s->ops[i].doc);
    for (size_t i = 0; i < s->nsyms; i++)
        free(s->syms[i].name);
    free(s->ops);
    free(s->syms);
    free(s->hash);
    free(s->file);
    free(s);
}

size_t scn_op_count(const scn_t *s)
{
    return s ? s->nops : 0;
}

static char *all_ops_words(void)
{
    static char words[1024];
    if (!words[0])
        for (size_t i = 0; i < scn_nops; i++)
            snprintf(words + strlen(words), sizeof words - strlen(words), "%s ", scn_ops[i].name);
    return words;
}

int scn_load_text(const char *name, const char *text, size_t len, scn_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (err && errlen)
        err[0] = 0;
    scn_t *s = calloc(1, sizeof *s);
    if (!s || !(s->file = strdup(name))) {
        free(s);
        return load_error(err, errlen, name, 0, "out of memory");
    }
    size_t capops = 0;
    unsigned line = 0;
    int rc = SCN_PASS;
    for (size_t pos = 0; pos < len && rc == SCN_PASS;) {
        line++;
        const char *b = text + pos;
        const char *nl = memchr(b, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - b) : len - pos;
        pos += n + (nl != NULL);
        if (n && b[n - 1] == '\r')
            n--;
        size_t i = 0;
        while (i < n && (b[i] == ' ' || b[i] == '\t'))
            i++;
        if (i == n || b[i] == '#')
            continue;
        json_doc_t *doc = NULL;
        json_error_t je;
        int prc = json_parse(b, n, 0, &doc, &je);
        if (prc) {
            rc = load_error(err, errlen, name, line, "not JSON: column %zu: %s", je.column, je.msg);
            break;
        }
        const json_value_t *v = json_root(doc);
        if (v->type != JSON_OBJECT) {
            json_free(doc);
            rc = load_error(err, errlen, name, line, "expected one JSON object per line, got a %s",
                            json_type_name(v->type));
            break;
        }
        const json_value_t *opv = json_get(v, "op");
        int op = -1;
        if (!opv)
            rc = load_error(err, errlen, name, line, "missing field \"op\"");
        else if (opv->type != JSON_STRING)
            rc = load_error(err, errlen, name, line, "field \"op\": expected a string, got a %s",
                            json_type_name(opv->type));
        else {
            for (size_t k = 0; k < scn_nops; k++)
                if (strlen(scn_ops[k].name) == opv->u.string.len && !strcmp(scn_ops[k].name, opv->u.string.s))
                    op = (int)k;
            if (op < 0) {
                char hint[96];
                suggest(opv->u.string.s, opv->u.string.len, all_ops_words(), hint, sizeof hint);
                rc = load_error(err, errlen, name, line, "unknown op \"%.40s\"%s", opv->u.string.s, hint);
            }
        }
        if (rc) {
            json_free(doc);
            break;
        }
        if (s->nops == capops) {
            capops = capops ? 2 * capops : 64;
            op_line_t *no = realloc(s->ops, capops * sizeof *no);
            if (!no) {
                json_free(doc);
                rc = load_error(err, errlen, name, line, "out of memory");
                break;
            }
            s->ops = no;
        }
        s->ops[s->nops++] = (op_line_t){line, op, doc, v};
    }
    /* Validation pass: every op's fields and names, in file order. */
    for (size_t i = 0; i < s->nops && rc == SCN_PASS; i++) {
        const op_line_t *l = &s->ops[i];
        ctx_t c;
        memset(&c, 0, sizeof c);
        c.s = s;
        c.line = l->line;
        c.op = scn_ops[l->op].name;
        char allowed[512];
        snprintf(allowed, sizeof allowed, "op %s", scn_ops[l->op].fields);
        if (!strcmp(c.op, "device") && i != 0)
            rc = scn_bad(&c, "must be the first op of the file (line %u comes first)", s->ops[0].line);
        if (!rc)
            rc = scn_fields_known(&c, l->v, allowed);
        if (!rc)
            rc = scn_ops[l->op].fn(&c, l->v);
        if (rc)
            load_error(err, errlen, name, l->line, "%s", c.msg);
    }
    if (rc) {
        scn_free(s);
        return SCN_ERROR;
    }
    *out = s;
    return SCN_PASS;
}

int scn_load(const char *path, scn_t **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return load_error(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return load_error(err, errlen, path, 0, "out of memory");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return load_error(err, errlen, path, 0, "read error");
    }
    int rc = scn_load_text(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}

/* ================================================================ the run */

struct run {
    const scn_run_opts_t *o;
    scn_engine_t engine; /* rtl or model for this run */
    FILE *out, *err;
    uint64_t seed;
    hca_dev_config_t cfg;
    hostmem_t *mem;
    hca_dev_t *dev;
    hcadrv_t *drv;
    int attr_valid;
    hcadrv_device_attr_t attr;
    rt_obj_t *obj;
    size_t nobj;
    wr_rec_t *wrs;
    size_t nwrs, capwrs;
    int watching; /* some CQ exists */
};

rt_obj_t *scn_obj(ctx_t *c, int id)
{
    return &c->run->obj[id];
}
sym_t *scn_sym(ctx_t *c, int id)
{
    return &c->s->syms[id];
}
hca_dev_t *scn_dev(ctx_t *c)
{
    return c->run->dev;
}
hostmem_t *scn_mem(ctx_t *c)
{
    return c->run->mem;
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
int scn_verbose(ctx_t *c)
{
    return c->run->o->verbose;
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
    if (!strcmp(key, "seed")) {
        if (!r->o->seed_set)
            r->seed = v;
    } else if (!strcmp(key, "mpt_entries"))
        r->cfg.tables.mpt_entries = (uint32_t)v;
    else if (!strcmp(key, "mtt_entries"))
        r->cfg.tables.mtt_entries = (uint32_t)v;
    else if (!strcmp(key, "host_read_latency"))
        r->cfg.host.read_latency = (uint32_t)v;
    else if (!strcmp(key, "host_write_cost"))
        r->cfg.host.write_cost = (uint32_t)v;
    else if (!strcmp(key, "host_bytes_per_cycle"))
        r->cfg.host.bytes_per_cycle = (uint32_t)v;
    else if (!strcmp(key, "link_latency"))
        r->cfg.link_latency = (uint32_t)v;
    else if (!strcmp(key, "link_bytes_per_cycle"))
        r->cfg.link_bytes_per_cycle = (uint32_t)v;
    else
        return scn_bad(c, "%s: no such device option", key);
    return 0;
}

void scn_watch(ctx_t *c)
{
    run_t *r = c->run;
    if (!r->watching)
        return;
    uint64_t now = hca_dev_cycle(r->dev);
    for (size_t id = 0; id < r->nobj; id++) {
        rt_obj_t *q = &r->obj[id];
        if (c->s->syms[id].kind != SYM_CQ || !q->live)
            continue;
        uint32_t depth = 1u << q->cq.log_depth;
        while (q->seen < depth) {
            uint32_t idx = q->cq.ci + q->seen;
            uint32_t slot = idx & (depth - 1);
            hca_cqe_t e;
            if (hostmem_read(r->mem, q->cq.base + (uint64_t)slot * sizeof e, &e, sizeof e))
                break;
            if (hca_cqe_get_owner(&e) != (((idx >> q->cq.log_depth) & 1) ^ 1))
                break;
            q->seen_cycle[slot] = now;
            q->seen++;
        }
    }
}

void scn_advance(ctx_t *c, uint64_t n)
{
    run_t *r = c->run;
    if (!r->watching) {
        hca_dev_step(r->dev, n);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        hca_dev_step(r->dev, 1);
        scn_watch(c);
    }
}

wr_rec_t *scn_add_wr(ctx_t *c, int qp, int recv, uint64_t wr_id, const char *opcode, uint32_t index)
{
    run_t *r = c->run;
    if (r->nwrs == r->capwrs) {
        size_t nc = r->capwrs ? 2 * r->capwrs : 64;
        wr_rec_t *n = realloc(r->wrs, nc * sizeof *n);
        if (!n)
            return NULL;
        r->wrs = n;
        r->capwrs = nc;
    }
    wr_rec_t *w = &r->wrs[r->nwrs++];
    *w = (wr_rec_t){c->line, qp, recv, wr_id, opcode, index, hca_dev_cycle(r->dev), 0, 0, 0};
    return w;
}

int scn_qp_by_qpn(ctx_t *c, uint32_t qpn)
{
    for (size_t id = 0; id < c->run->nobj; id++)
        if (c->s->syms[id].kind == SYM_QP && c->run->obj[id].live && c->run->obj[id].qp.qpn == qpn)
            return (int)id;
    return -1;
}

wr_rec_t *scn_find_wr(ctx_t *c, const hcadrv_wc_t *wc)
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

static const char *engine_name(scn_engine_t e)
{
    return e == SCN_ENGINE_RTL ? "rtl" : e == SCN_ENGINE_MODEL ? "model" : "both";
}

static void write_json_result(const char *path, const char *file, scn_engine_t engine, uint64_t seed,
                              uint64_t cycles, int result, unsigned fline, const char *fop, const char *fmsg,
                              const scn_t *s, const run_t *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("{\"file\":", f);
    json_write_string(f, file, strlen(file));
    fprintf(f, ",\"engine\":\"%s\",\"seed\":%" PRIu64 ",\"cycles\":%" PRIu64 ",\"result\":\"%s\",\"failure\":",
            engine_name(engine), seed, cycles, result == SCN_PASS ? "pass" : result == SCN_FAIL ? "fail" : "error");
    if (result == SCN_PASS)
        fputs("null", f);
    else {
        fprintf(f, "{\"line\":%u,\"op\":", fline);
        if (fop)
            json_write_string(f, fop, strlen(fop));
        else
            fputs("null", f);
        fputs(",\"message\":", f);
        json_write_string(f, fmsg, strlen(fmsg));
        fputc('}', f);
    }
    fputs(",\"checker\":", f);
    if (r && r->dev) {
        protcheck_stats_t ps;
        protcheck_get_stats(hca_dev_protcheck(r->dev), &ps);
        fprintf(f,
                "{\"dma\":%" PRIu64 ",\"dma_keyed\":%" PRIu64 ",\"invalidations\":%" PRIu64 ",\"registrations\":%" PRIu64
                ",\"write_pkts\":%" PRIu64 ",\"breaches\":%" PRIu64 "}",
                ps.dma_issued, ps.dma_keyed, ps.invalidations, ps.validations, ps.write_pkts, ps.violations);
    } else {
        fputs("null", f);
    }
    fputs(",\"wrs\":[", f);
    for (size_t i = 0; r && i < r->nwrs; i++) {
        const wr_rec_t *w = &r->wrs[i];
        const char *qp = s->syms[w->qp].name;
        fprintf(f, "%s{\"line\":%u,\"qp\":", i ? "," : "", w->line);
        json_write_string(f, qp, strlen(qp));
        fprintf(f, ",\"wr_id\":%" PRIu64 ",\"opcode\":\"%s\",\"post_cycle\":%" PRIu64 ",\"completion_cycle\":", w->wr_id,
                w->opcode, w->post_cycle);
        if (w->done)
            fprintf(f, "%" PRIu64 ",\"status\":\"%s\"}", w->completion_cycle,
                    hca_wc_status_name(w->status) ? hca_wc_status_name(w->status) : "?");
        else
            fputs("null,\"status\":null}", f);
    }
    fputs("]}\n", f);
    fclose(f);
}

int scn_write_load_error_json(const char *json_out, const char *file, const char *msg, scn_engine_t engine)
{
    unsigned line = 0;
    size_t fl = strlen(file);
    if (!strncmp(msg, file, fl) && msg[fl] == ':')
        line = (unsigned)strtoul(msg + fl + 1, NULL, 10);
    write_json_result(json_out, file, engine, 0, 0, SCN_ERROR, line, NULL, msg, NULL, NULL);
    return 0;
}

static void teardown(run_t *r, size_t nsyms)
{
    if (r->dev && r->o->trace)
        hca_dev_trace_close(r->dev);
    hcadrv_close(r->drv);
    hca_dev_destroy(r->dev);
    hostmem_destroy(r->mem);
    for (size_t i = 0; r->obj && i < nsyms; i++)
        free(r->obj[i].seen_cycle);
    free(r->obj);
    free(r->wrs);
}

/* Start the device at the first op that needs it. SCN_PASS or SCN_ERROR. */
static int start_device(ctx_t *c)
{
    run_t *r = c->run;
    char err[512] = "";
    r->cfg.engine = r->engine == SCN_ENGINE_MODEL ? DEV_ENGINE_MODEL : DEV_ENGINE_RTL;
    r->cfg.firmware = r->o->firmware;
    int rc = hostmem_create(&r->mem);
    if (rc)
        return scn_bad(c, "host memory: %s", strerror(-rc));
    if ((rc = hca_dev_create(&r->dev, &r->cfg, r->mem, err, sizeof err)))
        return scn_bad(c, "cannot start the device (%s engine): %s", engine_name(r->engine),
                       err[0] ? err : strerror(-rc));
    hca_host_t host = hca_dev_host(r->dev);
    if ((rc = hcadrv_open(&r->drv, &host)))
        return scn_bad(c, "driver: %s", strerror(-rc));
    if (r->o->fw_profile) { /* refuse an unwritable path now, not after the run */
        FILE *t = fopen(r->o->fw_profile, "w");
        if (!t)
            return scn_bad(c, "--fw-profile %s: %s", r->o->fw_profile, strerror(errno));
        fclose(t);
        if ((rc = hca_dev_fw_profile_start(r->dev)))
            return scn_bad(c, "--fw-profile: %s", strerror(-rc));
    }
    if (r->o->trace) {
        rc = hca_dev_trace_open(r->dev, r->o->trace, r->o->trace_from, r->o->trace_to ? r->o->trace_to : UINT64_MAX);
        if (rc)
            return scn_bad(c, "--trace %s: %s%s", r->o->trace, strerror(-rc),
                           r->engine == SCN_ENGINE_MODEL ? " (waves come from the RTL engine only)" : "");
    }
    return SCN_PASS;
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

/* --fw-profile: the firmware's busy cycles per function, most first. */
static int write_fw_profile(const char *path, hca_dev_t *dev)
{
    size_t words = 0, nf = 0;
    const uint64_t *h = hca_dev_fw_profile(dev, &words);
    elf_func_t *f = NULL;
    int rc = elf_read_functions(hca_dev_firmware(dev), &f, &nf);
    FILE *out = rc ? NULL : fopen(path, "w");
    if (rc || !out) {
        free(f);
        return rc ? rc : -errno;
    }
    uint64_t *per = calloc(nf + 1, sizeof *per), total = 0; /* per[nf]: outside every function */
    for (size_t w = 0; per && w < words; w++) {
        if (!h[w])
            continue;
        const elf_func_t *fn = elf_func_at(f, nf, HCA_FW_RAM_BASE + 4 * (uint32_t)w);
        per[fn ? (size_t)(fn - f) : nf] += h[w];
        total += h[w];
    }
    fprintf(out, "# firmware busy cycles per function (%s), %" PRIu64 " cycles sampled\n", hca_dev_firmware(dev), total);
    for (;;) { /* selection by the largest left: the list is short */
        size_t best = nf + 1;
        for (size_t i = 0; per && i <= nf; i++)
            if (per[i] && (best > nf || per[i] > per[best]))
                best = i;
        if (best > nf)
            break;
        fprintf(out, "%12" PRIu64 " %6.2f%%  %s\n", per[best], 100.0 * (double)per[best] / (double)total,
                best < nf ? f[best].name : "(outside any function)");
        per[best] = 0;
    }
    rc = per ? 0 : -ENOMEM;
    free(per);
    free(f);
    return fclose(out) || rc ? (rc ? rc : -EIO) : 0;
}

static int run_one_engine(const scn_t *cs, const scn_run_opts_t *o, scn_engine_t engine, uint64_t *cycles_out)
{
    scn_t *s = (scn_t *)cs; /* the symbol table is read only while running */
    run_t r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.engine = engine;
    r.out = o->out ? o->out : stdout;
    r.err = o->err ? o->err : stderr;
    r.seed = o->seed_set ? o->seed : 1;
    r.nobj = s->nsyms;
    r.obj = calloc(s->nsyms ? s->nsyms : 1, sizeof *r.obj);
    int rc = r.obj ? SCN_PASS : SCN_ERROR;
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.run = &r;
    unsigned fline = 0;
    const char *fop = NULL;
    if (!r.obj)
        snprintf(c.msg, sizeof c.msg, "out of memory");
    for (size_t i = 0; i < s->nops && rc == SCN_PASS; i++) {
        const op_line_t *l = &s->ops[i];
        c.line = l->line;
        c.op = scn_ops[l->op].name;
        c.note[0] = 0;
        c.path[0] = 0;
        fline = l->line;
        fop = c.op;
        if (!r.dev && strcmp(c.op, "device") && (rc = start_device(&c)))
            break;
        rc = scn_ops[l->op].fn(&c, l->v);
        if (r.dev) {
            if (!strcmp(c.op, "create_cq") && rc == SCN_PASS)
                r.watching = 1;
            scn_watch(&c);
            if (rc == SCN_PASS)
                rc = check_invariants(&c);
        }
        if (o->verbose)
            fprintf(r.out, "cycle %10" PRIu64 "  line %4u  %-24s %s%s%s\n", r.dev ? hca_dev_cycle(r.dev) : 0, l->line,
                    c.op, rc == SCN_PASS ? "ok" : rc == SCN_FAIL ? "MISMATCH" : "ERROR", c.note[0] ? "  " : "",
                    rc == SCN_PASS ? c.note : "");
    }
    if (!r.dev && rc == SCN_PASS) { /* a file with no op but `device` still boots the device */
        c.op = "device";
        rc = start_device(&c);
    }
    uint64_t cycles = r.dev ? hca_dev_cycle(r.dev) : 0;
    fflush(r.out); /* the reason comes before the summary, also when both go to one pipe */
    if (rc) {
        fprintf(r.err, "%s:%u: %s\n", s->file, fline, c.msg);
        fflush(r.err);
    }
    if (rc && o->verbose && r.dev) { /* what the firmware said, for the diagnosis (its last lines) */
        const char *con = hca_dev_console(r.dev);
        size_t n = con ? strlen(con) : 0, from = n > 4000 ? n - 4000 : 0;
        while (from > 0 && con[from - 1] != '\n')
            from++;
        fprintf(r.out, "firmware: %" PRIu64 " instructions retired, busy %" PRIu64 " of %" PRIu64 " cycles; console (%s):\n",
                hca_dev_fw_instret(r.dev), hca_dev_fw_busy_cycles(r.dev), hca_dev_cycle(r.dev),
                from ? "its last lines" : "all of it");
        for (const char *p = con + from; p && *p;) {
            const char *e = strchr(p, '\n');
            int len = e ? (int)(e - p) : (int)strlen(p);
            fprintf(r.out, "  fw| %.*s\n", len, p);
            p = e ? e + 1 : p + len;
        }
    }
    if (r.dev) { /* what the protection checker watched: a pass means as much as this */
        protcheck_stats_t ps;
        protcheck_get_stats(hca_dev_protcheck(r.dev), &ps);
        fprintf(r.out,
                "checker: %" PRIu64 " engine DMAs watched (%" PRIu64 " through a key), %" PRIu64 " key invalidations and %" PRIu64
                " registrations followed, %" PRIu64 " WRITE packets, %" PRIu64 " breaches\n",
                ps.dma_issued, ps.dma_keyed, ps.invalidations, ps.validations, ps.write_pkts, ps.violations);
    }
    fprintf(r.out, "%s %s: %zu ops, %" PRIu64 " cycles, engine %s, seed %" PRIu64 "%s\n",
            rc == SCN_PASS ? "PASS" : rc == SCN_FAIL ? "FAIL" : "ERROR", s->file, s->nops, cycles,
            engine_name(engine), r.seed, rc == SCN_PASS ? "" : rc == SCN_FAIL ? " (stopped at the first mismatch)" : "");
    if (o->json_out)
        write_json_result(o->json_out, s->file, engine, r.seed, cycles, rc, fline, fop, c.msg, s, &r);
    if (o->fw_profile && r.dev) {
        int prc = write_fw_profile(o->fw_profile, r.dev);
        if (prc)
            fprintf(r.err, "%s: --fw-profile %s: %s\n", s->file, o->fw_profile, strerror(-prc));
        else
            fprintf(r.out, "firmware profile: %s\n", o->fw_profile);
    }
    teardown(&r, s->nsyms);
    if (cycles_out)
        *cycles_out = cycles;
    return rc;
}

int scn_run(const scn_t *s, const scn_run_opts_t *o)
{
    if (o->engine == SCN_ENGINE_BOTH) {
        FILE *err = o->err ? o->err : stderr;
        fprintf(err, "%s: --engine both: not available yet (arrives with the model's WQE engine and the "
                     "lockstep comparison)\n", s->file);
        if (o->json_out)
            scn_write_load_error_json(o->json_out, s->file, "--engine both: not available yet", o->engine);
        return SCN_ERROR;
    }
    return run_one_engine(s, o, o->engine, NULL);
}
