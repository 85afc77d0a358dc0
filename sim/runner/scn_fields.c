/* scn_fields.c — the field checks the schema drives (unknown fields,
 * variants, required fields) and the readers of scalar fields. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

/* ================================================================ fields by the schema */

void scn_ctx_op(ctx_t *c, const op_line_t *l)
{
    c->line = l->line;
    c->op = scn_ops[l->op].name;
    c->note[0] = 0;
    c->path[0] = 0;
    c->schema = &scn_ops[l->op].schema;
    c->variant = -1;
}

/* The member is the top-level "op" (every op line has it; the schema lists the rest). */
static int is_op_key(const ctx_t *c, const json_member_t *m)
{
    return !c->path[0] && m->key_len == 2 && !memcmp(m->key, "op", 2);
}

static const scn_field_t *in_list(const scn_field_t *f, const char *k, size_t kl)
{
    for (; f && f->name; f++)
        if (strlen(f->name) == kl && !memcmp(f->name, k, kl))
            return f;
    return NULL;
}

/* Field k (kl bytes) of the current schema: its common fields, then the picked
 * variant's, or every variant's while none is picked. */
static const scn_field_t *lookup(const ctx_t *c, const char *k, size_t kl)
{
    const scn_schema_t *s = c->schema;
    const scn_field_t *f = in_list(s->fields, k, kl);
    for (unsigned v = 0; !f && v < s->nvariants; v++)
        if (c->variant < 0 || (unsigned)c->variant == v)
            f = in_list(s->variants[v].fields, k, kl);
    return f;
}

/* The names the current object may hold, in schema order, once each ("op" first at the top level). */
static size_t known_names(const ctx_t *c, const char **names, size_t cap)
{
    size_t n = 0;
    if (!c->path[0])
        names[n++] = "op";
    const scn_schema_t *s = c->schema;
    for (int v = -1; v < (int)s->nvariants; v++) {
        if (v >= 0 && c->variant >= 0 && v != c->variant)
            continue;
        for (const scn_field_t *f = v < 0 ? s->fields : s->variants[v].fields; f && f->name; f++) {
            size_t i = 0;
            while (i < n && strcmp(names[i], f->name))
                i++;
            if (i == n && n < cap)
                names[n++] = f->name;
        }
    }
    return n;
}

int scn_fields_known(ctx_t *c, const json_value_t *o)
{
    for (size_t i = 0; i < o->u.object.n; i++) {
        const json_member_t *m = &o->u.object.members[i];
        if (is_op_key(c, m) || lookup(c, m->key, m->key_len))
            continue;
        const char *names[64];
        size_t n = known_names(c, names, 64);
        char hint[96];
        scn_suggest(m->key, m->key_len, names, n, hint, sizeof hint);
        return scn_bad_field(c, m->key, "unknown field%s", hint);
    }
    return 0;
}

/* A handler reads a field other than the schema says: a bug of this program. */
static void schema_bug(const ctx_t *c, const char *k, const char *why)
{
    fprintf(stderr, "scenario runner bug: op %s, field \"%s%s\": %s\n", c->op ? c->op : "?", c->path, k, why);
    abort();
}

int scn_variant(ctx_t *c, const json_value_t *o, unsigned v)
{
    const scn_schema_t *s = c->schema;
    c->variant = (int)v;
    if (!s->chosen_by)
        return 0;
    for (size_t i = 0; i < o->u.object.n; i++) {
        const json_member_t *m = &o->u.object.members[i];
        if (is_op_key(c, m) || lookup(c, m->key, m->key_len))
            continue;
        if (!s->refusal_lists)
            return scn_bad_field(c, m->key, "does not apply to %s %s", s->chosen_by, s->variants[v].name);
        char takes[256] = "";
        for (const scn_field_t *f = s->variants[v].fields; f->name; f++)
            snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s", takes[0] ? " " : "", f->name);
        return scn_bad_field(c, m->key, "does not apply to %s %s (it takes: %s)", s->chosen_by, s->variants[v].name,
                             takes);
    }
    return 0;
}

int scn_takes(ctx_t *c, const char *k)
{
    return lookup(c, k, strlen(k)) != NULL;
}

const scn_field_t *scn_schema_field(ctx_t *c, const char *k)
{
    const scn_field_t *f = lookup(c, k, strlen(k));
    if (!f)
        schema_bug(c, k, "read, but the schema does not list it");
    return f;
}

static const char *const kind_missing[K_KINDS] = {
    [K_INT] = "an integer",          [K_BOOL] = "true or false",
    [K_HEX] = "a string",            [K_ERRNO] = "a string",
    [K_CHOICE] = "a string",         [K_FILL] = "a string",
    [K_ENUM] = NULL,                 [K_FLAGS] = "a list of names",
    [K_BIND] = "the name this op binds", [K_NAME] = NULL, /* "a KIND name" */
    [K_KEY] = "a key reference",     [K_SGES] = "a list of SGEs",
    [K_OBJECT] = NULL,               [K_LIST] = NULL,
};

static int missing(ctx_t *c, const scn_field_t *f)
{
    const char *what = f->missing ? f->missing : kind_missing[f->kind];
    if (!f->missing && f->kind == K_NAME)
        return scn_bad_field(c, f->name, "missing (a %s name)", scn_sym_kind_name((sym_kind_t)f->sym));
    if (what)
        return scn_bad_field(c, f->name, "missing (%s)", what);
    return scn_bad_field(c, f->name, "missing");
}

int scn_require(ctx_t *c, const json_value_t *o)
{
    const scn_schema_t *s = c->schema;
    for (int v = -1; v < (int)s->nvariants; v++) {
        if (v >= 0 && v != c->variant)
            continue;
        for (const scn_field_t *f = v < 0 ? s->fields : s->variants[v].fields; f && f->name; f++)
            if (f->req && !json_get(o, f->name))
                return missing(c, f);
    }
    return 0;
}

static const char *const kind_names[K_KINDS] = {
    "K_INT", "K_BOOL", "K_HEX", "K_ERRNO", "K_CHOICE", "K_FILL", "K_ENUM",
    "K_FLAGS", "K_BIND", "K_NAME", "K_KEY", "K_SGES", "K_OBJECT", "K_LIST",
};

const json_value_t *scn_field(ctx_t *c, const json_value_t *o, const char *k, scn_kind_t kind, int *rc)
{
    const scn_field_t *f = lookup(c, k, strlen(k));
    if (f && f->kind != kind) {
        char why[96];
        snprintf(why, sizeof why, "read as %s, the schema says %s", kind_names[kind], kind_names[f->kind]);
        schema_bug(c, k, why);
    }
    const json_value_t *v = json_get(o, k);
    if (v && !f)
        schema_bug(c, k, "read, but the schema does not list it");
    *rc = !v && f && f->req ? missing(c, f) : 0;
    return v;
}

void scn_enter(ctx_t *c, const char *k, size_t idx, int indexed, scn_frame_t *saved)
{
    const scn_field_t *f = lookup(c, k, strlen(k));
    if (!f || !f->sub)
        schema_bug(c, k, "entered, but the schema gives it no fields");
    strcpy(saved->path, c->path);
    saved->schema = c->schema;
    saved->variant = c->variant;
    size_t l = strlen(c->path);
    if (indexed)
        snprintf(c->path + l, sizeof c->path - l, "%s[%zu].", k, idx);
    else
        snprintf(c->path + l, sizeof c->path - l, "%s.", k);
    c->schema = f->sub;
    c->variant = -1;
}

void scn_leave(ctx_t *c, const scn_frame_t *saved)
{
    strcpy(c->path, saved->path);
    c->schema = saved->schema;
    c->variant = saved->variant;
}

int scn_need_object(ctx_t *c, const json_value_t *v, const char *k)
{
    if (v->type != JSON_OBJECT)
        return scn_bad_field(c, k, "expected an object, got %s", json_type_phrase(v->type));
    return 0;
}

const json_value_t *scn_object_field(ctx_t *c, const json_value_t *o, const char *k, int *rc)
{
    const json_value_t *v = scn_field(c, o, k, K_OBJECT, rc);
    if (v && (*rc = scn_need_object(c, v, k)))
        return NULL;
    return v;
}

int scn_need_array(ctx_t *c, const json_value_t *v, const char *k, size_t min, size_t max)
{
    if (v->type != JSON_ARRAY)
        return scn_bad_field(c, k, "expected a list, got %s", json_type_phrase(v->type));
    if (v->u.array.n < min || v->u.array.n > max)
        return scn_bad_field(c, k, "%zu entries, expected %zu..%zu", v->u.array.n, min, max);
    return 0;
}

/* ================================================================ readers */

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
        return scn_bad_field(c, k, "expected an integer, got %s", json_type_phrase(v->type));
    }
    if (x < min || x > max) { /* the value as the user wrote it: a decimal literal, or the string */
        char a[64], b[24], d[24];
        if (v->type == JSON_STRING)
            snprintf(a, sizeof a, "\"%.40s\"", v->u.string.s);
        else
            snprintf(a, sizeof a, "%" PRIu64, x);
        fmt_u64(b, sizeof b, min);
        fmt_u64(d, sizeof d, max);
        return scn_bad_field(c, k, "%s is out of range %s..%s", a, b, d);
    }
    *out = x;
    return 0;
}

int scn_int(ctx_t *c, const json_value_t *o, const char *k, uint64_t min, uint64_t max, uint64_t *out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_INT, &rc);
    return v ? scn_int_value(c, v, k, min, max, out) : rc;
}

int scn_bool(ctx_t *c, const json_value_t *o, const char *k, int *out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_BOOL, &rc);
    if (!v)
        return rc;
    if (v->type != JSON_BOOL)
        return scn_bad_field(c, k, "expected true or false, got %s", json_type_phrase(v->type));
    *out = v->u.boolean;
    return 0;
}

/* A field held as a string (hex, errno, choice, fill). */
static int str_field(ctx_t *c, const json_value_t *o, const char *k, scn_kind_t kind, const char **out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, kind, &rc);
    if (!v)
        return rc;
    if (v->type != JSON_STRING)
        return scn_bad_field(c, k, "expected a string, got %s", json_type_phrase(v->type));
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

int scn_choice(ctx_t *c, const json_value_t *o, const char *k, const char *const *names, unsigned *out)
{
    const char *s = NULL;
    int rc = str_field(c, o, k, K_CHOICE, &s);
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
        return scn_bad_field(c, k, "expected a name (a string), got %s", json_type_phrase(v->type));
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

int scn_enum(ctx_t *c, const json_value_t *o, const char *k, const char *(*name)(unsigned), unsigned max,
             unsigned *out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_ENUM, &rc);
    return v ? scn_enum_value(c, v, k, name, max, out) : rc;
}

int scn_flags(ctx_t *c, const json_value_t *o, const char *k, const char *(*bit_name)(unsigned), unsigned width,
              uint32_t *out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_FLAGS, &rc);
    if (!v)
        return rc;
    if (v->type != JSON_ARRAY)
        return scn_bad_field(c, k, "expected a list of names, got %s", json_type_phrase(v->type));
    uint32_t mask = 0;
    for (size_t i = 0; i < v->u.array.n; i++) {
        char ik[64];
        snprintf(ik, sizeof ik, "%s[%zu]", k, i);
        unsigned b;
        if ((rc = scn_enum_value(c, v->u.array.items[i], ik, bit_name, width - 1, &b)))
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

int scn_errno(ctx_t *c, const json_value_t *o, const char *k, int *out)
{
    const char *s = NULL;
    int rc = str_field(c, o, k, K_ERRNO, &s);
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

int scn_hex(ctx_t *c, const json_value_t *o, const char *k, uint8_t **bytes, size_t *len)
{
    const char *s = NULL;
    int rc = str_field(c, o, k, K_HEX, &s);
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

int scn_fill(ctx_t *c, const json_value_t *o, const char *k, unsigned *kind, uint8_t *byte)
{
    static const char *const names[] = {"zero", "random", "pattern", NULL};
    const char *s = NULL;
    *kind = 0;
    int rc = str_field(c, o, k, K_FILL, &s);
    if (rc || !s)
        return rc;
    if (!strncmp(s, "byte:", 5)) {
        json_value_t tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.type = JSON_STRING;
        tmp.u.string.s = s + 5;
        tmp.u.string.len = strlen(s + 5);
        uint64_t b = 0;
        if ((rc = scn_int_value(c, &tmp, k, 0, 0xff, &b)))
            return rc;
        *kind = 3;
        *byte = (uint8_t)b;
        return 0;
    }
    for (unsigned i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) {
            *kind = i;
            return 0;
        }
    return scn_bad_field(c, k, "\"%.40s\" is not one of zero, random, pattern, byte:0xNN", s);
}
